/* Ports, forwarding of bursts through the core, and the run loop (shaping: pof_shape.c). */
#include "pof_switch.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pof_conn.h"
#include "pof_mgmt.h"
#include "pof_portlat.h"
#include "pof_probe_sw.h"
#include "pof_shape.h"

/* Empty rounds before the loop sleeps. Ports without a descriptor (DPDK) can only be polled, so the loop spins a
 * while before it backs off. Ports with one (AF_PACKET) wake poll() the moment a frame arrives: spinning there only
 * burns the CPU the traffic needs (in a TCG VM, or beside one on two cores, it halved what the testbed carried). */
#define SPIN_ROUNDS_BEFORE_SLEEP 256
#define SPIN_ROUNDS_WITH_FDS 2
#define CONTROL_INTERVAL_NS 1000000ull /* under load, control and management are served at least every 1 ms */

int pof_sw_init(struct pof_sw *sw, const struct sw_config *cfg, const struct pof_io_ops *io)
{
    memset(sw, 0, sizeof(*sw));
    sw->cfg = *cfg;
    if (sw->cfg.max_sleep_us == 0)
        sw->cfg.max_sleep_us = 1000;
    sw->io = io;
    sw->clock = pof_now_ns;
    sw->dp = pof_dp_create();
    if (!sw->dp)
        return -1;
    pof_sw_cb_init(sw);
    if (cfg->n_controllers > 0) {
        sw->conn = pof_conn_create(&sw->cb, cfg->controllers, cfg->n_controllers,
                                   (uint64_t)cfg->controller_timeout_s * 1000000000ull);
        if (!sw->conn)
            return -1;
    }
    if (cfg->mgmt_path) {
        sw->mgmt = pof_mgmt_open(&sw->cb, cfg->mgmt_path);
        if (!sw->mgmt)
            return -1;
    }
    return 0;
}

static void flush_port(struct pof_sw *sw, struct sw_port *p)
{
    if (p->probes && p->tx_n)
        sw_probe_tx_burst(sw, p); /* a probe's replies and ARP requests for it leave no further */
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
    if (p->lat && sent)
        sw_lat_sent(sw, p, sent);
    p->tx_packets += sent;
    p->tx_bytes += bytes;
    p->tx_dropped += (uint64_t)(p->tx_n - sent);
    p->tx_n = 0;
    p->tx_pending_bytes = 0;
}

