/* Two-rate three-colour meters and the rated-port scheduler, on a fake clock (no I/O, no real time). */
#include <string.h>

#include "pof_dp.h"
#include "pof_meter.h"
#include "pof_sched.h"
#include "unit.h"

#define MS 1000000ull
#define T0 (1000 * MS) /* any non-zero start: a bucket's first use starts its clock */

static int meter_add(struct pof_dp *dp, uint32_t id, uint32_t rate, uint32_t committed, uint8_t command)
{
    struct pof_status st;
    struct pof_meter_mod mm = {.command = command, .meter_id = id, .rate = rate, .committed_rate = committed};
    return pof_dp_meter_mod(dp, &mm, &st) < 0 ? -(int)st.code : 0;
}

static void test_meter_mod_checks_committed_rate(void)
{
    struct pof_dp *dp = pof_dp_create();
    CHECK(meter_add(dp, 1, 5000, 8000, 0) == -POFMMFC_BAD_RATE);  /* committed above the peak */
    CHECK(meter_add(dp, 1, 0, 1000, 0) == -POFMMFC_BAD_RATE);     /* no peak is no "uncapped" */
    CHECK(meter_add(dp, 1, 8000, 8000, 0) == 0);                  /* guarantee = cap */
    CHECK(meter_add(dp, 1, 8000, 9000, 1) == -POFMMFC_BAD_RATE);  /* MODIFY is checked the same */
    CHECK(meter_add(dp, 1, 20000, 8000, 1) == 0);
    CHECK(meter_add(dp, 2, POF_METER_MAX_KBPS, 1000, 0) == 0);    /* a guarantee without a cap */
    CHECK(meter_add(dp, 3, POF_METER_MAX_KBPS + 1, 0, 0) == -POFMMFC_BAD_RATE);
    CHECK(meter_add(dp, 1, 0, 0, 2) == 0);                        /* DELETE ignores the rates */
    CHECK(meter_add(dp, 1, 0, 0, 2) == -POFMMFC_UNKNOWN_METER);
    pof_dp_destroy(dp);
}

/* 20 Mbit/s peak (2.5 MB/s, a 50000-byte bucket), 8 Mbit/s committed (1 MB/s: 20 ms are 20000 bytes, below the
 * committed floor of 16 full frames, 24224 bytes): at one instant 24 packets of 1000 bytes are green, the next 26
 * yellow, the rest red; red takes no tokens. */
static void test_two_rate_colours(void)
{
    struct pof_dp *dp = pof_dp_create();
    CHECK(meter_add(dp, 5, 20000, 8000, 0) == 0);
    int n[3] = {0};
    enum pof_color first_red_at = POF_COLOR_YELLOW;
    for (int i = 0; i < 60; i++) {
        enum pof_color c = pof_dp_meter_color(dp, 5, 1000, T0);
        if (i == 50)
            first_red_at = c;
        n[c]++;
    }
    CHECK_MSG(n[POF_COLOR_GREEN] == 24 && n[POF_COLOR_YELLOW] == 26 && n[POF_COLOR_RED] == 10, "24/26/10");
    CHECK(first_red_at == POF_COLOR_RED);
    /* 1 ms later: 2500 peak bytes and 1000 committed bytes came back */
    CHECK(pof_dp_meter_color(dp, 5, 1000, T0 + MS) == POF_COLOR_GREEN);
    CHECK(pof_dp_meter_color(dp, 5, 1000, T0 + MS) == POF_COLOR_YELLOW);
    CHECK(pof_dp_meter_color(dp, 5, 1000, T0 + MS) == POF_COLOR_RED);
    uint64_t w = pof_dp_meter_wait_ns(dp, 5, 1000, T0 + MS);
    CHECK(w > 0 && w <= 200000 + 1); /* 500 bytes missing at 2.5 MB/s */
    CHECK(pof_dp_meter_color(dp, 5, 1000, T0 + MS + w) != POF_COLOR_RED);
    pof_dp_destroy(dp);
}

/* A small guarantee (1.2 Mbit/s, a video's) takes 16 full frames at one instant as green (a frame's burst, or what
 * a loop run late read at once), the 17th is yellow; its peak (uncapped) is not what limits it. */
