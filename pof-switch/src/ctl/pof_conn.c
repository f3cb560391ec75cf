/* Controller connection: TCP framing, the reference's strictly ordered handshake, and message handlers. */
#include "pof_conn.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "pof_switch.h"
#include "pof_wire.h"

#define IN_CAP (2 * 65536)
#define OUT_CAP (4 * 1024 * 1024)
#define BACKOFF_MIN_NS 500000000ull
#define BACKOFF_MAX_NS 8000000000ull
/* Port stats entries per MULTIPART_REPLY. POF_MAX_PORTS never reaches the wire limit, so the unit tests build
 * this file with a small value to exercise the REPLY_MORE split. */
#ifndef STATS_PER_REPLY
#define STATS_PER_REPLY POF_PORT_STATS_MAX
#endif
_Static_assert(STATS_PER_REPLY >= 1 && STATS_PER_REPLY <= POF_PORT_STATS_MAX, "a reply holds 1-584 entries");

/* Handshake states, in the order the reference requires. */
enum conn_state {
    ST_IDLE,            /* not connected; next attempt at retry_at */
    ST_CONNECTING,
    ST_WAIT_HELLO,
    ST_WAIT_FEATURES_REQUEST,
    ST_WAIT_SET_CONFIG,
    ST_WAIT_GET_CONFIG_REQUEST,
    ST_READY,
};

struct pof_conn {
    struct pof_sw *sw;
    char host[256];
    uint16_t port;
    int fd;
    enum conn_state state;
    uint64_t retry_at, backoff;
    uint32_t in_len;
    size_t out_len;
    uint8_t in[IN_CAP];
    uint8_t *out;
    struct pof_msg msg; /* decode scratch: large, so not on the stack */
    uint8_t scratch[65536];
};

static void conn_close(struct pof_conn *c, uint64_t now, const char *why)
{
    if (c->fd >= 0) {
        fprintf(stderr, "pofswitch: controller connection closed: %s\n", why);
        close(c->fd);
    }
    c->fd = -1;
    c->state = ST_IDLE;
    c->in_len = 0;
    c->out_len = 0;
    c->retry_at = now + c->backoff;
    c->backoff = c->backoff * 2 > BACKOFF_MAX_NS ? BACKOFF_MAX_NS : c->backoff * 2;
}

struct pof_conn *pof_conn_create(struct pof_sw *sw, const char *host, uint16_t port)
{
    struct pof_conn *c = calloc(1, sizeof(*c));
    if (!c)
        return NULL;
    c->out = malloc(OUT_CAP);
    if (!c->out) {
        free(c);
        return NULL;
    }
    c->sw = sw;
    snprintf(c->host, sizeof(c->host), "%s", host);
    c->port = port;
    c->fd = -1;
    c->backoff = BACKOFF_MIN_NS;
    return c;
}

void pof_conn_destroy(struct pof_conn *c)
{
    if (!c)
        return;
    if (c->fd >= 0)
        close(c->fd);
    free(c->out);
    free(c);
}

bool pof_conn_ready(const struct pof_conn *c)
{
    return c->state == ST_READY;
}

int pof_conn_fd(const struct pof_conn *c, short *events)
{
    *events = 0;
    if (c->fd < 0)
        return -1;
    *events = c->state == ST_CONNECTING ? POLLOUT : (short)(POLLIN | (c->out_len ? POLLOUT : 0));
    return c->fd;
}

/* Queues one encoded message; on overflow the connection is dropped rather than losing messages silently. */
static void send_msg(struct pof_conn *c, const struct pof_msg *m)
{
    if (c->fd < 0 || c->state == ST_CONNECTING)
        return;
    int n = pof_encode(m, c->scratch, sizeof(c->scratch));
    if (n < 0)
        return;
    if (c->out_len + (size_t)n > OUT_CAP) {
        conn_close(c, pof_now_ns(), "output buffer full");
        return;
    }
    memcpy(c->out + c->out_len, c->scratch, (size_t)n);
    c->out_len += (size_t)n;
}

