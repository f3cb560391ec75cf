/* The controller connection's messages: what the switch reports (ports, packet-ins) and one handler per
 * message type of the READY state. The switch is reached only through c->sw (pof_sw_cb.h). */
#include "pof_conn_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pof_clock.h"
#include "pof_dp.h"

/* Port stats entries per MULTIPART_REPLY. POF_MAX_PORTS never reaches the wire limit, so the unit tests build
 * this file with a small value to exercise the REPLY_MORE split. */
#ifndef STATS_PER_REPLY
#define STATS_PER_REPLY POF_PORT_STATS_MAX
#endif
_Static_assert(STATS_PER_REPLY >= 1 && STATS_PER_REPLY <= POF_PORT_STATS_MAX, "a reply holds 1-584 entries");

static void fill_port(const struct pof_sw_port_info *p, uint32_t dev_id, struct pof_port *o)
{
    memset(o, 0, sizeof(*o));
    o->port_id = p->id;
    o->dev_id = dev_id;
    memcpy(o->hw_addr, p->mac, 6);
    snprintf(o->name, sizeof(o->name), "%s", p->name);
    o->curr_speed = o->max_speed = 10000000; /* kbps, as the reference reports */
    o->of_enable = p->enabled;
}

void pof_conn_port_status(struct pof_conn *c, const struct pof_sw_port_info *p, uint8_t reason)
{
    if (c->state != ST_READY)
        return; /* ports are reported all at once when the handshake completes */
    struct pof_msg m = {.hdr = {.type = POFT_PORT_STATUS}};
    m.u.port_status.reason = reason;
    fill_port(p, c->sw->dev_id, &m.u.port_status.port);
    conn_send(c, &m);
}

void pof_conn_packet_in(struct pof_conn *c, uint16_t in_port, uint8_t reason, uint8_t table_id,
                        const uint8_t *data, uint32_t len)
{
    /* A slow controller must not cost the connection: packet-ins beyond 1 MB of backlog are dropped. */
    if (c->state != ST_READY || c->out_len > OUT_CAP / 4)
        return;
    struct pof_msg m = {.hdr = {.type = POFT_PACKET_IN}};
    m.u.packet_in.buffer_id = 0xFFFFFFFF;
    m.u.packet_in.total_len = (uint16_t)(len > POF_PACKET_MAX ? POF_PACKET_MAX : len);
    m.u.packet_in.reason = reason;
    m.u.packet_in.table_id = table_id;
    m.u.packet_in.dev_id = c->sw->dev_id;
    m.u.packet_in.port_id = in_port;
    m.u.packet_in.data = data;
    conn_send(c, &m);
}

void conn_send_resource_report(struct pof_conn *c, uint32_t xid)
{
    static const uint8_t counts[POF_TABLE_TYPES] = {POF_TABLES_MM, POF_TABLES_LPM, POF_TABLES_EM,
                                                    POF_TABLES_LINEAR};
    struct pof_msg m = {.hdr = {.type = POFT_RESOURCE_REPORT, .xid = xid}};
    struct pof_resource_report *r = &m.u.resource;
    r->counter_num = POF_COUNTERS;
    r->meter_num = POF_METERS;
    r->group_num = POF_GROUPS;
    for (int t = 0; t < POF_TABLE_TYPES; t++)
        r->tables[t] = (struct pof_table_resource){c->sw->dev_id, (uint8_t)t, counts[t], 160,
                                                   POF_TABLE_MAX_SIZE};
    conn_send(c, &m);
}

void conn_send_all_ports(struct pof_conn *c, uint32_t xid)
{
    for (uint16_t i = 1; i <= POF_MAX_PORTS; i++) {
        struct pof_sw_port_info p;
        if (!c->sw->port(c->sw->sw, i, &p))
            continue;
        struct pof_msg m = {.hdr = {.type = POFT_PORT_STATUS, .xid = xid}};
        m.u.port_status.reason = POF_PORT_REASON_ADD;
        fill_port(&p, c->sw->dev_id, &m.u.port_status.port);
        conn_send(c, &m);
    }
}

