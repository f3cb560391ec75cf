#include "vnf_stats.h"

#include <stdarg.h>
#include <stdio.h>

void vnf_watermark_init(struct vnf_watermark *w, uint32_t ring_size, uint32_t high_pct, uint32_t low_pct)
{
    w->high = (uint32_t)((uint64_t)ring_size * high_pct / 100);
    w->low = (uint32_t)((uint64_t)ring_size * low_pct / 100);
    w->over = false;
    w->episodes = 0;
}

bool vnf_watermark_update(struct vnf_watermark *w, uint32_t occupancy)
{
    if (w->over) {
        if (occupancy < w->low)
            w->over = false;
    } else if (occupancy > w->high) {
        w->over = true;
        w->episodes++;
    }
    return w->over;
}

unsigned vnf_burst_bucket(uint32_t n)
{
    unsigned b = 0;
    while (n > 1 && b < VNF_BURST_BUCKETS - 1) {
        n >>= 1;
        b++;
    }
    return b;
}

void vnf_stats_burst(struct vnf_stats *s, uint32_t n)
{
    s->polls++;
    if (!n) {
        s->empty_polls++;
        return;
    }
    s->burst_hist[vnf_burst_bucket(n)]++;
}

unsigned vnf_latency_bucket(uint64_t ns)
{
    if (ns < 4)
        return (unsigned)ns;
    unsigned msb = 63u - (unsigned)__builtin_clzll(ns);
    return 4u * (msb - 1u) + (unsigned)((ns >> (msb - 2u)) & 3u);
}

uint64_t vnf_latency_bucket_top(unsigned bucket)
{
    if (bucket < 4)
        return bucket;
    unsigned msb = bucket / 4u + 1u, sub = bucket % 4u;
    if (msb >= 63u && sub == 3u)
        return UINT64_MAX;
    return ((uint64_t)(5u + sub) << (msb - 2u)) - 1u;
}

void vnf_latency_add(struct vnf_latency *l, uint64_t ns, uint64_t packets)
{
    l->hist[vnf_latency_bucket(ns)] += packets;
    l->count += packets;
}

uint64_t vnf_latency_p99(const struct vnf_latency *l)
{
    if (!l->count)
        return 0;
    uint64_t want = l->count - l->count / 100, seen = 0; /* at least 99 % of the packets at or below */
    for (unsigned b = 0; b < VNF_LAT_BUCKETS; b++) {
        seen += l->hist[b];
        if (seen >= want)
            return vnf_latency_bucket_top(b);
    }
    return UINT64_MAX;
}

double vnf_stats_mean_burst(const struct vnf_stats *s)
{
    uint64_t bursts = s->polls - s->empty_polls;
    return bursts ? (double)s->rx_packets / (double)bursts : 0.0;
}

uint64_t vnf_stats_queue_bytes(const struct vnf_stats *s, uint32_t occupancy)
{
    return s->rx_packets ? (uint64_t)occupancy * (s->rx_bytes / s->rx_packets) : 0;
}

struct out { char *p; size_t left; bool full; };

static void put(struct out *o, const char *fmt, ...)
{
    if (o->full)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(o->p, o->left, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= o->left) {
        o->full = true;
        return;
    }
    o->p += n;
    o->left -= (size_t)n;
}

typedef unsigned long long ull;

int vnf_stats_json(const struct vnf_stats *s, const struct vnf_info *i, uint64_t uptime_ms, char *buf, size_t len)
{
    if (!len)
        return -1;
    struct out o = {buf, len, false};
    /* mode, wake and occupancy_source are our own fixed words: no escaping needed */
    put(&o, "{\"version\":1,\"uptime_ms\":%llu,\"mode\":\"%s\",\"cost_cycles\":%llu,\"cost_ns\":%llu,"
            "\"clock_overhead_cycles\":%llu,\"tsc_hz\":%llu,\"burst\":%u,\"ring_size\":%u,\"wake\":\"%s\","
            "\"max_sleep_us\":%u,",
        (ull)uptime_ms, i->mode, (ull)i->cost_cycles, (ull)i->cost_ns, (ull)i->clock_overhead_cycles,
        (ull)i->tsc_hz, i->burst, i->ring_size, i->wake, i->max_sleep_us);
    put(&o, "\"rx_packets\":%llu,\"rx_bytes\":%llu,\"tx_packets\":%llu,\"tx_bytes\":%llu,\"tx_dropped\":%llu,"
            "\"throttle_dropped\":%llu,\"backpressure_dropped\":%llu,\"polls\":%llu,\"empty_polls\":%llu,"
            "\"mean_burst\":%.2f,\"burst_hist\":[",
        (ull)s->rx_packets, (ull)s->rx_bytes, (ull)s->tx_packets, (ull)s->tx_bytes, (ull)s->tx_dropped,
        (ull)s->throttle_dropped, (ull)s->backpressure_dropped, (ull)s->polls, (ull)s->empty_polls,
        vnf_stats_mean_burst(s));
    for (unsigned b = 0; b < VNF_BURST_BUCKETS; b++)
        put(&o, "%s%llu", b ? "," : "", (ull)s->burst_hist[b]);
    put(&o, "],\"idle_sleeps\":%llu,\"slept_us\":%llu,\"intr_wakeups\":%llu,\"paced_sleeps\":%llu,"
            "\"cost_cycles_spent\":%llu,"
            "\"occupancy\":%u,\"occupancy_max\":%u,\"occupancy_source\":\"%s\",\"queue_bytes\":%llu,"
            "\"watermark_high\":%u,\"watermark_low\":%u,\"over_watermark\":%s,\"watermark_episodes\":%llu,"
            "\"throttled\":%s,\"backpressure\":%s,\"proc_p99_ns\":%llu,\"proc_packets\":%llu,\"ports\":[",
        (ull)s->idle_sleeps, (ull)s->slept_us, (ull)s->intr_wakeups, (ull)s->paced_sleeps, (ull)s->cost_cycles_spent,
        s->occupancy,
        s->occupancy_max, i->occupancy_source, (ull)vnf_stats_queue_bytes(s, s->occupancy_max), s->wm.high, s->wm.low,
        s->wm.over ? "true" : "false", (ull)s->wm.episodes, s->throttled ? "true" : "false",
        s->backpressure ? "true" : "false",
        (ull)vnf_latency_p99(&s->proc), (ull)s->proc.count);
    /* per port, in port order (0 = 'in', 1 = 'out'); the totals above are their sums */
    uint32_t ports = i->ports < 1 ? 1 : i->ports > VNF_MAX_PORTS ? VNF_MAX_PORTS : i->ports;
    for (uint32_t k = 0; k < ports; k++) {
        const struct vnf_port_counters *c = &s->port[k];
        put(&o, "%s{\"rx_packets\":%llu,\"rx_bytes\":%llu,\"tx_packets\":%llu,\"tx_bytes\":%llu,\"tx_dropped\":%llu}",
            k ? "," : "", (ull)c->rx_packets, (ull)c->rx_bytes, (ull)c->tx_packets, (ull)c->tx_bytes,
            (ull)c->tx_dropped);
    }
    put(&o, "]}\n");
    return o.full ? -1 : (int)(o.p - buf);
}
