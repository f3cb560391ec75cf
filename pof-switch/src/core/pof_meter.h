/* Token buckets, and the two-rate three-colour meters built from them (RFC 2698 style, colour-blind).
 * No I/O and no clock of its own: every call takes the time, so tests drive it with a fake clock. */
#ifndef POF_METER_H
#define POF_METER_H

#include <stdbool.h>
#include <stdint.h>

#include "pof_wire.h"

/* A packet's colour on its way to the output port. YELLOW is 0: unmetered traffic is best effort.
 * RED = beyond the peak rate: no tokens were taken, the packet waits in its meter's shaping queue.
 * LATENCY = within the peak of a latency-class meter: served before green, sent at once (pof_sched.h). */
enum pof_color { POF_COLOR_YELLOW = 0, POF_COLOR_GREEN = 1, POF_COLOR_RED = 2, POF_COLOR_LATENCY = 3 };

#define POF_METER_MAX_KBPS 100000000u /* 100 Gbit/s */

/* Tokens are bytes * 1e9 (bytes per second times nanoseconds), so refills are exact integer arithmetic. */
struct pof_bucket {
    uint64_t bytes_per_s;
    uint64_t burst;     /* bytes */
    uint64_t tokens_nb; /* bytes * 1e9 */
    uint64_t last_ns;   /* 0 = not used yet: the first refill only starts the clock */
};

/* A bucket of rate_kbps (1 .. POF_METER_MAX_KBPS) holding burst bytes, full. */
void pof_bucket_init(struct pof_bucket *b, uint32_t rate_kbps, uint64_t burst);
/* Changes the rate and depth, keeping the tokens there are (at most the new depth). */
void pof_bucket_set(struct pof_bucket *b, uint32_t rate_kbps, uint64_t burst);
static inline void pof_bucket_refill(struct pof_bucket *b, uint64_t now_ns);
/* The same with another ceiling than the bucket's depth (a backlogged port's catch-up, pof_sched.c). */
static inline void pof_bucket_refill_upto(struct pof_bucket *b, uint64_t now_ns, uint64_t cap_bytes);
/* Takes bytes of tokens (at most a full bucket's worth, so no packet waits forever) if they are there now. */
static inline bool pof_bucket_take(struct pof_bucket *b, uint32_t bytes, uint64_t now_ns);
/* Nanoseconds until bytes of tokens are there (0 = now). */
uint64_t pof_bucket_wait_ns(struct pof_bucket *b, uint32_t bytes, uint64_t now_ns);

/* A meter: the peak bucket at `rate` and, when committed_kbps > 0, the committed bucket; each holds 20 ms of
 * its rate (at least two full frames). */
struct pof_meter {
    bool in_use;
    bool latency; /* POF_METER_LATENCY: within the peak, everything is LATENCY */
    uint32_t rate_kbps, committed_kbps;
    struct pof_bucket peak, committed;
};

/* METER_MOD on meters[POF_METERS]: ADD/MODIFY/DELETE. Returns 0, or -1 with err (METER_MOD_FAILED/...). */
int pof_meter_mod(struct pof_meter *meters, uint32_t n, const struct pof_meter_mod *mm, struct pof_status *err);

/* Colours a packet of `bytes` at now_ns and takes its tokens: GREEN if it fits the committed bucket (it takes
 * from both), YELLOW if it fits the peak bucket only, RED if it does not fit the peak bucket (nothing taken);
 * a latency meter colours LATENCY whatever fits its peak bucket (its committed rate, if any, is not used).
 * A single-rate meter (committed 0) never colours GREEN. A meter not in use colours YELLOW. */
static inline enum pof_color pof_meter_color(struct pof_meter *m, uint32_t bytes, uint64_t now_ns);
/* Nanoseconds until a packet of bytes fits the peak bucket (0 = now, or the meter is not in use). */
uint64_t pof_meter_wait_ns(struct pof_meter *m, uint32_t bytes, uint64_t now_ns);

/* ---- the per-packet part, inline: it runs for every metered packet and every frame of a rated port ---- */

static inline void pof_bucket_refill(struct pof_bucket *b, uint64_t now_ns)
{
    pof_bucket_refill_upto(b, now_ns, b->burst);
}

static inline void pof_bucket_refill_upto(struct pof_bucket *b, uint64_t now_ns, uint64_t cap_bytes)
{
    if (now_ns == b->last_ns)
        return; /* the rest of a burst: same timestamp, nothing to add */
    if (b->last_ns == 0 || now_ns < b->last_ns) {
        b->last_ns = now_ns;
        return;
    }
    uint64_t dt = now_ns - b->last_ns;
    if (dt > 100000000ull)
        dt = 100000000ull; /* 100 ms is more than a full bucket at any rate; keeps the product in 64 bits */
    b->tokens_nb += dt * b->bytes_per_s;
    uint64_t cap = cap_bytes * 1000000000ull;
    if (b->tokens_nb > cap)
        b->tokens_nb = cap;
    b->last_ns = now_ns;
}

/* Tokens a packet of bytes needs: at most a full bucket's worth. */
static inline uint64_t pof_bucket_need(const struct pof_bucket *b, uint32_t bytes)
{
    return (bytes < b->burst ? bytes : b->burst) * 1000000000ull;
}

static inline bool pof_bucket_take(struct pof_bucket *b, uint32_t bytes, uint64_t now_ns)
{
    pof_bucket_refill(b, now_ns);
    uint64_t need = pof_bucket_need(b, bytes);
    if (b->tokens_nb < need)
        return false;
    b->tokens_nb -= need;
    return true;
}

static inline enum pof_color pof_meter_color(struct pof_meter *m, uint32_t bytes, uint64_t now_ns)
{
    if (!m->in_use)
        return POF_COLOR_YELLOW; /* a deleted meter no longer limits */
    if (!pof_bucket_take(&m->peak, bytes, now_ns))
        return POF_COLOR_RED;
    if (m->latency)
        return POF_COLOR_LATENCY; /* the cap is the only limit: strict priority needs no committed colour */
    if (m->committed_kbps && pof_bucket_take(&m->committed, bytes, now_ns))
        return POF_COLOR_GREEN;
    return POF_COLOR_YELLOW;
}

#endif