static bool has_port(const struct pof_conn *c, uint16_t id)
{
    struct pof_sw_port_info p;
    return c->sw->port(c->sw->sw, id, &p);
}

/* The ids of the ports in use, in id order; returns how many. */
static uint16_t port_ids(const struct pof_conn *c, uint16_t ids[POF_MAX_PORTS])
{
    uint16_t n = 0;
    for (uint16_t i = 1; i <= POF_MAX_PORTS; i++)
        if (has_port(c, i))
            ids[n++] = i;
    return n;
}

/* ---- handlers of the READY state, one per message type ---------------------------------------- */

typedef void (*handler_fn)(struct pof_conn *c, const struct pof_msg *m);

void conn_on_echo(struct pof_conn *c, const struct pof_msg *m)
{
    struct pof_msg r = *m;
    r.hdr.type = POFT_ECHO_REPLY;
    conn_send(c, &r);
}

void conn_on_features_request(struct pof_conn *c, const struct pof_msg *m)
{
    struct pof_msg r = {.hdr = {.type = POFT_FEATURES_REPLY, .xid = m->hdr.xid}};
    r.u.features.dev_id = c->sw->dev_id;
    uint16_t ids[POF_MAX_PORTS];
    r.u.features.port_num = port_ids(c, ids);
    r.u.features.table_num = POF_TABLES_TOTAL;
    r.u.features.capabilities = POF_CAP_LATENCY_METERS; /* meters with the latency flag are applied */
    snprintf(r.u.features.vendor_id, POF_NAME_LEN, "WiSlice");
    snprintf(r.u.features.dev_fw_id, POF_NAME_LEN, "pofswitch 0.1.0 (%s)", c->sw->backend);
    snprintf(r.u.features.dev_lkup_id, POF_NAME_LEN, "wislice-core");
    conn_send(c, &r);
}

void conn_on_get_config(struct pof_conn *c, const struct pof_msg *m)
{
    struct pof_msg r = {.hdr = {.type = POFT_GET_CONFIG_REPLY, .xid = m->hdr.xid}};
    r.u.config.dev_id = c->sw->dev_id;
    r.u.config.flags = c->config_flags;
    r.u.config.miss_send_len = c->miss_send_len;
    conn_send(c, &r);
}

/* Both forms (POF's, and OpenFlow 1.0's without dev_id: see the codec) set flags and miss_send_len; the device id
 * is the switch's own (--dev-id) either way, as in the reference. They are kept and reported, nothing more: table
 * misses drop, and a PACKET_IN action sends the whole packet. */
void conn_on_set_config(struct pof_conn *c, const struct pof_msg *m)
{
    c->config_flags = m->u.config.flags;
    c->miss_send_len = m->u.config.miss_send_len;
}

static void on_port_mod(struct pof_conn *c, const struct pof_msg *m)
{
    uint16_t id = m->u.port_status.port.port_id;
    if (id == 0 || id > POF_MAX_PORTS || !has_port(c, id)) {
        conn_send_error(c, m->hdr.xid, POFET_PORT_MOD_FAILED, POFPMFC_BAD_PORT_ID, "no such port");
        return;
    }
    c->sw->port_enable(c->sw->sw, id, m->u.port_status.port.of_enable != 0);
}

static void report(struct pof_conn *c, const struct pof_msg *m, int rc, const struct pof_status *st)
{
    if (rc < 0)
        conn_send_error(c, m->hdr.xid, st->type, st->code, st->why);
}

static void on_table_mod(struct pof_conn *c, const struct pof_msg *m)
{
    struct pof_status st;
    report(c, m, pof_dp_table_mod(c->sw->dp, &m->u.table_mod, &st), &st);
}

static void on_flow_mod(struct pof_conn *c, const struct pof_msg *m)
{
    struct pof_status st;
    report(c, m, pof_dp_flow_mod(c->sw->dp, &m->u.flow_mod, &st), &st);
}

static void on_meter_mod(struct pof_conn *c, const struct pof_msg *m)
{
    struct pof_status st;
    report(c, m, pof_dp_meter_mod(c->sw->dp, &m->u.meter_mod, &st), &st);
}

