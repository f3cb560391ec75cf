#include <string.h>

#include "check.h"
#include "vnf_args.h"

static int parse(struct vnf_args *a, char *err, const char *const *argv)
{
    int argc = 0;
    while (argv[argc])
        argc++;
    vnf_args_defaults(a);
    return vnf_args_parse(a, argc, (char *const *)argv, err, 160);
}

int main(void)
{
    struct vnf_args a;
    char err[160];
    const char *none[] = {"dpdk-vnf", NULL};
    CHECK(parse(&a, err, none) == 0);
    CHECK(a.mode == VNF_MODE_FWD && a.burst == 32 && a.ring_size == 1024 && a.cost_cycles == 0);
    CHECK(a.max_sleep_us == 1000 && a.high_pct == 80 && a.low_pct == 20 && !a.busy_poll && !a.no_intr);
    CHECK(a.spin_rounds == 256 && a.stats_interval_ms == 500 && a.queue_interval_ms == 10 && !a.latency);
    CHECK(a.ports == 1);
    CHECK(a.pace_us == 200);

    /* latency mode: burst 1 and busy poll, whichever order, with either mode */
    const char *lat[] = {"x", "--latency", NULL};
    CHECK(parse(&a, err, lat) == 0 && a.latency && a.burst == 1 && a.busy_poll && a.mode == VNF_MODE_FWD);
    const char *lat_b1[] = {"x", "--burst", "1", "--latency", NULL};
    CHECK(parse(&a, err, lat_b1) == 0 && a.latency && a.burst == 1 && a.busy_poll);
    const char *lat_cost[] = {"x", "--latency", "--mode", "cost", "--cost-cycles", "100", "--burst", "1", NULL};
    CHECK(parse(&a, err, lat_cost) == 0 && a.latency && a.burst == 1 && a.cost_cycles == 100);
    const char *lat_shared[] = {"x", "--latency", "--shared-core-file", "/run/vnf/shared-core", NULL};
    CHECK(parse(&a, err, lat_shared) == 0 && a.latency && a.busy_poll &&
          !strcmp(a.shared_core_file, "/run/vnf/shared-core"));
    const char *no_lat[] = {"x", "--burst", "1", NULL}; /* burst 1 alone is not latency mode: it still sleeps */
    CHECK(parse(&a, err, no_lat) == 0 && !a.latency && !a.busy_poll);

    /* paced polling: a window up to 100 ms, 0 = off */
    const char *pace[] = {"x", "--pace-us", "0", NULL};
    CHECK(parse(&a, err, pace) == 0 && a.pace_us == 0);
    const char *pace_big[] = {"x", "--pace-us", "100001", NULL};
    CHECK(parse(&a, err, pace_big) == -1);
    /* two ports: a bump in the wire; any other count is refused (below) */
    const char *two[] = {"x", "--ports", "2", "--mode", "cost", "--cost-cycles", "10", NULL};
    CHECK(parse(&a, err, two) == 0 && a.ports == 2 && a.cost_cycles == 10 && a.burst == 32);
    const char *one[] = {"x", "--ports", "1", NULL};
    CHECK(parse(&a, err, one) == 0 && a.ports == 1);
    const char *two_lat[] = {"x", "--latency", "--ports", "2", NULL};
    CHECK(parse(&a, err, two_lat) == 0 && a.ports == 2 && a.burst == 1 && a.busy_poll);

    const char *full[] = {"x", "--mode", "cost", "--cost-cycles", "2500", "--burst", "64", "--ring-size", "512",
                          "--max-sleep-us", "200", "--stats-file", "/run/vnf/stats.json", "--queue-file",
                          "/run/vnf/queue", "--throttle-file", "/run/vnf/throttle", "--stats-interval-ms", "100",
                          "--high-pct", "90", "--low-pct", "10", "--no-intr",
                          "--spin-rounds", "0", "--busy-poll", "--queue-interval-ms", "3", NULL};
    CHECK(parse(&a, err, full) == 0);
    CHECK(a.mode == VNF_MODE_COST && a.cost_cycles == 2500 && a.burst == 64 && a.ring_size == 512);
    CHECK(a.max_sleep_us == 200 && a.stats_interval_ms == 100 && a.high_pct == 90 && a.low_pct == 10);
    CHECK(a.busy_poll && a.spin_rounds == 0 && a.queue_interval_ms == 3);
    CHECK(a.no_intr && !strcmp(a.stats_file, "/run/vnf/stats.json") && !strcmp(a.queue_file, "/run/vnf/queue"));
    CHECK(!strcmp(a.throttle_file, "/run/vnf/throttle"));
    CHECK(!strcmp(vnf_mode_name(a.mode), "cost"));

    /* refused: each with a message */
    const char *bad[][5] = {
        {"x", "--mode", "macswap", NULL},
        {"x", "--burst", "0", NULL},
        {"x", "--burst", "257", NULL},
        {"x", "--burst", "-1", NULL},
        {"x", "--burst", "32k", NULL},
        {"x", "--burst", "", NULL},
        {"x", "--burst", " 3", NULL},
        {"x", "--burst", NULL},
        {"x", "--ring-size", "1000", NULL},
        {"x", "--cost-cycles", "100000001", "--mode", "cost"},
        {"x", "--cost-cycles", "18446744073709551616", "--mode", "cost"},
        {"x", "--cost-cycles", "10", NULL},          /* cost needs mode cost */
        {"x", "--high-pct", "20", "--low-pct", "20"}, /* low must be below high */
        {"x", "--frobnicate", "1", NULL},
        {"x", "--spin-rounds", "10000001", NULL},
        {"x", "--stats-interval-ms", "9", NULL},
        {"x", "--queue-interval-ms", "0", NULL},
        {"x", "--latency", "--burst", "32", NULL},   /* latency forwards with burst 1 */
        {"x", "--burst", "2", "--latency", NULL},
        {"x", "--latency", "1", NULL},               /* a flag: takes no value */
        {"x", "--ports", "0", NULL},
        {"x", "--ports", "3", NULL},
        {"x", "--ports", "two", NULL},
        {"x", "--ports", NULL},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        const char *argv[6] = {0};
        memcpy(argv, bad[i], sizeof(bad[i]));
        err[0] = '\0';
        CHECK(parse(&a, err, argv) == -1);
        CHECK(err[0] != '\0');
    }
    char longpath[VNF_PATH_MAX + 2];
    memset(longpath, 'a', sizeof(longpath) - 1);
    longpath[sizeof(longpath) - 1] = '\0';
    const char *too_long[] = {"x", "--stats-file", longpath, NULL};
    CHECK(parse(&a, err, too_long) == -1);
    longpath[VNF_PATH_MAX - 1] = '\0'; /* 255 bytes: fits */
    CHECK(parse(&a, err, too_long) == 0 && strlen(a.stats_file) == VNF_PATH_MAX - 1);
    /* a tiny error buffer is never overrun */
    char small[4] = {'z', 'z', 'z', 'z'};
    const char *bad_mode[] = {"x", "--mode", "nope", NULL};
    vnf_args_defaults(&a);
    CHECK(vnf_args_parse(&a, 3, (char *const *)bad_mode, small, 3) == -1 && small[2] == '\0' && small[3] == 'z');
    puts("test_args: ok");
    return 0;
}
