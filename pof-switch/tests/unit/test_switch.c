/* The switch shell over the dummy backend: ports via the management commands, forwarding, flooding,
 * shaping queues, port removal with packets in flight, and no buffer leaks. */
#include <string.h>

#include "dummy_io.h"
#include "pof_mgmt.h"
#include "pof_switch.h"
#include "unit.h"
#include "flows.h"

static void cmd(struct pof_sw *sw, const char *line, char *out, size_t n)
{
    char buf[256];
    snprintf(buf, sizeof(buf), "%s", line);
    pof_mgmt_command(&sw->cb, buf, out, n);
}

static void setup(struct pof_sw *sw)
{
    struct sw_config cfg = {.all_ports_enabled = true};
    CHECK(pof_sw_init(sw, &cfg, &dummy_io_ops) == 0);
    char out[256];
    cmd(sw, "port-add a", out, sizeof(out));
    CHECK(strcmp(out, "OK 1") == 0);
    cmd(sw, "port-add b vdev-args with spaces", out, sizeof(out));
    CHECK(strcmp(out, "OK 2") == 0);
    cmd(sw, "port-add c", out, sizeof(out));
    CHECK(strcmp(out, "OK 3") == 0);
    frame_reset();
}

/* One MM table on the ethertype; the flow's actions decide. */
static void install(struct pof_sw *sw, uint32_t meter, uint32_t out_port)
{
    struct pof_status st;
    struct pof_table_mod t = {.command = 0, .table_type = POF_MM, .match_num = 1, .size = 16,
                              .matches = {{2, 96, 16}}};
    CHECK(pof_dp_table_mod(sw->dp, &t, &st) == 0);
    if (meter) {
        struct pof_meter_mod mm = {.command = 0, .meter_id = meter, .rate = 10000};
        CHECK(pof_dp_meter_mod(sw->dp, &mm, &st) == 0);
    }
    flow(sw, 0, 0x00, meter, out_port); /* IPv4 */
}

static void test_forward_and_mgmt(void)
{
    struct pof_sw sw;
    setup(&sw);
    char out[512];
    cmd(&sw, "port-add a", out, sizeof(out));
    CHECK(strncmp(out, "ERROR port a exists", 19) == 0);
    cmd(&sw, "port-add fail", out, sizeof(out));
    CHECK(strcmp(out, "ERROR dummy port refused") == 0);
    cmd(&sw, "frobnicate", out, sizeof(out));
    CHECK(strncmp(out, "ERROR unknown command", 21) == 0);
    cmd(&sw, "port-del", out, sizeof(out));
    CHECK(strncmp(out, "ERROR usage", 11) == 0);
    cmd(&sw, "latency b sideways", out, sizeof(out));
    CHECK(strncmp(out, "ERROR usage", 11) == 0);
    install(&sw, 0, 2);
    for (int i = 0; i < 40; i++)
        CHECK(dummy_inject("a", frame, 64) == 0);
    frame[12] = 0x86; /* not IPv4: table miss */
    dummy_inject("a", frame, 64);
    pof_sw_poll_once(&sw, pof_now_ns());
    pof_sw_poll_once(&sw, pof_now_ns());
    CHECK(dummy_sent_count("b") == 40 && dummy_sent_count("c") == 0);
    cmd(&sw, "stats", out, sizeof(out));
    CHECK(strstr(out, "processed=41 miss=1") != NULL);
    cmd(&sw, "ports", out, sizeof(out));
    CHECK(strstr(out, " 1:a:1:41:0:2624:0") != NULL && strstr(out, " 2:b:1:0:40:0:2560") != NULL);
    /* a disabled output port drops */
    sw.ports[2].enabled = false;
    frame[12] = 0x08;
    dummy_inject("a", frame, 64);
    pof_sw_poll_once(&sw, pof_now_ns());
    CHECK(dummy_sent_count("b") == 40);
    pof_sw_fini(&sw);
    CHECK(dummy_live_buffers() == 0);
}

static void test_flood(void)
{
    struct pof_sw sw;
    setup(&sw);
    install(&sw, 0, POF_FLOOD_PORT);
    dummy_inject("b", frame, 100);
    pof_sw_poll_once(&sw, pof_now_ns());
    CHECK(dummy_sent_count("a") == 1 && dummy_sent_count("c") == 1 && dummy_sent_count("b") == 0);
    pof_sw_fini(&sw);
    CHECK(dummy_live_buffers() == 0);
}