static void test_small_guarantee_takes_a_burst_green(void)
{
    struct pof_dp *dp = pof_dp_create();
    CHECK(meter_add(dp, 6, POF_METER_MAX_KBPS, 1200, 0) == 0);
    for (int i = 0; i < 16; i++)
        CHECK(pof_dp_meter_color(dp, 6, 1514, T0) == POF_COLOR_GREEN);
    CHECK(pof_dp_meter_color(dp, 6, 1514, T0) == POF_COLOR_YELLOW);
    /* 20 ms later: 3000 bytes of guarantee came back, one frame's worth and more */
    CHECK(pof_dp_meter_color(dp, 6, 1514, T0 + 20 * MS) == POF_COLOR_GREEN);
    pof_dp_destroy(dp);
}

/* Offered 120 Mbit/s for a simulated second: green = the committed rate, green + yellow = the peak. */
static void test_two_rate_long_run(void)
{
    struct pof_dp *dp = pof_dp_create();
    CHECK(meter_add(dp, 7, 20000, 8000, 0) == 0);
    uint64_t bytes[3] = {0};
    for (uint64_t t = T0; t < T0 + 1000 * MS; t += 100000)
        bytes[pof_dp_meter_color(dp, 7, 1500, t)] += 1500;
    CHECK(bytes[POF_COLOR_GREEN] >= 1000000 - 1500 && bytes[POF_COLOR_GREEN] <= 1000000 + 24224 + 1500);
    uint64_t passed = bytes[POF_COLOR_GREEN] + bytes[POF_COLOR_YELLOW];
    CHECK(passed >= 2500000 - 1500 && passed <= 2500000 + 50000 + 1500);
    CHECK(bytes[POF_COLOR_RED] > 9000000);
    pof_dp_destroy(dp);
}

/* A cap without a guarantee gives no priority: a single-rate meter is yellow within its rate, never green;
 * unmetered traffic (no meter, a deleted one, an id out of range) is yellow too. */
static void test_single_rate_and_unmetered_are_yellow(void)
{
    struct pof_dp *dp = pof_dp_create();
    CHECK(meter_add(dp, 9, 10000, 0, 0) == 0);
    int n[3] = {0};
    for (uint64_t t = T0; t < T0 + 100 * MS; t += 100000)
        n[pof_dp_meter_color(dp, 9, 1500, t)]++;
    CHECK(n[POF_COLOR_GREEN] == 0 && n[POF_COLOR_YELLOW] > 0 && n[POF_COLOR_RED] > 0);
    CHECK(pof_dp_meter_color(dp, 10, 1500, T0) == POF_COLOR_YELLOW);
    CHECK(pof_dp_meter_color(dp, POF_METERS + 5, 1500, T0) == POF_COLOR_YELLOW);
    CHECK(pof_dp_meter_wait_ns(dp, 10, 1500, T0) == 0);
    CHECK(meter_add(dp, 9, 0, 0, 2) == 0);
    CHECK(pof_dp_meter_color(dp, 9, 1500, T0 + 100 * MS) == POF_COLOR_YELLOW);
    pof_dp_destroy(dp);
}

/* QUERYALL replays a meter with its committed rate. */
static void dump_meter(void *arg, const struct pof_meter_mod *mm) { *(struct pof_meter_mod *)arg = *mm; }
static void dump_none_t(void *arg, const struct pof_table_mod *tm) { (void)arg; (void)tm; }
static void dump_none_f(void *arg, const struct pof_flow_mod *fm) { (void)arg; (void)fm; }

static void test_dump_carries_committed_rate(void)
{
    struct pof_dp *dp = pof_dp_create();
    CHECK(meter_add(dp, 4, 30000, 12000, 0) == 0);
    struct pof_meter_mod got = {0};
    struct pof_dp_dump_ops ops = {dump_none_t, dump_none_f, dump_meter};
    pof_dp_dump(dp, &ops, &got);
    CHECK(got.meter_id == 4 && got.rate == 30000 && got.committed_rate == 12000 && got.command == 0);
    pof_dp_destroy(dp);
}

