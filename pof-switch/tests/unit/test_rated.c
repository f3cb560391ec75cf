/* Rated output ports in the switch shell over the dummy backend, on a fake clock: configuration by port
 * arguments and the management socket, green before best effort, the port's rate, drops, teardown without
 * leaks. */
#include <stdlib.h>
#include <string.h>

#include "dummy_io.h"
#include "pof_mgmt.h"
#include "pof_sched.h"
#include "pof_shape.h"
#include "pof_switch.h"
#include "unit.h"
#include "flows.h"

#define MS 1000000ull
#define T0 (5000 * MS)
#define ET_GREEN 0x01 /* frame[13]: ethertype 0x0801 goes through the two-rate meter 1 (all green) */
#define ET_YELLOW 0x02 /* 0x0802 through the single-rate meter 2 (yellow) */
#define ET_PLAIN 0x03 /* 0x0803 unmetered (yellow) */

static void cmd(struct pof_sw *sw, const char *line, char *out, size_t n)
{
    char buf[256];
    snprintf(buf, sizeof(buf), "%s", line);
    pof_mgmt_command(&sw->cb, buf, out, n);
}

/* Ports a (in), b (in), r (rated at rate_kbps, by its port-add arguments); meters 1 (two-rate, committed =
 * peak = 100 Mbit/s: everything green) and 2 (single-rate 100 Mbit/s: yellow). */
static void setup(struct pof_sw *sw, uint32_t rate_kbps)
{
    struct sw_config cfg = {.all_ports_enabled = true};
    CHECK(pof_sw_init(sw, &cfg, &dummy_io_ops) == 0);
    char out[256], line[128];
    cmd(sw, "port-add a", out, sizeof(out));
    cmd(sw, "port-add b", out, sizeof(out));
    snprintf(line, sizeof(line), "port-add r rate=%u", rate_kbps);
    cmd(sw, line, out, sizeof(out));
    CHECK(strcmp(out, "OK 3") == 0 && strcmp(dummy_args("r"), "") == 0);
    struct pof_status st;
    struct pof_table_mod t = {.command = 0, .table_type = POF_MM, .match_num = 1, .size = 16,
                              .matches = {{2, 96, 16}}};
    CHECK(pof_dp_table_mod(sw->dp, &t, &st) == 0);
    struct pof_meter_mod m1 = {.command = 0, .meter_id = 1, .rate = 100000, .committed_rate = 100000};
    struct pof_meter_mod m2 = {.command = 0, .meter_id = 2, .rate = 100000};
    CHECK(pof_dp_meter_mod(sw->dp, &m1, &st) == 0 && pof_dp_meter_mod(sw->dp, &m2, &st) == 0);
    flow(sw, 0, ET_GREEN, 1, 3);
    flow(sw, 1, ET_YELLOW, 2, 3);
    flow(sw, 2, ET_PLAIN, 0, 3);
    frame_reset();
}

