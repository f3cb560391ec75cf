/* The controller connection's MULTIPART port statistics, end to end over a loopback TCP socket: this file
 * plays the controller with the C codec. pof_conn.c is built here with STATS_PER_REPLY=2 (meson.build), so
 * three ports already need the REPLY_MORE split that 585 ports would need in the real switch. */
#include <stdlib.h>
#include <string.h>

#include "ctl_loop.h"
#include "dummy_io.h"
#include "pof_conn.h"
#include "pof_switch.h"
#include "unit.h"

static struct pof_sw sw;
static const struct pof_msg *const rx = &ctl.msg; /* the last message received */

static void setup(void)
{
    struct sw_config cfg = {.controllers = {{.host = "127.0.0.1", .port = ctl_listen()}},
                            .n_controllers = 1, .dev_id = 7,
                            .all_ports_enabled = true};
    CHECK(cfg.controllers[0].port != 0);
    CHECK(pof_sw_init(&sw, &cfg, &dummy_io_ops) == 0);
    char err[128];
    CHECK(pof_sw_port_add(&sw, "a", "", err, sizeof(err)) == 1);
    CHECK(pof_sw_port_add(&sw, "b", "", err, sizeof(err)) == 2);
    CHECK(pof_sw_port_add(&sw, "c", "", err, sizeof(err)) == 3);
    CHECK(ctl_accept(&sw));
    CHECK(ctl_handshake(NULL, 0, NULL, NULL, 3, NULL));
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
    CHECK(ctl_recv_type(POFT_ERROR) == 0);
    CHECK_MSG(rx->hdr.xid == xid && rx->u.error.type == type && rx->u.error.code == code, rx->u.error.string);
}

static void test_all_ports_split_over_replies(void)
{
    uint8_t frame[100] = {0};
    for (int i = 0; i < 4; i++)
        dummy_inject("b", frame, sizeof(frame)); /* no table: received, then dropped by the pipeline */
    pof_sw_poll_once(&sw, pof_now_ns());
    uint32_t xid = request(POF_PORT_ALL);
    struct pof_port_stats e[3];
    CHECK(ctl_recv_type(POFT_MULTIPART_REPLY) == 0);
    CHECK(rx->hdr.xid == xid && rx->u.multipart.flags == POFMPF_REPLY_MORE && rx->u.multipart.stats_num == 2);
    pof_port_stats_at(&rx->u.multipart, 0, &e[0]);
    pof_port_stats_at(&rx->u.multipart, 1, &e[1]);
    CHECK(ctl_recv_type(POFT_MULTIPART_REPLY) == 0);
    CHECK(rx->hdr.xid == xid && rx->u.multipart.flags == 0 && rx->u.multipart.stats_num == 1);
    pof_port_stats_at(&rx->u.multipart, 0, &e[2]);
    CHECK(e[0].port_no == 1 && e[1].port_no == 2 && e[2].port_no == 3);
    CHECK(e[1].rx_packets == 4 && e[1].rx_bytes == 400 && e[0].rx_packets == 0 && e[1].tx_packets == 0);
    CHECK(e[1].duration_sec < 60 && e[1].duration_nsec < 1000000000u);
}

static void test_one_port_and_errors(void)
{
    uint32_t xid = request(3);
    CHECK(ctl_recv_type(POFT_MULTIPART_REPLY) == 0);
    CHECK(rx->hdr.xid == xid && rx->u.multipart.flags == 0 && rx->u.multipart.stats_num == 1);
    struct pof_port_stats e;
    pof_port_stats_at(&rx->u.multipart, 0, &e);
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
    CHECK(ctl_recv_type(POFT_MULTIPART_REPLY) == 0 && rx->hdr.xid == xid);
}

/* PORT_LATENCY (WiSlice): every port in one reply (not split: 254 entries fit), one port, no such port. Port b
 * has sent 4 frames (best effort, through a flow to it); the others nothing. */
static uint32_t request_latency(uint32_t port_no)
{
    struct pof_msg m = {.hdr = {.type = POFT_MULTIPART_REQUEST, .xid = ++ctl.xid}};
    m.u.multipart = (struct pof_multipart){.mp_type = POFMP_PORT_LATENCY, .port_no = port_no};
    ctl_send(&m);
    return ctl.xid;
}

static void test_port_latency(void)
{
    uint8_t frame[100] = {0};
    for (int i = 0; i < 4; i++)
        CHECK(pof_sw_send(&sw, 2, frame, sizeof(frame)));
    uint32_t xid = request_latency(POF_PORT_ALL);
    CHECK(ctl_recv_type(POFT_MULTIPART_REPLY) == 0);
    CHECK(rx->hdr.xid == xid && rx->u.multipart.mp_type == POFMP_PORT_LATENCY && rx->u.multipart.flags == 0);
    CHECK(rx->u.multipart.stats_num == 3);
    struct pof_port_latency e[3];
    for (uint16_t i = 0; i < 3 && i < rx->u.multipart.stats_num; i++)
        pof_port_latency_at(&rx->u.multipart, i, &e[i]);
    CHECK(e[0].port_no == 1 && e[1].port_no == 2 && e[2].port_no == 3);
    CHECK(e[1].cls[1].packets == 4 && e[1].cls[0].packets == 0 && e[0].cls[1].packets == 0);
    CHECK(e[1].cls[1].p50_ns <= e[1].cls[1].p99_ns && e[1].cls[1].p99_ns <= e[1].cls[1].max_ns);
    CHECK(e[1].cls[1].max_ns < 1000000000u); /* handed on at once: far below a second */
    xid = request_latency(2);
    CHECK(ctl_recv_type(POFT_MULTIPART_REPLY) == 0);
    CHECK(rx->hdr.xid == xid && rx->u.multipart.stats_num == 1);
    expect_error(request_latency(9), POFET_BAD_REQUEST, POFBRC_BAD_PORT);
}

static void test_no_ports_one_empty_reply(void)
{
    char err[128];
    CHECK(pof_sw_port_del(&sw, "a", err, sizeof(err)) == 0);
    CHECK(pof_sw_port_del(&sw, "b", err, sizeof(err)) == 0);
    CHECK(pof_sw_port_del(&sw, "c", err, sizeof(err)) == 0);
    uint32_t xid = request(POF_PORT_ALL);
    CHECK(ctl_recv_type(POFT_MULTIPART_REPLY) == 0);
    CHECK(rx->hdr.xid == xid && rx->u.multipart.flags == 0 && rx->u.multipart.stats_num == 0);
    xid = request(1); /* removed */
    expect_error(xid, POFET_BAD_REQUEST, POFBRC_BAD_PORT);
}

int main(void)
{
    setup();
    RUN(test_all_ports_split_over_replies);
    RUN(test_one_port_and_errors);
    RUN(test_port_latency);
    RUN(test_no_ports_one_empty_reply);
    ctl_close();
    pof_sw_fini(&sw);
    CHECK(dummy_live_buffers() == 0);
    return unit_summary();
}
