/* The controller connection's MULTIPART port statistics, end to end over a loopback TCP socket: this file
 * plays the controller with the C codec. pof_conn.c is built here with STATS_PER_REPLY=2 (meson.build), so
 * three ports already need the REPLY_MORE split that 585 ports would need in the real switch. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "dummy_io.h"
#include "pof_conn.h"
#include "pof_switch.h"
#include "unit.h"

struct ctl { int lfd, fd; uint8_t in[1 << 17]; size_t in_len; uint32_t xid; };

static struct ctl ctl;
static struct pof_sw sw;
static struct pof_msg msg;

static void pump(struct pof_sw *s, int ms)
{
    struct pollfd p = {.fd = ctl.fd, .events = POLLIN};
    pof_conn_service(s->conn, pof_now_ns());
    poll(&p, 1, ms);
    pof_conn_service(s->conn, pof_now_ns());
}

static void ctl_send(const struct pof_msg *m)
{
    static uint8_t out[65536];
    int n = pof_encode(m, out, sizeof(out));
    CHECK(n > 0 && send(ctl.fd, out, (size_t)n, 0) == n);
}

static void ctl_send_raw(const uint8_t *raw, size_t n)
{
    CHECK(send(ctl.fd, raw, n, 0) == (ssize_t)n);
}

/* Next message from the switch into msg; its raw bytes stay in ctl.in until the next call. */
static size_t consumed;
static int ctl_recv(void)
{
    memmove(ctl.in, ctl.in + consumed, ctl.in_len - consumed);
    ctl.in_len -= consumed;
    consumed = 0;
    for (int tries = 0; tries < 200; tries++) {
        if (ctl.in_len >= 8) {
            size_t len = (size_t)ctl.in[2] << 8 | ctl.in[3];
            if (ctl.in_len >= len) {
                struct pof_status st;
                consumed = len;
                return pof_decode(ctl.in, len, &msg, &st);
            }
        }
        pump(&sw, 10);
        ssize_t r = recv(ctl.fd, ctl.in + ctl.in_len, sizeof(ctl.in) - ctl.in_len, MSG_DONTWAIT);
        if (r > 0)
            ctl.in_len += (size_t)r;
    }
    return -1;
}

static int recv_type(uint8_t type)
{
    for (int i = 0; i < 20; i++)
        if (ctl_recv() == 0 && msg.hdr.type == type)
            return 0;
    return -1;
}

static void simple(uint8_t type)
{
    struct pof_msg m = {.hdr = {.type = type, .xid = ++ctl.xid}};
    ctl_send(&m);
}

static void setup(void)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t al = sizeof(a);
    ctl.lfd = socket(AF_INET, SOCK_STREAM, 0);
    CHECK(bind(ctl.lfd, (struct sockaddr *)&a, sizeof(a)) == 0 && listen(ctl.lfd, 1) == 0);
    getsockname(ctl.lfd, (struct sockaddr *)&a, &al);
    struct sw_config cfg = {.controller_host = "127.0.0.1", .controller_port = ntohs(a.sin_port), .dev_id = 7,
                            .all_ports_enabled = true};
    CHECK(pof_sw_init(&sw, &cfg, &dummy_io_ops) == 0);
    char err[128];
    CHECK(pof_sw_port_add(&sw, "a", "", err, sizeof(err)) == 1);
    CHECK(pof_sw_port_add(&sw, "b", "", err, sizeof(err)) == 2);
    CHECK(pof_sw_port_add(&sw, "c", "", err, sizeof(err)) == 3);
    pof_conn_service(sw.conn, pof_now_ns());
    ctl.fd = accept(ctl.lfd, NULL, NULL);
    CHECK(ctl.fd >= 0);
    CHECK(recv_type(POFT_HELLO) == 0);
    simple(POFT_HELLO);
    simple(POFT_FEATURES_REQUEST);
    CHECK(recv_type(POFT_FEATURES_REPLY) == 0);
    struct pof_msg m = {.hdr = {.type = POFT_SET_CONFIG, .xid = ++ctl.xid}};
    ctl_send(&m);
    simple(POFT_GET_CONFIG_REQUEST);
    CHECK(recv_type(POFT_GET_CONFIG_REPLY) == 0);
    for (int i = 0; i < 3; i++)
        CHECK(recv_type(POFT_PORT_STATUS) == 0);
    CHECK(pof_conn_ready(sw.conn));
}

static uint32_t request(uint32_t port_no)
{
    struct pof_msg m = {.hdr = {.type = POFT_MULTIPART_REQUEST, .xid = ++ctl.xid}};
    m.u.multipart = (struct pof_multipart){.mp_type = POFMP_PORT_STATS, .port_no = port_no};
    ctl_send(&m);
    return ctl.xid;
}