static void test_port_args_and_mgmt(void)
{
    char dev[64], err[128];
    uint32_t k;
    int id;
    CHECK(sw_split_port_args("eth1,rate=20000", dev, sizeof(dev), &k, &id, err, sizeof(err)) == 0 &&
          strcmp(dev, "eth1") == 0 && k == 20000);
    CHECK(sw_split_port_args("net_af_packet0,iface=eth0,rate=7,qpairs=1", dev, sizeof(dev), &k, &id, err, sizeof(err)) == 0 &&
          strcmp(dev, "net_af_packet0,iface=eth0,qpairs=1") == 0 && k == 7);
    CHECK(sw_split_port_args("rate=0", dev, sizeof(dev), &k, &id, err, sizeof(err)) == 0 && dev[0] == '\0' && k == 0);
    CHECK(sw_split_port_args("vdev args with spaces", dev, sizeof(dev), &k, &id, err, sizeof(err)) == 0 &&
          strcmp(dev, "vdev args with spaces") == 0 && k == 0);
    CHECK(sw_split_port_args("", dev, sizeof(dev), &k, &id, err, sizeof(err)) == 0 && dev[0] == '\0' && k == 0);
    CHECK(sw_split_port_args("eth1,rate=", dev, sizeof(dev), &k, &id, err, sizeof(err)) < 0);
    CHECK(sw_split_port_args("eth1,rate=12k", dev, sizeof(dev), &k, &id, err, sizeof(err)) < 0);
    CHECK(sw_split_port_args("rate=100000001", dev, sizeof(dev), &k, &id, err, sizeof(err)) < 0);
    CHECK(sw_split_port_args("rate=99999999999999999999999", dev, sizeof(dev), &k, &id, err, sizeof(err)) < 0);
    /* id=N: the port number asked for (an agent re-adding its ports after a switch restart) */
    CHECK(sw_split_port_args("eth1,id=7,rate=5", dev, sizeof(dev), &k, &id, err, sizeof(err)) == 0 &&
          strcmp(dev, "eth1") == 0 && k == 5 && id == 7);
    CHECK(sw_split_port_args("eth1", dev, sizeof(dev), &k, &id, err, sizeof(err)) == 0 && id == 0);
    CHECK(sw_split_port_args("id=0", dev, sizeof(dev), &k, &id, err, sizeof(err)) < 0 &&
          strcmp(err, "port id must be 1-254") == 0);
    CHECK(sw_split_port_args("id=255", dev, sizeof(dev), &k, &id, err, sizeof(err)) < 0);
    CHECK(sw_split_port_args("id=", dev, sizeof(dev), &k, &id, err, sizeof(err)) < 0);
    CHECK(sw_split_port_args("id=-1", dev, sizeof(dev), &k, &id, err, sizeof(err)) < 0);

    struct pof_sw sw;
    setup(&sw, 8000);
    char out[512];
    cmd(&sw, "port-add d eth9,rate=1000", out, sizeof(out));
    CHECK(strcmp(out, "OK 4") == 0 && strcmp(dummy_args("d"), "eth9") == 0);
    cmd(&sw, "port-add e eth9,rate=fast", out, sizeof(out));
    CHECK(strncmp(out, "ERROR rate must be", 18) == 0 && pof_sw_port_by_name(&sw, "e") == NULL);
    cmd(&sw, "port-stats d", out, sizeof(out));
    CHECK(strncmp(out, "OK rate=1000 green_pkts=0 ", 26) == 0);
    cmd(&sw, "port-stats a", out, sizeof(out));
    CHECK(strncmp(out, "OK rate=0 ", 10) == 0);
    cmd(&sw, "port-rate a 20000", out, sizeof(out));
    CHECK(strcmp(out, "OK") == 0 && sw.n_rated == 3);
    cmd(&sw, "port-rate a 0", out, sizeof(out));
    CHECK(strcmp(out, "OK") == 0 && sw.n_rated == 2 && sw.ports[1].sched == NULL);
    cmd(&sw, "port-rate nope 10", out, sizeof(out));
    CHECK(strcmp(out, "ERROR no port nope") == 0);
    cmd(&sw, "port-rate a", out, sizeof(out));
    CHECK(strcmp(out, "ERROR usage: port-rate NAME KBPS") == 0);
    cmd(&sw, "port-rate a -5", out, sizeof(out));
    CHECK(strncmp(out, "ERROR rate must be 0-100000000", 30) == 0);
    cmd(&sw, "port-rate a 100000001", out, sizeof(out));
    CHECK(strncmp(out, "ERROR rate must be", 18) == 0);
    cmd(&sw, "port-stats", out, sizeof(out));
    CHECK(strcmp(out, "ERROR usage: port-stats NAME") == 0);
    cmd(&sw, "port-add f eth9,id=9", out, sizeof(out));
    CHECK(strcmp(out, "OK 9") == 0 && strcmp(dummy_args("f"), "eth9") == 0);
    cmd(&sw, "port-add g id=9", out, sizeof(out));
    CHECK(strcmp(out, "ERROR port id 9 in use") == 0 && pof_sw_port_by_name(&sw, "g") == NULL);
    cmd(&sw, "port-add g", out, sizeof(out));
    CHECK(strcmp(out, "OK 5") == 0); /* the lowest free number, not after the one asked for */
    /* `ports` keeps its format: rated or not */
    cmd(&sw, "ports", out, sizeof(out));
    CHECK(strstr(out, " 3:r:1:0:0:0:0") != NULL && strstr(out, " 4:d:1:0:0:0:0") != NULL);
    pof_sw_fini(&sw);
    CHECK(dummy_live_buffers() == 0);
}

