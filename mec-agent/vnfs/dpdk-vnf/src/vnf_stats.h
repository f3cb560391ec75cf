/* The vNF's counters, its ring watermarks and their JSON form (the stats file the agent may read; format in
 * README.md). Pure: no DPDK, no I/O. */
#ifndef VNF_STATS_H
#define VNF_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vnf_args.h" /* VNF_MAX_PORTS */

#define VNF_BURST_BUCKETS 9 /* non-empty rx bursts by size: 1, 2-3, 4-7, ..., 128-255, 256 */
/* Processing time histogram, ns: exact below 4, then 4 buckets per power of two (a bucket's top is at most 25 %
 * above its bottom), up to 2^64. */
#define VNF_LAT_BUCKETS 252

struct vnf_latency {
    uint64_t hist[VNF_LAT_BUCKETS];
    uint64_t count;
};

struct vnf_watermark {
    uint32_t high, low;   /* packets in the rx ring */
    bool over;            /* above high, not yet back under low (hysteresis) */
    uint64_t episodes;    /* times it went over */
};

/* One port's share of the totals: rx = taken from its rx ring, tx = handed to the switch on it. */
struct vnf_port_counters {
    uint64_t rx_packets, rx_bytes, tx_packets, tx_bytes, tx_dropped;
};

struct vnf_stats {
    uint64_t rx_packets, rx_bytes, tx_packets, tx_bytes;
    uint64_t tx_dropped;        /* the switch's ring was full after the retries */
    uint64_t throttle_dropped;  /* dropped at the head while the agent throttled the chain */
    uint64_t backpressure_dropped; /* dropped at the head while a downstream ring was over (chain file) */
    uint64_t polls, empty_polls;
    uint64_t burst_hist[VNF_BURST_BUCKETS];
    uint64_t idle_sleeps, slept_us, intr_wakeups;
    uint64_t paced_sleeps; /* sleeps under steady traffic (vnf_pace.h), not counted in idle_sleeps */
    uint64_t cost_cycles_spent; /* busy cycles the cost knob burned, all packets */
    uint32_t occupancy, occupancy_max; /* rx ring: last sample, most since the previous report */
    struct vnf_watermark wm;
    bool throttled;
    bool backpressure; /* chain head: a downstream vNF's ring is over its high watermark now */
    struct vnf_latency proc; /* ns each packet spent in the vNF (rx burst taken -> handed to tx), this interval */
    struct vnf_port_counters port[VNF_MAX_PORTS]; /* the first vnf_info.ports of them */
};

/* What does not change while it runs. */
struct vnf_info {
    const char *mode;
    const char *wake;       /* "busy" (never sleeps), "intr" (rx interrupts) or "backoff" (nanosleep) */
    const char *occupancy_source; /* "rx_queue_count" or "drain" */
    uint64_t cost_cycles, cost_ns, clock_overhead_cycles, tsc_hz;
    uint32_t burst, ring_size, max_sleep_us;
    uint32_t ports;         /* 1 or 2; 0 counts as 1 */
};

void vnf_watermark_init(struct vnf_watermark *w, uint32_t ring_size, uint32_t high_pct, uint32_t low_pct);
/* Feeds an occupancy sample; returns whether the ring is over its watermark now. */
bool vnf_watermark_update(struct vnf_watermark *w, uint32_t occupancy);

void vnf_stats_burst(struct vnf_stats *s, uint32_t n);
unsigned vnf_burst_bucket(uint32_t n); /* n >= 1 */
double vnf_stats_mean_burst(const struct vnf_stats *s); /* packets per non-empty poll */
/* Bytes in the rx ring: `occupancy` packets x the mean packet size so far (0 before the first packet). The
 * queue file and stats.json's queue_bytes give the most the ring held since their previous write, not the last
 * sample: on a shared core the vNF writes as it wakes, after its previous slice drained the ring, while the
 * backlog built up as it waited for the CPU. */
uint64_t vnf_stats_queue_bytes(const struct vnf_stats *s, uint32_t occupancy);

unsigned vnf_latency_bucket(uint64_t ns);
uint64_t vnf_latency_bucket_top(unsigned bucket); /* the largest ns the bucket holds */
void vnf_latency_add(struct vnf_latency *l, uint64_t ns, uint64_t packets);
/* The 99th percentile, as the top of the bucket it falls in (at most 25 % high); 0 with no samples. */
uint64_t vnf_latency_p99(const struct vnf_latency *l);

/* The stats JSON (one object, newline-terminated) into buf; returns its length, or -1 if it does not fit. */
int vnf_stats_json(const struct vnf_stats *s, const struct vnf_info *info, uint64_t uptime_ms, char *buf,
                   size_t len);

#endif
