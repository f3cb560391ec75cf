/* In-band latency probes (pof_probe.c on a fake clock, pof_probe_sw.c over the dummy backend): the request's
 * bytes, which replies and ARP requests a session takes, loss by timeout, the percentile window, every refusal
 * of the management commands, and the switch: requests through the pipeline as if received on the port (flows
 * by in_port, as a slice's), replies taken before they leave (also on the latency class's send-at-once path),
 * ARP answered, sessions removed with their port, no buffer leaked. */
#include "probe_util.h"

static void test_request_bytes(void)
{
    static struct pof_probe p;
    session(&p, "7 02:00:00:00:00:65 0A:00:00:00:00:02 10.9.0.101 10.9.0.2 size=100 interval_us=2000", T0);
    uint8_t f[POF_PROBE_FRAME_MAX];
    CHECK(pof_probe_due_ns(&p) == T0);
    uint32_t n = pof_probe_request(&p, T0, f);
    CHECK(n == 14 + 20 + 8 + 100);
    CHECK(memcmp(f, "\x0a\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x65\x08\x00", 14) == 0);
    CHECK(f[14] == 0x45 && get16(f + 16) == 128 && f[23] == 1 && f[22] == 64);
    CHECK(memcmp(f + 26, "\x0a\x09\x00\x65\x0a\x09\x00\x02", 8) == 0);
    CHECK(fold(f + 14, 20) == 0);                    /* IPv4 header checksum */
    CHECK(f[34] == 8 && f[35] == 0 && get16(f + 38) == 7 && get16(f + 40) == 0);
    CHECK(fold(f + 34, 8 + 100) == 0);               /* ICMP checksum */
    CHECK(pof_probe_due_ns(&p) == T0 + 2 * MS);
    /* the loop came 10 ms late: the next is due an interval later, not at once (no catching up in a burst) */
    pof_probe_request(&p, T0 + 12 * MS, f);
    CHECK(get16(f + 40) == 1 && get16(f + 18) == 1 && pof_probe_due_ns(&p) == T0 + 14 * MS);
    /* count=2: done after two */
    session(&p, "7 02:00:00:00:00:65 0a:00:00:00:00:02 10.9.0.101 10.9.0.2 count=2 size=1472", T0);
    CHECK(pof_probe_request(&p, T0, f) == 1514 && fold(f + 34, 1480) == 0);
    pof_probe_request(&p, T0 + 10 * MS, f);
    CHECK(pof_probe_due_ns(&p) == UINT64_MAX);
}

static void test_reply_matching(void)
{
    static struct pof_probe p;
    session(&p, CFG, T0);
    uint8_t req[POF_PROBE_FRAME_MAX], r[POF_PROBE_FRAME_MAX + 4];
    uint32_t n = pof_probe_request(&p, T0, req);
    echo_reply(req, n, r);
    /* not the session's: another id, another address, a request, too short, not IPv4 */
    r[38] = 9;
    CHECK(pof_probe_tx(&p, r, n, T0 + 50 * US) == POF_PROBE_PASS);
    r[38] = 0;
    r[33] = 102;
    CHECK(pof_probe_tx(&p, r, n, T0 + 50 * US) == POF_PROBE_PASS);
    r[33] = 101;
    CHECK(pof_probe_tx(&p, req, n, T0 + 50 * US) == POF_PROBE_PASS);
    CHECK(pof_probe_tx(&p, r, 40, T0 + 50 * US) == POF_PROBE_PASS);
    CHECK(pof_probe_tx(&p, r, 10, T0 + 50 * US) == POF_PROBE_PASS);
    r[12] = 0x86;
    CHECK(pof_probe_tx(&p, r, n, T0 + 50 * US) == POF_PROBE_PASS);
    r[12] = 0x08;
    CHECK(p.received == 0);
    /* the reply: an RTT of 120 us; the same reply again is taken but not counted twice */
    CHECK(pof_probe_tx(&p, r, n, T0 + 120 * US) == POF_PROBE_REPLY);
    CHECK(pof_probe_tx(&p, r, n, T0 + 300 * US) == POF_PROBE_REPLY);
    CHECK(p.received == 1 && p.n_rtt == 1 && p.rtt_ns[0] == 120 * US);
    /* behind one 802.1Q tag */
    n = pof_probe_request(&p, T0 + 10 * MS, req);
    uint8_t plain[POF_PROBE_FRAME_MAX];
    echo_reply(req, n, plain);
    memcpy(r, plain, 12);
    memcpy(r + 12, "\x81\x00\x00\x05", 4);
    memcpy(r + 16, plain + 12, n - 12);
    CHECK(pof_probe_tx(&p, r, n + 4, T0 + 10 * MS + 80 * US) == POF_PROBE_REPLY);
    CHECK(p.received == 2 && p.rtt_ns[1] == 80 * US);
}

