#include "check.h"
#include "vnf_pace.h"

#define HZ 1000000000ull /* a 1 GHz clock: ticks are ns */
#define MS 1000000ull

/* pkts_per_ms packets a ms, polled every 0.1 ms (each poll with what arrived since, then an empty one) for
 * dur_ns: the last empty poll's answer */
static uint32_t feed(struct vnf_pace *p, uint64_t *now, uint32_t pkts_per_ms, uint64_t dur_ns)
{
    uint32_t last = 0;
    uint64_t i = 0;
    for (uint64_t end = *now + dur_ns; *now < end; *now += MS / 10, i++) {
        uint32_t n = (uint32_t)((i + 1) * pkts_per_ms / 10 - i * pkts_per_ms / 10);
        vnf_pace_after_poll(p, n, *now);
        last = vnf_pace_after_poll(p, 0, *now + 1);
    }
    return last;
}

int main(void)
{
    struct vnf_pace p;
    uint64_t now = 5 * MS;
    vnf_pace_init(&p, 200, 32, HZ, now);
    /* nothing seen yet: no pacing, the interrupt decides */
    CHECK(vnf_pace_after_poll(&p, 0, now) == 0);
    /* 40 kpps (40 a ms): a burst of 32 takes 800 us, capped at the 200 us window */
    CHECK(feed(&p, &now, 40, 20 * MS) == 200);
    CHECK(p.rate_pps > 35000 && p.rate_pps < 45000);
    /* a poll with packets never sleeps */
    CHECK(vnf_pace_after_poll(&p, 3, now) == 0);
    /* 1 Mpps: 32 packets in 32 us */
    uint32_t us = feed(&p, &now, 1000, 20 * MS);
    CHECK(us >= 30 && us <= 34);
    /* 20 Mpps: below the shortest sleep worth taking */
    CHECK(feed(&p, &now, 20000, 20 * MS) == VNF_PACE_MIN_US);
    /* the stream stops: within ~10 windows fewer than one packet a window is expected, the interrupt is back */
    uint32_t answer = 1;
    for (int i = 0; i < 40 && answer; i++) {
        now += MS;
        answer = vnf_pace_after_poll(&p, 0, now);
    }
    CHECK(answer == 0);
    /* 2 kpps: 0.4 packet a 200 us window, not steady enough */
    CHECK(feed(&p, &now, 2, 30 * MS) == 0);
    /* off: never paces */
    vnf_pace_init(&p, 0, 32, HZ, now);
    CHECK(feed(&p, &now, 40, 20 * MS) == 0);
    puts("test_pace: ok");
    return 0;
}