/* ---- the rated-port scheduler ------------------------------------------------------------------------- */

static char pkts[8192]; /* packet identities: &pkts[i] */

/* 8 Mbit/s = 1 MB/s, a 10000-byte bucket (10 ms). */
static void test_sched_green_served_before_yellow(void)
{
    struct pof_sched *s = pof_sched_create(8000);
    CHECK(s != NULL);
    int sent_at_once = 0;
    for (int i = 0; i < 30; i++) /* yellow first: 10 fit the bucket, 20 wait */
        sent_at_once += pof_sched_offer(s, &pkts[i], 1000, POF_COLOR_YELLOW, 0, T0) == POF_SCHED_SEND;
    CHECK(sent_at_once == 10);
    for (int i = 100; i < 110; i++) /* then green: the bucket is empty, they wait too */
        CHECK(pof_sched_offer(s, &pkts[i], 1000, POF_COLOR_GREEN, 0, T0) == POF_SCHED_QUEUED);
    CHECK(pof_sched_queued(s) == 30);
    /* a yellow packet that would fit does not overtake waiting green ones */
    CHECK(pof_sched_offer(s, &pkts[200], 10, POF_COLOR_YELLOW, 0, T0 + MS) == POF_SCHED_QUEUED);
    char *order[64];
    int n = 0;
    uint32_t len;
    for (uint64_t t = T0 + MS; t <= T0 + 40 * MS && n < 64; t += 100000) {
        void *p;
        while ((p = pof_sched_next(s, t, &len, NULL)) != NULL && n < 64)
            order[n++] = p;
    }
    CHECK(n == 31 && pof_sched_queued(s) == 0);
    for (int i = 0; i < 10 && i < n; i++)
        CHECK_MSG(order[i] == &pkts[100 + i], "green first, in order");
    for (int i = 10; i < 30 && i < n; i++)
        CHECK_MSG(order[i] == &pkts[i], "then yellow, in order");
    CHECK(s->q[POF_SCHED_GREEN].sent_pkts == 10 && s->q[POF_SCHED_BE].sent_pkts == 31);
    CHECK(pof_sched_wait_ns(s, T0 + 40 * MS) == UINT64_MAX);
    pof_sched_destroy(s);
}

static void collect(void *arg, void *pkt, uint32_t len)
{
    (void)len;
    void ***at = arg;
    *(*at)++ = pkt;
}

/* Offered three times its rate (a sixth of it green, half the port's rate) for two simulated seconds, serviced
 * every 100 us: the port sends its rate within 1 % and every green packet gets through. */
static void test_sched_long_run_rate(void)
{
    struct pof_sched *s = pof_sched_create(20000); /* 2.5 MB/s, a 25000-byte bucket */
    uint64_t measured = 0, offered_green = 0;
    uint32_t len;
    int k = 0;
    for (uint64_t t = T0; t < T0 + 2000 * MS; t += 100000) {
        if ((t - T0) % 200000 == 0) { /* 1500 bytes per 200 us = 7.5 MB/s */
            enum pof_color c = k % 6 == 0 ? POF_COLOR_GREEN : POF_COLOR_YELLOW;
            offered_green += c == POF_COLOR_GREEN ? 1500 : 0;
            if (pof_sched_offer(s, &pkts[k % 8192], 1500, c, 0, t) == POF_SCHED_SEND && t >= T0 + 500 * MS)
                measured += 1500;
            k++;
        }
        while (pof_sched_next(s, t, &len, NULL) != NULL)
            measured += t >= T0 + 500 * MS ? len : 0;
    }
    /* 1.5 s at 2.5 MB/s */
    CHECK_MSG(measured >= 3750000 * 99 / 100 && measured <= 3750000 * 101 / 100, "port rate within 1 %");
    CHECK(s->q[POF_SCHED_GREEN].drop_pkts == 0);
    CHECK(s->q[POF_SCHED_GREEN].sent_bytes + s->q[POF_SCHED_GREEN].bytes == offered_green);
    CHECK(s->q[POF_SCHED_BE].drop_pkts > 0 && pof_sched_queued(s) > 0);
    void *all[4096], **at = all;
    pof_sched_drain(s, collect, &at); /* the pointers are not owned: nothing to free */
    pof_sched_destroy(s);
}