static void test_arp_answer(void)
{
    static struct pof_probe p;
    session(&p, CFG, T0);
    uint8_t a[60] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x0a, 0, 0, 0, 0, 0x02, 0x08, 0x06,
                     0, 1, 0x08, 0, 6, 4, 0, 1, 0x0a, 0, 0, 0, 0, 0x02, 10, 9, 0, 2,
                     0, 0, 0, 0, 0, 0, 10, 9, 0, 101};
    CHECK(pof_probe_tx(&p, a, 42, T0) == POF_PROBE_ARP && p.arp_pending && p.arp_replies == 1);
    const uint8_t want[42] = {0x0a, 0, 0, 0, 0, 0x02, 0x02, 0, 0, 0, 0, 0x65, 0x08, 0x06,
                              0, 1, 0x08, 0, 6, 4, 0, 2, 0x02, 0, 0, 0, 0, 0x65, 10, 9, 0, 101,
                              0x0a, 0, 0, 0, 0, 0x02, 10, 9, 0, 2};
    CHECK(memcmp(p.arp, want, 42) == 0);
    p.arp_pending = false;
    a[41] = 102; /* someone else's address */
    CHECK(pof_probe_tx(&p, a, 42, T0) == POF_PROBE_PASS);
    a[41] = 101;
    a[21] = 2; /* a reply, not a request */
    CHECK(pof_probe_tx(&p, a, 42, T0) == POF_PROBE_PASS);
    a[21] = 1;
    CHECK(pof_probe_tx(&p, a, 30, T0) == POF_PROBE_PASS && !p.arp_pending && p.arp_replies == 1);
}

static void test_loss_by_timeout(void)
{
    static struct pof_probe p;
    session(&p, CFG, T0);
    uint8_t req[3][POF_PROBE_FRAME_MAX], r[POF_PROBE_FRAME_MAX];
    uint32_t n = 0;
    for (int i = 0; i < 3; i++)
        n = pof_probe_request(&p, T0 + (uint64_t)i * 10 * MS, req[i]);
    echo_reply(req[1], n, r);
    CHECK(pof_probe_tx(&p, r, n, T0 + 15 * MS) == POF_PROBE_REPLY);
    struct pof_probe_stats st;
    pof_probe_stats(&p, T0 + 500 * MS, &st);
    CHECK(st.sent == 3 && st.received == 1 && st.lost == 0); /* two still awaited */
    pof_probe_stats(&p, T0 + 1015 * MS, &st);
    CHECK(st.lost == 1 && st.received == 1); /* the first waited a second, the third (sent at 20 ms) not yet */
    pof_probe_stats(&p, T0 + 1025 * MS, &st);
    CHECK(st.lost == 2 && st.received == 1);
    /* the third's reply comes late: taken, not counted */
    echo_reply(req[2], n, r);
    CHECK(pof_probe_tx(&p, r, n, T0 + 1100 * MS) == POF_PROBE_REPLY);
    pof_probe_stats(&p, T0 + 1100 * MS, &st);
    CHECK(st.received == 1 && st.lost == 2 && st.samples == 1 && st.p50_ns == 5 * MS);
}

static void test_percentile_window(void)
{
    static struct pof_probe p;
    session(&p, CFG, T0);
    uint8_t req[POF_PROBE_FRAME_MAX], r[POF_PROBE_FRAME_MAX];
    struct pof_probe_stats st;
    pof_probe_stats(&p, T0, &st);
    CHECK(st.samples == 0 && st.p50_ns == 0 && st.max_ns == 0);
    uint64_t t = T0;
    /* RTTs 100, 99, ..., 1 us: nearest rank */
    for (int i = 100; i >= 1; i--, t += MS) {
        uint32_t n = pof_probe_request(&p, t, req);
        echo_reply(req, n, r);
        CHECK(pof_probe_tx(&p, r, n, t + (uint64_t)i * US) == POF_PROBE_REPLY);
    }
    pof_probe_stats(&p, t, &st);
    CHECK(st.samples == 100 && st.p50_ns == 50 * US && st.p90_ns == 90 * US && st.p99_ns == 99 * US &&
          st.max_ns == 100 * US && st.lost == 0);
    /* the window keeps the latest POF_PROBE_WINDOW: 1024 samples of 1 ms push the first 100 out */
    for (unsigned i = 0; i < POF_PROBE_WINDOW; i++, t += 2 * MS) {
        uint32_t n = pof_probe_request(&p, t, req);
        echo_reply(req, n, r);
        pof_probe_tx(&p, r, n, t + MS);
    }
    pof_probe_stats(&p, t, &st);
    CHECK(st.samples == POF_PROBE_WINDOW && st.p50_ns == MS && st.max_ns == MS);
    CHECK(st.received == 100 + POF_PROBE_WINDOW && st.sent == st.received && st.lost == 0);
}