static void send_simple(struct pof_conn *c, uint8_t type, uint32_t xid)
{
    struct pof_msg m = {.hdr = {.type = type, .xid = xid}};
    send_msg(c, &m);
}

static void send_error(struct pof_conn *c, uint32_t xid, uint16_t type, uint16_t code, const char *why)
{
    struct pof_msg *m = calloc(1, sizeof(*m));
    if (!m)
        return;
    m->hdr.type = POFT_ERROR;
    m->hdr.xid = xid;
    m->u.error.type = type;
    m->u.error.code = code;
    m->u.error.dev_id = c->sw->cfg.dev_id;
    snprintf(m->u.error.string, sizeof(m->u.error.string), "%s", why ? why : "");
    send_msg(c, m);
    free(m);
}

static void fill_port(const struct sw_port *p, uint32_t dev_id, struct pof_port *o)
{
    memset(o, 0, sizeof(*o));
    o->port_id = p->id;
    o->dev_id = dev_id;
    memcpy(o->hw_addr, p->mac, 6);
    snprintf(o->name, sizeof(o->name), "%s", p->name);
    o->curr_speed = o->max_speed = 10000000; /* kbps, as the reference reports */
    o->of_enable = p->enabled;
}

void pof_conn_port_status(struct pof_conn *c, const struct sw_port *p, uint8_t reason)
{
    if (c->state != ST_READY)
        return; /* ports are reported all at once when the handshake completes */
    struct pof_msg m = {.hdr = {.type = POFT_PORT_STATUS}};
    m.u.port_status.reason = reason;
    fill_port(p, c->sw->cfg.dev_id, &m.u.port_status.port);
    send_msg(c, &m);
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
    m.u.packet_in.dev_id = c->sw->cfg.dev_id;
    m.u.packet_in.port_id = in_port;
    m.u.packet_in.data = data;
    send_msg(c, &m);
}

static void send_resource_report(struct pof_conn *c, uint32_t xid)
{
    static const uint8_t counts[POF_TABLE_TYPES] = {POF_TABLES_MM, POF_TABLES_LPM, POF_TABLES_EM,
                                                    POF_TABLES_LINEAR};
    struct pof_msg m = {.hdr = {.type = POFT_RESOURCE_REPORT, .xid = xid}};
    struct pof_resource_report *r = &m.u.resource;
    r->counter_num = POF_COUNTERS;
    r->meter_num = POF_METERS;
    r->group_num = 0; /* groups are not supported */
    for (int t = 0; t < POF_TABLE_TYPES; t++)
        r->tables[t] = (struct pof_table_resource){c->sw->cfg.dev_id, (uint8_t)t, counts[t], 160,
                                                   POF_TABLE_MAX_SIZE};
    send_msg(c, &m);
}

static void send_all_ports(struct pof_conn *c, uint32_t xid)
{
    for (int i = 1; i <= POF_MAX_PORTS; i++) {
        if (!c->sw->ports[i].in_use)
            continue;
        struct pof_msg m = {.hdr = {.type = POFT_PORT_STATUS, .xid = xid}};
        m.u.port_status.reason = POF_PORT_REASON_ADD;
        fill_port(&c->sw->ports[i], c->sw->cfg.dev_id, &m.u.port_status.port);
        send_msg(c, &m);
    }
}

static int port_count(const struct pof_sw *sw)
{
    int n = 0;
    for (int i = 1; i <= POF_MAX_PORTS; i++)
        n += sw->ports[i].in_use;
    return n;
}

/* ---- handlers of the READY state, one per message type ---------------------------------------- */

typedef void (*handler_fn)(struct pof_conn *c, const struct pof_msg *m);

static void on_echo(struct pof_conn *c, const struct pof_msg *m)
{
    struct pof_msg r = *m;
    r.hdr.type = POFT_ECHO_REPLY;
    send_msg(c, &r);
}

