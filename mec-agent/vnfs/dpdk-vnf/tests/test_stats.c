#include <string.h>

#include "check.h"
#include "vnf_stats.h"

int main(void)
{
    struct vnf_watermark w;
    vnf_watermark_init(&w, 1024, 80, 20);
    CHECK(w.high == 819 && w.low == 204 && !w.over);
    CHECK(!vnf_watermark_update(&w, 819)); /* at high is not over */
    CHECK(vnf_watermark_update(&w, 820) && w.episodes == 1);
    CHECK(vnf_watermark_update(&w, 500));  /* between: stays over (hysteresis) */
    CHECK(vnf_watermark_update(&w, 204));
    CHECK(!vnf_watermark_update(&w, 203));
    CHECK(!vnf_watermark_update(&w, 500)); /* between: stays under */
    CHECK(vnf_watermark_update(&w, 1024) && w.episodes == 2);

    CHECK(vnf_burst_bucket(1) == 0 && vnf_burst_bucket(2) == 1 && vnf_burst_bucket(3) == 1);
    CHECK(vnf_burst_bucket(32) == 5 && vnf_burst_bucket(255) == 7 && vnf_burst_bucket(256) == 8);
    CHECK(vnf_burst_bucket(100000) == VNF_BURST_BUCKETS - 1);

    struct vnf_stats s;
    memset(&s, 0, sizeof(s));
    CHECK(vnf_stats_mean_burst(&s) == 0.0 && vnf_stats_queue_bytes(&s, 5) == 0);
    vnf_stats_burst(&s, 0);
    vnf_stats_burst(&s, 32);
    vnf_stats_burst(&s, 8);
    s.rx_packets = 40;
    s.rx_bytes = 40 * 1500;
    CHECK(s.polls == 3 && s.empty_polls == 1 && s.burst_hist[5] == 1 && s.burst_hist[3] == 1);
    CHECK(vnf_stats_mean_burst(&s) == 20.0);
    s.occupancy = 3; /* the ring drained, but it held 100 since the last report */
    s.occupancy_max = 100;
    CHECK(vnf_stats_queue_bytes(&s, 100) == 150000 && vnf_stats_queue_bytes(&s, 3) == 4500);

    /* processing-time histogram: exact below 4 ns, 4 buckets an octave, p99 = the top of its bucket */
    CHECK(vnf_latency_bucket(0) == 0 && vnf_latency_bucket(3) == 3 && vnf_latency_bucket(4) == 4);
    CHECK(vnf_latency_bucket(7) == 7 && vnf_latency_bucket(8) == 8 && vnf_latency_bucket(9) == 8);
    CHECK(vnf_latency_bucket_top(8) == 9 && vnf_latency_bucket_top(vnf_latency_bucket(1000)) >= 1000);
    CHECK(vnf_latency_bucket(UINT64_MAX) == VNF_LAT_BUCKETS - 1 && vnf_latency_bucket_top(VNF_LAT_BUCKETS - 1)
          == UINT64_MAX);
    for (uint64_t ns = 4; ns < 1000000; ns = ns * 3 / 2) { /* every value is in the bucket whose range holds it */
        unsigned b = vnf_latency_bucket(ns);
        CHECK(vnf_latency_bucket_top(b) >= ns && vnf_latency_bucket_top(b - 1) < ns);
        CHECK(vnf_latency_bucket_top(b) <= ns + ns / 4 + 1);
    }
    CHECK(vnf_latency_p99(&s.proc) == 0);
    vnf_latency_add(&s.proc, 1000, 990);
    vnf_latency_add(&s.proc, 50000, 10); /* 1 % slow: the p99 is still the fast ones' */
    uint64_t p99 = vnf_latency_p99(&s.proc);
    CHECK(p99 >= 1000 && p99 < 1250);
    vnf_latency_add(&s.proc, 50000, 1); /* one more slow packet: over 1 %, the p99 is the slow ones' */
    CHECK(vnf_latency_p99(&s.proc) >= 50000 && vnf_latency_p99(&s.proc) < 62500);
    memset(&s.proc, 0, sizeof(s.proc));
    vnf_latency_add(&s.proc, 1000, 990);
    vnf_latency_add(&s.proc, 50000, 10);

    s.wm = w;
    s.tx_packets = 39;
    s.tx_dropped = 1;
    s.idle_sleeps = 12;
    s.throttled = true;
    s.backpressure = true;
    s.backpressure_dropped = 77;
    struct vnf_info info = {.mode = "cost", .wake = "backoff", .occupancy_source = "drain", .cost_cycles = 3000,
                            .cost_ns = 1000, .clock_overhead_cycles = 20, .tsc_hz = 3000000000ull, .burst = 32,
                            .ring_size = 1024, .max_sleep_us = 1000};
    char buf[2048];
    int n = vnf_stats_json(&s, &info, 1234, buf, sizeof(buf));
    CHECK(n > 0 && (size_t)n == strlen(buf) && buf[n - 1] == '\n' && buf[0] == '{' && buf[n - 2] == '}');
    const char *want[] = {"\"version\":1,", "\"uptime_ms\":1234,", "\"mode\":\"cost\"", "\"cost_ns\":1000,",
                          "\"rx_packets\":40,", "\"tx_packets\":39,", "\"tx_dropped\":1,", "\"mean_burst\":20.00,",
                          "\"burst_hist\":[0,0,0,1,0,1,0,0,0]", "\"idle_sleeps\":12,", "\"queue_bytes\":150000,",
                          "\"watermark_high\":819,", "\"over_watermark\":true,", "\"watermark_episodes\":2,",
                          "\"throttled\":true,", "\"proc_p99_ns\":1023,", "\"proc_packets\":1000,",
                          "\"wake\":\"backoff\"", "\"occupancy_source\":\"drain\"",
                          "\"backpressure_dropped\":77,", "\"backpressure\":true,"};
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        if (!strstr(buf, want[i]))
            fprintf(stderr, "missing %s in %s", want[i], buf);
        CHECK(strstr(buf, want[i]) != NULL);
    }
    /* per-port counters: one entry for a one-port vNF (info.ports 0 counts as 1), two for a bridge */
    CHECK(strstr(buf, "\"ports\":[{\"rx_packets\":0,\"rx_bytes\":0,\"tx_packets\":0,\"tx_bytes\":0,"
                      "\"tx_dropped\":0}]}\n") != NULL);
    s.port[0] = (struct vnf_port_counters){.rx_packets = 30, .rx_bytes = 3000, .tx_packets = 9, .tx_bytes = 900};
    s.port[1] = (struct vnf_port_counters){.rx_packets = 10, .rx_bytes = 1000, .tx_packets = 30, .tx_bytes = 3000,
                                           .tx_dropped = 1};
    info.ports = 2;
    n = vnf_stats_json(&s, &info, 1234, buf, sizeof(buf));
    CHECK(n > 0 && strstr(buf, "\"ports\":[{\"rx_packets\":30,\"rx_bytes\":3000,\"tx_packets\":9,\"tx_bytes\":900,"
                                "\"tx_dropped\":0},{\"rx_packets\":10,\"rx_bytes\":1000,\"tx_packets\":30,"
                                "\"tx_bytes\":3000,\"tx_dropped\":1}]}\n") != NULL);
    /* too small a buffer: -1, never an overrun or a truncated object */
    char small[64];
    memset(small, 'q', sizeof(small));
    CHECK(vnf_stats_json(&s, &info, 1, small, 40) == -1 && small[40] == 'q');
    CHECK(vnf_stats_json(&s, &info, 1, small, 0) == -1);
    CHECK(vnf_stats_json(&s, &info, 1234, buf, (size_t)n) == -1); /* no room for the terminator */
    CHECK(vnf_stats_json(&s, &info, 1234, buf, (size_t)n + 1) == n);
    puts("test_stats: ok");
    return 0;
}
