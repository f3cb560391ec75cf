/* Residence time per output port and class (pof_lat.h, pof_portlat.h): the histogram's buckets, percentiles and
 * windows, and the switch over the dummy backend on a fake clock: under a best-effort flood that fills a rated
 * port's queue, the latency class's p99 stays within a frame time while best effort's grows to the queue's delay,
 * as `port-latency` reports them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dummy_io.h"
#include "pof_dp.h"
#include "pof_lat.h"
#include "pof_mgmt.h"
#include "pof_switch.h"
#include "unit.h"
#include "flows.h"

#define US 1000ull
#define MS 1000000ull
#define T0 (5000 * MS)

static void test_buckets(void)
{
    for (uint64_t v = 0; v < 8; v++)
        CHECK(pof_lat_bucket(v) == v && pof_lat_bucket_top((uint32_t)v) == v);
    /* every value lies in its bucket, within 25 % below its top */
    for (uint64_t v = 8; v < (1ull << 33); v = v * 5 / 4 + 3) {
        uint32_t b = pof_lat_bucket(v);
        uint64_t top = pof_lat_bucket_top(b);
        CHECK(v <= top && top - v <= top / 4 + 1);
        CHECK(b == 8 || pof_lat_bucket_top(b - 1) < v);
    }
    CHECK(pof_lat_bucket(UINT64_MAX) == POF_LAT_BUCKETS - 1);
}

static void test_percentiles_and_windows(void)
{
    struct pof_lat *l = calloc(1, sizeof(*l));
    pof_lat_rotate(l, T0);
    for (int i = 0; i < 98; i++)
        pof_lat_add(l, POF_LAT_OTHER, 1000);
    pof_lat_add(l, POF_LAT_OTHER, 500000);
    pof_lat_add(l, POF_LAT_OTHER, 2000000);
    pof_lat_add(l, POF_LAT_LATENCY, 3000);
    struct pof_lat_summary s;
    pof_lat_read(l, T0 + 10 * MS, POF_LAT_OTHER, &s);
    CHECK(s.packets == 100 && s.max_ns == 2000000);
    CHECK(s.p50_ns >= 1000 && s.p50_ns <= 1250);
    CHECK(s.p99_ns >= 500000 && s.p99_ns <= 625000); /* the 99th of 100 is the 500 us one */
    pof_lat_read(l, T0 + 10 * MS, POF_LAT_LATENCY, &s);
    CHECK(s.packets == 1 && s.p50_ns == 3000 && s.p99_ns == 3000 && s.max_ns == 3000); /* clipped to the max */
    /* a second window: both seen; after two quiet windows: nothing */
    pof_lat_rotate(l, T0 + POF_LAT_WINDOW_NS + MS);
    pof_lat_add(l, POF_LAT_OTHER, 7000);
    pof_lat_read(l, T0 + POF_LAT_WINDOW_NS + 2 * MS, POF_LAT_OTHER, &s);
    CHECK(s.packets == 101);
    pof_lat_read(l, T0 + 2 * POF_LAT_WINDOW_NS + 2 * MS, POF_LAT_OTHER, &s);
    CHECK(s.packets == 1 && s.max_ns == 7000); /* the first window is gone */
    pof_lat_read(l, T0 + 5 * POF_LAT_WINDOW_NS, POF_LAT_OTHER, &s);
    CHECK(s.packets == 0 && s.p99_ns == 0 && s.max_ns == 0);
    free(l);
}

/* ---- the switch ---------------------------------------------------------------------------------------- */

static uint64_t fake_now;
static uint64_t fake_clock(void) { return fake_now; }

#define ET_LAT 0x04   /* through latency meter 3 to r */
#define ET_PLAIN 0x03 /* unmetered to r */

static int meter(struct pof_dp *dp, uint32_t id, uint32_t rate, uint8_t flags)
{
    struct pof_status st;
    struct pof_meter_mod mm = {.command = 0, .flags = flags, .meter_id = id, .rate = rate};
    return pof_dp_meter_mod(dp, &mm, &st) < 0 ? -(int)st.code : 0;
}

static void command(struct pof_sw *sw, const char *cmd, char *out, size_t outlen)
{
    char line[128];
    snprintf(line, sizeof(line), "%s", cmd);
    pof_mgmt_command(&sw->cb, line, out, outlen);
}