/* Each queue is bounded in bytes (and slots); what does not fit is dropped and counted per class. */
static void test_sched_bounded_queues_drop(void)
{
    struct pof_sched *s = pof_sched_create(1000); /* 125 kB/s, a 6056-byte bucket */
    int q[2] = {0}, d[2] = {0};
    for (int i = 0; i < 400; i++) {
        enum pof_color c = i % 2 ? POF_COLOR_GREEN : POF_COLOR_YELLOW;
        enum pof_sched_result r = pof_sched_offer(s, &pkts[i], 1500, c, 0, T0);
        q[c == POF_COLOR_GREEN] += r == POF_SCHED_QUEUED;
        d[c == POF_COLOR_GREEN] += r == POF_SCHED_DROP;
    }
    /* the bucket (6056 bytes) sent the first two of each colour at once */
    CHECK(q[1] == (int)(POF_SCHED_GREEN_BYTES / 1500) && q[0] == (int)(POF_SCHED_BE_BYTES / 1500));
    CHECK(s->q[POF_SCHED_GREEN].bytes <= POF_SCHED_GREEN_BYTES && s->q[POF_SCHED_BE].bytes <= POF_SCHED_BE_BYTES);
    CHECK((uint64_t)d[1] == s->q[POF_SCHED_GREEN].drop_pkts && (uint64_t)d[0] == s->q[POF_SCHED_BE].drop_pkts);
    CHECK(s->q[POF_SCHED_GREEN].drop_bytes == 1500ull * (uint64_t)d[1]);
    /* small frames: the slot count bounds the queue first */
    struct pof_sched *t = pof_sched_create(1000);
    int queued = 0;
    for (int i = 0; i < 3000; i++)
        queued += pof_sched_offer(t, &pkts[i], 60, POF_COLOR_GREEN, 0, T0) == POF_SCHED_QUEUED;
    CHECK(queued == (int)POF_SCHED_GREEN_SLOTS);
    /* draining hands back everything, green first */
    void *all[8192], **at = all;
    pof_sched_drain(s, collect, &at);
    CHECK(at - all == q[0] + q[1] && pof_sched_queued(s) == 0 && all[0] == &pkts[5]);
    at = all;
    pof_sched_drain(t, collect, &at);
    CHECK(at - all == queued);
    pof_sched_destroy(s);
    pof_sched_destroy(t);
}

/* A flow's green packets do not overtake its own packets waiting in best effort (they join them, with the green
 * queue's room on top), while another flow's green packets still go first; once its best effort is sent, the
 * flow's green packets take the priority queue again. */
