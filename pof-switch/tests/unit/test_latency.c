/* Latency-class meters (METER_MOD flag LATENCY) on a fake clock: the meter's checks and colour, QUERYALL's
 * replay, the scheduler's latency queue (before green, before best effort, small and bounded), and the switch
 * over the dummy backend: a best-effort flood on a rated port does not hold a latency frame longer than one
 * frame time plus the poll step, a latency slice above its cap is shaped by its meter and leaves the port's rest
 * to the others, and on a port without a rate a latency frame goes out ahead of the frames the round holds. */
#include <stdio.h>
#include <string.h>

#include "dummy_io.h"
#include "pof_dp.h"
#include "pof_mgmt.h"
#include "pof_sched.h"
#include "pof_shape.h"
#include "pof_switch.h"
#include "unit.h"
#include "flows.h"

#define US 1000ull
#define MS 1000000ull
#define T0 (5000 * MS) /* any non-zero start: a bucket's first use starts its clock */

static int meter(struct pof_dp *dp, uint8_t command, uint32_t id, uint32_t rate, uint32_t committed, uint8_t flags)
{
    struct pof_status st;
    struct pof_meter_mod mm = {.command = command, .flags = flags, .meter_id = id, .rate = rate,
                               .committed_rate = committed};
    return pof_dp_meter_mod(dp, &mm, &st) < 0 ? -(int)st.code : 0;
}

static void test_meter_checks_and_colour(void)
{
    struct pof_dp *dp = pof_dp_create();
    CHECK(meter(dp, 0, 1, POF_METER_MAX_KBPS, 0, POF_METER_LATENCY) == -POFMMFC_BAD_RATE); /* no cap */
    CHECK(meter(dp, 0, 1, 2000, 0, 0x02) == -POFMMFC_BAD_FLAGS);
    CHECK(meter(dp, 0, 1, 2000, 0, 0x80 | POF_METER_LATENCY) == -POFMMFC_BAD_FLAGS);
    CHECK(meter(dp, 0, 1, 2000, 0, POF_METER_LATENCY) == 0);
    /* 2 Mbit/s = 250 kB/s, a 5000-byte bucket: five 1000-byte frames at once are LATENCY, the sixth is RED */
    int n[4] = {0};
    for (int i = 0; i < 6; i++)
        n[pof_dp_meter_color(dp, 1, 1000, T0)]++;
    CHECK(n[POF_COLOR_LATENCY] == 5 && n[POF_COLOR_RED] == 1 && n[POF_COLOR_GREEN] == 0);
    /* a committed rate on a latency meter gives nothing more: within the cap it is all LATENCY */
    CHECK(meter(dp, 1, 1, 4000, 1000, POF_METER_LATENCY) == 0);
    for (int i = 0; i < 8; i++)
        CHECK(pof_dp_meter_color(dp, 1, 1000, T0 + MS) == POF_COLOR_LATENCY);
    /* MODIFY without the flag: an ordinary two-rate meter again */
    CHECK(meter(dp, 1, 1, 4000, 1000, 0) == 0);
    CHECK(pof_dp_meter_color(dp, 1, 1000, T0 + 2 * MS) == POF_COLOR_GREEN);
    pof_dp_destroy(dp);
}

static void dump_meter(void *arg, const struct pof_meter_mod *mm)
{
    struct pof_meter_mod *got = arg;
    got[mm->meter_id] = *mm;
}
static void dump_none_t(void *arg, const struct pof_table_mod *tm) { (void)arg; (void)tm; }
static void dump_none_f(void *arg, const struct pof_flow_mod *fm) { (void)arg; (void)fm; }

/* QUERYALL replays the flag, and only on the meter that has it. */
static void test_dump_replays_flag(void)
{
    struct pof_dp *dp = pof_dp_create();
    CHECK(meter(dp, 0, 4, 3000, 0, POF_METER_LATENCY) == 0 && meter(dp, 0, 5, 3000, 1000, 0) == 0);
    struct pof_meter_mod got[8] = {{0}};
    struct pof_dp_dump_ops ops = {dump_none_t, dump_none_f, dump_meter};
    pof_dp_dump(dp, &ops, got);
    CHECK(got[4].meter_id == 4 && got[4].flags == POF_METER_LATENCY && got[4].rate == 3000);
    CHECK(got[5].meter_id == 5 && got[5].flags == 0 && got[5].committed_rate == 1000);
    pof_dp_destroy(dp);
}

/* ---- the scheduler ----------------------------------------------------------------------------------------- */

static char pkts[4096]; /* packet identities */

