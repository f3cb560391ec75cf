#include "vnf_cost.h"

uint64_t vnf_cost_spin(uint64_t cycles, vnf_clock_fn clock, void *ctx)
{
    if (!cycles)
        return 0;
    uint64_t start = clock(ctx), now;
    do
        now = clock(ctx);
    while (now - start < cycles);
    return now - start;
}

uint64_t vnf_cost_clock_overhead(vnf_clock_fn clock, void *ctx, unsigned rounds)
{
    uint64_t best = UINT64_MAX;
    for (unsigned i = 0; i < rounds; i++) {
        uint64_t a = clock(ctx);
        uint64_t b = clock(ctx);
        if (b - a < best)
            best = b - a;
    }
    return best == UINT64_MAX ? 0 : best;
}

uint64_t vnf_cycles_to_ns(uint64_t cycles, uint64_t tsc_hz)
{
    if (!tsc_hz)
        return 0;
    /* split so cycles * 1e9 cannot overflow for any realistic count */
    return cycles / tsc_hz * 1000000000ull + cycles % tsc_hz * 1000000000ull / tsc_hz;
}
