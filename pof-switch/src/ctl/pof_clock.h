/* The shell's clock: monotonic nanoseconds. A header of its own, so that the controller connection and the
 * management socket read the time without including the switch. */
#ifndef POF_CLOCK_H
#define POF_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t pof_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#endif