#define DST_MAC_ERR "DST_MAC must be a MAC address xx:xx:xx:xx:xx:xx or auto"

static void test_bad_input(void)
{
    static const struct { const char *args, *reason; } bad[] = {
        {"7 02:00:00:00:00:65 0a:00:00:00:00:02 10.9.0.101", "usage: probe-start NAME ID SRC_MAC DST_MAC SRC_IP "
                                                            "DST_IP [size=N] [interval_us=N] [count=N]"},
        {"70000 02:00:00:00:00:65 0a:00:00:00:00:02 10.9.0.101 10.9.0.2", "probe id must be 0-65535"},
        {"-1 02:00:00:00:00:65 0a:00:00:00:00:02 10.9.0.101 10.9.0.2", "probe id must be 0-65535"},
        {"7 01:00:5e:00:00:01 0a:00:00:00:00:02 10.9.0.101 10.9.0.2",
         "SRC_MAC must be a unicast MAC address xx:xx:xx:xx:xx:xx"},
        {"7 02:00:00:00:00:6 0a:00:00:00:00:02 10.9.0.101 10.9.0.2",
         "SRC_MAC must be a unicast MAC address xx:xx:xx:xx:xx:xx"},
        {"7 02:00:00:00:00:65 0a-00-00-00-00-02 10.9.0.101 10.9.0.2", DST_MAC_ERR},
        {"7 02:00:00:00:00:65 0a:00:00:00:00:0x 10.9.0.101 10.9.0.2", DST_MAC_ERR},
        {"7 02:00:00:00:00:65 AUTO 10.9.0.101 10.9.0.2", DST_MAC_ERR},
        {"7 02:00:00:00:00:65 0a:00:00:00:00:02 10.9.0.256 10.9.0.2", "SRC_IP must be an IPv4 address a.b.c.d"},
        {"7 02:00:00:00:00:65 0a:00:00:00:00:02 10.9.0.1 10.9.2", "DST_IP must be an IPv4 address a.b.c.d"},
        {"7 02:00:00:00:00:65 0a:00:00:00:00:02 10.9.0.1 10.9.0.2 size=63", "size must be 64-1472"},
        {"7 02:00:00:00:00:65 0a:00:00:00:00:02 10.9.0.1 10.9.0.2 size=1473", "size must be 64-1472"},
        {"7 02:00:00:00:00:65 0a:00:00:00:00:02 10.9.0.1 10.9.0.2 interval_us=999",
         "interval_us must be 1000-60000000"},
        {"7 02:00:00:00:00:65 0a:00:00:00:00:02 10.9.0.1 10.9.0.2 count=0", "count must be 1-1000000000"},
        {"7 02:00:00:00:00:65 0a:00:00:00:00:02 10.9.0.1 10.9.0.2 count=1e3", "count must be 1-1000000000"},
        {"7 02:00:00:00:00:65 0a:00:00:00:00:02 10.9.0.1 10.9.0.2 count=", "count must be 1-1000000000"},
        {"7 02:00:00:00:00:65 0a:00:00:00:00:02 10.9.0.1 10.9.0.2 size=64 size=65", "option size given twice"},
        {"7 02:00:00:00:00:65 0a:00:00:00:00:02 10.9.0.1 10.9.0.2 ttl=3", "unknown option ttl=3"},
        {"7 02:00:00:00:00:65 0a:00:00:00:00:02 10.9.0.1 10.9.0.2 size", "unknown option size"},
        {"7 02:00:00:00:00:65 0a:00:00:00:00:02 10.9.0.1 10.9.0.2 a b c d", "usage: probe-start NAME ID SRC_MAC "
                                                                       "DST_MAC SRC_IP DST_IP [size=N] "
                                                                       "[interval_us=N] [count=N]"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct pof_probe_cfg cfg;
        char err[200] = "";
        CHECK_MSG(pof_probe_parse(bad[i].args, &cfg, err, sizeof(err)) == -1 && strcmp(err, bad[i].reason) == 0,
                  bad[i].args);
    }
    uint16_t id;
    char err[64];
    CHECK(pof_probe_parse_id("65535", &id, err, sizeof(err)) == 0 && id == 65535);
    CHECK(pof_probe_parse_id("1 2", &id, err, sizeof(err)) == -2 && pof_probe_parse_id("", &id, err, 64) == -2);
    CHECK(pof_probe_parse_id("0x1", &id, err, sizeof(err)) == -1);
}

/* ---- the switch ------------------------------------------------------------------------------------------ */

static void test_switch_round_trip(void)
{
    static struct pof_sw sw;
    switch_setup(&sw);
    CHECK(strcmp(cmd(&sw, "probe-start a 7 02:00:00:00:00:65 0a:00:00:00:00:02 10.9.0.101 10.9.0.2 count=3"),
                 "OK") == 0);
    CHECK(strcmp(cmd(&sw, "probe-start a 7 02:00:00:00:00:65 0a:00:00:00:00:02 10.9.0.101 10.9.0.2"),
                 "ERROR probe a 7 exists") == 0);
    uint8_t f[2048], r[2048];
    int got = 0;
    /* three requests leave b (the pipeline's output for what a receives), each answered into b */
    for (int round = 0; round < 200 && got < 3; round++) {
        pof_sw_poll_once(&sw, pof_now_ns());
        int n;
        while ((n = dummy_take("b", f, sizeof(f))) > 0) {
            CHECK(n == 106 && f[34] == 8 && get16(f + 38) == 7 && get16(f + 40) == got);
            CHECK(dummy_inject("b", r, echo_reply(f, (uint32_t)n, r)) == 0);
            got++;
        }
        if (got < 3) {
            struct timespec ts = {0, 2000000};
            nanosleep(&ts, NULL);
        }
    }
    pof_sw_poll_once(&sw, pof_now_ns());
    CHECK(got == 3 && dummy_sent_count("a") == 0 && dummy_sent_count("b") == 0); /* replies taken, none left a */
    cmd(&sw, "probe-stats a 7");
    unsigned long long sent, rcv, lost, p50, p90, p99, max, arp;
    unsigned samples;
    CHECK_MSG(sscanf(out, "OK sent=%llu received=%llu lost=%llu p50_us=%llu p90_us=%llu p99_us=%llu max_us=%llu "
                     "samples=%u arp_replies=%llu", &sent, &rcv, &lost, &p50, &p90, &p99, &max, &samples, &arp) == 9,
              out);
    CHECK_MSG(sent == 3 && rcv == 3 && lost == 0 && samples == 3 && arp == 0 && p50 <= max && max < 1000000, out);
    /* an ARP request for the probe's address, broadcast from b: taken before a, answered as received on a */
    uint8_t a[60] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x0a, 0, 0, 0, 0, 0x02, 0x08, 0x06,
                     0, 1, 0x08, 0, 6, 4, 0, 1, 0x0a, 0, 0, 0, 0, 0x02, 10, 9, 0, 2,
                     0, 0, 0, 0, 0, 0, 10, 9, 0, 101};
    CHECK(dummy_inject("b", a, 60) == 0);
    pof_sw_poll_once(&sw, pof_now_ns());
    CHECK(dummy_sent_count("a") == 0);
    pof_sw_poll_once(&sw, pof_now_ns());
    CHECK(dummy_take("b", f, sizeof(f)) == 60 && get16(f + 20) == 2 && memcmp(f + 22, "\x02\0\0\0\0\x65", 6) == 0);
    /* a frame for someone else passes */
    a[41] = 1;
    CHECK(dummy_inject("b", a, 60) == 0);
    pof_sw_poll_once(&sw, pof_now_ns());
    CHECK(dummy_take("a", f, sizeof(f)) == 60);
    CHECK(strstr(cmd(&sw, "probe-stats a 7"), "arp_replies=1") != NULL);
    /* the session goes with its port */
    CHECK(strcmp(cmd(&sw, "port-del a"), "OK") == 0 && sw.n_probes == 0);
    CHECK(strcmp(cmd(&sw, "probe-stats a 7"), "ERROR no probe a 7") == 0);
    pof_sw_fini(&sw);
    CHECK(dummy_live_buffers() == 0);
}

