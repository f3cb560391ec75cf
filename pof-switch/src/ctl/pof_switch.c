/* Ports, forwarding of bursts through the core, shaping queues, and the run loop. */
#include "pof_switch.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pof_conn.h"
#include "pof_mgmt.h"

#define SPIN_ROUNDS_BEFORE_SLEEP 256

uint64_t pof_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int pof_sw_init(struct pof_sw *sw, const struct sw_config *cfg, const struct pof_io_ops *io)
{
    memset(sw, 0, sizeof(*sw));
    sw->cfg = *cfg;
    if (sw->cfg.max_sleep_us == 0)
        sw->cfg.max_sleep_us = 1000;
    sw->io = io;
    sw->dp = pof_dp_create();
    if (!sw->dp)
        return -1;
    if (cfg->controller_host) {
        sw->conn = pof_conn_create(sw, cfg->controller_host, cfg->controller_port);
        if (!sw->conn)
            return -1;
    }
    if (cfg->mgmt_path) {
        sw->mgmt = pof_mgmt_open(sw, cfg->mgmt_path);
        if (!sw->mgmt)
            return -1;
    }
    return 0;
}

static void flush_port(struct pof_sw *sw, struct sw_port *p)
{
    if (!p->tx_n)
        return;
    uint16_t sent = sw->io->tx(p->io, p->tx_buf, p->tx_n);
    uint64_t bytes = p->tx_pending_bytes;
    if (sent < p->tx_n) {
        /* Backends send a prefix of the burst (a full queue refuses the rest): count what went out. */
        bytes = 0;
        for (uint16_t i = 0; i < sent; i++)
            bytes += p->tx_len[i];
    }
    p->tx_packets += sent;
    p->tx_bytes += bytes;
    p->tx_dropped += (uint64_t)(p->tx_n - sent);
    p->tx_n = 0;
    p->tx_pending_bytes = 0;
}

static void drop_queue(struct pof_sw *sw, struct sw_meter_queue *q)
{
    for (; q->n; q->n--, q->head = (q->head + 1) % SW_QUEUE_SLOTS)
        sw->io->free(q->slot[q->head].buf);
}

void pof_sw_fini(struct pof_sw *sw)
{
    for (int i = 0; i < POF_METERS; i++)
        if (sw->queues[i]) {
            drop_queue(sw, sw->queues[i]);
            free(sw->queues[i]);
        }
    for (int i = 1; i <= POF_MAX_PORTS; i++)
        if (sw->ports[i].in_use) {
            flush_port(sw, &sw->ports[i]);
            sw->io->port_close(sw->ports[i].io);
        }
    pof_mgmt_close(sw->mgmt);
    pof_conn_destroy(sw->conn);
    pof_dp_destroy(sw->dp);
    memset(sw, 0, sizeof(*sw));
}

static void rebuild_active(struct pof_sw *sw)
{
    sw->n_active = 0;
    for (int i = 1; i <= POF_MAX_PORTS; i++)
        if (sw->ports[i].in_use)
            sw->active[sw->n_active++] = (uint16_t)i;
}

struct sw_port *pof_sw_port_by_name(struct pof_sw *sw, const char *name)
{
    for (int i = 1; i <= POF_MAX_PORTS; i++)
        if (sw->ports[i].in_use && strcmp(sw->ports[i].name, name) == 0)
            return &sw->ports[i];
    return NULL;
}

int pof_sw_port_add(struct pof_sw *sw, const char *name, const char *args, char *err, size_t errlen)
{
    if (!name[0] || strlen(name) >= sizeof(sw->ports[0].name)) {
        snprintf(err, errlen, "port name must be 1-63 characters");
        return -1;
    }
    if (pof_sw_port_by_name(sw, name)) {
        snprintf(err, errlen, "port %s exists", name);
        return -1;
    }
    int id = 1;
    while (id <= POF_MAX_PORTS && sw->ports[id].in_use)
        id++;
    if (id > POF_MAX_PORTS || id == POF_FLOOD_PORT) {
        snprintf(err, errlen, "no free port id");
        return -1;
    }
    struct sw_port *p = &sw->ports[id];
    memset(p, 0, sizeof(*p));
    p->io = sw->io->port_open(name, args, p->mac, err, errlen);
    if (!p->io)
        return -1;
    p->in_use = true;
    p->id = (uint16_t)id;
    p->enabled = sw->cfg.all_ports_enabled;
    p->added_ns = pof_now_ns();
    snprintf(p->name, sizeof(p->name), "%s", name);
    rebuild_active(sw);
    if (sw->conn)
        pof_conn_port_status(sw->conn, p, POF_PORT_REASON_ADD);
    return id;
}