void pof_sw_fini(struct pof_sw *sw)
{
    sw_probe_fini(sw);
    sw_shape_fini(sw);
    for (int i = 1; i <= POF_MAX_PORTS; i++)
        if (sw->ports[i].in_use) {
            flush_port(sw, &sw->ports[i]);
            sw->io->port_close(sw->ports[i].io);
            free(sw->ports[i].lat);
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

/* PORT_STATUS to the controller, if there is one. */
static void report_port(struct pof_sw *sw, const struct sw_port *p, uint8_t reason)
{
    struct pof_sw_port_info info;
    if (!sw->conn)
        return;
    pof_sw_port_info(p, &info);
    pof_conn_port_status(sw->conn, &info, reason);
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
    char dev[512];
    uint32_t kbps;
    int id;
    if (sw_split_port_args(args, dev, sizeof(dev), &kbps, &id, err, errlen) < 0)
        return -1;
    if (id && sw->ports[id].in_use) {
        /* An agent re-adding its ports after a switch restart asks for their old numbers: the flows use them. */
        snprintf(err, errlen, "port id %d in use", id);
        return -1;
    }
    if (!id) {
        id = 1;
        while (id <= POF_MAX_PORTS && sw->ports[id].in_use)
            id++;
        if (id > POF_MAX_PORTS) {
            snprintf(err, errlen, "no free port id");
            return -1;
        }
    }
    struct sw_port *p = &sw->ports[id];
    memset(p, 0, sizeof(*p));
    p->io = sw->io->port_open(name, dev, p->mac, err, errlen);
    if (!p->io)
        return -1;
    p->id = (uint16_t)id;
    p->lat = sw_lat_create();
    if (!p->lat)
        snprintf(err, errlen, "out of memory");
    if (!p->lat || (kbps && pof_sw_port_rate(sw, p, kbps, err, errlen) < 0)) {
        free(p->lat);
        sw->io->port_close(p->io);
        memset(p, 0, sizeof(*p));
        return -1;
    }
    p->in_use = true;
    p->enabled = sw->cfg.all_ports_enabled;
    p->added_ns = pof_now_ns();
    snprintf(p->name, sizeof(p->name), "%s", name);
    rebuild_active(sw);
    report_port(sw, p, POF_PORT_REASON_ADD);
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
    sw_shape_port_gone(sw, p);
    sw_probe_port_gone(sw, p);
    flush_port(sw, p);
    report_port(sw, p, POF_PORT_REASON_DELETE);
    sw->io->port_close(p->io);
    free(p->lat);
    memset(p, 0, sizeof(*p));
    rebuild_active(sw);
    return 0;
}

static inline void push_tx(struct pof_sw *sw, struct sw_port *p, struct pof_io_buf *b, uint32_t len)
{
    p->tx_len[p->tx_n] = len;
    p->tx_rx_ns[p->tx_n] = sw->rx_ns;
    p->tx_pending_bytes += len;
    p->tx_buf[p->tx_n++] = b;
    if (p->tx_n == SW_BURST || p->latency_mode)
        flush_port(sw, p);
}

void sw_push_tx(struct pof_sw *sw, struct sw_port *p, struct pof_io_buf *b, uint32_t len)
{
    if (p->in_use && p->enabled)
        push_tx(sw, p, b, len);
    else
        sw->io->free(b);
}

/* A latency packet is not held for the round's flush (burst 1 for its class): it goes to the backend alone, now,
 * ahead of what the port holds for that flush. What the backend already has (a NIC ring, a qdisc) it cannot
 * overtake; on a port without a rate that is all the priority there is, as the port sends at line rate. */
void sw_send_now(struct pof_sw *sw, struct sw_port *p, struct pof_io_buf *b, uint32_t len)
{
    if (!p->in_use || !p->enabled) {
        sw->io->free(b);
        return;
    }
    if (p->probes && sw_probe_take(sw, p, b))
        return; /* a probe's reply: taken (and freed) before it leaves */
    if (sw->io->tx(p->io, &b, 1) == 1) {
        if (p->lat)
            sw_lat_sent_now(sw, p);
        p->tx_packets++;
        p->tx_bytes += len;
    } else {
        p->tx_dropped++;
    }
}

/* Queues b (len bytes, known to every caller) for the port's next tx burst, or its scheduler if rated. */
static inline void enqueue_tx(struct pof_sw *sw, uint16_t port, struct pof_io_buf *b, uint32_t len,
                              enum pof_color c, uint32_t meter_id, uint64_t now)
{
    struct sw_port *p = port <= POF_MAX_PORTS ? &sw->ports[port] : NULL;
    if (!p || !p->in_use || !p->enabled)
        sw->io->free(b);
    else if (p->sched)
        sw_shape_rated(sw, p, b, len, c, meter_id, now);
    else if (c == POF_COLOR_LATENCY)
        sw_send_now(sw, p, b, len);
    else
        push_tx(sw, p, b, len);
}

void sw_enqueue_tx(struct pof_sw *sw, uint16_t port, struct pof_io_buf *b, uint32_t len, enum pof_color c,
                   uint32_t meter_id, uint64_t now)
{
    enqueue_tx(sw, port, b, len, c, meter_id, now);
}

/* Copies b to every enabled port but the input (best effort on rated ports). */
static void flood(struct pof_sw *sw, uint16_t in_port, struct pof_io_buf *b, enum pof_color c, uint64_t now)
{
    struct pof_io_view v = sw->io->view(b);
    for (int i = 1; i <= POF_MAX_PORTS; i++) {
        if (i == in_port || !sw->ports[i].in_use || !sw->ports[i].enabled)
            continue;
        struct pof_io_buf *copy = sw->io->copy(v.data, v.len);
        if (copy)
            enqueue_tx(sw, (uint16_t)i, copy, v.len, c, 0, now);
    }
    sw->io->free(b);
}

/* Sends through a meter: now, with the colour it gives, if its peak rate allows and none of its packets wait;
 * else into its shaping queue. */
static inline void metered_tx(struct pof_sw *sw, uint32_t meter_id, uint16_t port, struct pof_io_buf *b,
                              uint32_t len, uint64_t now)
{
    const struct sw_meter_queue *q = sw->queues[meter_id];
    enum pof_color c = q && q->n ? POF_COLOR_RED : pof_dp_meter_color(sw->dp, meter_id, len, now);
    if (c != POF_COLOR_RED)
        enqueue_tx(sw, port, b, len, c, meter_id, now);
    else
        sw_shape_hold(sw, meter_id, port, b, len);
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
        flood(sw, in->id, b, POF_COLOR_YELLOW, now);
    else if (vd.meter_id)
        metered_tx(sw, vd.meter_id, vd.out_port, b, len, now);
    else
        enqueue_tx(sw, vd.out_port, b, len, POF_COLOR_YELLOW, 0, now);
}

void sw_inject(struct pof_sw *sw, struct sw_port *in, struct pof_io_buf *b, uint64_t now)
{
    sw->rx_ns = sw->clock();
    forward(sw, in, b, sw->io->view(b), now);
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

static inline uint32_t poll_port(struct pof_sw *sw, struct sw_port *p, struct pof_io_buf **bufs, uint64_t now)
{
    uint16_t n = sw->io->rx(p->io, bufs, p->latency_mode ? 1 : SW_BURST);
    if (n) {
        sw->rx_ns = sw->clock(); /* the burst's receive time: one clock read per burst */
        p->rx_packets += n;
        p->rx_bytes += p->enabled ? forward_burst(sw, p, bufs, n, now) : drop_burst(sw, p, bufs, n);
    }
    return n;
}

uint32_t pof_sw_poll_once(struct pof_sw *sw, uint64_t now)
{
    uint32_t total = sw_shape_release(sw, now);
    if (sw->n_probes)
        total += sw_probe_tick(sw, now);
    struct pof_io_buf *bufs[SW_BURST];
    int n = sw->n_active;
    if (!sw->n_rated) {
        for (int i = 0; i < n; i++)
            total += poll_port(sw, &sw->ports[sw->active[i]], bufs, now);
    } else {
        /* A full queue of a rated port takes whatever arrives first after it sent: the input polled first in
         * a round would win all of its room. So the order rotates, and runs backwards every other round:
         * over rounds, every input comes before every other one half of the time. */
        uint32_t r = sw->poll_rounds++;
        int start = n ? (int)((r >> 1) % (uint32_t)n) : 0;
        for (int j = 0; j < n; j++) {
            int i = r & 1 ? (start - j + n) % n : (start + j) % n;
            total += poll_port(sw, &sw->ports[sw->active[i]], bufs, now);
        }
    }
    for (int i = 0; i < n; i++)
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
    sw->rx_ns = sw->clock();
    enqueue_tx(sw, port, b, len, POF_COLOR_GREEN, 0, pof_now_ns());
    flush_port(sw, &sw->ports[port]);
    return true;
}

void pof_sw_packet_out(struct pof_sw *sw, const struct pof_packet_out *po)
{
    struct pof_io_buf *b = sw->io->copy(po->data, po->packet_len);
    if (!b)
        return;
    sw->rx_ns = sw->clock();
    struct pof_io_view v = sw->io->view(b);
    struct pof_pkt pkt = {.data = v.data, .len = v.len, .room = v.room, .in_port = (uint16_t)po->in_port};
    struct pof_verdict vd;
    pof_dp_apply_actions(sw->dp, &pkt, po->actions, po->action_num, &vd);
    if (vd.kind == POF_V_DROP || vd.out_offset >= pkt.len) {
        sw->io->free(b);
        return;
    }
    sw->io->commit(b, vd.out_offset, pkt.len - vd.out_offset);
    /* The controller's own packets (LLDP probes, ARP answers) are few: on a rated port they take the priority
     * queue, so a saturated best-effort queue cannot make the controller lose a link. */
    uint64_t now = pof_now_ns();
    if (vd.kind == POF_V_FLOOD)
        flood(sw, (uint16_t)po->in_port, b, POF_COLOR_GREEN, now);
    else
        enqueue_tx(sw, vd.out_port, b, pkt.len - vd.out_offset, POF_COLOR_GREEN, 0, now);
    for (int i = 1; i <= POF_MAX_PORTS; i++)
        if (sw->ports[i].in_use)
            flush_port(sw, &sw->ports[i]);
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
    uint64_t last_control_ns = 0;
    while (!sw->quit) {
        uint64_t now = pof_now_ns();
        uint32_t n = pof_sw_poll_once(sw, now);
        sw->idle_rounds = n ? 0 : sw->idle_rounds + 1;
        bool spin = sw->cfg.busy_poll || any_latency_port(sw) || sw->idle_rounds < SPIN_ROUNDS_WITH_FDS ||
                    (sw->idle_rounds < SPIN_ROUNDS_BEFORE_SLEEP && !all_ports_have_fds(sw));
        if (spin) {
            /* By time, not by rounds: under load a round can be slow (a starved VM), and a controller that hears
             * nothing for its echo timeout closes the connection. */
            if (n == 0 || now - last_control_ns >= CONTROL_INTERVAL_NS) {
                service_control(sw, 0, 0);
                last_control_ns = now;
            }
            continue;
        }
        /* Idle: sleep with exponential backoff; ports with a descriptor (AF_PACKET) wake us at once,
         * so those may sleep long. A queued shaped packet bounds the sleep. */
        uint64_t sleep_us = 100000;
        if (!all_ports_have_fds(sw)) {
            uint32_t over = sw->idle_rounds - SPIN_ROUNDS_BEFORE_SLEEP;
            uint64_t backoff = 1ull << (over < 10 ? over : 10);
            sleep_us = backoff < sw->cfg.max_sleep_us ? backoff : sw->cfg.max_sleep_us;
        }
        uint64_t q = sw_shape_next_ns(sw, now), pr = sw->n_probes ? sw_probe_next_ns(sw, now) : UINT64_MAX;
        q = pr < q ? pr : q;
        if (q != UINT64_MAX && q / 1000 + 1 < sleep_us)
            sleep_us = q / 1000 + 1;
        service_control(sw, 0, sleep_us);
    }
}
