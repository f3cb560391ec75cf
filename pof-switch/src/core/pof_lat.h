/* Residence time of packets in the switch, per output port and class: a histogram of log2 buckets, each split
 * in four (so a percentile is read within 25 %), over a recent window. Two windows alternate, each
 * POF_LAT_WINDOW_NS long: the writer adds to the current one, a reader sees the current and the previous one
 * merged, so it always sees at least one full window (1-2 s of traffic) and nothing older than two. Adding is a
 * compare, a count-leading-zeros and two increments: cheap enough for every packet. One thread writes and reads
 * (the switch's), so there are no locks. No clock here: the caller passes the times. */
#ifndef POF_LAT_H
#define POF_LAT_H

#include <stdint.h>

#define POF_LAT_WINDOW_NS 1000000000ull
/* Buckets 0-7 hold 0-7 ns exactly; from 8 ns on, four per power of two up to 2^33 ns (8.6 s); beyond: the last. */
#define POF_LAT_BUCKETS 128u

/* The classes a port's residence is kept for: latency-class packets (sent at once, burst 1), and the rest. */
enum { POF_LAT_LATENCY = 0, POF_LAT_OTHER = 1, POF_LAT_CLASSES = 2 };

struct pof_lat_hist {
    uint32_t n[POF_LAT_BUCKETS];
    uint64_t packets;
    uint64_t max_ns;
};

struct pof_lat {
    uint64_t start_ns; /* when the current window began */
    uint32_t cur;      /* 0 or 1: the window being written */
    struct pof_lat_hist h[2][POF_LAT_CLASSES];
};

/* One class over the windows a reader sees. Percentiles are the upper bound of their bucket, at most max_ns
 * (an estimate never below the truth by more than the bucket, never above the largest seen); 0 without packets.
 * Values beyond 32 bits saturate. */
struct pof_lat_summary {
    uint64_t packets;
    uint32_t p50_ns, p99_ns, max_ns;
};

static inline uint32_t pof_lat_bucket(uint64_t ns)
{
    if (ns < 8)
        return (uint32_t)ns;
    uint32_t msb = 63u - (uint32_t)__builtin_clzll(ns);
    uint32_t b = 8u + (msb - 3u) * 4u + (uint32_t)((ns >> (msb - 2u)) & 3u);
    return b < POF_LAT_BUCKETS ? b : POF_LAT_BUCKETS - 1u;
}

/* Moves the windows on to now: a window older than POF_LAT_WINDOW_NS becomes the previous one, one older than
 * two windows is forgotten. */
void pof_lat_rotate(struct pof_lat *l, uint64_t now_ns);

/* Counts one packet of class cls that stayed ns in the switch (the caller has rotated to this burst's time). */
static inline void pof_lat_add(struct pof_lat *l, int cls, uint64_t ns)
{
    struct pof_lat_hist *h = &l->h[l->cur][cls];
    h->n[pof_lat_bucket(ns)]++;
    h->packets++;
    if (ns > h->max_ns)
        h->max_ns = ns;
}

/* Class cls over the windows seen at now (rotates first). */
void pof_lat_read(struct pof_lat *l, uint64_t now_ns, int cls, struct pof_lat_summary *out);

/* The largest value of bucket b, in ns (for tests and readers). */
uint64_t pof_lat_bucket_top(uint32_t b);

#endif
