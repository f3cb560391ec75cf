#include "vnf_args.h"
#include "vnf_chain.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void vnf_args_defaults(struct vnf_args *a)
{
    memset(a, 0, sizeof(*a));
    a->mode = VNF_MODE_FWD;
    a->burst = 32;
    a->ring_size = 1024;
    a->spin_rounds = 256;   /* as pof-switch (SPIN_ROUNDS_BEFORE_SLEEP) */
    a->max_sleep_us = 1000; /* as pof-switch's default --max-sleep-us */
    a->stats_interval_ms = 500;
    a->queue_interval_ms = 10;
    a->high_pct = 80;
    a->low_pct = 20;
    a->ports = 1;
    a->pace_us = 200; /* a 200 us batch at most: far below a ring's fill time at any rate that paces */
}

const char *vnf_mode_name(enum vnf_mode m)
{
    return m == VNF_MODE_COST ? "cost" : "fwd";
}

/* A decimal unsigned integer in [lo, hi], nothing else (no sign, no spaces, no suffix). */
static int parse_uint(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
    if (!s || s[0] < '0' || s[0] > '9')
        return -1;
    errno = 0;
    char *end = NULL;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end != '\0' || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

static int copy_path(char *dst, const char *src)
{
    size_t n = strlen(src);
    if (n >= VNF_PATH_MAX)
        return -1;
    memcpy(dst, src, n + 1);
    return 0;
}

struct num_opt { const char *name; uint64_t lo, hi; };

static const struct num_opt NUM_OPTS[] = {
    {"--cost-cycles", 0, 100000000},  /* at most ~30 ms a packet: beyond is a typo, not a workload */
    {"--burst", 1, VNF_MAX_BURST},
    {"--ring-size", 64, 4096},         /* virtio-user's queue_size: a power of two it accepts */
    {"--max-sleep-us", 1, 1000000},
    {"--stats-interval-ms", 10, 60000},
    {"--high-pct", 1, 100},
    {"--low-pct", 0, 99},
    {"--spin-rounds", 0, 10000000},
    {"--queue-interval-ms", 1, 60000},
    {"--chain-pos", 0, VNF_CHAIN_MAX - 1},
    {"--chain-len", 1, VNF_CHAIN_MAX},
    {"--ports", 1, VNF_MAX_PORTS},
    {"--pace-us", 0, 100000},          /* paced polling's longest sleep (vnf_pace.h); 0 = off */
};

static void set_num(struct vnf_args *a, size_t which, uint64_t v)
{
    switch (which) {
    case 0: a->cost_cycles = v; break;
    case 1: a->burst = (uint16_t)v; break;
    case 2: a->ring_size = (uint16_t)v; break;
    case 3: a->max_sleep_us = (uint32_t)v; break;
    case 4: a->stats_interval_ms = (uint32_t)v; break;
    case 5: a->high_pct = (uint32_t)v; break;
    case 6: a->low_pct = (uint32_t)v; break;
    case 7: a->spin_rounds = (uint32_t)v; break;
    case 8: a->queue_interval_ms = (uint32_t)v; break;
    case 9: a->chain_pos = (uint32_t)v; break;
    case 10: a->chain_len = (uint32_t)v; break;
    case 11: a->ports = (uint32_t)v; break;
    default: a->pace_us = (uint32_t)v; break;
    }
}

int vnf_args_parse(struct vnf_args *a, int argc, char *const argv[], char *err, size_t errlen)
{
    bool burst_given = false;
    for (int i = 1; i < argc; i++) {
        const char *opt = argv[i];
        if (!opt) {
            snprintf(err, errlen, "missing argument");
            return -1;
        }
        if (!strcmp(opt, "--busy-poll")) {
            a->busy_poll = true;
            continue;
        }
        if (!strcmp(opt, "--no-intr")) {
            a->no_intr = true;
            continue;
        }
        if (!strcmp(opt, "--latency")) {
            a->latency = true;
            continue;
        }
        if (i + 1 >= argc || !argv[i + 1]) {
            snprintf(err, errlen, "%.64s needs a value", opt);
            return -1;
        }
        const char *val = argv[++i];
        if (!strcmp(opt, "--mode")) {
            if (!strcmp(val, "fwd"))
                a->mode = VNF_MODE_FWD;
            else if (!strcmp(val, "cost"))
                a->mode = VNF_MODE_COST;
            else {
                snprintf(err, errlen, "--mode must be fwd or cost");
                return -1;
            }
            continue;
        }
        char **path = NULL;
        char *paths[5] = {a->stats_file, a->queue_file, a->throttle_file, a->shared_core_file, a->chain_file};
        static const char *const path_opts[5] = {"--stats-file", "--queue-file", "--throttle-file",
                                                 "--shared-core-file", "--chain-file"};
        for (int k = 0; k < 5; k++)
            if (!strcmp(opt, path_opts[k]))
                path = &paths[k];
        if (path) {
            if (copy_path(*path, val) < 0) {
                snprintf(err, errlen, "%.64s: path longer than %d bytes", opt, VNF_PATH_MAX - 1);
                return -1;
            }
            continue;
        }
        size_t which = sizeof(NUM_OPTS) / sizeof(NUM_OPTS[0]);
        for (size_t k = 0; k < sizeof(NUM_OPTS) / sizeof(NUM_OPTS[0]); k++)
            if (!strcmp(opt, NUM_OPTS[k].name))
                which = k;
        if (which == sizeof(NUM_OPTS) / sizeof(NUM_OPTS[0])) {
            snprintf(err, errlen, "unknown option %.64s", opt);
            return -1;
        }
        uint64_t v;
        if (parse_uint(val, NUM_OPTS[which].lo, NUM_OPTS[which].hi, &v) < 0) {
            snprintf(err, errlen, "%s must be an integer in %llu..%llu", NUM_OPTS[which].name,
                     (unsigned long long)NUM_OPTS[which].lo, (unsigned long long)NUM_OPTS[which].hi);
            return -1;
        }
        set_num(a, which, v);
        burst_given |= which == 1;
    }
    if ((a->ring_size & (a->ring_size - 1)) != 0) {
        snprintf(err, errlen, "--ring-size must be a power of two");
        return -1;
    }
    if (a->low_pct >= a->high_pct) {
        snprintf(err, errlen, "--low-pct must be below --high-pct");
        return -1;
    }
    if (a->chain_file[0] && (a->chain_len < 2 || a->chain_pos >= a->chain_len)) {
        snprintf(err, errlen, "--chain-file needs --chain-len of 2 or more and --chain-pos below it");
        return -1;
    }
    if (a->mode == VNF_MODE_FWD && a->cost_cycles) {
        snprintf(err, errlen, "--cost-cycles needs --mode cost");
        return -1;
    }
    if (a->latency) {
        /* A latency packet must not wait for a burst to fill, nor for the vNF to wake up: burst 1, never sleep.
         * A --burst other than 1 contradicts the mode and is refused rather than silently overridden. */
        if (burst_given && a->burst != 1) {
            snprintf(err, errlen, "--latency forwards with burst 1 (drop --burst or give 1)");
            return -1;
        }
        a->burst = 1;
        a->busy_poll = true;
    }
    return 0;
}