static void test_sched_flow_keeps_its_order(void)
{
    struct pof_sched *s = pof_sched_create(8000); /* a 10000-byte bucket */
    while (pof_sched_offer(s, &pkts[0], 1000, POF_COLOR_YELLOW, 0, T0) == POF_SCHED_SEND)
        ; /* the bucket is empty, pkts[0] waits */
    CHECK(pof_sched_offer(s, &pkts[1], 1000, POF_COLOR_YELLOW, 5, T0) == POF_SCHED_QUEUED);
    CHECK(pof_sched_offer(s, &pkts[2], 1000, POF_COLOR_GREEN, 5, T0) == POF_SCHED_QUEUED);
    CHECK(pof_sched_offer(s, &pkts[3], 1000, POF_COLOR_GREEN, 7, T0) == POF_SCHED_QUEUED);
    CHECK(s->q[POF_SCHED_BE].n == 3 && s->q[POF_SCHED_GREEN].n == 1 && s->be_waiting[5] == 1);
    char *order[4];
    uint32_t len;
    int n = 0;
    for (uint64_t t = T0 + MS; n < 4 && t < T0 + 100 * MS; t += MS)
        for (char *p; n < 4 && (p = pof_sched_next(s, t, &len, NULL)) != NULL;)
            order[n++] = p;
    CHECK(n == 4 && order[0] == &pkts[3] && order[1] == &pkts[0] && order[2] == &pkts[1] && order[3] == &pkts[2]);
    CHECK(s->be_waiting[5] == 0);
    while (pof_sched_offer(s, &pkts[4], 1000, POF_COLOR_YELLOW, 0, T0 + 200 * MS) == POF_SCHED_SEND)
        ;
    CHECK(pof_sched_offer(s, &pkts[5], 1000, POF_COLOR_GREEN, 5, T0 + 200 * MS) == POF_SCHED_QUEUED);
    CHECK(s->q[POF_SCHED_GREEN].n == 1);
    /* best effort full of others' excess: the flow's green packets behind its own excess still find room */
    struct pof_sched *f = pof_sched_create(1000);
    while (pof_sched_offer(f, &pkts[10], 1500, POF_COLOR_YELLOW, 9, T0) != POF_SCHED_DROP)
        ;
    CHECK(pof_sched_offer(f, &pkts[11], 1500, POF_COLOR_GREEN, 9, T0) == POF_SCHED_QUEUED);
    CHECK(pof_sched_offer(f, &pkts[12], 1500, POF_COLOR_YELLOW, 9, T0) == POF_SCHED_DROP);
    CHECK(f->q[POF_SCHED_BE].bytes > POF_SCHED_BE_BYTES && f->q[POF_SCHED_GREEN].n == 0);
    void *all[4096], **at = all;
    pof_sched_drain(s, collect, &at);
    pof_sched_drain(f, collect, &at);
    CHECK(f->be_waiting[9] == 0 && s->be_waiting[5] == 0);
    pof_sched_destroy(s);
    pof_sched_destroy(f);
}

/* A flow within its guarantee that sent one burst above it while another flow floods best effort: once its excess
 * has left, its green packets take the priority queue again, though its green packets that joined best effort
 * still wait there (they used to keep it in best effort for as long as the flood lasted). */
static void test_sched_burst_does_not_hold_a_flow_in_best_effort(void)
{
    struct pof_sched *s = pof_sched_create(8000); /* 1 MB/s, a 10000-byte bucket */
    while (pof_sched_offer(s, &pkts[0], 1000, POF_COLOR_YELLOW, 0, T0) == POF_SCHED_SEND)
        ;
    CHECK(pof_sched_offer(s, &pkts[1], 1000, POF_COLOR_YELLOW, 5, T0) == POF_SCHED_QUEUED); /* the burst's excess */
    for (int i = 0; i < 20; i++) /* the flood */
        CHECK(pof_sched_offer(s, &pkts[100 + i], 1000, POF_COLOR_YELLOW, 9, T0) == POF_SCHED_QUEUED);
    CHECK(pof_sched_offer(s, &pkts[2], 1000, POF_COLOR_GREEN, 5, T0) == POF_SCHED_QUEUED); /* joins its excess */
    CHECK(s->q[POF_SCHED_BE].n == 23 && s->q[POF_SCHED_GREEN].n == 0);
    uint32_t len;
    uint64_t t = T0 + MS;
    /* pkts[0] and pkts[1] leave: the flow's excess is gone, its green pkts[2] still waits behind the flood */
    for (int n = 0; n < 2; t += MS)
        while (n < 2 && pof_sched_next(s, t, &len, NULL) != NULL)
            n++;
    CHECK(s->be_waiting[5] == 0 && s->q[POF_SCHED_BE].n == 21);
    for (int i = 0; i < 10; i++) { /* the flood goes on; the flow's green packets go first again */
        CHECK(pof_sched_offer(s, &pkts[200 + i], 1000, POF_COLOR_YELLOW, 9, t) == POF_SCHED_QUEUED);
        CHECK(pof_sched_offer(s, &pkts[300 + i], 1000, POF_COLOR_GREEN, 5, t) != POF_SCHED_DROP);
    }
    CHECK(s->q[POF_SCHED_GREEN].n + s->q[POF_SCHED_GREEN].sent_pkts == 10);
    void *next = pof_sched_next(s, t + 2 * MS, &len, NULL);
    CHECK_MSG(next == &pkts[300] || s->q[POF_SCHED_GREEN].sent_pkts > 0, "green leaves before the flood");
    void *all[64], **at = all;
    pof_sched_drain(s, collect, &at);
    CHECK(s->be_waiting[5] == 0 && s->be_waiting[9] == 0);
    pof_sched_destroy(s);
}