int pof_sw_port_del(struct pof_sw *sw, const char *name, char *err, size_t errlen)
{
    struct sw_port *p = pof_sw_port_by_name(sw, name);
    if (!p) {
        snprintf(err, errlen, "no port %s", name);
        return -1;
    }
    /* Queued packets for this port would be sent to a closed port: drop them first. */
    for (int k = 0; k < sw->n_queues; k++) {
        struct sw_meter_queue *q = sw->queues[sw->queue_ids[k]];
        for (uint32_t i = 0; i < q->n; i++) {
            struct sw_queued *s = &q->slot[(q->head + i) % SW_QUEUE_SLOTS];
            if (s->port == p->id)
                s->port = 0; /* freed when it reaches the head */
        }
    }
    flush_port(sw, p);
    if (sw->conn)
        pof_conn_port_status(sw->conn, p, POF_PORT_REASON_DELETE);
    sw->io->port_close(p->io);
    memset(p, 0, sizeof(*p));
    rebuild_active(sw);
    return 0;
}

/* Queues b (len bytes, known to every caller) for the port's next tx burst. */
static void enqueue_tx(struct pof_sw *sw, uint16_t port, struct pof_io_buf *b, uint32_t len)
{
    struct sw_port *p = port <= POF_MAX_PORTS ? &sw->ports[port] : NULL;
    if (!p || !p->in_use || !p->enabled) {
        sw->io->free(b);
        return;
    }
    p->tx_len[p->tx_n] = len;
    p->tx_pending_bytes += len;
    p->tx_buf[p->tx_n++] = b;
    if (p->tx_n == SW_BURST || p->latency_mode)
        flush_port(sw, p);
}

/* Copies b to every enabled port but the input. */
static void flood(struct pof_sw *sw, uint16_t in_port, struct pof_io_buf *b)
{
    struct pof_io_view v = sw->io->view(b);
    for (int i = 1; i <= POF_MAX_PORTS; i++) {
        if (i == in_port || !sw->ports[i].in_use || !sw->ports[i].enabled)
            continue;
        struct pof_io_buf *c = sw->io->copy(v.data, v.len);
        if (c)
            enqueue_tx(sw, (uint16_t)i, c, v.len);
    }
    sw->io->free(b);
}

/* Sends through a meter: now if tokens allow, else into its shaping queue, else dropped. */
static void metered_tx(struct pof_sw *sw, uint32_t meter_id, uint16_t port, struct pof_io_buf *b, uint32_t len,
                       uint64_t now)
{
    struct sw_meter_queue *q = sw->queues[meter_id];
    if (pof_dp_meter_admit(sw->dp, meter_id, len, now, !q || q->n == 0) == POF_METER_PASS) {
        enqueue_tx(sw, port, b, len);
        return;
    }
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
    q->slot[(q->head + q->n) % SW_QUEUE_SLOTS] = (struct sw_queued){b, port, len};
    q->n++;
    q->bytes += len;
}