/* A reply through a latency-class meter is sent alone, at once (sw_send_now): the session takes it there too. */
static void test_switch_latency_path(void)
{
    static struct pof_sw sw;
    switch_setup(&sw);
    struct pof_status st;
    struct pof_meter_mod m = {.command = 0, .meter_id = 1, .rate = 100000, .flags = POF_METER_LATENCY};
    CHECK(pof_dp_meter_mod(sw.dp, &m, &st) == 0);
    port_flow(&sw, POF_FLOW_MODIFY, 1, 2, 1, 1); /* b -> a through the latency meter */
    CHECK(strcmp(cmd(&sw, "probe-start a 9 02:00:00:00:00:65 0a:00:00:00:00:02 10.9.0.101 10.9.0.2"), "OK") == 0);
    pof_sw_poll_once(&sw, pof_now_ns());
    uint8_t f[2048], r[2048];
    int n = dummy_take("b", f, sizeof(f));
    CHECK(n == 106);
    CHECK(dummy_inject("b", r, echo_reply(f, (uint32_t)n, r)) == 0);
    pof_sw_poll_once(&sw, pof_now_ns());
    CHECK(dummy_sent_count("a") == 0 && strstr(cmd(&sw, "probe-stats a 9"), "received=1 ") != NULL);
    CHECK(strcmp(cmd(&sw, "probe-stop a 9"), "OK") == 0 && sw.n_probes == 0 && sw.ports[1].probes == 0);
    /* with the session gone the same reply leaves a */
    CHECK(dummy_inject("b", r, (uint32_t)n) == 0);
    pof_sw_poll_once(&sw, pof_now_ns());
    CHECK(dummy_sent_count("a") == 1);
    pof_sw_fini(&sw);
    CHECK(dummy_live_buffers() == 0);
}