/* A new rate applies to what waits; wait_ns says when the head may go. */
static void test_sched_rate_change_and_wait(void)
{
    struct pof_sched *s = pof_sched_create(1000);
    while (pof_sched_offer(s, &pkts[0], 1500, POF_COLOR_YELLOW, 0, T0) == POF_SCHED_SEND)
        ;
    CHECK(pof_sched_queued(s) == 1);
    uint64_t w = pof_sched_wait_ns(s, T0);
    CHECK(w > 0 && w <= 12 * MS + 1); /* at most 1500 bytes at 125 kB/s */
    pof_sched_set_rate(s, 100000); /* 12.5 MB/s */
    w = pof_sched_wait_ns(s, T0 + 1);
    CHECK(w > 0 && w <= 120000 + 1);
    uint32_t len = 0;
    CHECK(pof_sched_next(s, T0 + 1 + w, &len, NULL) == &pkts[0] && len == 1500);
    pof_sched_destroy(s);
}

static void forget(void *arg, void *pkt, uint32_t len)
{
    (void)arg, (void)pkt, (void)len; /* the pointers are not owned */
}

/* A backlogged port whose loop comes round only every 30 ms (a starved VM) still sends its rate: the bucket
 * catches up while packets wait. Its depth (4 frames, 10.8 ms at 4.5 Mbit/s) alone would give ~36 %. After an
 * idle second the burst is the depth again, not the catch-up. */
static void test_sched_late_rounds_keep_the_rate(void)
{
    const uint32_t kbps = 4500, frame = 1514;
    struct pof_sched *s = pof_sched_create(kbps);
    CHECK(s != NULL);
    uint64_t sent = 0, t = T0;
    int id = 0;
    for (; t < T0 + 1000 * MS; t += 30 * MS) {
        while (pof_sched_queued(s) < 100) /* a TCP sender keeps the queue full */
            sent += (pof_sched_offer(s, &pkts[id++ % 4096], frame, POF_COLOR_YELLOW, 0, t) == POF_SCHED_SEND) * frame;
        void *p;
        uint32_t len;
        while ((p = pof_sched_next(s, t, &len, NULL)) != NULL)
            sent += len;
    }
    uint64_t elapsed_ns = t - 30 * MS - T0, rate_bytes = (uint64_t)kbps * 125 * elapsed_ns / 1000000000ull;
    CHECK_MSG(sent >= rate_bytes * 95 / 100, "late rounds keep >= 95 % of the rate");
    CHECK_MSG(sent <= rate_bytes + s->bucket.burst, "and never more than rate x time + the depth");
    pof_sched_drain(s, forget, NULL); /* the sender stops; an idle second follows */
    t += 1000 * MS;
    int at_once = 0;
    for (int i = 0; i < 40; i++)
        at_once += pof_sched_offer(s, &pkts[i], frame, POF_COLOR_YELLOW, 0, t) == POF_SCHED_SEND;
    CHECK_MSG(at_once == 4, "after idle, the burst is the bucket's depth (4 frames)");
    pof_sched_drain(s, forget, NULL);
    pof_sched_destroy(s);
}

int main(void)
{
    RUN(test_meter_mod_checks_committed_rate);
    RUN(test_two_rate_colours);
    RUN(test_two_rate_long_run);
    RUN(test_small_guarantee_takes_a_burst_green);
    RUN(test_single_rate_and_unmetered_are_yellow);
    RUN(test_dump_carries_committed_rate);
    RUN(test_sched_green_served_before_yellow);
    RUN(test_sched_long_run_rate);
    RUN(test_sched_bounded_queues_drop);
    RUN(test_sched_rate_change_and_wait);
    RUN(test_sched_flow_keeps_its_order);
    RUN(test_sched_burst_does_not_hold_a_flow_in_best_effort);
    RUN(test_sched_late_rounds_keep_the_rate);
    return unit_summary();
}