static void on_group_mod(struct pof_conn *c, const struct pof_msg *m)
{
    struct pof_status st;
    report(c, m, pof_dp_group_mod(c->sw->dp, &m->u.group_mod, &st), &st);
}

static void on_counter_mod(struct pof_conn *c, const struct pof_msg *m)
{
    struct pof_status st;
    struct pof_counter k = m->u.counter;
    report(c, m, pof_dp_counter(c->sw->dp, &k, false, &st), &st);
}

static void on_counter_request(struct pof_conn *c, const struct pof_msg *m)
{
    struct pof_status st;
    struct pof_msg r = {.hdr = {.type = POFT_COUNTER_REPLY, .xid = m->hdr.xid}};
    r.u.counter = m->u.counter;
    if (pof_dp_counter(c->sw->dp, &r.u.counter, true, &st) < 0)
        conn_send_error(c, m->hdr.xid, st.type, st.code, st.why);
    else
        conn_send(c, &r);
}

static void on_packet_out(struct pof_conn *c, const struct pof_msg *m)
{
    struct pof_status st;
    const struct pof_packet_out *po = &m->u.packet_out;
    if (pof_dp_check_actions(po->actions, po->action_num, &st) < 0) {
        conn_send_error(c, m->hdr.xid, st.type, st.code, st.why);
        return;
    }
    c->sw->packet_out(c->sw->sw, po);
}

/* Port statistics (WiSlice extension): the asked port, or every port in id order, at most 584 entries per
 * reply; all replies carry the request's xid and all but the last REPLY_MORE. */
static void send_port_stats(struct pof_conn *c, uint32_t xid, const uint16_t *ids, uint16_t n)
{
    static struct pof_port_stats stats[STATS_PER_REPLY]; /* 64 KB: not on the stack */
    uint64_t now = pof_now_ns();
    uint16_t at = 0;
    do {
        uint16_t k = (uint16_t)(n - at < STATS_PER_REPLY ? n - at : STATS_PER_REPLY);
        for (uint16_t i = 0; i < k; i++)
            c->sw->port_stats(c->sw->sw, ids[at + i], now, &stats[i]);
        at = (uint16_t)(at + k);
        struct pof_msg r = {.hdr = {.type = POFT_MULTIPART_REPLY, .xid = xid}};
        r.u.multipart = (struct pof_multipart){.mp_type = POFMP_PORT_STATS, .flags = at < n ? POFMPF_REPLY_MORE : 0,
                                               .stats_num = k, .stats = stats};
        conn_send(c, &r);
    } while (at < n);
}

/* Port latency (WiSlice extension, spec/pof "Port latency"): the ports' residence time per class in one reply
 * (254 entries of 56 bytes fit the 16-bit length). */
_Static_assert(POF_MULTIPART_HEAD + 8 + POF_MAX_PORTS * POF_PORT_LATENCY_SIZE <= 65535, "one reply holds every port");
static void send_port_latency(struct pof_conn *c, uint32_t xid, const uint16_t *ids, uint16_t n)
{
    static struct pof_port_latency lat[POF_MAX_PORTS];
    for (uint16_t i = 0; i < n; i++)
        c->sw->port_residence(c->sw->sw, ids[i], &lat[i]);
    struct pof_msg r = {.hdr = {.type = POFT_MULTIPART_REPLY, .xid = xid}};
    r.u.multipart = (struct pof_multipart){.mp_type = POFMP_PORT_LATENCY, .stats_num = n, .lat = lat};
    conn_send(c, &r);
}