/* Both lower queues hold a backlog; latency then green then best effort leave, in that order. */
static void test_sched_latency_first(void)
{
    struct pof_sched *s = pof_sched_create(8000); /* 1 MB/s, a 10000-byte bucket */
    int i = 0;
    while (pof_sched_offer(s, &pkts[i], 1000, POF_COLOR_YELLOW, 0, T0) == POF_SCHED_SEND)
        i++;
    CHECK(i == 10);
    for (int k = 0; k < 5; k++)
        CHECK(pof_sched_offer(s, &pkts[100 + k], 1000, POF_COLOR_YELLOW, 0, T0) == POF_SCHED_QUEUED);
    for (int k = 0; k < 5; k++)
        CHECK(pof_sched_offer(s, &pkts[200 + k], 1000, POF_COLOR_GREEN, 0, T0) == POF_SCHED_QUEUED);
    for (int k = 0; k < 3; k++)
        CHECK(pof_sched_offer(s, &pkts[300 + k], 1000, POF_COLOR_LATENCY, 9, T0) == POF_SCHED_QUEUED);
    char *out[16];
    int kq[16], n = 0;
    uint32_t len;
    for (uint64_t t = T0; t <= T0 + 20 * MS && n < 16; t += 100 * US) {
        char *p;
        while (n < 16 && (p = pof_sched_next(s, t, &len, &kq[n])) != NULL)
            out[n++] = p;
    }
    CHECK(n == 14); /* the 11th best-effort packet, refused by the bucket, waits first in its queue */
    for (int k = 0; k < 3; k++)
        CHECK(out[k] == &pkts[300 + k] && kq[k] == POF_SCHED_LATENCY);
    for (int k = 0; k < 5; k++)
        CHECK(out[3 + k] == &pkts[200 + k] && kq[3 + k] == POF_SCHED_GREEN);
    CHECK(out[8] == &pkts[10] && out[9] == &pkts[100] && kq[8] == POF_SCHED_BE);
    CHECK(s->q[POF_SCHED_LATENCY].sent_pkts == 3 && s->q[POF_SCHED_LATENCY].bytes == 0);
    pof_sched_destroy(s);
}

/* The latency queue is small: past its bytes (or slots) a latency packet is dropped, not delayed further. */
static void test_sched_latency_queue_bounded(void)
{
    struct pof_sched *s = pof_sched_create(1000);
    while (pof_sched_offer(s, &pkts[0], 1500, POF_COLOR_YELLOW, 0, T0) == POF_SCHED_SEND)
        ;
    int queued = 0, dropped = 0;
    for (int i = 0; i < 20; i++) {
        enum pof_sched_result r = pof_sched_offer(s, &pkts[10 + i], 1500, POF_COLOR_LATENCY, 3, T0);
        queued += r == POF_SCHED_QUEUED;
        dropped += r == POF_SCHED_DROP;
    }
    CHECK(queued == (int)(POF_SCHED_LATENCY_BYTES / 1500) && dropped == 20 - queued && queued >= 1);
    CHECK(s->q[POF_SCHED_LATENCY].drop_pkts == (uint64_t)dropped);
    struct pof_sched *t = pof_sched_create(1000);
    while (pof_sched_offer(t, &pkts[0], 1500, POF_COLOR_YELLOW, 0, T0) == POF_SCHED_SEND)
        ;
    queued = 0;
    for (int i = 0; i < 100; i++)
        queued += pof_sched_offer(t, &pkts[10 + i], 60, POF_COLOR_LATENCY, 3, T0) == POF_SCHED_QUEUED;
    CHECK(queued == (int)POF_SCHED_LATENCY_SLOTS);
    pof_sched_destroy(s);
    pof_sched_destroy(t);
}

/* ---- the switch ------------------------------------------------------------------------------------------ */

#define ET_LAT 0x04    /* frame[13]: 0x0804 through latency meter 3 to the rated port r */
#define ET_PLAIN 0x03  /* 0x0803 unmetered to r */
#define ET_GREEN 0x01  /* 0x0801 through the two-rate meter 1 (all green) to r */
#define ET_LAT_U 0x05  /* 0x0805 through latency meter 4 to the unrated port u */
#define ET_PLAIN_U 0x06 /* 0x0806 unmetered to u */

/* Ports a, b (inputs), r (3, rated at rate_kbps), u (4, line rate); latency meters 3 (cap lat_kbps, to r) and
 * 4 (to u); meter 1 all green. */
