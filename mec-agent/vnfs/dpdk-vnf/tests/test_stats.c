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

    s.wm = w;
    s.tx_packets = 39;
    s.tx_dropped = 1;
    s.idle_sleeps = 12;
    s.throttled = true;
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
                          "\"throttled\":true}", "\"wake\":\"backoff\"", "\"occupancy_source\":\"drain\""};
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        if (!strstr(buf, want[i]))
            fprintf(stderr, "missing %s in %s", want[i], buf);
        CHECK(strstr(buf, want[i]) != NULL);
    }
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