static void on_multipart_request(struct pof_conn *c, const struct pof_msg *m)
{
    uint32_t no = m->u.multipart.port_no; /* mp_type is PORT_STATS or PORT_LATENCY: the codec refuses any other */
    bool lat = m->u.multipart.mp_type == POFMP_PORT_LATENCY;
    if (no == POF_PORT_ALL) {
        uint16_t ids[POF_MAX_PORTS];
        uint16_t n = port_ids(c, ids);
        if (lat)
            send_port_latency(c, m->hdr.xid, ids, n);
        else
            send_port_stats(c, m->hdr.xid, ids, n);
        return;
    }
    /* Our ports live in slot 0, so port_no is the port id. */
    if (no == 0 || no > POF_MAX_PORTS || !has_port(c, (uint16_t)no)) {
        conn_send_error(c, m->hdr.xid, POFET_BAD_REQUEST, POFBRC_BAD_PORT, "port statistics or latency for no such port");
        return;
    }
    uint16_t id = (uint16_t)no;
    if (lat)
        send_port_latency(c, m->hdr.xid, &id, 1);
    else
        send_port_stats(c, m->hdr.xid, &id, 1);
}

/* QUERYALL replays the state as the messages that built it, all with the request's xid, for slot 0 or every
 * slot (the same here). */
struct dump_ctx { struct pof_conn *c; uint32_t xid; };

static void dump_table(void *arg, const struct pof_table_mod *tm)
{
    struct dump_ctx *d = arg;
    d->c->msg.hdr = (struct pof_header){.type = POFT_TABLE_MOD, .xid = d->xid};
    d->c->msg.u.table_mod = *tm;
    conn_send(d->c, &d->c->msg);
}

static void dump_flow(void *arg, const struct pof_flow_mod *fm)
{
    struct dump_ctx *d = arg;
    d->c->msg.hdr = (struct pof_header){.type = POFT_FLOW_MOD, .xid = d->xid};
    d->c->msg.u.flow_mod = *fm;
    conn_send(d->c, &d->c->msg);
}

static void dump_meter(void *arg, const struct pof_meter_mod *mm)
{
    struct dump_ctx *d = arg;
    d->c->msg.hdr = (struct pof_header){.type = POFT_METER_MOD, .xid = d->xid};
    d->c->msg.u.meter_mod = *mm;
    conn_send(d->c, &d->c->msg);
}

static void on_queryall(struct pof_conn *c, const struct pof_msg *m)
{
    uint32_t xid = m->hdr.xid; /* m is c->msg, which the dump reuses */
    struct pof_status st;
    if (pof_queryall_check(&m->u.queryall, &st) < 0) { /* a slot other than 0: ERROR, no QUERYALL_FIN */
        conn_send_error(c, xid, st.type, st.code, st.why);
        return;
    }
    static const struct pof_dp_dump_ops ops = {dump_table, dump_flow, dump_meter};
    struct dump_ctx d = {c, xid};
    conn_send_resource_report(c, xid);
    conn_send_all_ports(c, xid);
    pof_dp_dump(c->sw->dp, &ops, &d);
    conn_send_simple(c, POFT_QUERYALL_FIN, xid);
}

/* The answer to the switch's own ECHO_REQUEST (check_liveness): arriving was all it had to do. */
static void on_echo_reply(struct pof_conn *c, const struct pof_msg *m)
{
    (void)c;
    (void)m;
}

static const handler_fn handlers[256] = {
    [POFT_ECHO_REQUEST] = conn_on_echo,
    [POFT_ECHO_REPLY] = on_echo_reply,
    [POFT_FEATURES_REQUEST] = conn_on_features_request,
    [POFT_GET_CONFIG_REQUEST] = conn_on_get_config,
    [POFT_SET_CONFIG] = conn_on_set_config,
    [POFT_PORT_MOD] = on_port_mod,
    [POFT_TABLE_MOD] = on_table_mod,
    [POFT_FLOW_MOD] = on_flow_mod,
    [POFT_METER_MOD] = on_meter_mod,
    [POFT_GROUP_MOD] = on_group_mod,
    [POFT_COUNTER_MOD] = on_counter_mod,
    [POFT_COUNTER_REQUEST] = on_counter_request,
    [POFT_PACKET_OUT] = on_packet_out,
    [POFT_QUERYALL_REQUEST] = on_queryall,
    [POFT_MULTIPART_REQUEST] = on_multipart_request,
};

bool conn_dispatch(struct pof_conn *c, const struct pof_msg *m)
{
    handler_fn h = handlers[m->hdr.type];
    if (h)
        h(c, m);
    return h != NULL;
}