static void setup(struct pof_sw *sw, uint32_t rate_kbps, uint32_t lat_kbps)
{
    struct sw_config cfg = {.all_ports_enabled = true};
    CHECK(pof_sw_init(sw, &cfg, &dummy_io_ops) == 0);
    char out[256], line[128];
    pof_mgmt_command(&sw->cb, strcpy(line, "port-add a"), out, sizeof(out));
    pof_mgmt_command(&sw->cb, strcpy(line, "port-add b"), out, sizeof(out));
    snprintf(line, sizeof(line), "port-add r rate=%u", rate_kbps);
    pof_mgmt_command(&sw->cb, line, out, sizeof(out));
    CHECK(strcmp(out, "OK 3") == 0);
    pof_mgmt_command(&sw->cb, strcpy(line, "port-add u"), out, sizeof(out));
    CHECK(strcmp(out, "OK 4") == 0);
    struct pof_status st;
    struct pof_table_mod t = {.command = 0, .table_type = POF_MM, .match_num = 1, .size = 16,
                              .matches = {{2, 96, 16}}};
    CHECK(pof_dp_table_mod(sw->dp, &t, &st) == 0);
    CHECK(meter(sw->dp, 0, 1, 100000, 100000, 0) == 0);
    CHECK(meter(sw->dp, 0, 3, lat_kbps, 0, POF_METER_LATENCY) == 0);
    CHECK(meter(sw->dp, 0, 4, 100000, 0, POF_METER_LATENCY) == 0);
    flow(sw, 0, ET_LAT, 3, 3);
    flow(sw, 1, ET_PLAIN, 0, 3);
    flow(sw, 2, ET_GREEN, 1, 3);
    flow(sw, 3, ET_LAT_U, 4, 4);
    flow(sw, 4, ET_PLAIN_U, 0, 4);
    frame_reset();
}

/* Frames port name sent since the last call, counted by ethertype byte (bytes[et] += len). */
static void take(const char *name, uint64_t *bytes, int *count)
{
    uint8_t got[2048];
    int len;
    while ((len = dummy_take(name, got, sizeof(got))) > 0) {
        bytes[got[13]] += (uint64_t)len;
        count[got[13]]++;
    }
}

/* A best-effort flood (3x the port's rate) fills r's queue; a 200-byte latency frame arriving then leaves within
 * one full frame's time on the port plus the poll step, while a best-effort frame arriving with it still waits. */
static void test_flood_does_not_delay_latency(void)
{
    struct pof_sw sw;
    setup(&sw, 8000, 2000); /* r: 1 MB/s, a 1514-byte frame takes 1.514 ms */
    const uint64_t step = 100 * US, frame_ns = 1514 * MS / 1000;
    uint64_t bytes[256] = {0};
    int count[256] = {0};
    uint64_t t = T0;
    for (; t < T0 + 50 * MS; t += step) { /* 3 MB/s offered: 300 bytes per step, as a 1500-byte frame per 0.5 ms */
        if ((t - T0) % (500 * US) == 0)
            inject("a", ET_PLAIN, 1500, 1);
        pof_sw_poll_once(&sw, t);
    }
    take("r", bytes, count);
    CHECK(sw.ports[3].sched->q[POF_SCHED_BE].n > 20); /* the queue is long: a best-effort frame waits > 30 ms */
    uint64_t worst = 0;
    for (int probe = 0; probe < 20; probe++) { /* latency frames now and then during the flood */
        inject("b", ET_LAT, 200, 1);
        inject("b", ET_PLAIN, 200, 1);
        uint64_t sent_at = 0;
        for (uint64_t until = t + 5 * MS; t < until; t += step) {
            if ((t - T0) % (500 * US) == 0)
                inject("a", ET_PLAIN, 1500, 1);
            pof_sw_poll_once(&sw, t);
            int before = count[ET_LAT];
            take("r", bytes, count);
            if (count[ET_LAT] > before && !sent_at)
                sent_at = t;
        }
        CHECK_MSG(sent_at != 0, "the latency frame left");
        uint64_t waited = sent_at - (t - 5 * MS);
        worst = waited > worst ? waited : worst;
    }
    printf("  latency frame waited at most %llu us under the flood (bound %llu us)\n",
           (unsigned long long)(worst / US), (unsigned long long)((frame_ns + step) / US));
    CHECK_MSG(worst <= frame_ns + step, "latency delay <= one frame time + poll step");
    CHECK(count[ET_LAT] == 20);
    /* the best-effort frames that arrived with them are still behind the flood: the test can tell them apart */
    CHECK(count[0x03] > 0 && sw.ports[3].sched->q[POF_SCHED_BE].n > 20);
    pof_sw_fini(&sw);
    CHECK(dummy_live_buffers() == 0);
}