static void test_shaping_holds_then_releases_at_rate(void)
{
    struct pof_sw sw;
    setup(&sw);
    install(&sw, 4, 3); /* 10 Mbit/s */
    uint64_t t = 5000000000ull;
    for (int i = 0; i < 100; i++)
        dummy_inject("a", frame, 1500);
    pof_sw_poll_once(&sw, t);
    pof_sw_poll_once(&sw, t);
    pof_sw_poll_once(&sw, t);
    pof_sw_poll_once(&sw, t);
    int first = dummy_sent_count("c");
    CHECK(first >= 15 && first <= 17); /* the bucket holds 20 ms (25000 bytes, 16 frames); the rest waits */
    /* 60 ms later, 10 Mbit/s lets 75000 bytes (50 frames) more through */
    for (uint64_t dt = 0; dt <= 60000000ull; dt += 100000)
        pof_sw_poll_once(&sw, t + dt);
    int later = dummy_sent_count("c");
    CHECK(later >= first + 48 && later <= first + 52);
    /* deleting the output port with packets still queued must not leak or send them anywhere */
    char out[64];
    cmd(&sw, "port-del c", out, sizeof(out));
    CHECK(strcmp(out, "OK") == 0);
    for (uint64_t dt = 0; dt <= 100000000ull; dt += 1000000)
        pof_sw_poll_once(&sw, t + 60000000ull + dt);
    pof_sw_fini(&sw);
    CHECK(dummy_live_buffers() == 0);
}

static void test_packet_out(void)
{
    struct pof_sw sw;
    setup(&sw);
    struct pof_packet_out po = {.in_port = 0, .action_num = 1, .packet_len = 60, .data = frame};
    po.actions[0].type = POFAT_OUTPUT;
    po.actions[0].u.output.port_id = 3;
    pof_sw_packet_out(&sw, &po);
    uint8_t got[2048];
    CHECK(dummy_take("c", got, sizeof(got)) == 60);
    pof_sw_fini(&sw);
    CHECK(dummy_live_buffers() == 0);
}

/* Port counters: packets and bytes both ways, per burst, drops on a disabled port, refused tx, duration. */
static void test_port_counters(void)
{
    struct pof_sw sw;
    setup(&sw);
    install(&sw, 0, 2);
    uint64_t t0 = pof_now_ns();
    for (int i = 0; i < 70; i++) /* more than two bursts */
        dummy_inject("a", frame, (uint32_t)(60 + i));
    for (int i = 0; i < 4; i++)
        pof_sw_poll_once(&sw, pof_now_ns());
    uint64_t bytes = 70 * 60 + 69 * 70 / 2;
    struct pof_port_stats a, b, c;
    pof_sw_port_stats(&sw, 1, pof_now_ns(), &a);
    pof_sw_port_stats(&sw, 2, pof_now_ns(), &b);
    CHECK(a.port_no == 1 && a.rx_packets == 70 && a.rx_bytes == bytes && a.tx_packets == 0 && a.tx_bytes == 0);
    CHECK(b.port_no == 2 && b.tx_packets == 70 && b.tx_bytes == bytes && b.rx_packets == 0);
    CHECK(a.rx_dropped == 0 && b.tx_dropped == 0 && a.rx_errors == 0 && a.collisions == 0);
    /* a disabled input port still drains its queue: received, and dropped */
    sw.ports[1].enabled = false;
    for (int i = 0; i < 5; i++)
        dummy_inject("a", frame, 100);
    pof_sw_poll_once(&sw, pof_now_ns());
    pof_sw_port_stats(&sw, 1, pof_now_ns(), &a);
    CHECK(a.rx_packets == 75 && a.rx_bytes == bytes + 500 && a.rx_dropped == 5);
    CHECK(dummy_sent_count("b") == 70);
    /* a tx queue that refuses: counted as tx_dropped, its bytes not as sent */
    sw.ports[1].enabled = true;
    dummy_tx_limit("b", 3);
    for (int i = 0; i < 10; i++)
        dummy_inject("a", frame, 200);
    pof_sw_poll_once(&sw, pof_now_ns());
    dummy_tx_limit("b", -1);
    pof_sw_port_stats(&sw, 2, pof_now_ns(), &b);
    CHECK(b.tx_packets == 73 && b.tx_bytes == bytes + 600 && b.tx_dropped == 7);
    /* duration: since the port was added */
    uint64_t later = t0 + 3500000000ull;
    pof_sw_port_stats(&sw, 3, later, &c);
    uint64_t up = (uint64_t)c.duration_sec * 1000000000ull + c.duration_nsec;
    CHECK(c.duration_sec == 3 && c.duration_nsec < 1000000000u && up >= 3500000000ull && up < 3600000000ull);
    /* removed and added again: from 0 */
    char out[64];
    cmd(&sw, "port-del a", out, sizeof(out));
    cmd(&sw, "port-add a", out, sizeof(out));
    CHECK(strcmp(out, "OK 1") == 0);
    pof_sw_port_stats(&sw, 1, pof_now_ns(), &a);
    CHECK(a.rx_packets == 0 && a.rx_bytes == 0 && a.rx_dropped == 0 && a.duration_sec == 0);
    pof_sw_fini(&sw);
    CHECK(dummy_live_buffers() == 0);
}

int main(void)
{
    RUN(test_forward_and_mgmt);
    RUN(test_flood);
    RUN(test_shaping_holds_then_releases_at_rate);
    RUN(test_packet_out);
    RUN(test_port_counters);
    return unit_summary();
}