static void on_features_request(struct pof_conn *c, const struct pof_msg *m)
{
    struct pof_msg r = {.hdr = {.type = POFT_FEATURES_REPLY, .xid = m->hdr.xid}};
    r.u.features.dev_id = c->sw->cfg.dev_id;
    r.u.features.port_num = (uint16_t)port_count(c->sw);
    r.u.features.table_num = POF_TABLES_TOTAL;
    snprintf(r.u.features.vendor_id, POF_NAME_LEN, "WiSlice");
    snprintf(r.u.features.dev_fw_id, POF_NAME_LEN, "pofswitch 0.1.0 (%s)", c->sw->io->name);
    snprintf(r.u.features.dev_lkup_id, POF_NAME_LEN, "wislice-core");
    send_msg(c, &r);
}

static void on_get_config(struct pof_conn *c, const struct pof_msg *m)
{
    struct pof_msg r = {.hdr = {.type = POFT_GET_CONFIG_REPLY, .xid = m->hdr.xid}};
    r.u.config.dev_id = c->sw->cfg.dev_id;
    r.u.config.miss_send_len = 128;
    send_msg(c, &r);
}

static void on_set_config(struct pof_conn *c, const struct pof_msg *m)
{
    (void)c;
    (void)m; /* flags and miss_send_len are accepted; table misses drop */
}

static void on_port_mod(struct pof_conn *c, const struct pof_msg *m)
{
    uint16_t id = m->u.port_status.port.port_id;
    if (id == 0 || id > POF_MAX_PORTS || !c->sw->ports[id].in_use) {
        send_error(c, m->hdr.xid, POFET_PORT_MOD_FAILED, POFPMFC_BAD_PORT_ID, "no such port");
        return;
    }
    c->sw->ports[id].enabled = m->u.port_status.port.of_enable != 0;
}

static void report(struct pof_conn *c, const struct pof_msg *m, int rc, const struct pof_status *st)
{
    if (rc < 0)
        send_error(c, m->hdr.xid, st->type, st->code, st->why);
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
        send_error(c, m->hdr.xid, st.type, st.code, st.why);
    else
        send_msg(c, &r);
}

static void on_packet_out(struct pof_conn *c, const struct pof_msg *m)
{
    struct pof_status st;
    const struct pof_packet_out *po = &m->u.packet_out;
    if (pof_dp_check_actions(po->actions, po->action_num, &st) < 0) {
        send_error(c, m->hdr.xid, st.type, st.code, st.why);
        return;
    }
    pof_sw_packet_out(c->sw, po);
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
            pof_sw_port_stats(c->sw, ids[at + i], now, &stats[i]);
        at = (uint16_t)(at + k);
        struct pof_msg r = {.hdr = {.type = POFT_MULTIPART_REPLY, .xid = xid}};
        r.u.multipart = (struct pof_multipart){.mp_type = POFMP_PORT_STATS, .flags = at < n ? POFMPF_REPLY_MORE : 0,
                                               .stats_num = k, .stats = stats};
        send_msg(c, &r);
    } while (at < n);
}

static void on_multipart_request(struct pof_conn *c, const struct pof_msg *m)
{
    uint32_t no = m->u.multipart.port_no; /* mp_type is PORT_STATS: the codec refuses any other */
    if (no == POF_PORT_ALL) {
        send_port_stats(c, m->hdr.xid, c->sw->active, c->sw->n_active);
        return;
    }
    /* Our ports live in slot 0, so port_no is the port id. */
    if (no == 0 || no > POF_MAX_PORTS || !c->sw->ports[no].in_use) {
        send_error(c, m->hdr.xid, POFET_BAD_REQUEST, POFBRC_BAD_PORT, "port statistics for no such port");
        return;
    }
    uint16_t id = (uint16_t)no;
    send_port_stats(c, m->hdr.xid, &id, 1);
}

/* QUERYALL replays the state as the messages that built it, all with the request's xid. */
struct dump_ctx { struct pof_conn *c; uint32_t xid; };

static void dump_table(void *arg, const struct pof_table_mod *tm)
{
    struct dump_ctx *d = arg;
    d->c->msg.hdr = (struct pof_header){.type = POFT_TABLE_MOD, .xid = d->xid};
    d->c->msg.u.table_mod = *tm;
    send_msg(d->c, &d->c->msg);
}