static void expect_error(uint32_t xid, uint16_t type, uint16_t code)
{
    CHECK(recv_type(POFT_ERROR) == 0);
    CHECK_MSG(msg.hdr.xid == xid && msg.u.error.type == type && msg.u.error.code == code, msg.u.error.string);
}

static void test_all_ports_split_over_replies(void)
{
    uint8_t frame[100] = {0};
    for (int i = 0; i < 4; i++)
        dummy_inject("b", frame, sizeof(frame)); /* no table: received, then dropped by the pipeline */
    pof_sw_poll_once(&sw, pof_now_ns());
    uint32_t xid = request(POF_PORT_ALL);
    struct pof_port_stats e[3];
    CHECK(recv_type(POFT_MULTIPART_REPLY) == 0);
    CHECK(msg.hdr.xid == xid && msg.u.multipart.flags == POFMPF_REPLY_MORE && msg.u.multipart.stats_num == 2);
    pof_port_stats_at(&msg.u.multipart, 0, &e[0]);
    pof_port_stats_at(&msg.u.multipart, 1, &e[1]);
    CHECK(recv_type(POFT_MULTIPART_REPLY) == 0);
    CHECK(msg.hdr.xid == xid && msg.u.multipart.flags == 0 && msg.u.multipart.stats_num == 1);
    pof_port_stats_at(&msg.u.multipart, 0, &e[2]);
    CHECK(e[0].port_no == 1 && e[1].port_no == 2 && e[2].port_no == 3);
    CHECK(e[1].rx_packets == 4 && e[1].rx_bytes == 400 && e[0].rx_packets == 0 && e[1].tx_packets == 0);
    CHECK(e[1].duration_sec < 60 && e[1].duration_nsec < 1000000000u);
}

static void test_one_port_and_errors(void)
{
    uint32_t xid = request(3);
    CHECK(recv_type(POFT_MULTIPART_REPLY) == 0);
    CHECK(msg.hdr.xid == xid && msg.u.multipart.flags == 0 && msg.u.multipart.stats_num == 1);
    struct pof_port_stats e;
    pof_port_stats_at(&msg.u.multipart, 0, &e);
    CHECK(e.port_no == 3);
    expect_error(request(9), POFET_BAD_REQUEST, POFBRC_BAD_PORT);           /* no port 9 */
    expect_error(request(0), POFET_BAD_REQUEST, POFBRC_BAD_PORT);
    expect_error(request(1u << 16 | 1), POFET_BAD_REQUEST, POFBRC_BAD_PORT); /* slot 1 */
    /* mp_type 0 (DESC in OpenFlow), and a request without its port_no */
    uint8_t bad[24] = {4, POFT_MULTIPART_REQUEST, 0, 24, 0, 0, 1, 1};
    ctl_send_raw(bad, sizeof(bad));
    expect_error(0x101, POFET_BAD_REQUEST, POFBRC_BAD_MULTIPART);
    uint8_t shrt[16] = {4, POFT_MULTIPART_REQUEST, 0, 16, 0, 0, 1, 2, 0, 4};
    ctl_send_raw(shrt, sizeof(shrt));
    expect_error(0x102, POFET_BAD_REQUEST, POFBRC_BAD_LEN);
    /* still answering afterwards */
    xid = request(1);
    CHECK(recv_type(POFT_MULTIPART_REPLY) == 0 && msg.hdr.xid == xid);
}

static void test_no_ports_one_empty_reply(void)
{
    char err[128];
    CHECK(pof_sw_port_del(&sw, "a", err, sizeof(err)) == 0);
    CHECK(pof_sw_port_del(&sw, "b", err, sizeof(err)) == 0);
    CHECK(pof_sw_port_del(&sw, "c", err, sizeof(err)) == 0);
    uint32_t xid = request(POF_PORT_ALL);
    CHECK(recv_type(POFT_MULTIPART_REPLY) == 0);
    CHECK(msg.hdr.xid == xid && msg.u.multipart.flags == 0 && msg.u.multipart.stats_num == 0);
    xid = request(1); /* removed */
    expect_error(xid, POFET_BAD_REQUEST, POFBRC_BAD_PORT);
}

int main(void)
{
    setup();
    RUN(test_all_ports_split_over_replies);
    RUN(test_one_port_and_errors);
    RUN(test_no_ports_one_empty_reply);
    close(ctl.fd);
    close(ctl.lfd);
    pof_sw_fini(&sw);
    CHECK(dummy_live_buffers() == 0);
    return unit_summary();
}
