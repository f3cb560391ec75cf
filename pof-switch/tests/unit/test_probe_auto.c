/* In-band latency probes with DST_MAC auto: the switch resolves the next hop's MAC itself by ARP (pof_probe.c on
 * a fake clock, pof_probe_sw.c over the dummy backend). */
#include "probe_util.h"

/* DST_MAC auto: the ARP request's bytes and its retry, requests waiting until the answer, the answer's MAC used,
 * re-resolving after three losses in a row and after a minute; a given MAC never asks. */
static void test_auto_resolve(void)
{
    static struct pof_probe p;
    session(&p, "7 02:00:00:00:00:65 auto 10.9.0.101 10.9.0.2 interval_us=2000", T0);
    CHECK(pof_probe_due_ns(&p) == UINT64_MAX && pof_probe_arp_due_ns(&p) == T0);
    uint8_t f[POF_PROBE_FRAME_MAX], a[60];
    CHECK(pof_probe_arp_request(&p, T0, f) == 60);
    const uint8_t want[42] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02, 0, 0, 0, 0, 0x65, 0x08, 0x06,
                              0, 1, 0x08, 0, 6, 4, 0, 1, 0x02, 0, 0, 0, 0, 0x65, 10, 9, 0, 101,
                              0, 0, 0, 0, 0, 0, 10, 9, 0, 2};
    CHECK(memcmp(f, want, 42) == 0 && f[59] == 0);
    CHECK(pof_probe_arp_due_ns(&p) == T0 + 1000 * MS && pof_probe_due_ns(&p) == UINT64_MAX);
    pof_probe_arp_request(&p, T0 + 1000 * MS, f); /* unanswered: asked again a second later */
    /* not the answer: from another address, to another MAC, a request for DST_IP */
    arp_frame(a, 3, 2, 3, true, 101);
    CHECK(pof_probe_tx(&p, a, 60, T0 + 1100 * MS) == POF_PROBE_PASS);
    arp_frame(a, 2, 2, 2, false, 101);
    CHECK(pof_probe_tx(&p, a, 60, T0 + 1100 * MS) == POF_PROBE_PASS);
    arp_frame(a, 2, 1, 2, false, 2);
    CHECK(pof_probe_tx(&p, a, 60, T0 + 1100 * MS) == POF_PROBE_PASS && !p.resolved);
    struct pof_probe_stats st;
    pof_probe_stats(&p, T0 + 1200 * MS, &st);
    CHECK(st.sent == 0 && st.lost == 0 && st.arp_requests == 2 && !st.resolved);
    arp_frame(a, 2, 2, 2, true, 101);
    uint64_t t1 = T0 + 1500 * MS;
    CHECK(pof_probe_tx(&p, a, 60, t1) == POF_PROBE_RESOLVED && p.resolved);
    CHECK(pof_probe_due_ns(&p) == t1 && pof_probe_arp_due_ns(&p) == t1 + 60000 * MS);
    CHECK(pof_probe_request(&p, t1, f) > 0 && memcmp(f, "\x0a\0\0\0\0\x02", 6) == 0);
    /* two losses, then three in a row: asked again at once, while the requests go on to the known MAC */
    pof_probe_request(&p, t1 + 2 * MS, f);
    pof_probe_expire(&p, t1 + 1003 * MS);
    CHECK(p.lost == 2 && pof_probe_arp_due_ns(&p) == t1 + 60000 * MS);
    uint64_t t2 = t1 + 1004 * MS;
    pof_probe_request(&p, t2, f);
    uint8_t r[POF_PROBE_FRAME_MAX];
    uint32_t n = pof_probe_request(&p, t2 + 2 * MS, f);
    CHECK(pof_probe_tx(&p, r, echo_reply(f, n, r), t2 + 3 * MS) == POF_PROBE_REPLY && p.received == 1);
    pof_probe_expire(&p, t2 + 1003 * MS);
    CHECK(p.lost == 3 && pof_probe_arp_due_ns(&p) == t1 + 60000 * MS); /* the reply broke the run */
    for (int i = 0; i < 3; i++)
        pof_probe_request(&p, t2 + (10 + 2 * (uint64_t)i) * MS, f);
    pof_probe_expire(&p, t2 + 1020 * MS);
    CHECK(p.lost == 6 && pof_probe_arp_due_ns(&p) == 0 && pof_probe_due_ns(&p) != UINT64_MAX);
    /* while that question is out, more losses do not ask again: the retry a second later does */
    uint64_t t3 = t2 + 1030 * MS;
    pof_probe_arp_request(&p, t3, f);
    for (int i = 0; i < 3; i++)
        pof_probe_request(&p, t3 + (1 + (uint64_t)i) * MS, f);
    pof_probe_expire(&p, t3 + 1010 * MS);
    CHECK(p.lost == 9 && pof_probe_arp_due_ns(&p) == t3 + 1000 * MS);
    arp_frame(a, 2, 2, 2, true, 101);
    CHECK(pof_probe_tx(&p, a, 60, t3 + 1020 * MS) == POF_PROBE_RESOLVED && !p.asking);
    /* a given MAC: never asked, and an answer is not the session's */
    session(&p, CFG, T0);
    CHECK(pof_probe_arp_due_ns(&p) == UINT64_MAX && p.resolved);
    for (int i = 0; i < 4; i++)
        pof_probe_request(&p, T0 + (uint64_t)i * 10 * MS, f);
    pof_probe_expire(&p, T0 + 2000 * MS);
    CHECK(p.lost == 4 && pof_probe_arp_due_ns(&p) == UINT64_MAX && pof_probe_tx(&p, a, 60, T0) == POF_PROBE_PASS);
}

