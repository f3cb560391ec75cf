/* Probe sessions in the switch (see pof_probe_sw.h). */
#include "pof_probe_sw.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pof_probe.h"

_Static_assert(sizeof(((struct pof_sw *)0)->probes) / sizeof(struct sw_probe *) == SW_PROBES, "one slot each");

struct sw_probe {
    uint16_t port;
    struct pof_probe p;
};

static struct sw_probe **find(struct pof_sw *sw, uint16_t port, uint16_t id)
{
    for (int i = 0; i < SW_PROBES; i++)
        if (sw->probes[i] && sw->probes[i]->port == port && sw->probes[i]->p.cfg.id == id)
            return &sw->probes[i];
    return NULL;
}

static void drop(struct pof_sw *sw, struct sw_probe **slot)
{
    sw->ports[(*slot)->port].probes--;
    sw->n_probes--;
    free(*slot);
    *slot = NULL;
}

static void start(struct pof_sw *sw, struct sw_port *p, const char *args, char *out, size_t outlen)
{
    struct pof_probe_cfg cfg;
    char err[160];
    if (pof_probe_parse(args, &cfg, err, sizeof(err)) < 0) {
        snprintf(out, outlen, "ERROR %s", err);
        return;
    }
    if (find(sw, p->id, cfg.id)) {
        snprintf(out, outlen, "ERROR probe %s %u exists", p->name, cfg.id);
        return;
    }
    struct sw_probe **slot = NULL;
    for (int i = 0; i < SW_PROBES && !slot; i++)
        if (!sw->probes[i])
            slot = &sw->probes[i];
    if (!slot) {
        snprintf(out, outlen, "ERROR too many probes (at most %d)", SW_PROBES);
        return;
    }
    if (!(*slot = malloc(sizeof(**slot)))) {
        snprintf(out, outlen, "ERROR out of memory");
        return;
    }
    (*slot)->port = p->id;
    pof_probe_init(&(*slot)->p, &cfg, pof_now_ns());
    p->probes++;
    sw->n_probes++;
    snprintf(out, outlen, "OK");
}

/* Microseconds, rounded. */
static unsigned long long us(uint64_t ns)
{
    return (unsigned long long)((ns + 500) / 1000);
}

static void stats(struct sw_probe *s, char *out, size_t outlen)
{
    struct pof_probe_stats st;
    pof_probe_stats(&s->p, pof_now_ns(), &st);
    snprintf(out, outlen, "OK sent=%llu received=%llu lost=%llu p50_us=%llu p90_us=%llu p99_us=%llu max_us=%llu"
             " samples=%u arp_replies=%llu arp_requests=%llu resolved=%d", (unsigned long long)st.sent,
             (unsigned long long)st.received, (unsigned long long)st.lost, us(st.p50_ns), us(st.p90_ns),
             us(st.p99_ns), us(st.max_ns), st.samples, (unsigned long long)st.arp_replies,
             (unsigned long long)st.arp_requests, st.resolved ? 1 : 0);
}

void sw_probe_command(struct pof_sw *sw, const char *cmd, const char *name, const char *args, char *out,
                      size_t outlen)
{
    struct sw_port *p = pof_sw_port_by_name(sw, name);
    if (strcmp(cmd, "probe-start") == 0) {
        if (!p)
            snprintf(out, outlen, "ERROR no port %s", name);
        else
            start(sw, p, args, out, outlen);
        return;
    }
    uint16_t id;
    char err[160];
    int r = pof_probe_parse_id(args, &id, err, sizeof(err));
    struct sw_probe **s = r == 0 && p ? find(sw, p->id, id) : NULL;
    if (r == -2)
        snprintf(out, outlen, "ERROR usage: %s NAME ID", cmd);
    else if (r < 0)
        snprintf(out, outlen, "ERROR %s", err);
    else if (!s)
        snprintf(out, outlen, "ERROR no probe %s %u", name, id);
    else if (strcmp(cmd, "probe-stats") == 0)
        stats(*s, out, outlen);
    else {
        drop(sw, s);
        snprintf(out, outlen, "OK");
    }
}