static void test_switch_commands(void)
{
    static struct pof_sw sw;
    switch_setup(&sw);
    static const struct { const char *line, *reply; } steps[] = {
        {"probe-start zz 1 02:00:00:00:00:65 0a:00:00:00:00:02 10.9.0.101 10.9.0.2", "ERROR no port zz"},
        {"probe-start a", "ERROR usage: probe-start NAME ID SRC_MAC DST_MAC SRC_IP DST_IP [size=N] "
                          "[interval_us=N] [count=N]"},
        {"probe-start a 1 02:00:00:00:00:65", "ERROR usage: probe-start NAME ID SRC_MAC DST_MAC SRC_IP DST_IP "
                                              "[size=N] [interval_us=N] [count=N]"},
        {"probe-stats a", "ERROR usage: probe-stats NAME ID"},
        {"probe-stats a 1 2", "ERROR usage: probe-stats NAME ID"},
        {"probe-stop a x", "ERROR probe id must be 0-65535"},
        {"probe-stop a 1", "ERROR no probe a 1"},
        {"probe-stats zz 1", "ERROR no probe zz 1"},
        {"probe-stats a 1", "ERROR no probe a 1"},
    };
    for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
        CHECK_MSG(strcmp(cmd(&sw, steps[i].line), steps[i].reply) == 0, out);
    char line[160];
    for (int i = 0; i < SW_PROBES; i++) {
        snprintf(line, sizeof(line), "probe-start %s %d 02:00:00:00:00:65 0a:00:00:00:00:02 10.9.0.101 10.9.0.2",
                 i % 2 ? "a" : "b", i);
        CHECK(strcmp(cmd(&sw, line), "OK") == 0);
    }
    CHECK(strcmp(cmd(&sw, "probe-start a 99 02:00:00:00:00:65 0a:00:00:00:00:02 10.9.0.101 10.9.0.2"),
                 "ERROR too many probes (at most 8)") == 0);
    CHECK(strcmp(cmd(&sw, "probe-stats b 0"),
                 "OK sent=0 received=0 lost=0 p50_us=0 p90_us=0 p99_us=0 max_us=0 samples=0 arp_replies=0 "
                 "arp_requests=0 resolved=1") == 0);
    CHECK(strcmp(cmd(&sw, "port-del b"), "OK") == 0 && sw.n_probes == SW_PROBES / 2);
    pof_sw_fini(&sw); /* frees the rest */
    CHECK(dummy_live_buffers() == 0);
}

int main(void)
{
    RUN(test_request_bytes);
    RUN(test_reply_matching);
    RUN(test_arp_answer);
    RUN(test_loss_by_timeout);
    RUN(test_percentile_window);
    RUN(test_bad_input);
    RUN(test_switch_round_trip);
    RUN(test_switch_latency_path);
    RUN(test_switch_commands);
    return unit_summary();
}