static void dump_flow(void *arg, const struct pof_flow_mod *fm)
{
    struct dump_ctx *d = arg;
    d->c->msg.hdr = (struct pof_header){.type = POFT_FLOW_MOD, .xid = d->xid};
    d->c->msg.u.flow_mod = *fm;
    send_msg(d->c, &d->c->msg);
}

static void dump_meter(void *arg, const struct pof_meter_mod *mm)
{
    struct dump_ctx *d = arg;
    d->c->msg.hdr = (struct pof_header){.type = POFT_METER_MOD, .xid = d->xid};
    d->c->msg.u.meter_mod = *mm;
    send_msg(d->c, &d->c->msg);
}

static void on_queryall(struct pof_conn *c, const struct pof_msg *m)
{
    uint32_t xid = m->hdr.xid; /* m is c->msg, which the dump reuses */
    static const struct pof_dp_dump_ops ops = {dump_table, dump_flow, dump_meter};
    struct dump_ctx d = {c, xid};
    send_resource_report(c, xid);
    send_all_ports(c, xid);
    pof_dp_dump(c->sw->dp, &ops, &d);
    send_simple(c, POFT_QUERYALL_FIN, xid);
}

static const handler_fn handlers[256] = {
    [POFT_ECHO_REQUEST] = on_echo,
    [POFT_FEATURES_REQUEST] = on_features_request,
    [POFT_GET_CONFIG_REQUEST] = on_get_config,
    [POFT_SET_CONFIG] = on_set_config,
    [POFT_PORT_MOD] = on_port_mod,
    [POFT_TABLE_MOD] = on_table_mod,
    [POFT_FLOW_MOD] = on_flow_mod,
    [POFT_METER_MOD] = on_meter_mod,
    [POFT_COUNTER_MOD] = on_counter_mod,
    [POFT_COUNTER_REQUEST] = on_counter_request,
    [POFT_PACKET_OUT] = on_packet_out,
    [POFT_QUERYALL_REQUEST] = on_queryall,
    [POFT_MULTIPART_REQUEST] = on_multipart_request,
};

/* ---- the handshake ----------------------------------------------------------------------------- */

/* Handles one message during the handshake; returns false if the connection must be dropped. */
static bool handshake_step(struct pof_conn *c, const struct pof_msg *m)
{
    uint8_t t = m->hdr.type;
    if (t == POFT_ECHO_REQUEST) {
        on_echo(c, m);
        return true;
    }
    switch (c->state) {
    case ST_WAIT_HELLO:
        if (t != POFT_HELLO)
            return false;
        c->state = ST_WAIT_FEATURES_REQUEST;
        return true;
    case ST_WAIT_FEATURES_REQUEST:
        if (t != POFT_FEATURES_REQUEST)
            return false;
        on_features_request(c, m);
        c->state = ST_WAIT_SET_CONFIG;
        return true;
    case ST_WAIT_SET_CONFIG:
        if (t != POFT_SET_CONFIG)
            return false;
        c->state = ST_WAIT_GET_CONFIG_REQUEST;
        return true;
    case ST_WAIT_GET_CONFIG_REQUEST:
        if (t != POFT_GET_CONFIG_REQUEST)
            return false;
        on_get_config(c, m);
        c->state = ST_READY;
        c->backoff = BACKOFF_MIN_NS;
        send_resource_report(c, m->hdr.xid);
        send_all_ports(c, m->hdr.xid);
        fprintf(stderr, "pofswitch: controller handshake complete\n");
        return true;
    default:
        return false;
    }
}

