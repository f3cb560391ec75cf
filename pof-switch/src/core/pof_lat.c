/* Residence-time histograms (see pof_lat.h). */
#include "pof_lat.h"

#include <string.h>

void pof_lat_rotate(struct pof_lat *l, uint64_t now_ns)
{
    if (now_ns - l->start_ns < POF_LAT_WINDOW_NS || now_ns < l->start_ns)
        return;
    if (now_ns - l->start_ns >= 2 * POF_LAT_WINDOW_NS) {
        memset(l->h, 0, sizeof(l->h)); /* silent for two windows: nothing recent to report */
        l->cur = 0;
        l->start_ns = now_ns;
        return;
    }
    l->cur ^= 1u;
    memset(l->h[l->cur], 0, sizeof(l->h[l->cur]));
    l->start_ns += POF_LAT_WINDOW_NS;
}

uint64_t pof_lat_bucket_top(uint32_t b)
{
    if (b < 8)
        return b;
    uint32_t msb = 3u + (b - 8u) / 4u, sub = (b - 8u) % 4u;
    return ((uint64_t)(5u + sub) << (msb - 2u)) - 1u;
}

static uint32_t sat32(uint64_t v)
{
    return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

/* The value below which a fraction num/den of the packets lie: the top of the bucket where the count reaches
 * ceil(packets * num / den). */
static uint64_t percentile(const uint32_t *n, uint64_t packets, uint64_t num, uint64_t den)
{
    uint64_t want = (packets * num + den - 1) / den, seen = 0;
    for (uint32_t b = 0; b < POF_LAT_BUCKETS; b++) {
        seen += n[b];
        if (seen >= want)
            return pof_lat_bucket_top(b);
    }
    return pof_lat_bucket_top(POF_LAT_BUCKETS - 1u);
}

void pof_lat_read(struct pof_lat *l, uint64_t now_ns, int cls, struct pof_lat_summary *out)
{
    pof_lat_rotate(l, now_ns);
    uint32_t n[POF_LAT_BUCKETS];
    uint64_t packets = 0, max = 0;
    for (uint32_t b = 0; b < POF_LAT_BUCKETS; b++)
        n[b] = l->h[0][cls].n[b] + l->h[1][cls].n[b];
    for (int w = 0; w < 2; w++) {
        packets += l->h[w][cls].packets;
        max = l->h[w][cls].max_ns > max ? l->h[w][cls].max_ns : max;
    }
    *out = (struct pof_lat_summary){.packets = packets, .max_ns = sat32(max)};
    if (!packets)
        return;
    uint64_t p50 = percentile(n, packets, 50, 100), p99 = percentile(n, packets, 99, 100);
    out->p50_ns = sat32(p50 < max ? p50 : max);
    out->p99_ns = sat32(p99 < max ? p99 : max);
}