/* Count frames sent by r since the last call, by colour class (ethertype). */
static void take_all(int *green, int *other, uint8_t *order, int *n, int cap)
{
    uint8_t got[2048];
    int len;
    while ((len = dummy_take("r", got, sizeof(got))) > 0) {
        if (got[13] == ET_GREEN)
            (*green)++;
        else
            (*other)++;
        if (order && *n < cap)
            order[(*n)++] = got[13];
    }
}

/* Best effort first fills the queue, then green arrives: every green frame leaves before the waiting best
 * effort, which then follows at the port's rate. */
static void test_green_before_best_effort(void)
{
    struct pof_sw sw;
    setup(&sw, 8000); /* 1 MB/s, a 10000-byte bucket */
    inject("a", ET_YELLOW, 1000, 40);
    inject("b", ET_PLAIN, 1000, 20);
    pof_sw_poll_once(&sw, T0);
    pof_sw_poll_once(&sw, T0);
    int green = 0, other = 0, n = 0;
    uint8_t order[128];
    take_all(&green, &other, NULL, &n, 0);
    CHECK_MSG(other == 10 && green == 0, "the bucket sends 10 frames at once");
    inject("a", ET_GREEN, 1000, 15);
    pof_sw_poll_once(&sw, T0 + 1);
    for (uint64_t t = T0 + 100000; t <= T0 + 100 * MS; t += 100000)
        pof_sw_poll_once(&sw, t);
    take_all(&green, &other, order, &n, 128);
    CHECK(green == 15 && other == 60 && n == 65);
    for (int i = 0; i < 15 && i < n; i++)
        CHECK_MSG(order[i] == ET_GREEN, "green leaves first");
    char out[512];
    cmd(&sw, "port-stats r", out, sizeof(out));
    CHECK(strstr(out, " green_pkts=15 green_bytes=15000 green_drops=0 green_queued=0 ") != NULL);
    CHECK(strstr(out, " be_pkts=60 be_bytes=60000 be_drops=0 be_queued=0 tx_dropped=0") != NULL);
    pof_sw_fini(&sw);
    CHECK(dummy_live_buffers() == 0);
}

/* Offered 3x the port's rate for a simulated second (a fifth of it green): the port sends its rate within a
 * few %, all green gets through, best effort is dropped when its queue is full (counted as tx_dropped). */
