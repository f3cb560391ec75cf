/* Controller connection: TCP framing and the reference's strictly ordered handshake (the messages themselves:
 * pof_conn_msg.c). */
#include "pof_conn_int.h"

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

#include "pof_clock.h"

#define BACKOFF_MIN_NS 500000000ull
#define BACKOFF_MAX_NS 8000000000ull
#define LINGER_NS 1000000000ull /* closing after a protocol error: at most this long to send what is queued */
/* recv calls per pof_conn_service: a controller that floods must not keep the run loop (and so the data path
 * and the management socket) from its other work; what is left is read on the next call. */
#define READS_PER_SERVICE 1

/* The next attempt goes to the next controller of the list at once; after a whole round of failures (every
 * controller tried since the last session), after the backoff, which doubles each round up to BACKOFF_MAX_NS. A
 * single controller is a round of one: backoff after each failure, as before lists. */
static void conn_close(struct pof_conn *c, uint64_t now, const char *why)
{
    const struct pof_ctl_addr *a = &c->addrs[c->cur];
    if (c->fd >= 0) {
        fprintf(stderr, "pofswitch: controller connection to %s:%u closed: %s\n", a->host, a->port, why);
        close(c->fd);
    } else {
        fprintf(stderr, "pofswitch: controller %s:%u: %s\n", a->host, a->port, why);
    }
    c->fd = -1;
    c->state = ST_IDLE;
    c->in_len = 0;
    c->out_len = 0;
    c->cur = (c->cur + 1) % c->n_addrs;
    if (++c->failed_in_round < c->n_addrs) {
        c->retry_at = now;
        return;
    }
    c->failed_in_round = 0;
    c->retry_at = now + c->backoff;
    c->backoff = c->backoff * 2 > BACKOFF_MAX_NS ? BACKOFF_MAX_NS : c->backoff * 2;
}

/* Closes for a protocol error without losing what is queued, above all the ERROR that says why: closing at once
 * would drop the output buffer, and close() with unread input sends a reset that can overtake the data. So the
 * connection stops taking messages, sends its queue, shuts its write side (a FIN after the data) and closes when
 * the controller closes too, or after LINGER_NS. All of it non-blocking, from pof_conn_service (closing_step). */
static void conn_linger(struct pof_conn *c, uint64_t now, const char *why)
{
    fprintf(stderr, "pofswitch: closing the controller connection: %s\n", why);
    c->state = ST_CLOSING;
    c->close_at = now + LINGER_NS;
    c->close_why = why;
    c->shut = false;
    c->in_len = 0;
}

struct pof_conn *pof_conn_create(const struct pof_sw_cb *sw, const struct pof_ctl_addr *addrs, int n_addrs,
                                 uint64_t timeout_ns)
{
    if (n_addrs < 1 || n_addrs > POF_MAX_CONTROLLERS)
        return NULL;
    struct pof_conn *c = calloc(1, sizeof(*c));
    if (!c)
        return NULL;
    c->out = malloc(OUT_CAP);
    if (!c->out) {
        free(c);
        return NULL;
    }
    c->sw = sw;
    memcpy(c->addrs, addrs, (size_t)n_addrs * sizeof(*addrs));
    c->n_addrs = n_addrs;
    c->fd = -1;
    c->backoff = BACKOFF_MIN_NS;
    c->timeout_ns = timeout_ns ? timeout_ns : POF_CONN_TIMEOUT_NS;
    c->miss_send_len = 128; /* the reference's default, until a SET_CONFIG */
    return c;
}

