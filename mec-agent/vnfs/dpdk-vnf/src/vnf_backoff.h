/* Adaptive polling, the pof-switch's rule (pof-switch/src/ctl/pof_switch.c, pof_sw_run): spin a few empty rounds,
 * then sleep with exponential backoff (1, 2, 4 ... us, capped) until traffic comes back, which resets it. */
#ifndef VNF_BACKOFF_H
#define VNF_BACKOFF_H

#include <stdbool.h>
#include <stdint.h>

#define VNF_SPIN_ROUNDS 256 /* default empty polls before the first sleep: a burst gap is not idleness */

struct vnf_backoff {
    uint32_t idle_rounds;
    uint32_t spin_rounds;
    uint32_t max_sleep_us;
    bool busy_poll;
};

void vnf_backoff_init(struct vnf_backoff *b, uint32_t spin_rounds, uint32_t max_sleep_us, bool busy_poll);

/* After a poll that returned n packets: microseconds to sleep now (0 = poll again at once). */
uint32_t vnf_backoff_after_poll(struct vnf_backoff *b, uint32_t n);

#endif
