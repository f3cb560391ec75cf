/* Controller address lists (pof_ctladdr.h). */
#include "pof_ctladdr.h"

#include <string.h>

static int parse_port(const char *s, size_t len, uint16_t *port)
{
    if (len == 0 || len > 5)
        return -1;
    uint32_t v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (uint32_t)(s[i] - '0');
    }
    if (v == 0 || v > 65535)
        return -1;
    *port = (uint16_t)v;
    return 0;
}

static int host_ok(const char *s, size_t len)
{
    if (len == 0 || len > POF_CTL_HOST_MAX)
        return 0;
    for (size_t i = 0; i < len; i++) {
        char ch = s[i];
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '.' ||
              ch == '-' || ch == ':'))
            return 0;
    }
    return 1;
}

int pof_ctl_addrs_parse(const char *text, struct pof_ctl_addr *out, int max, const char **why)
{
    int n = 0;
    const char *item = text;
    for (;;) {
        const char *end = strchr(item, ',');
        size_t len = end ? (size_t)(end - item) : strlen(item);
        const char *colon = NULL;
        for (size_t i = 0; i < len; i++)
            if (item[i] == ':')
                colon = item + i;
        if (len == 0) {
            *why = "an empty controller address";
            return -1;
        }
        if (!colon) {
            *why = "a controller address without :PORT";
            return -1;
        }
        if (n == max) {
            *why = "too many controller addresses";
            return -1;
        }
        size_t host_len = (size_t)(colon - item), port_len = len - host_len - 1;
        const char *host = item;
        if (host_len >= 2 && host[0] == '[' && host[host_len - 1] == ']') { /* [v6]:port, as the agents write it */
            host++;
            host_len -= 2;
        }
        if (!host_ok(host, host_len)) {
            *why = "a controller host must be 1-255 letters, digits, '.', '-' or ':'";
            return -1;
        }
        if (parse_port(colon + 1, port_len, &out[n].port) < 0) {
            *why = "a controller port must be 1-65535";
            return -1;
        }
        memcpy(out[n].host, host, host_len);
        out[n].host[host_len] = '\0';
        n++;
        if (!end)
            return n;
        item = end + 1;
    }
}
