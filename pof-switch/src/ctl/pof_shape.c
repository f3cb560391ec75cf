/* Meter shaping queues and rated output ports (see pof_shape.h). */
#include "pof_shape.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pof_sched.h"

/* Every meter id is a flow whose order a rated port keeps (pof_sched.h). */
_Static_assert(POF_METERS <= POF_SCHED_FLOWS, "a rated port tracks the order of every meter");

/* ---- meters' shaping queues ---------------------------------------------------------------------- */

void sw_shape_hold(struct pof_sw *sw, uint32_t meter_id, uint16_t port, struct pof_io_buf *b, uint32_t len)
{
    struct sw_meter_queue *q = sw->queues[meter_id];
    if (!q) {
        if (!(q = sw->queues[meter_id] = calloc(1, sizeof(*q)))) {
            sw->io->free(b);
            return;
        }
        sw->queue_ids[sw->n_queues++] = (uint16_t)meter_id;
    }
    if (q->n == SW_QUEUE_SLOTS) {
        sw->io->free(b);
        return;
    }
    q->slot[(q->head + q->n) % SW_QUEUE_SLOTS] = (struct sw_queued){b, port, len, sw->rx_ns};
    q->n++;
    q->bytes += len;
}

static uint32_t release_meters(struct pof_sw *sw, uint64_t now)
{
    uint32_t sent = 0;
    for (int k = 0; k < sw->n_queues; k++) {
        uint16_t m = sw->queue_ids[k];
        struct sw_meter_queue *q = sw->queues[m];
        while (q->n) {
            struct sw_queued *s = &q->slot[q->head];
            enum pof_color c = POF_COLOR_YELLOW;
            if (s->port && (c = pof_dp_meter_color(sw->dp, m, s->len, now)) == POF_COLOR_RED)
                break;
            sw->rx_ns = s->rx_ns;
            if (s->port)
                sw_enqueue_tx(sw, s->port, s->buf, s->len, c, m, now);
            else
                sw->io->free(s->buf);
            q->bytes -= s->len;
            q->head = (q->head + 1) % SW_QUEUE_SLOTS;
            q->n--;
            sent++;
        }
    }
    return sent;
}

/* ---- rated ports ----------------------------------------------------------------------------------- */

void sw_shape_rated(struct pof_sw *sw, struct sw_port *p, struct pof_io_buf *b, uint32_t len, enum pof_color c,
                    uint32_t meter_id, uint64_t now)
{
    switch (pof_sched_offer_at(p->sched, b, len, c, meter_id, now, sw->rx_ns)) {
    case POF_SCHED_SEND:
        if (c == POF_COLOR_LATENCY)
            sw_send_now(sw, p, b, len);
        else
            sw_push_tx(sw, p, b, len);
        break;
    case POF_SCHED_DROP:
        p->tx_dropped++; /* the port's transmit queue refused it, as a full backend queue would */
        sw->io->free(b);
        break;
    case POF_SCHED_QUEUED:
        break;
    }
}

static uint32_t release_ports(struct pof_sw *sw, uint64_t now)
{
    uint32_t sent = 0;
    for (int k = 0; k < sw->n_rated; k++) {
        struct sw_port *p = &sw->ports[sw->rated[k]];
        uint32_t len;
        int q;
        void *b;
        while ((b = pof_sched_next_at(p->sched, now, &len, &q, &sw->rx_ns)) != NULL) {
            if (q == POF_SCHED_LATENCY)
                sw_send_now(sw, p, b, len);
            else
                sw_push_tx(sw, p, b, len);
            sent++;
        }
    }
    return sent;
}

uint32_t sw_shape_release(struct pof_sw *sw, uint64_t now)
{
    uint32_t n = sw->n_queues ? release_meters(sw, now) : 0;
    return sw->n_rated ? n + release_ports(sw, now) : n;
}

uint64_t sw_shape_next_ns(struct pof_sw *sw, uint64_t now)
{
    uint64_t best = UINT64_MAX;
    for (int k = 0; k < sw->n_queues; k++) {
        uint16_t m = sw->queue_ids[k];
        struct sw_meter_queue *q = sw->queues[m];
        if (q->n) {
            uint64_t w = pof_dp_meter_wait_ns(sw->dp, m, q->slot[q->head].len, now);
            if (w < best)
                best = w;
        }
    }
    for (int k = 0; k < sw->n_rated; k++) {
        uint64_t w = pof_sched_wait_ns(sw->ports[sw->rated[k]].sched, now);
        if (w < best)
            best = w;
    }
    return best;
}

struct drain_ctx { struct pof_sw *sw; struct sw_port *p; bool send; };

static void drain_one(void *arg, void *pkt, uint32_t len)
{
    struct drain_ctx *d = arg;
    if (d->send)
        sw_push_tx(d->sw, d->p, pkt, len);
    else
        d->sw->io->free(pkt);
}

