#include "vnf_backoff.h"

void vnf_backoff_init(struct vnf_backoff *b, uint32_t spin_rounds, uint32_t max_sleep_us, bool busy_poll)
{
    b->idle_rounds = 0;
    b->spin_rounds = spin_rounds;
    b->max_sleep_us = max_sleep_us ? max_sleep_us : 1;
    b->busy_poll = busy_poll;
}

uint32_t vnf_backoff_after_poll(struct vnf_backoff *b, uint32_t n)
{
    if (n) {
        b->idle_rounds = 0;
        return 0;
    }
    if (b->idle_rounds < UINT32_MAX)
        b->idle_rounds++;
    if (b->busy_poll || b->idle_rounds < b->spin_rounds)
        return 0;
    uint32_t over = b->idle_rounds - b->spin_rounds;
    uint64_t backoff = 1ull << (over < 10 ? over : 10);
    return backoff < b->max_sleep_us ? (uint32_t)backoff : b->max_sleep_us;
}