/* DST_MAC auto in the switch: the ARP request leaves b as if a received it, no echo request before the answer,
 * the answer taken before a, then requests to the answer's MAC. */
static void test_switch_auto(void)
{
    static struct pof_sw sw;
    switch_setup(&sw);
    CHECK(strcmp(cmd(&sw, "probe-start a 7 02:00:00:00:00:65 auto 10.9.0.101 10.9.0.2 count=1"), "OK") == 0);
    pof_sw_poll_once(&sw, pof_now_ns());
    uint8_t f[2048], r[2048], a[60];
    CHECK(dummy_take("b", f, sizeof(f)) == 60 && get16(f + 12) == 0x0806 && get16(f + 20) == 1);
    pof_sw_poll_once(&sw, pof_now_ns());
    CHECK(dummy_sent_count("b") == 0);
    CHECK_MSG(strstr(cmd(&sw, "probe-stats a 7"), "sent=0 ") && strstr(out, "arp_requests=1 resolved=0"), out);
    arp_frame(a, 2, 2, 2, true, 101);
    CHECK(dummy_inject("b", a, 60) == 0);
    int n = 0;
    for (int round = 0; round < 3 && n <= 0; round++) {
        pof_sw_poll_once(&sw, pof_now_ns());
        n = dummy_take("b", f, sizeof(f));
    }
    CHECK(n == 106 && f[34] == 8 && memcmp(f, "\x0a\0\0\0\0\x02", 6) == 0 && dummy_sent_count("a") == 0);
    CHECK(dummy_inject("b", r, echo_reply(f, (uint32_t)n, r)) == 0);
    pof_sw_poll_once(&sw, pof_now_ns());
    CHECK_MSG(strstr(cmd(&sw, "probe-stats a 7"), "sent=1 received=1 ") && strstr(out, "resolved=1"), out);
    CHECK(dummy_sent_count("a") == 0);
    pof_sw_fini(&sw);
    CHECK(dummy_live_buffers() == 0);
}

int main(void)
{
    RUN(test_auto_resolve);
    RUN(test_switch_auto);
    return unit_summary();
}