/* Takes port p off the rated list: what it holds is sent now (send) or freed. */
static void unrate(struct pof_sw *sw, struct sw_port *p, bool send)
{
    if (!p->sched)
        return;
    struct drain_ctx d = {sw, p, send};
    sw->rx_ns = sw->clock(); /* the receive times stay in the scheduler: what it held counts from now */
    pof_sched_drain(p->sched, drain_one, &d);
    pof_sched_destroy(p->sched);
    p->sched = NULL;
    for (int k = 0; k < sw->n_rated; k++)
        if (sw->rated[k] == p->id) {
            sw->rated[k] = sw->rated[--sw->n_rated];
            break;
        }
}

int pof_sw_port_rate(struct pof_sw *sw, struct sw_port *p, uint32_t kbps, char *err, size_t errlen)
{
    if (kbps > POF_METER_MAX_KBPS) {
        snprintf(err, errlen, "rate must be 0-%u kbit/s", POF_METER_MAX_KBPS);
        return -1;
    }
    if (kbps == 0) {
        unrate(sw, p, true);
        return 0;
    }
    if (p->sched) {
        pof_sched_set_rate(p->sched, kbps);
        return 0;
    }
    if (!(p->sched = pof_sched_create(kbps))) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    sw->rated[sw->n_rated++] = p->id;
    return 0;
}

/* A decimal item value "<key>=<digits>" of n bytes at item, at most max; -1 if it is not one. */
static int item_number(const char *item, size_t n, size_t keylen, unsigned long long max, unsigned long long *v)
{
    char num[16];
    size_t dl = n - keylen;
    if (dl == 0 || dl >= sizeof(num))
        return -1;
    for (size_t i = 0; i < dl; i++)
        if (item[keylen + i] < '0' || item[keylen + i] > '9')
            return -1;
    memcpy(num, item + keylen, dl);
    num[dl] = '\0';
    *v = strtoull(num, NULL, 10);
    return *v <= max ? 0 : -1;
}

int sw_split_port_args(const char *args, char *dev, size_t devlen, uint32_t *kbps, int *port_id, char *err,
                       size_t errlen)
{
    *kbps = 0;
    *port_id = 0;
    dev[0] = '\0';
    size_t at = 0;
    for (const char *item = args; item && *item;) {
        const char *comma = strchr(item, ',');
        size_t n = comma ? (size_t)(comma - item) : strlen(item);
        unsigned long long v;
        if (n >= 5 && strncmp(item, "rate=", 5) == 0) {
            if (item_number(item, n, 5, POF_METER_MAX_KBPS, &v) < 0) {
                snprintf(err, errlen, "rate must be 0-%u kbit/s", POF_METER_MAX_KBPS);
                return -1;
            }
            *kbps = (uint32_t)v;
        } else if (n >= 3 && strncmp(item, "id=", 3) == 0) {
            if (item_number(item, n, 3, POF_MAX_PORTS, &v) < 0 || v == 0) {
                snprintf(err, errlen, "port id must be 1-%d", POF_MAX_PORTS);
                return -1;
            }
            *port_id = (int)v;
        } else if (n) {
            if (at + (at ? 1 : 0) + n >= devlen) {
                snprintf(err, errlen, "port arguments too long");
                return -1;
            }
            if (at)
                dev[at++] = ',';
            memcpy(dev + at, item, n);
            at += n;
            dev[at] = '\0';
        }
        item = comma ? comma + 1 : NULL;
    }
    return 0;
}

/* ---- teardown ------------------------------------------------------------------------------------------ */

void sw_shape_port_gone(struct pof_sw *sw, struct sw_port *p)
{
    for (int k = 0; k < sw->n_queues; k++) {
        struct sw_meter_queue *q = sw->queues[sw->queue_ids[k]];
        for (uint32_t i = 0; i < q->n; i++) {
            struct sw_queued *s = &q->slot[(q->head + i) % SW_QUEUE_SLOTS];
            if (s->port == p->id)
                s->port = 0; /* freed when it reaches the head */
        }
    }
    unrate(sw, p, false);
}

void sw_shape_fini(struct pof_sw *sw)
{
    for (int i = 0; i < POF_METERS; i++) {
        struct sw_meter_queue *q = sw->queues[i];
        if (!q)
            continue;
        for (; q->n; q->n--, q->head = (q->head + 1) % SW_QUEUE_SLOTS)
            sw->io->free(q->slot[q->head].buf);
        free(q);
        sw->queues[i] = NULL;
    }
    sw->n_queues = 0;
    for (int i = 1; i <= POF_MAX_PORTS; i++)
        if (sw->ports[i].in_use)
            unrate(sw, &sw->ports[i], false);
}
