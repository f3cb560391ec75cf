/* The loopback test controller (ctl_loop.h). */
#include "ctl_loop.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "pof_conn.h"

struct ctl ctl = {.lfd = -1, .fd = -1};

uint16_t ctl_listen(void)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t al = sizeof(a);
    ctl.lfd = socket(AF_INET, SOCK_STREAM, 0);
    if (ctl.lfd < 0 || bind(ctl.lfd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(ctl.lfd, 1) < 0 ||
        getsockname(ctl.lfd, (struct sockaddr *)&a, &al) < 0)
        return 0;
    return ntohs(a.sin_port);
}

bool ctl_accept(struct pof_sw *sw)
{
    ctl.sw = sw;
    ctl.in_len = ctl.consumed = 0;
    for (int i = 0; i < 500; i++) { /* the switch redials after its backoff (0.5 s at first) */
        pof_conn_service(sw->conn, pof_now_ns());
        struct pollfd p = {.fd = ctl.lfd, .events = POLLIN};
        if (poll(&p, 1, 10) == 1) {
            ctl.fd = accept(ctl.lfd, NULL, NULL);
            pof_conn_service(sw->conn, pof_now_ns()); /* connected: it sends its HELLO */
            return ctl.fd >= 0;
        }
    }
    return false;
}

void ctl_pump(int ms)
{
    struct pollfd p = {.fd = ctl.fd, .events = POLLIN};
    pof_conn_service(ctl.sw->conn, pof_now_ns());
    poll(&p, 1, ms);
    pof_conn_service(ctl.sw->conn, pof_now_ns());
}

void ctl_send(const struct pof_msg *m)
{
    static uint8_t out[65536];
    int n = pof_encode(m, out, sizeof(out));
    if (n > 0)
        ctl_send_raw(out, (size_t)n);
}

void ctl_send_raw(const uint8_t *raw, size_t n)
{
    if (send(ctl.fd, raw, n, MSG_NOSIGNAL) != (ssize_t)n)
        fprintf(stderr, "ctl: send failed\n");
}

uint32_t ctl_simple(uint8_t type)
{
    struct pof_msg m = {.hdr = {.type = type, .xid = ++ctl.xid}};
    ctl_send(&m);
    return ctl.xid;
}

/* Reads what the switch sent so far; false once it closed. */
static bool fill(void)
{
    ssize_t r = recv(ctl.fd, ctl.in + ctl.in_len, sizeof(ctl.in) - ctl.in_len, MSG_DONTWAIT);
    if (r > 0)
        ctl.in_len += (size_t)r;
    return r != 0;
}

int ctl_recv(void)
{
    memmove(ctl.in, ctl.in + ctl.consumed, ctl.in_len - ctl.consumed);
    ctl.in_len -= ctl.consumed;
    ctl.consumed = 0;
    for (int tries = 0; tries < 200; tries++) {
        if (ctl.in_len >= POF_HEADER_LEN) {
            size_t len = (size_t)ctl.in[2] << 8 | ctl.in[3];
            if (len >= POF_HEADER_LEN && ctl.in_len >= len) {
                struct pof_status st;
                ctl.consumed = len;
                return pof_decode(ctl.in, len, &ctl.msg, &st);
            }
        }
        ctl_pump(10);
        fill();
    }
    return -1;
}

int ctl_recv_type(uint8_t type)
{
    for (int i = 0; i < 20; i++)
        if (ctl_recv() == 0 && ctl.msg.hdr.type == type)
            return 0;
    return -1;
}

bool ctl_handshake(const uint8_t *set_config, size_t set_config_len, struct pof_switch_config *config,
                   struct pof_resource_report *resources, int nports, struct pof_port *ports)
{
    if (ctl_recv_type(POFT_HELLO) < 0)
        return false;
    ctl_simple(POFT_HELLO);
    ctl_simple(POFT_FEATURES_REQUEST);
    if (ctl_recv_type(POFT_FEATURES_REPLY) < 0)
        return false;
    if (set_config) {
        ctl_send_raw(set_config, set_config_len);
    } else {
        struct pof_msg m = {.hdr = {.type = POFT_SET_CONFIG, .xid = ++ctl.xid}};
        m.u.config = (struct pof_switch_config){.dev_id = ctl.msg.u.features.dev_id, .miss_send_len = 128};
        ctl_send(&m);
    }
    ctl_simple(POFT_GET_CONFIG_REQUEST);
    if (ctl_recv_type(POFT_GET_CONFIG_REPLY) < 0)
        return false;
    if (config)
        *config = ctl.msg.u.config;
    if (ctl_recv_type(POFT_RESOURCE_REPORT) < 0)
        return false;
    if (resources)
        *resources = ctl.msg.u.resource;
    for (int i = 0; i < nports; i++) {
        if (ctl_recv_type(POFT_PORT_STATUS) < 0)
            return false;
        if (ports)
            ports[i] = ctl.msg.u.port_status.port;
    }
    return pof_conn_ready(ctl.sw->conn);
}

bool ctl_wait_eof(int ms)
{
    memmove(ctl.in, ctl.in + ctl.consumed, ctl.in_len - ctl.consumed);
    ctl.in_len -= ctl.consumed;
    ctl.consumed = 0;
    for (int waited = 0; waited < ms; waited += 10) {
        ctl_pump(10);
        if (!fill())
            return true;
    }
    return false;
}

void ctl_hang_up(void)
{
    if (ctl.fd >= 0)
        close(ctl.fd);
    ctl.fd = -1;
}

void ctl_close(void)
{
    ctl_hang_up();
    if (ctl.lfd >= 0)
        close(ctl.lfd);
    ctl.lfd = -1;
}
