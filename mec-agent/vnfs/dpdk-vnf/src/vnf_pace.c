#include "vnf_pace.h"

void vnf_pace_init(struct vnf_pace *p, uint32_t window_us, uint32_t burst, uint64_t hz, uint64_t now)
{
    p->window_us = window_us;
    p->burst = burst ? burst : 1;
    p->hz = hz ? hz : 1;
    p->rate_window = p->hz / 1000 ? p->hz / 1000 : 1;
    p->win_start = now;
    p->win_pkts = 0;
    p->rate_pps = 0.0;
}

uint32_t vnf_pace_after_poll(struct vnf_pace *p, uint32_t n, uint64_t now)
{
    p->win_pkts += n;
    uint64_t elapsed = now > p->win_start ? now - p->win_start : 0;
    if (elapsed >= p->rate_window) {
        /* A window that spans a long sleep counts as one sample: a stopped stream decays in a few windows. */
        double rate = (double)p->win_pkts * (double)p->hz / (double)elapsed;
        p->rate_pps = p->rate_pps * 0.75 + rate * 0.25;
        p->win_start = now;
        p->win_pkts = 0;
    }
    if (n || p->window_us == 0)
        return 0;
    /* fewer than one packet expected within a window: not steady, leave it to the interrupt */
    if (p->rate_pps * (double)p->window_us < 1e6)
        return 0;
    double us = (double)p->burst * 1e6 / p->rate_pps;
    if (us > p->window_us)
        return p->window_us;
    return us < VNF_PACE_MIN_US ? VNF_PACE_MIN_US : (uint32_t)us;
}