int pof_conn_controller(const struct pof_conn *c)
{
    return c->cur;
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

/* ---- sending (pof_conn_int.h) --------------------------------------------------------------------- */

void conn_send(struct pof_conn *c, const struct pof_msg *m)
{
    if (c->fd < 0 || c->state == ST_CONNECTING || c->state == ST_CLOSING)
        return; /* closing: the queue holds what was said before the error, nothing is added after it */
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

void conn_send_simple(struct pof_conn *c, uint8_t type, uint32_t xid)
{
    struct pof_msg m = {.hdr = {.type = type, .xid = xid}};
    conn_send(c, &m);
}

void conn_send_error(struct pof_conn *c, uint32_t xid, uint16_t type, uint16_t code, const char *why)
{
    struct pof_msg *m = calloc(1, sizeof(*m));
    if (!m)
        return;
    m->hdr.type = POFT_ERROR;
    m->hdr.xid = xid;
    m->u.error.type = type;
    m->u.error.code = code;
    m->u.error.dev_id = c->sw->dev_id;
    snprintf(m->u.error.string, sizeof(m->u.error.string), "%s", why ? why : "");
    conn_send(c, m);
    free(m);
}

/* ---- the handshake ----------------------------------------------------------------------------- */

/* The controller's HELLO starts a session: the switch applies its on-connect policy (keep its state, or reset it
 * as the reference does: --reset-on-connect) before anything of the new session is applied. */
static void hello_accepted(struct pof_conn *c)
{
    c->state = ST_WAIT_FEATURES_REQUEST;
    c->sw->session_start(c->sw->sw);
}

/* Handles one message during the handshake; returns false if the connection must be dropped. */
static bool handshake_step(struct pof_conn *c, const struct pof_msg *m)
{
    uint8_t t = m->hdr.type;
    if (t == POFT_ECHO_REQUEST) {
        conn_on_echo(c, m);
        return true;
    }
    switch (c->state) {
    case ST_WAIT_HELLO:
        if (t != POFT_HELLO)
            return false;
        hello_accepted(c);
        return true;
    case ST_WAIT_FEATURES_REQUEST:
        if (t != POFT_FEATURES_REQUEST)
            return false;
        conn_on_features_request(c, m);
        c->state = ST_WAIT_SET_CONFIG;
        return true;
    case ST_WAIT_SET_CONFIG:
        if (t != POFT_SET_CONFIG)
            return false;
        conn_on_set_config(c, m);
        c->state = ST_WAIT_GET_CONFIG_REQUEST;
        return true;
    case ST_WAIT_GET_CONFIG_REQUEST:
        if (t != POFT_GET_CONFIG_REQUEST)
            return false;
        conn_on_get_config(c, m);
        c->state = ST_READY;
        c->backoff = BACKOFF_MIN_NS;
        c->failed_in_round = 0;
        conn_send_resource_report(c, m->hdr.xid);
        conn_send_all_ports(c, m->hdr.xid);
        fprintf(stderr, "pofswitch: controller handshake complete with %s:%u\n", c->addrs[c->cur].host,
                c->addrs[c->cur].port);
        return true;
    default:
        return false;
    }
}

static void handle_message(struct pof_conn *c, const uint8_t *raw, uint32_t len, uint64_t now)
{
    struct pof_status st;
    uint32_t xid = len >= 8 ? (uint32_t)raw[4] << 24 | (uint32_t)raw[5] << 16 | (uint32_t)raw[6] << 8 | raw[7] : 0;
    c->last_rx = now;
    if (pof_decode(raw, len, &c->msg, &st) < 0) {
        /* HELLO may carry a lower version: accept any version <= 4 for HELLO, as the reference does. */
        if (c->state == ST_WAIT_HELLO && len >= 8 && raw[1] == POFT_HELLO && raw[0] <= POF_VERSION) {
            hello_accepted(c);
            return;
        }
        conn_send_error(c, xid, st.type, st.code, st.why);
        if (c->state != ST_READY && st.code == POFBRC_BAD_VERSION && raw[1] == POFT_HELLO)
            conn_linger(c, now, "controller HELLO version unsupported");
        return;
    }
    if (c->state != ST_READY) {
        if (!handshake_step(c, &c->msg))
            conn_linger(c, now, "message out of handshake order");
        return;
    }
    if (!conn_dispatch(c, &c->msg))
        conn_send_error(c, xid, POFET_BAD_REQUEST, POFBRC_BAD_TYPE, "message type not supported");
}

static void read_input(struct pof_conn *c, uint64_t now)
{
    for (int reads = 0; reads < READS_PER_SERVICE; reads++) {
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
        while (c->in_len - at >= POF_HEADER_LEN && c->fd >= 0 && c->state != ST_CLOSING) {
            uint32_t mlen = (uint32_t)c->in[at + 2] << 8 | c->in[at + 3];
            if (mlen < POF_HEADER_LEN) {
                /* Framing is lost: nothing after this can be trusted. The ERROR goes out before the close. */
                conn_send_error(c, 0, POFET_BAD_REQUEST, POFBRC_BAD_LEN, "length shorter than the header");
                conn_linger(c, now, "bad framing");
                return;
            }
            if (c->in_len - at < mlen)
                break;
            handle_message(c, c->in + at, mlen, now);
            at += mlen;
        }
        if (c->fd < 0 || c->state == ST_CLOSING)
            return; /* closing dropped the input */
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

/* ST_CLOSING (conn_linger): send the queue; once it is all with TCP, shut the write side and read (and drop)
 * until the controller closes, or the time is up. */
static void closing_step(struct pof_conn *c, uint64_t now)
{
    flush_output(c, now);
    if (c->fd < 0)
        return;
    if (!c->out_len) {
        if (!c->shut) {
            shutdown(c->fd, SHUT_WR); /* a failure means the socket is gone: recv says so below */
            c->shut = true;
        }
        for (;;) {
            ssize_t n = recv(c->fd, c->in, IN_CAP, 0);
            if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
                conn_close(c, now, c->close_why);
                return;
            }
            if (n < 0)
                break;
        }
    }
    if (now >= c->close_at)
        conn_close(c, now, c->close_why);
}

/* A controller that never completes the handshake, or goes quiet (a hang, a cut without a reset, a message
 * whose declared length never arrives) would hold the switch's only controller connection for ever. */
static void check_liveness(struct pof_conn *c, uint64_t now)
{
    /* Deadlines, not differences: a clock that a test moves ahead and back never makes them wrap. */
    if (c->state != ST_READY) {
        if (now >= c->connected_at + c->timeout_ns)
            conn_close(c, now, "controller handshake timed out");
        return;
    }
    if (now >= c->last_rx + c->timeout_ns) {
        conn_close(c, now, "controller silent");
        return;
    }
    uint64_t third = c->timeout_ns / 3;
    if (now >= c->last_rx + third && now >= c->echo_sent_at + third) {
        conn_send_simple(c, POFT_ECHO_REQUEST, 0);
        c->echo_sent_at = now;
    }
}

static void start_connect(struct pof_conn *c, uint64_t now)
{
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *ai = NULL;
    char port[8];
    snprintf(port, sizeof(port), "%u", c->addrs[c->cur].port);
    if (getaddrinfo(c->addrs[c->cur].host, port, &hints, &ai) != 0 || !ai) {
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
    c->connected_at = now; /* a connect that hangs (a SYN into a black hole) has the handshake's deadline too */
}

void pof_conn_service(struct pof_conn *c, uint64_t now)
{
    if (c->state == ST_CLOSING) {
        closing_step(c, now);
        return;
    }
    if (c->state == ST_IDLE) {
        if (now < c->retry_at)
            return;
        start_connect(c, now);
    }
    if (c->state == ST_CONNECTING) {
        struct pollfd p = {.fd = c->fd, .events = POLLOUT};
        if (poll(&p, 1, 0) <= 0) {
            if (now >= c->connected_at + c->timeout_ns)
                conn_close(c, now, "connect timed out");
            return;
        }
        int err = 0;
        socklen_t l = sizeof(err);
        getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &l);
        if (err) {
            conn_close(c, now, strerror(err));
            return;
        }
        c->state = ST_WAIT_HELLO;
        c->connected_at = c->last_rx = c->echo_sent_at = now;
        conn_send_simple(c, POFT_HELLO, 0);
    }
    if (c->fd >= 0)
        read_input(c, now);
    if (c->fd >= 0 && c->state != ST_CLOSING)
        check_liveness(c, now);
    if (c->fd >= 0)
        flush_output(c, now);
}