static void handle_message(struct pof_conn *c, const uint8_t *raw, uint32_t len, uint64_t now)
{
    struct pof_status st;
    uint32_t xid = len >= 8 ? (uint32_t)raw[4] << 24 | (uint32_t)raw[5] << 16 | (uint32_t)raw[6] << 8 | raw[7] : 0;
    if (pof_decode(raw, len, &c->msg, &st) < 0) {
        /* HELLO may carry a lower version: accept any version <= 4 for HELLO, as the reference does. */
        if (c->state == ST_WAIT_HELLO && len >= 8 && raw[1] == POFT_HELLO && raw[0] <= POF_VERSION) {
            c->state = ST_WAIT_FEATURES_REQUEST;
            return;
        }
        send_error(c, xid, st.type, st.code, st.why);
        if (c->state != ST_READY && st.code == POFBRC_BAD_VERSION && raw[1] == POFT_HELLO)
            conn_close(c, now, "controller HELLO version unsupported");
        return;
    }
    if (c->state != ST_READY) {
        if (!handshake_step(c, &c->msg))
            conn_close(c, now, "message out of handshake order");
        return;
    }
    handler_fn h = handlers[c->msg.hdr.type];
    if (h)
        h(c, &c->msg);
    else
        send_error(c, xid, POFET_BAD_REQUEST, POFBRC_BAD_TYPE, "message type not supported");
}

static void read_input(struct pof_conn *c, uint64_t now)
{
    for (;;) {
        ssize_t n = recv(c->fd, c->in + c->in_len, IN_CAP - c->in_len, 0);
        if (n == 0) {
            conn_close(c, now, "controller closed the connection");
            return;
        }
        if (n < 0) {
            if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
                conn_close(c, now, strerror(errno));
            return;
        }
        c->in_len += (uint32_t)n;
        uint32_t at = 0;
        while (c->in_len - at >= POF_HEADER_LEN && c->fd >= 0) {
            uint32_t mlen = (uint32_t)c->in[at + 2] << 8 | c->in[at + 3];
            if (mlen < POF_HEADER_LEN) {
                /* Framing is lost: nothing after this can be trusted. */
                send_error(c, 0, POFET_BAD_REQUEST, POFBRC_BAD_LEN, "length shorter than the header");
                conn_close(c, now, "bad framing");
                return;
            }
            if (c->in_len - at < mlen)
                break;
            handle_message(c, c->in + at, mlen, now);
            at += mlen;
        }
        if (c->fd < 0)
            return;
        memmove(c->in, c->in + at, c->in_len - at);
        c->in_len -= at;
    }
}

static void flush_output(struct pof_conn *c, uint64_t now)
{
    while (c->out_len && c->fd >= 0) {
        ssize_t n = send(c->fd, c->out, c->out_len, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
                conn_close(c, now, strerror(errno));
            return;
        }
        memmove(c->out, c->out + n, c->out_len - (size_t)n);
        c->out_len -= (size_t)n;
    }
}

static void start_connect(struct pof_conn *c, uint64_t now)
{
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *ai = NULL;
    char port[8];
    snprintf(port, sizeof(port), "%u", c->port);
    if (getaddrinfo(c->host, port, &hints, &ai) != 0 || !ai) {
        conn_close(c, now, "controller address does not resolve");
        return;
    }
    c->fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (c->fd < 0) {
        freeaddrinfo(ai);
        conn_close(c, now, strerror(errno));
        return;
    }
    int one = 1;
    setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    int rc = connect(c->fd, ai->ai_addr, ai->ai_addrlen);
    freeaddrinfo(ai);
    if (rc < 0 && errno != EINPROGRESS) {
        conn_close(c, now, strerror(errno));
        return;
    }
    c->state = ST_CONNECTING;
}

void pof_conn_service(struct pof_conn *c, uint64_t now)
{
    if (c->state == ST_IDLE) {
        if (now < c->retry_at)
            return;
        start_connect(c, now);
    }
    if (c->state == ST_CONNECTING) {
        struct pollfd p = {.fd = c->fd, .events = POLLOUT};
        if (poll(&p, 1, 0) <= 0)
            return;
        int err = 0;
        socklen_t l = sizeof(err);
        getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &l);
        if (err) {
            conn_close(c, now, strerror(err));
            return;
        }
        c->state = ST_WAIT_HELLO;
        send_simple(c, POFT_HELLO, 0);
    }
    if (c->fd >= 0)
        read_input(c, now);
    if (c->fd >= 0)
        flush_output(c, now);
}
