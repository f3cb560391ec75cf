/* Paced polling under steady traffic (interrupt moderation, as a NIC's adaptive rx coalescing): when packets keep
 * coming at a moderate rate, an empty ring is a gap between packets, not idleness. Sleeping on the rx interrupt
 * then costs one wake-up per packet or two (measured: three vNFs on one core, costs 1:2:4, carried 25 kpps without
 * loss but fell to 17 kpps when offered 40 kpps, spending the core on ~45k wake-ups a second, not on packets).
 * Paced, the vNF sleeps until about a burst has arrived (at most `window_us`), so a wake-up moves a batch.
 * Below one packet per window the interrupt wins again (it wakes at once, and a packet at a time is cheap then). */
#ifndef VNF_PACE_H
#define VNF_PACE_H

#include <stdint.h>

#define VNF_PACE_MIN_US 5 /* a pause shorter than this is not worth a sleep */

/* Times are the caller's clock ticks (the TSC: no conversion on the poll loop), `hz` of them a second. */
struct vnf_pace {
    uint32_t window_us;   /* longest paced sleep; 0 = pacing off */
    uint32_t burst;       /* packets a wake-up aims to find */
    uint64_t hz;
    uint64_t rate_window; /* the arrival rate is counted over windows of this many ticks (1 ms) */
    uint64_t win_start;
    uint64_t win_pkts;
    double rate_pps;      /* moving average of the arrival rate, packets per second */
};

void vnf_pace_init(struct vnf_pace *p, uint32_t window_us, uint32_t burst, uint64_t hz, uint64_t now);

/* After a poll that returned n packets at tick `now`: microseconds to sleep before the next poll (0 = none: poll
 * again, or fall back to the idle rule: spin, then sleep on the interrupt). Only an empty poll under steady
 * traffic sleeps. */
uint32_t vnf_pace_after_poll(struct vnf_pace *p, uint32_t n, uint64_t now);

#endif
