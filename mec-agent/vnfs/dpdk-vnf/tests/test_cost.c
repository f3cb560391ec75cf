#include <time.h>

#include "check.h"
#include "vnf_cost.h"

/* A fake clock that advances `step` per reading and counts its readings. */
struct fake { uint64_t now, step, reads; };

static uint64_t fake_clock(void *ctx)
{
    struct fake *f = ctx;
    f->reads++;
    f->now += f->step;
    return f->now;
}

static uint64_t mono_ns(void *ctx)
{
    (void)ctx;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int main(void)
{
    struct fake f = {0, 7, 0};
    CHECK(vnf_cost_spin(0, fake_clock, &f) == 0 && f.reads == 0);
    uint64_t spent = vnf_cost_spin(100, fake_clock, &f);
    CHECK(spent >= 100 && spent < 100 + 7); /* stops at the first reading past the budget */
    CHECK(f.reads == 1 + 15);               /* start + ceil(100 / 7) */
    f = (struct fake){UINT64_MAX - 10, 7, 0}; /* the clock wraps: differences still count right */
    spent = vnf_cost_spin(50, fake_clock, &f);
    CHECK(spent >= 50 && spent < 57);

    f = (struct fake){0, 3, 0};
    CHECK(vnf_cost_clock_overhead(fake_clock, &f, 10) == 3 && f.reads == 20);
    CHECK(vnf_cost_clock_overhead(fake_clock, &f, 0) == 0);

    CHECK(vnf_cycles_to_ns(3000, 3000000000ull) == 1000);
    CHECK(vnf_cycles_to_ns(1, 2000000000ull) == 0);
    CHECK(vnf_cycles_to_ns(UINT64_MAX / 2, 1000000000ull) == UINT64_MAX / 2);
    CHECK(vnf_cycles_to_ns(5, 0) == 0);

    /* on a real clock (ns), a 2 ms spin takes at least 2 ms and, on an idle-enough machine, not wildly more */
    uint64_t t0 = mono_ns(NULL);
    spent = vnf_cost_spin(2000000, mono_ns, NULL);
    uint64_t took = mono_ns(NULL) - t0;
    CHECK(spent >= 2000000 && took >= 2000000 && took < 500000000);
    puts("test_cost: ok");
    return 0;
}