/* A latency slice offering 4x its cap beside a best-effort flood, for 200 simulated ms: its meter shapes it to
 * about its cap (queue, then drops), and best effort still gets the rest of the port. */
static void test_latency_above_cap_is_shaped(void)
{
    struct pof_sw sw;
    setup(&sw, 8000, 2000); /* port 1 MB/s; latency cap 250 kB/s with a 5000-byte bucket */
    uint64_t bytes[256] = {0};
    int count[256] = {0};
    const uint64_t span = 200 * MS;
    for (uint64_t t = T0; t < T0 + span; t += 100 * US) {
        if ((t - T0) % MS == 0) {
            inject("a", ET_LAT, 1000, 1);   /* 1 MB/s offered: 4x the cap */
            inject("b", ET_PLAIN, 1000, 2); /* 2 MB/s offered */
        }
        pof_sw_poll_once(&sw, t);
        take("r", bytes, count);
    }
    uint64_t cap_bytes = 250000 * span / (1000 * MS);
    CHECK_MSG(bytes[ET_LAT] <= cap_bytes + 5000 + 1000, "latency held to its cap");
    CHECK_MSG(bytes[ET_LAT] >= cap_bytes - 2000, "latency gets its cap");
    uint64_t port_bytes = 1000000 * span / (1000 * MS);
    CHECK_MSG(bytes[ET_PLAIN] >= port_bytes - cap_bytes - 5000 - 3000, "best effort gets the rest");
    CHECK(bytes[ET_LAT] + bytes[ET_PLAIN] <= port_bytes + 10000 + 1500);
    pof_sw_fini(&sw);
    CHECK(dummy_live_buffers() == 0);
}

/* Green still goes before best effort with a latency class on the port, and after latency. */
static void test_green_still_before_best_effort(void)
{
    struct pof_sw sw;
    setup(&sw, 8000, 2000);
    inject("a", ET_PLAIN, 1000, 40); /* 10 leave at once (the bucket), 30 wait */
    pof_sw_poll_once(&sw, T0);
    uint64_t bytes[256] = {0};
    int count[256] = {0};
    take("r", bytes, count);
    CHECK(count[ET_PLAIN] == 10);
    inject("a", ET_GREEN, 1000, 5);
    inject("b", ET_LAT, 1000, 2);
    pof_sw_poll_once(&sw, T0 + 1);
    uint8_t order[64];
    int n = 0;
    for (uint64_t t = T0 + 100 * US; t <= T0 + 60 * MS; t += 100 * US) {
        pof_sw_poll_once(&sw, t);
        uint8_t got[2048];
        while (dummy_take("r", got, sizeof(got)) > 0)
            if (n < 64)
                order[n++] = got[13];
    }
    CHECK(n == 37);
    CHECK(order[0] == ET_LAT && order[1] == ET_LAT);
    for (int i = 2; i < 7 && i < n; i++)
        CHECK_MSG(order[i] == ET_GREEN, "green before best effort");
    pof_sw_fini(&sw);
    CHECK(dummy_live_buffers() == 0);
}

/* A port without a rate: frames processed in one round are sent together at its end, except a latency frame,
 * which goes at once, ahead of the ones the round holds. */
static void test_unrated_port_sends_latency_at_once(void)
{
    struct pof_sw sw;
    setup(&sw, 8000, 2000);
    inject("a", ET_PLAIN_U, 200, 10);
    inject("a", ET_LAT_U, 200, 1);
    inject("a", ET_PLAIN_U, 200, 5);
    pof_sw_poll_once(&sw, T0);
    uint8_t got[2048];
    uint8_t order[32];
    int n = 0;
    while (dummy_take("u", got, sizeof(got)) > 0 && n < 32)
        order[n++] = got[13];
    CHECK(n == 16 && order[0] == ET_LAT_U && order[1] == ET_PLAIN_U);
    CHECK(sw.ports[4].tx_packets == 16);
    pof_sw_fini(&sw);
    CHECK(dummy_live_buffers() == 0);
}

int main(void)
{
    RUN(test_meter_checks_and_colour);
    RUN(test_dump_replays_flag);
    RUN(test_sched_latency_first);
    RUN(test_sched_latency_queue_bounded);
    RUN(test_flood_does_not_delay_latency);
    RUN(test_latency_above_cap_is_shaped);
    RUN(test_green_still_before_best_effort);
    RUN(test_unrated_port_sends_latency_at_once);
    return unit_summary();
}
