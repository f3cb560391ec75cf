/* One probe session: requests, replies, ARP answers, percentiles (see pof_probe.h). */
#include "pof_probe.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ETH_IPV4 0x0800
#define ETH_ARP 0x0806
#define ETH_VLAN 0x8100
#define ICMP_ECHO_REPLY 0
#define ICMP_ECHO_REQUEST 8

static uint16_t get16(const uint8_t *b) { return (uint16_t)(b[0] << 8 | b[1]); }
static void put16(uint8_t *b, uint16_t v) { b[0] = (uint8_t)(v >> 8); b[1] = (uint8_t)v; }

/* The Internet checksum (RFC 1071) of n bytes. */
static uint16_t inet_csum(const uint8_t *b, size_t n)
{
    uint32_t sum = 0;
    for (size_t i = 0; i + 1 < n; i += 2)
        sum += get16(b + i);
    if (n & 1)
        sum += (uint32_t)b[n - 1] << 8;
    while (sum >> 16)
        sum = (sum & 0xFFFF) + (sum >> 16);
    return (uint16_t)~sum;
}

/* ---- parsing the management command's arguments ----------------------------------------------------- */

static int hex_digit(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* Exactly xx:xx:xx:xx:xx:xx, hex digits of either case. */
static int parse_mac(const char *s, uint8_t mac[6])
{
    if (strlen(s) != 17)
        return -1;
    for (int i = 0; i < 6; i++) {
        int hi = hex_digit(s[i * 3]), lo = hex_digit(s[i * 3 + 1]);
        if (hi < 0 || lo < 0 || (i < 5 && s[i * 3 + 2] != ':'))
            return -1;
        mac[i] = (uint8_t)(hi << 4 | lo);
    }
    return 0;
}

/* A decimal number without sign or spaces in [min, max]. */
static int parse_uint(const char *s, unsigned long long min, unsigned long long max, unsigned long long *v)
{
    char *end;
    if (*s < '0' || *s > '9' || strlen(s) > 12)
        return -1;
    errno = 0;
    *v = strtoull(s, &end, 10);
    return errno || *end || *v < min || *v > max ? -1 : 0;
}

#define MAX_WORDS 9

static int split(char *buf, char **words)
{
    int n = 0;
    char *save = NULL;
    for (char *w = strtok_r(buf, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
        if (n == MAX_WORDS)
            return MAX_WORDS + 1;
        words[n++] = w;
    }
    return n;
}

static int parse_id(const char *s, uint16_t *id, char *err, size_t errlen)
{
    unsigned long long v;
    if (parse_uint(s, 0, 65535, &v) < 0) {
        snprintf(err, errlen, "probe id must be 0-65535");
        return -1;
    }
    *id = (uint16_t)v;
    return 0;
}

/* One option "key=N": size, interval_us or count, each at most once (seen: a bit per key). */
static int parse_option(const char *w, struct pof_probe_cfg *cfg, unsigned *seen, char *err, size_t errlen)
{
    static const struct { const char *key; unsigned long long min, max; } opts[] = {
        {"size", POF_PROBE_SIZE_MIN, POF_PROBE_SIZE_MAX},
        {"interval_us", POF_PROBE_INTERVAL_MIN_US, POF_PROBE_INTERVAL_MAX_US},
        {"count", 1, POF_PROBE_COUNT_MAX},
    };
    const char *eq = strchr(w, '=');
    for (unsigned k = 0; eq && k < 3; k++) {
        if ((size_t)(eq - w) != strlen(opts[k].key) || strncmp(w, opts[k].key, (size_t)(eq - w)) != 0)
            continue;
        unsigned long long v;
        if (*seen & (1u << k)) {
            snprintf(err, errlen, "option %s given twice", opts[k].key);
            return -1;
        }
        if (parse_uint(eq + 1, opts[k].min, opts[k].max, &v) < 0) {
            snprintf(err, errlen, "%s must be %llu-%llu", opts[k].key, opts[k].min, opts[k].max);
            return -1;
        }
        *seen |= 1u << k;
        if (k == 0)
            cfg->size = (uint32_t)v;
        else if (k == 1)
            cfg->interval_us = (uint32_t)v;
        else
            cfg->count = (uint32_t)v;
        return 0;
    }
    snprintf(err, errlen, "unknown option %.32s", w);
    return -1;
}

int pof_probe_parse(const char *args, struct pof_probe_cfg *cfg, char *err, size_t errlen)
{
    char buf[512];
    char *w[MAX_WORDS + 1];
    snprintf(buf, sizeof(buf), "%s", args);
    int n = split(buf, w);
    if (n < 5 || n > 8) {
        snprintf(err, errlen, "usage: probe-start NAME ID SRC_MAC DST_MAC SRC_IP DST_IP [size=N] [interval_us=N]"
                              " [count=N]");
        return -1;
    }
    *cfg = (struct pof_probe_cfg){.size = POF_PROBE_SIZE_DEFAULT, .interval_us = POF_PROBE_INTERVAL_DEFAULT_US};
    if (parse_id(w[0], &cfg->id, err, errlen) < 0)
        return -1;
    if (parse_mac(w[1], cfg->src_mac) < 0 || (cfg->src_mac[0] & 1) ||
        !memcmp(cfg->src_mac, "\0\0\0\0\0\0", 6)) {
        snprintf(err, errlen, "SRC_MAC must be a unicast MAC address xx:xx:xx:xx:xx:xx");
        return -1;
    }
    cfg->dst_auto = strcmp(w[2], "auto") == 0;
    if (!cfg->dst_auto && parse_mac(w[2], cfg->dst_mac) < 0) {
        snprintf(err, errlen, "DST_MAC must be a MAC address xx:xx:xx:xx:xx:xx or auto");
        return -1;
    }
    /* inet_pton takes exactly four decimal parts, without leading zeros */
    if (inet_pton(AF_INET, w[3], cfg->src_ip) != 1) {
        snprintf(err, errlen, "SRC_IP must be an IPv4 address a.b.c.d");
        return -1;
    }
    if (inet_pton(AF_INET, w[4], cfg->dst_ip) != 1) {
        snprintf(err, errlen, "DST_IP must be an IPv4 address a.b.c.d");
        return -1;
    }
    unsigned seen = 0;
    for (int i = 5; i < n; i++)
        if (parse_option(w[i], cfg, &seen, err, errlen) < 0)
            return -1;
    return 0;
}

int pof_probe_parse_id(const char *args, uint16_t *id, char *err, size_t errlen)
{
    char buf[512];
    char *w[MAX_WORDS + 1];
    snprintf(buf, sizeof(buf), "%s", args);
    if (split(buf, w) != 1)
        return -2; /* the caller names its usage */
    return parse_id(w[0], id, err, errlen);
}

/* ---- requests --------------------------------------------------------------------------------------- */

void pof_probe_init(struct pof_probe *p, const struct pof_probe_cfg *cfg, uint64_t now)
{
    memset(p, 0, sizeof(*p));
    p->cfg = *cfg;
    p->next_ns = now;
    p->resolved = !cfg->dst_auto;
    p->arp_next_ns = cfg->dst_auto ? now : UINT64_MAX; /* resolving goes first */
}

uint64_t pof_probe_due_ns(const struct pof_probe *p)
{
    return !p->resolved || (p->cfg.count && p->sent >= p->cfg.count) ? UINT64_MAX : p->next_ns;
}

uint64_t pof_probe_arp_due_ns(const struct pof_probe *p)
{
    return p->arp_next_ns;
}

uint32_t pof_probe_arp_request(struct pof_probe *p, uint64_t now, uint8_t *buf)
{
    const struct pof_probe_cfg *c = &p->cfg;
    memset(buf, 0, POF_PROBE_ARP_LEN);
    memset(buf, 0xFF, 6);
    memcpy(buf + 6, c->src_mac, 6);
    put16(buf + 12, ETH_ARP);
    uint8_t *a = buf + 14;
    put16(a, 1);                           /* Ethernet */
    put16(a + 2, ETH_IPV4);
    a[4] = 6;
    a[5] = 4;
    put16(a + 6, 1);                       /* request */
    memcpy(a + 8, c->src_mac, 6);
    memcpy(a + 14, c->src_ip, 4);
    memcpy(a + 24, c->dst_ip, 4);          /* target hardware address left zero */
    p->arp_requests++;
    p->asking = true;
    p->arp_next_ns = now + POF_PROBE_ARP_RETRY_NS;
    return POF_PROBE_ARP_LEN;
}

/* Request seq is no longer awaited: lost unless its reply came. */
static void retire_oldest(struct pof_probe *p)
{
    uint64_t *t = &p->sent_ns[p->oldest % POF_PROBE_RING];
    if (*t) {
        p->lost++;
        /* the next hop may have a new address: ask again at once (0: due whatever the time), unless asking
         * already (then the retry every second goes on: no ARP per few losses while a path is down) */
        if (p->cfg.dst_auto && ++p->lost_run >= POF_PROBE_ARP_LOSSES && !p->asking) {
            p->lost_run = 0;
            p->arp_next_ns = 0;
        }
    }
    *t = 0;
    p->oldest++;
}

uint32_t pof_probe_request(struct pof_probe *p, uint64_t now, uint8_t *buf)
{
    const struct pof_probe_cfg *c = &p->cfg;
    uint64_t seq = p->sent;
    if (seq - p->oldest >= POF_PROBE_RING)
        retire_oldest(p); /* only if the loop sent faster than the ring allows */
    uint32_t ip_len = 20 + 8 + c->size;
    memcpy(buf, c->dst_mac, 6);
    memcpy(buf + 6, c->src_mac, 6);
    put16(buf + 12, ETH_IPV4);
    uint8_t *ip = buf + 14;
    memset(ip, 0, 20);
    ip[0] = 0x45;
    put16(ip + 2, (uint16_t)ip_len);
    put16(ip + 4, (uint16_t)seq);
    ip[6] = 0x40; /* don't fragment */
    ip[8] = 64;
    ip[9] = 1;    /* ICMP */
    memcpy(ip + 12, c->src_ip, 4);
    memcpy(ip + 16, c->dst_ip, 4);
    put16(ip + 10, inet_csum(ip, 20));
    uint8_t *icmp = ip + 20;
    icmp[0] = ICMP_ECHO_REQUEST;
    icmp[1] = icmp[2] = icmp[3] = 0;
    put16(icmp + 4, c->id);
    put16(icmp + 6, (uint16_t)seq);
    /* data: the send time (for a capture's reader; the RTT is taken from sent_ns), then a counting pattern */
    for (int i = 0; i < 8; i++)
        icmp[8 + i] = (uint8_t)(now >> (56 - 8 * i));
    for (uint32_t i = 8; i < c->size; i++)
        icmp[8 + i] = (uint8_t)i;
    put16(icmp + 2, inet_csum(icmp, 8 + c->size));
    p->sent_ns[seq % POF_PROBE_RING] = now ? now : 1;
    p->sent++;
    uint64_t step = (uint64_t)c->interval_us * 1000u;
    p->next_ns = p->next_ns + step > now ? p->next_ns + step : now + step;
    return 14 + ip_len;
}

/* ---- frames leaving the port ------------------------------------------------------------------------ */

static void rtt_sample(struct pof_probe *p, uint64_t rtt)
{
    p->rtt_ns[p->rtt_at] = rtt > UINT32_MAX ? UINT32_MAX : (uint32_t)rtt;
    p->rtt_at = (p->rtt_at + 1) % POF_PROBE_WINDOW;
    if (p->n_rtt < POF_PROBE_WINDOW)
        p->n_rtt++;
}

/* icmp (n bytes) is an echo reply for the session: its request's RTT, if it is still awaited. */
static enum pof_probe_take echo_reply(struct pof_probe *p, const uint8_t *icmp, uint32_t n, uint64_t now)
{
    if (n < 8 || icmp[0] != ICMP_ECHO_REPLY || icmp[1] != 0 || get16(icmp + 4) != p->cfg.id)
        return POF_PROBE_PASS;
    /* the one awaited sequence with these low 16 bits (the ring is smaller than 2^16, so there is at most one) */
    uint16_t seq16 = get16(icmp + 6);
    uint64_t seq = p->oldest + (uint16_t)(seq16 - (uint16_t)p->oldest);
    uint64_t *t = &p->sent_ns[seq % POF_PROBE_RING];
    if (seq < p->sent && *t && now >= *t) {
        rtt_sample(p, now - *t);
        p->received++;
        p->lost_run = 0;
        *t = 0;
    }
    return POF_PROBE_REPLY; /* late or repeated: still the session's, and no one else's */
}

/* DST_MAC auto: arp (n bytes, neither a request nor one for the probe's address) is DST_IP's answer to SRC_IP,
 * sent to SRC_MAC: its sender's MAC is the next hop's. Taken whether or not one was awaited (it is the probe's). */
static enum pof_probe_take arp_answer(struct pof_probe *p, const uint8_t *arp, uint64_t now)
{
    if (get16(arp + 6) != 2 || memcmp(arp + 14, p->cfg.dst_ip, 4) != 0 || memcmp(arp + 18, p->cfg.src_mac, 6) != 0)
        return POF_PROBE_PASS;
    memcpy(p->cfg.dst_mac, arp + 8, 6);
    if (!p->resolved && p->next_ns < now)
        p->next_ns = now; /* the first request goes at once, not a burst for the time spent resolving */
    p->resolved = true;
    p->asking = false;
    p->lost_run = 0;
    p->arp_next_ns = now + POF_PROBE_ARP_REFRESH_NS;
    return POF_PROBE_RESOLVED;
}

/* arp (n bytes) asks who has the probe's address: the answer, as the probe's host would send it; or, DST_MAC auto,
 * it answers the probe's own question. */
static enum pof_probe_take arp_request(struct pof_probe *p, const uint8_t *arp, uint32_t n, uint64_t now)
{
    if (n < 28 || get16(arp) != 1 || get16(arp + 2) != ETH_IPV4 || arp[4] != 6 || arp[5] != 4 ||
        memcmp(arp + 24, p->cfg.src_ip, 4) != 0)
        return POF_PROBE_PASS;
    if (get16(arp + 6) != 1)
        return p->cfg.dst_auto ? arp_answer(p, arp, now) : POF_PROBE_PASS;
    uint8_t *r = p->arp;
    memset(r, 0, POF_PROBE_ARP_LEN);
    memcpy(r, arp + 8, 6);                /* to the asker's hardware address */
    memcpy(r + 6, p->cfg.src_mac, 6);
    put16(r + 12, ETH_ARP);
    memcpy(r + 14, arp, 6);               /* htype, ptype, hlen, plen as asked */
    put16(r + 20, 2);                     /* reply */
    memcpy(r + 22, p->cfg.src_mac, 6);
    memcpy(r + 28, p->cfg.src_ip, 4);
    memcpy(r + 32, arp + 8, 10);          /* target: the asker's hardware and protocol address */
    p->arp_pending = true;
    p->arp_replies++;
    return POF_PROBE_ARP;
}

enum pof_probe_take pof_probe_tx(struct pof_probe *p, const uint8_t *f, uint32_t len, uint64_t now)
{
    if (len < 14)
        return POF_PROBE_PASS;
    uint32_t at = 12;
    uint16_t type = get16(f + at);
    if (type == ETH_VLAN && len >= 18) { /* one 802.1Q tag, should a host port carry one */
        at += 4;
        type = get16(f + at);
    }
    at += 2;
    if (type == ETH_ARP)
        return arp_request(p, f + at, len - at, now);
    if (type != ETH_IPV4 || len < at + 20)
        return POF_PROBE_PASS;
    const uint8_t *ip = f + at;
    uint32_t ihl = (ip[0] & 0x0Fu) * 4u, total = get16(ip + 2);
    if ((ip[0] >> 4) != 4 || ihl < 20 || total < ihl || total > len - at || ip[9] != 1 ||
        (get16(ip + 6) & 0x3FFF) != 0 || memcmp(ip + 16, p->cfg.src_ip, 4) != 0)
        return POF_PROBE_PASS;
    return echo_reply(p, ip + ihl, total - ihl, now);
}

/* ---- loss and percentiles --------------------------------------------------------------------------- */

void pof_probe_expire(struct pof_probe *p, uint64_t now)
{
    while (p->oldest < p->sent) {
        uint64_t t = p->sent_ns[p->oldest % POF_PROBE_RING];
        if (t && now - t < POF_PROBE_TIMEOUT_NS && now >= t)
            break; /* still awaited; the ones after it were sent later */
        retire_oldest(p);
    }
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Nearest rank: the smallest sample with at least pct % of the samples at or below it. */
static uint64_t rank(const uint32_t *sorted, uint32_t n, uint32_t pct)
{
    uint32_t r = (uint32_t)(((uint64_t)n * pct + 99) / 100);
    return sorted[r ? r - 1 : 0];
}

void pof_probe_stats(struct pof_probe *p, uint64_t now, struct pof_probe_stats *out)
{
    pof_probe_expire(p, now);
    *out = (struct pof_probe_stats){.sent = p->sent, .received = p->received, .lost = p->lost,
                                    .arp_replies = p->arp_replies, .samples = p->n_rtt,
                                    .arp_requests = p->arp_requests, .resolved = p->resolved};
    if (!p->n_rtt)
        return;
    static uint32_t sorted[POF_PROBE_WINDOW]; /* one thread: the switch's */
    memcpy(sorted, p->rtt_ns, p->n_rtt * sizeof(sorted[0]));
    qsort(sorted, p->n_rtt, sizeof(sorted[0]), cmp_u32);
    out->p50_ns = rank(sorted, p->n_rtt, 50);
    out->p90_ns = rank(sorted, p->n_rtt, 90);
    out->p99_ns = rank(sorted, p->n_rtt, 99);
    out->max_ns = sorted[p->n_rtt - 1];
}