static void test_long_run_rate_and_drops(void)
{
    struct pof_sw sw;
    setup(&sw, 20000); /* 2.5 MB/s */
    int green = 0, other = 0, n = 0, offered = 0;
    int green_before = 0, other_before = 0;
    for (uint64_t t = T0; t < T0 + 1000 * MS; t += 200000) {
        /* 1500 bytes per 200 us = 7.5 MB/s, every fifth green */
        inject("a", offered % 5 ? ET_PLAIN : ET_GREEN, 1500, 1);
        offered++;
        pof_sw_poll_once(&sw, t);
        if (t == T0 + 200 * MS) {
            take_all(&green, &other, NULL, &n, 0);
            green_before = green;
            other_before = other;
        }
    }
    take_all(&green, &other, NULL, &n, 0);
    double bytes = 1500.0 * (green - green_before + other - other_before); /* over 0.8 s */
    CHECK_MSG(bytes >= 2000000 * 0.97 && bytes <= 2000000 * 1.03, "within 3 % of 20 Mbit/s");
    CHECK(green >= offered / 5 - (int)(POF_SCHED_GREEN_BYTES / 1500));
    struct pof_port_stats st;
    pof_sw_port_stats(&sw, 3, T0, &st);
    CHECK(st.tx_dropped > 0 && st.tx_dropped == sw.ports[3].sched->q[POF_SCHED_BE].drop_pkts);
    CHECK(sw.ports[3].sched->q[POF_SCHED_GREEN].drop_pkts == 0);
    /* the run loop's sleep is bounded by the next release */
    uint64_t w = sw_shape_next_ns(&sw, T0 + 1000 * MS);
    CHECK(w <= 1500 * 400 + 1);
    pof_sw_fini(&sw); /* with packets still queued: freed, not leaked */
    CHECK(dummy_live_buffers() == 0);
}

/* Back to line rate sends what waits at once; removing a rated port with frames queued leaks nothing. */
static void test_unrate_and_remove(void)
{
    struct pof_sw sw;
    setup(&sw, 1000); /* 125 kB/s: almost everything waits */
    inject("a", ET_PLAIN, 1000, 30);
    pof_sw_poll_once(&sw, T0);
    int green = 0, other = 0, n = 0;
    take_all(&green, &other, NULL, &n, 0);
    CHECK(other == 6); /* the 6056-byte minimum bucket */
    char out[256];
    cmd(&sw, "port-rate r 0", out, sizeof(out));
    CHECK(strcmp(out, "OK") == 0);
    pof_sw_poll_once(&sw, T0 + 1);
    take_all(&green, &other, NULL, &n, 0);
    CHECK(other == 30);
    cmd(&sw, "port-rate r 1000", out, sizeof(out));
    inject("a", ET_PLAIN, 1000, 30);
    inject("a", ET_GREEN, 1000, 5);
    pof_sw_poll_once(&sw, T0 + 2);
    CHECK(pof_sched_queued(sw.ports[3].sched) > 20);
    cmd(&sw, "port-del r", out, sizeof(out));
    CHECK(strcmp(out, "OK") == 0 && sw.n_rated == 0);
    for (uint64_t t = T0; t < T0 + 50 * MS; t += MS)
        pof_sw_poll_once(&sw, t);
    pof_sw_fini(&sw);
    CHECK(dummy_live_buffers() == 0);
}

/* A meter's shaping queue feeds a rated port: what it releases keeps its colour. */
static void test_meter_queue_into_rated_port(void)
{
    struct pof_sw sw;
    setup(&sw, 100000);
    struct pof_status st;
    struct pof_meter_mod m = {.command = 1, .meter_id = 1, .rate = 8000, .committed_rate = 8000};
    CHECK(pof_dp_meter_mod(sw.dp, &m, &st) == 0); /* green, at most 8 Mbit/s: 20000-byte bucket */
    inject("a", ET_GREEN, 1000, 60);
    pof_sw_poll_once(&sw, T0);
    pof_sw_poll_once(&sw, T0);
    CHECK(sw.queues[1] && sw.queues[1]->n == 40);
    for (uint64_t t = T0; t <= T0 + 60 * MS; t += 100000)
        pof_sw_poll_once(&sw, t);
    int green = 0, other = 0, n = 0;
    take_all(&green, &other, NULL, &n, 0);
    CHECK(green == 60 && other == 0);
    CHECK(sw.ports[3].sched->q[POF_SCHED_GREEN].sent_pkts == 60);
    pof_sw_fini(&sw);
    CHECK(dummy_live_buffers() == 0);
}

int main(void)
{
    RUN(test_port_args_and_mgmt);
    RUN(test_green_before_best_effort);
    RUN(test_long_run_rate_and_drops);
    RUN(test_unrate_and_remove);
    RUN(test_meter_queue_into_rated_port);
    return unit_summary();
}
