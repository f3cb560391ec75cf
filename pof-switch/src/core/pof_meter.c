/* Token buckets and two-rate three-colour meters. */
#include "pof_meter.h"

#include <string.h>

#define NS_PER_S 1000000000ull
/* A bucket's depth is 20 ms of its rate, at least two full frames: a busy host may run the loop late, and
 * tokens beyond the bucket are lost, so a tiny bucket undershoots the rate; 20 ms keeps bursts short for TCP.
 * The committed bucket holds at least 16 full frames: a guarantee must take a source's frame burst, and what a
 * loop run late on a busy AP reads at once, as green. A guaranteed flow's excess waits in best effort behind the
 * bulk traffic, and its later packets after it (they keep their order): with two frames, every late loop turned
 * a 1.2 Mbit/s video's packets yellow and delayed it by a full best-effort queue (seen on the testbed's uplink). */
#define METER_BURST_DIVISOR 50
#define METER_BURST_MIN 3028
#define METER_COMMITTED_BURST_MIN (16u * 1514u)

static int fail(struct pof_status *err, uint16_t code, const char *why)
{
    err->type = POFET_METER_MOD_FAILED;
    err->code = code;
    err->why = why;
    return -1;
}

void pof_bucket_set(struct pof_bucket *b, uint32_t rate_kbps, uint64_t burst)
{
    b->bytes_per_s = (uint64_t)rate_kbps * 125;
    b->burst = burst;
    if (b->tokens_nb > burst * NS_PER_S)
        b->tokens_nb = burst * NS_PER_S;
}

void pof_bucket_init(struct pof_bucket *b, uint32_t rate_kbps, uint64_t burst)
{
    memset(b, 0, sizeof(*b));
    pof_bucket_set(b, rate_kbps, burst);
    b->tokens_nb = burst * NS_PER_S;
}

uint64_t pof_bucket_wait_ns(struct pof_bucket *b, uint32_t bytes, uint64_t now_ns)
{
    pof_bucket_refill(b, now_ns);
    uint64_t need = pof_bucket_need(b, bytes);
    if (b->tokens_nb >= need || b->bytes_per_s == 0)
        return 0;
    return (need - b->tokens_nb) / b->bytes_per_s + 1;
}

static uint64_t meter_burst(uint32_t kbps, uint64_t min_bytes)
{
    uint64_t bytes_per_s = (uint64_t)kbps * 125;
    return bytes_per_s / METER_BURST_DIVISOR > min_bytes ? bytes_per_s / METER_BURST_DIVISOR : min_bytes;
}

int pof_meter_mod(struct pof_meter *meters, uint32_t n, const struct pof_meter_mod *mm, struct pof_status *err)
{
    if (mm->meter_id == 0 || mm->meter_id >= n)
        return fail(err, POFMMFC_INVALID_METER, "meter id out of range");
    struct pof_meter *m = &meters[mm->meter_id];
    switch (mm->command) {
    case 0: case 1: /* ADD, MODIFY */
        if (mm->command == 0 && m->in_use)
            return fail(err, POFMMFC_METER_EXISTS, "meter exists");
        if (mm->command == 1 && !m->in_use)
            return fail(err, POFMMFC_UNKNOWN_METER, "no such meter");
        if (mm->rate == 0 || mm->rate > POF_METER_MAX_KBPS)
            return fail(err, POFMMFC_BAD_RATE, "rate must be 1 kbps-100 Gbps");
        if (mm->committed_rate > mm->rate)
            return fail(err, POFMMFC_BAD_RATE, "committed_rate above rate");
        if (mm->flags & ~POF_METER_FLAGS_KNOWN)
            return fail(err, POFMMFC_BAD_FLAGS, "unknown meter flags");
        /* Strict priority without a cap would let one slice starve every other one on the port. */
        if ((mm->flags & POF_METER_LATENCY) && mm->rate == POF_METER_MAX_KBPS)
            return fail(err, POFMMFC_BAD_RATE, "a latency meter needs a cap below 100 Gbps");
        memset(m, 0, sizeof(*m));
        m->in_use = true;
        m->latency = (mm->flags & POF_METER_LATENCY) != 0;
        m->rate_kbps = mm->rate;
        m->committed_kbps = mm->committed_rate;
        pof_bucket_init(&m->peak, mm->rate, meter_burst(mm->rate, METER_BURST_MIN));
        if (mm->committed_rate)
            pof_bucket_init(&m->committed, mm->committed_rate,
                            meter_burst(mm->committed_rate, METER_COMMITTED_BURST_MIN));
        return 0;
    case 2:
        if (!m->in_use)
            return fail(err, POFMMFC_UNKNOWN_METER, "no such meter");
        memset(m, 0, sizeof(*m));
        return 0;
    default:
        return fail(err, POFMMFC_BAD_COMMAND, "meter command unsupported");
    }
}

uint64_t pof_meter_wait_ns(struct pof_meter *m, uint32_t bytes, uint64_t now_ns)
{
    return m->in_use ? pof_bucket_wait_ns(&m->peak, bytes, now_ns) : 0;
}
