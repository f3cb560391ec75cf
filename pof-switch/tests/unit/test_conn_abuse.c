/* The controller connection against a hostile or broken controller, over loopback TCP (ctl_loop.c plays the
 * controller): a flood of messages is read a bounded amount per service call (the run loop keeps forwarding),
 * a controller that goes quiet (here: in the middle of a message whose declared length never arrives) is asked
 * for an ECHO and then dropped, a controller that never finishes the handshake is dropped, and the switch's own
 * ECHO_REQUEST may be answered. The clock is moved ahead by passing a later `now` to pof_conn_service. */
#include <poll.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "ctl_loop.h"
#include "dummy_io.h"
#include "pof_conn.h"
#include "pof_switch.h"
#include "unit.h"

#define MS 1000000ull

static struct pof_sw sw;
static const struct pof_msg *const rx = &ctl.msg; /* the last message received */

static bool no_error_before_echo(void)
{
    uint32_t xid = ctl_simple(POFT_ECHO_REQUEST);
    return ctl_recv() == 0 && rx->hdr.type == POFT_ECHO_REPLY && rx->hdr.xid == xid;
}

/* Accepts the switch's next connection with the clock from `now` on, 100 ms a try (after a close the switch
 * redials only after its backoff, counted on the moved clock), and lets it send its HELLO. Returns the time of
 * the connection, 0 if none came. */
static uint64_t accept_at(uint64_t now)
{
    ctl.in_len = ctl.consumed = 0;
    for (int i = 0; i < 200; i++, now += 100 * MS) {
        pof_conn_service(sw.conn, now);
        struct pollfd p = {.fd = ctl.lfd, .events = POLLIN};
        if (poll(&p, 1, 5) == 1) {
            ctl.fd = accept(ctl.lfd, NULL, NULL);
            pof_conn_service(sw.conn, now);
            return ctl.fd >= 0 ? now : 0;
        }
    }
    return 0;
}

/* The switch handles what arrived with its clock at `now`. */
static void pump_at(uint64_t now)
{
    for (int i = 0; i < 20; i++) {
        pof_conn_service(sw.conn, now);
        poll(NULL, 0, 1);
    }
}

static void test_echo_reply_is_accepted(void)
{
    struct pof_msg m = {.hdr = {.type = POFT_ECHO_REPLY, .xid = ++ctl.xid}};
    ctl_send(&m);
    CHECK(no_error_before_echo()); /* no ERROR "message type not supported" for it */
}