/* `port-latency r`: " 3:r:lat_pkts:p50:p99:max:other_pkts:p50:p99:max" after OK. */
static int read_latency(struct pof_sw *sw, unsigned long long v[8])
{
    char out[512];
    command(sw, "port-latency r", out, sizeof(out));
    return sscanf(out, "OK 3:r:%llu:%llu:%llu:%llu:%llu:%llu:%llu:%llu", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
                  &v[6], &v[7]);
}

static void test_flood_does_not_raise_latency_p99(void)
{
    struct pof_sw sw;
    struct sw_config cfg = {.all_ports_enabled = true};
    CHECK(pof_sw_init(&sw, &cfg, &dummy_io_ops) == 0);
    sw.clock = fake_clock;
    char out[512];
    command(&sw, "port-add a", out, sizeof(out));
    command(&sw, "port-add b", out, sizeof(out));
    command(&sw, "port-add r rate=8000", out, sizeof(out)); /* 1 MB/s: a 1500-byte frame takes 1.5 ms */
    CHECK(strcmp(out, "OK 3") == 0);
    struct pof_status st;
    struct pof_table_mod t = {.command = 0, .table_type = POF_MM, .match_num = 1, .size = 16,
                              .matches = {{2, 96, 16}}};
    CHECK(pof_dp_table_mod(sw.dp, &t, &st) == 0);
    CHECK(meter(sw.dp, 3, 2000, POF_METER_LATENCY) == 0);
    flow(&sw, 0, ET_LAT, 3, 3);
    flow(&sw, 1, ET_PLAIN, 0, 3);
    frame_reset();
    unsigned long long v[8];
    CHECK(read_latency(&sw, v) == 8 && v[0] == 0 && v[4] == 0); /* nothing sent yet */
    const uint64_t step = 100 * US;
    uint8_t got[2048];
    /* idle: latency and best-effort frames alone leave in the round they arrived (0 on the fake clock) */
    for (fake_now = T0; fake_now < T0 + 20 * MS; fake_now += step) {
        if ((fake_now - T0) % (2 * MS) == 0) {
            inject("b", ET_LAT, 200, 1);
            inject("a", ET_PLAIN, 200, 1);
        }
        pof_sw_poll_once(&sw, fake_now);
        while (dummy_take("r", got, sizeof(got)) > 0)
            ;
    }
    CHECK(read_latency(&sw, v) == 8 && v[0] == 10 && v[4] == 10);
    printf("  idle: latency p99 %llu ns, best effort p99 %llu ns\n", v[2], v[6]);
    CHECK(v[2] <= step && v[6] <= step);
    /* a best-effort flood at 3x the port's rate, latency frames every 2 ms: 1.2 s, the windows roll once */
    for (; fake_now < T0 + 1200 * MS; fake_now += step) {
        if ((fake_now - T0) % (500 * US) == 0)
            inject("a", ET_PLAIN, 1500, 1);
        if ((fake_now - T0) % (2 * MS) == 0)
            inject("b", ET_LAT, 200, 1);
        pof_sw_poll_once(&sw, fake_now);
        while (dummy_take("r", got, sizeof(got)) > 0)
            ;
    }
    CHECK(read_latency(&sw, v) == 8);
    printf("  flood: latency %llu packets p50 %llu p99 %llu max %llu ns; best effort %llu packets p99 %llu ns\n",
           v[0], v[1], v[2], v[3], v[4], v[6]);
    CHECK(v[0] >= 500);                   /* the latency frames of the last 1-2 s, every 2 ms */
    CHECK_MSG(v[2] <= 1514 * US + step, "latency p99 <= one full frame time + the poll step");
    CHECK_MSG(v[6] >= 20 * MS, "best effort waits behind the full queue (the test can tell them apart)");
    /* every port, and a port that does not exist */
    command(&sw, "port-latency", out, sizeof(out));
    CHECK(strncmp(out, "OK 1:a:0:0:0:0:0:0:0:0 2:b:0:0:0:0:0:0:0:0 3:r:", 47) == 0);
    command(&sw, "port-latency nosuch", out, sizeof(out));
    CHECK(strcmp(out, "ERROR no port nosuch") == 0);
    /* quiet for two windows: nothing recent */
    fake_now += 3 * POF_LAT_WINDOW_NS;
    command(&sw, "port-latency r", out, sizeof(out));
    CHECK(strcmp(out, "OK 3:r:0:0:0:0:0:0:0:0") == 0);
    pof_sw_fini(&sw);
    CHECK(dummy_live_buffers() == 0);
}

int main(void)
{
    RUN(test_buckets);
    RUN(test_percentiles_and_windows);
    RUN(test_flood_does_not_raise_latency_p99);
    return unit_summary();
}