/* A frame the session made, into the pipeline as if its port received it (dropped there if the port is down, as
 * a received frame would be). */
static uint32_t inject(struct pof_sw *sw, struct sw_port *p, const uint8_t *frame, uint32_t len, uint64_t now)
{
    struct pof_io_buf *b = p->enabled ? sw->io->copy(frame, len) : NULL;
    if (!b)
        return 0;
    sw_inject(sw, p, b, now);
    return 1;
}

uint32_t sw_probe_tick(struct pof_sw *sw, uint64_t now)
{
    uint32_t n = 0;
    for (int i = 0; i < SW_PROBES; i++) {
        struct sw_probe *s = sw->probes[i];
        if (!s)
            continue;
        struct sw_port *p = &sw->ports[s->port];
        if (s->p.arp_pending) {
            s->p.arp_pending = false;
            n += inject(sw, p, s->p.arp, POF_PROBE_ARP_LEN, now);
        }
        if (s->p.cfg.dst_auto) {
            pof_probe_expire(&s->p, now); /* losses in a row ask for the next hop's address again */
            if (now >= pof_probe_arp_due_ns(&s->p)) {
                uint8_t arp[POF_PROBE_ARP_LEN];
                n += inject(sw, p, arp, pof_probe_arp_request(&s->p, now, arp), now);
            }
        }
        if (now >= pof_probe_due_ns(&s->p)) {
            uint8_t frame[POF_PROBE_FRAME_MAX];
            /* the send time is taken now, not at the round's start: the RTT starts when the request does */
            uint32_t len = pof_probe_request(&s->p, pof_now_ns(), frame);
            n += inject(sw, p, frame, len, now);
        }
    }
    return n;
}

uint64_t sw_probe_next_ns(const struct pof_sw *sw, uint64_t now)
{
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < SW_PROBES; i++) {
        const struct sw_probe *s = sw->probes[i];
        if (!s)
            continue;
        uint64_t due = s->p.arp_pending ? now : pof_probe_due_ns(&s->p), arp = pof_probe_arp_due_ns(&s->p);
        due = arp < due ? arp : due;
        uint64_t w = due == UINT64_MAX ? UINT64_MAX : due > now ? due - now : 0;
        if (w < best)
            best = w;
    }
    return best;
}

/* True if a session of port p takes frame b (sent at now). */
static bool taken(struct pof_sw *sw, struct sw_port *p, struct pof_io_buf *b, uint64_t now)
{
    struct pof_io_view v = sw->io->view(b);
    for (int i = 0; i < SW_PROBES; i++) {
        struct sw_probe *s = sw->probes[i];
        if (s && s->port == p->id && pof_probe_tx(&s->p, v.data, v.len, now) != POF_PROBE_PASS)
            return true;
    }
    return false;
}

void sw_probe_tx_burst(struct pof_sw *sw, struct sw_port *p)
{
    uint64_t now = pof_now_ns();
    uint16_t keep = 0;
    for (uint16_t k = 0; k < p->tx_n; k++) {
        if (taken(sw, p, p->tx_buf[k], now)) {
            p->tx_pending_bytes -= p->tx_len[k];
            sw->io->free(p->tx_buf[k]);
            continue;
        }
        p->tx_buf[keep] = p->tx_buf[k];
        p->tx_rx_ns[keep] = p->tx_rx_ns[k];
        p->tx_len[keep++] = p->tx_len[k];
    }
    p->tx_n = keep;
}

bool sw_probe_take(struct pof_sw *sw, struct sw_port *p, struct pof_io_buf *b)
{
    if (!taken(sw, p, b, pof_now_ns()))
        return false;
    sw->io->free(b);
    return true;
}

void sw_probe_port_gone(struct pof_sw *sw, struct sw_port *p)
{
    for (int i = 0; i < SW_PROBES && p->probes; i++)
        if (sw->probes[i] && sw->probes[i]->port == p->id)
            drop(sw, &sw->probes[i]);
}

void sw_probe_fini(struct pof_sw *sw)
{
    for (int i = 0; i < SW_PROBES; i++)
        if (sw->probes[i])
            drop(sw, &sw->probes[i]);
}