static void test_flood_is_read_in_bounded_slices(void)
{
    /* Room in both kernels for far more than one read, so that only the switch's own budget leaves bytes. */
    int big = 4 << 20;
    short ev;
    int sfd = pof_conn_fd(sw.conn, &ev);
    setsockopt(sfd, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
    setsockopt(ctl.fd, SOL_SOCKET, SO_SNDBUF, &big, sizeof(big));
    enum { N = 48 * 1024 }; /* 384 KiB of ECHO_REQUESTs, answered by as much: within the 4 MiB output buffer */
    static uint8_t flood[N * 8];
    for (uint32_t i = 0; i < N; i++) {
        uint8_t *h = flood + 8 * i;
        uint32_t xid = 1000 + i;
        h[0] = POF_VERSION, h[1] = POFT_ECHO_REQUEST, h[2] = 0, h[3] = 8;
        h[4] = (uint8_t)(xid >> 24), h[5] = (uint8_t)(xid >> 16), h[6] = (uint8_t)(xid >> 8), h[7] = (uint8_t)xid;
    }
    size_t sent = 0;
    for (int tries = 0; tries < 100 && sent < sizeof(flood); tries++) {
        ssize_t n = send(ctl.fd, flood + sent, sizeof(flood) - sent, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (n > 0)
            sent += (size_t)n;
        else
            poll(NULL, 0, 1);
    }
    CHECK_MSG(sent == sizeof(flood), "the kernel took less than the flood");
    poll(NULL, 0, 50); /* all of it in the switch's receive queue */
    int waiting = 0;
    ioctl(sfd, FIONREAD, &waiting);
    CHECK(waiting > 2 * 65536);
    pof_conn_service(sw.conn, pof_now_ns());
    int left = 0;
    ioctl(sfd, FIONREAD, &left);
    CHECK_MSG(left > 0 && left < waiting, "one service call read the whole flood");
    /* Nothing is lost: every ECHO is answered, in order. */
    uint32_t answered = 0;
    while (answered < N && ctl_recv() == 0 && rx->hdr.type == POFT_ECHO_REPLY && rx->hdr.xid == 1000 + answered)
        answered++;
    CHECK(answered == N);
    CHECK(no_error_before_echo());
}

static void test_quiet_controller_gets_an_echo_then_is_dropped(void)
{
    CHECK(no_error_before_echo());
    uint64_t t0 = pof_now_ns(); /* the last message from the controller arrived just before */
    /* A FLOW_MOD's header, and nothing of its body: the switch waits for 2176 more bytes. */
    uint8_t head[8] = {POF_VERSION, POFT_FLOW_MOD, 0x08, 0x88, 0, 0, 0, 9};
    ctl_send_raw(head, sizeof(head));
    pof_conn_service(sw.conn, t0 + POF_CONN_TIMEOUT_NS / 3 - 50 * MS);
    CHECK(pof_conn_ready(sw.conn));
    pof_conn_service(sw.conn, t0 + POF_CONN_TIMEOUT_NS / 3 + MS);
    CHECK(ctl_recv() == 0 && rx->hdr.type == POFT_ECHO_REQUEST); /* "are you there" */
    pof_conn_service(sw.conn, t0 + POF_CONN_TIMEOUT_NS / 2);
    CHECK(ctl_wait_eof(50) == false); /* still connected */
    pof_conn_service(sw.conn, t0 + POF_CONN_TIMEOUT_NS + MS);
    CHECK(!pof_conn_ready(sw.conn));
    CHECK(ctl_wait_eof(500));
    ctl_hang_up();
}

static void test_answered_echo_keeps_the_connection(void)
{
    uint64_t t = accept_at(pof_now_ns() + 40 * POF_CONN_TIMEOUT_NS); /* after the previous close's backoff */
    CHECK(t != 0);
    CHECK(ctl_handshake(NULL, 0, NULL, NULL, 1, NULL));
    uint32_t xid = ctl_simple(POFT_ECHO_REQUEST);
    pump_at(t); /* the controller's last message arrives at t */
    CHECK(ctl_recv() == 0 && rx->hdr.type == POFT_ECHO_REPLY && rx->hdr.xid == xid);
    pof_conn_service(sw.conn, t + POF_CONN_TIMEOUT_NS / 2);
    CHECK(ctl_recv() == 0 && rx->hdr.type == POFT_ECHO_REQUEST);
    struct pof_msg r = {.hdr = {.type = POFT_ECHO_REPLY, .xid = rx->hdr.xid}};
    ctl_send(&r);
    pump_at(t + POF_CONN_TIMEOUT_NS / 2);
    pof_conn_service(sw.conn, t + POF_CONN_TIMEOUT_NS + MS);
    CHECK(pof_conn_ready(sw.conn)); /* silent for less than the timeout since the ECHO_REPLY */
    pof_conn_service(sw.conn, t + 3 * POF_CONN_TIMEOUT_NS / 2 + MS);
    CHECK(!pof_conn_ready(sw.conn)); /* and dropped a timeout after it */
    CHECK(ctl_wait_eof(500));
    ctl_hang_up();
}

static void test_handshake_must_complete_in_time(void)
{
    uint64_t t = accept_at(pof_now_ns() + 80 * POF_CONN_TIMEOUT_NS);
    CHECK(t != 0);
    CHECK(ctl_recv_type(POFT_HELLO) == 0);
    ctl_simple(POFT_HELLO); /* and then nothing: no FEATURES_REQUEST */
    pof_conn_service(sw.conn, t + POF_CONN_TIMEOUT_NS - MS);
    CHECK(ctl_wait_eof(50) == false);
    pof_conn_service(sw.conn, t + POF_CONN_TIMEOUT_NS + MS);
    CHECK(ctl_wait_eof(500));
    ctl_hang_up();
    /* It dials again, and a well-behaved controller gets a working session. */
    CHECK(accept_at(t + 2 * POF_CONN_TIMEOUT_NS) != 0);
    CHECK(ctl_handshake(NULL, 0, NULL, NULL, 1, NULL));
    CHECK(no_error_before_echo());
}

int main(void)
{
    struct sw_config cfg = {.controllers = {{.host = "127.0.0.1", .port = ctl_listen()}},
                            .n_controllers = 1, .dev_id = 3,
                            .all_ports_enabled = true};
    CHECK(cfg.controllers[0].port != 0);
    CHECK(pof_sw_init(&sw, &cfg, &dummy_io_ops) == 0);
    char err[128];
    CHECK(pof_sw_port_add(&sw, "a", "", err, sizeof(err)) == 1);
    CHECK(ctl_accept(&sw));
    CHECK(ctl_handshake(NULL, 0, NULL, NULL, 1, NULL));
    RUN(test_echo_reply_is_accepted);
    RUN(test_flood_is_read_in_bounded_slices);
    RUN(test_quiet_controller_gets_an_echo_then_is_dropped);
    RUN(test_answered_echo_keeps_the_connection);
    RUN(test_handshake_must_complete_in_time);
    ctl_close();
    pof_sw_fini(&sw);
    return unit_summary();
}