static uint32_t release_queues(struct pof_sw *sw, uint64_t now)
{
    uint32_t sent = 0;
    for (int k = 0; k < sw->n_queues; k++) {
        uint16_t m = sw->queue_ids[k];
        struct sw_meter_queue *q = sw->queues[m];
        while (q->n) {
            struct sw_queued *s = &q->slot[q->head];
            if (s->port && !pof_dp_meter_take(sw->dp, m, s->len, now))
                break;
            if (s->port)
                enqueue_tx(sw, s->port, s->buf, s->len);
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

/* Nanoseconds until the next queued packet may leave, or UINT64_MAX if nothing is queued. */
static uint64_t next_release_ns(struct pof_sw *sw, uint64_t now)
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
    return best;
}

static void forward(struct pof_sw *sw, struct sw_port *in, struct pof_io_buf *b, struct pof_io_view v,
                    uint64_t now)
{
    struct pof_pkt pkt = {.data = v.data, .len = v.len, .room = v.room, .in_port = in->id};
    struct pof_verdict vd;
    pof_dp_process(sw->dp, &pkt, &vd);
    if (vd.to_controller && sw->conn) {
        pof_conn_packet_in(sw->conn, in->id, vd.packet_in_reason, vd.table_id, pkt.data, pkt.len);
        sw->packet_in_sent++;
    }
    if (vd.kind == POF_V_DROP || vd.out_offset >= pkt.len) {
        sw->io->free(b);
        return;
    }
    if (vd.out_offset || pkt.len != v.len || pkt.data != v.data)
        sw->io->commit(b, vd.out_offset, pkt.len - vd.out_offset);
    uint32_t len = pkt.len - vd.out_offset;
    if (vd.kind == POF_V_FLOOD)
        flood(sw, in->id, b);
    else if (vd.meter_id)
        metered_tx(sw, vd.meter_id, vd.out_port, b, len, now);
    else
        enqueue_tx(sw, vd.out_port, b, len);
}

/* Runs a received burst through the pipeline; returns its bytes. */
static uint64_t forward_burst(struct pof_sw *sw, struct sw_port *p, struct pof_io_buf **bufs, uint16_t n,
                              uint64_t now)
{
    uint64_t bytes = 0;
    struct pof_io_view next = sw->io->view(bufs[0]);
    for (uint16_t k = 0; k < n; k++) {
        struct pof_io_view v = next;
        if (k + 1 < n) { /* the next packet's headers are on their way while this one runs */
            next = sw->io->view(bufs[k + 1]);
            __builtin_prefetch(next.data);
        }
        bytes += v.len;
        forward(sw, p, bufs[k], v, now);
    }
    return bytes;
}

/* A disabled port is polled like the others and its frames are discarded: received, and rx_dropped. */
static uint64_t drop_burst(struct pof_sw *sw, struct sw_port *p, struct pof_io_buf **bufs, uint16_t n)
{
    uint64_t bytes = 0;
    for (uint16_t k = 0; k < n; k++) {
        bytes += sw->io->view(bufs[k]).len;
        sw->io->free(bufs[k]);
    }
    p->rx_dropped += n;
    return bytes;
}

uint32_t pof_sw_poll_once(struct pof_sw *sw, uint64_t now)
{
    uint32_t total = release_queues(sw, now);
    struct pof_io_buf *bufs[SW_BURST];
    for (int i = 0; i < sw->n_active; i++) {
        struct sw_port *p = &sw->ports[sw->active[i]];
        uint16_t n = sw->io->rx(p->io, bufs, p->latency_mode ? 1 : SW_BURST);
        if (!n)
            continue;
        total += n;
        p->rx_packets += n;
        p->rx_bytes += p->enabled ? forward_burst(sw, p, bufs, n, now) : drop_burst(sw, p, bufs, n);
    }
    for (int i = 0; i < sw->n_active; i++)
        flush_port(sw, &sw->ports[sw->active[i]]);
    return total;
}

bool pof_sw_send(struct pof_sw *sw, uint16_t port, const uint8_t *data, uint32_t len)
{
    if (port > POF_MAX_PORTS || !sw->ports[port].in_use)
        return false;
    struct pof_io_buf *b = sw->io->copy(data, len);
    if (!b)
        return false;
    enqueue_tx(sw, port, b, len);
    flush_port(sw, &sw->ports[port]);
    return true;
}

void pof_sw_packet_out(struct pof_sw *sw, const struct pof_packet_out *po)
{
    struct pof_io_buf *b = sw->io->copy(po->data, po->packet_len);
    if (!b)
        return;
    struct pof_io_view v = sw->io->view(b);
    struct pof_pkt pkt = {.data = v.data, .len = v.len, .room = v.room, .in_port = (uint16_t)po->in_port};
    struct pof_verdict vd;
    pof_dp_apply_actions(sw->dp, &pkt, po->actions, po->action_num, &vd);
    if (vd.kind == POF_V_DROP || vd.out_offset >= pkt.len) {
        sw->io->free(b);
        return;
    }
    sw->io->commit(b, vd.out_offset, pkt.len - vd.out_offset);
    if (vd.kind == POF_V_FLOOD)
        flood(sw, (uint16_t)po->in_port, b);
    else
        enqueue_tx(sw, vd.out_port, b, pkt.len - vd.out_offset);
    for (int i = 1; i <= POF_MAX_PORTS; i++)
        if (sw->ports[i].in_use)
            flush_port(sw, &sw->ports[i]);
}

void pof_sw_port_stats(const struct pof_sw *sw, uint16_t id, uint64_t now, struct pof_port_stats *out)
{
    const struct sw_port *p = &sw->ports[id];
    uint64_t up = now > p->added_ns ? now - p->added_ns : 0;
    /* No error, frame, overrun, CRC or collision counts are kept: those stay 0. */
    *out = (struct pof_port_stats){
        .port_no = id, /* slot 0 */
        .rx_packets = p->rx_packets, .tx_packets = p->tx_packets,
        .rx_bytes = p->rx_bytes, .tx_bytes = p->tx_bytes,
        .rx_dropped = p->rx_dropped, .tx_dropped = p->tx_dropped,
        .duration_sec = (uint32_t)(up / 1000000000u), .duration_nsec = (uint32_t)(up % 1000000000u),
    };
}

static bool any_latency_port(const struct pof_sw *sw)
{
    for (int i = 0; i < sw->n_active; i++)
        if (sw->ports[sw->active[i]].latency_mode)
            return true;
    return false;
}

/* Services control and management; sleeps up to timeout_us in poll() when the data path is idle. */
static void service_control(struct pof_sw *sw, int timeout_ms_or_zero, uint64_t timeout_us)
{
    struct pollfd fds[2 + POF_MAX_PORTS + 8];
    int n = 0;
    short ev;
    int cfd = sw->conn ? pof_conn_fd(sw->conn, &ev) : -1;
    if (cfd >= 0 && ev)
        fds[n++] = (struct pollfd){.fd = cfd, .events = ev};
    n += pof_mgmt_fds(sw->mgmt, fds + n, 9);
    for (int i = 1; i <= POF_MAX_PORTS && timeout_us; i++) {
        int pfd = sw->ports[i].in_use ? sw->io->port_fd(sw->ports[i].io) : -1;
        if (pfd >= 0)
            fds[n++] = (struct pollfd){.fd = pfd, .events = POLLIN};
    }
    if (timeout_us) {
        struct timespec ts = {.tv_sec = (time_t)(timeout_us / 1000000), .tv_nsec = (long)(timeout_us % 1000000) * 1000};
        ppoll(fds, (nfds_t)n, &ts, NULL);
    } else {
        poll(fds, (nfds_t)n, timeout_ms_or_zero);
    }
    uint64_t now = pof_now_ns();
    if (sw->conn)
        pof_conn_service(sw->conn, now);
    pof_mgmt_service(sw->mgmt);
}

static bool all_ports_have_fds(const struct pof_sw *sw)
{
    for (int i = 1; i <= POF_MAX_PORTS; i++)
        if (sw->ports[i].in_use && sw->io->port_fd(sw->ports[i].io) < 0)
            return false;
    return true;
}

void pof_sw_run(struct pof_sw *sw)
{
    uint32_t rounds = 0;
    while (!sw->quit) {
        uint64_t now = pof_now_ns();
        uint32_t n = pof_sw_poll_once(sw, now);
        sw->idle_rounds = n ? 0 : sw->idle_rounds + 1;
        if (sw->cfg.busy_poll || any_latency_port(sw) || sw->idle_rounds < SPIN_ROUNDS_BEFORE_SLEEP) {
            if ((++rounds & 1023) == 0 || n == 0)
                service_control(sw, 0, 0);
            continue;
        }
        /* Idle: sleep with exponential backoff; ports with a descriptor (AF_PACKET) wake us at once,
         * so those may sleep long. A queued shaped packet bounds the sleep. */
        uint64_t backoff = 1ull << (sw->idle_rounds - SPIN_ROUNDS_BEFORE_SLEEP < 10 ?
                                    sw->idle_rounds - SPIN_ROUNDS_BEFORE_SLEEP : 10);
        uint64_t sleep_us = all_ports_have_fds(sw) ? 100000 : (backoff < sw->cfg.max_sleep_us ? backoff
                                                                                               : sw->cfg.max_sleep_us);
        uint64_t q = next_release_ns(sw, now);
        if (q != UINT64_MAX && q / 1000 + 1 < sleep_us)
            sleep_us = q / 1000 + 1;
        service_control(sw, 0, sleep_us);
    }
}
