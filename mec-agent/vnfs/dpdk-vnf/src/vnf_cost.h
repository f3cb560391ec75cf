/* The per-packet cost knob: busy-wait a number of TSC cycles (rte_rdtsc in the vNF; any clock in the tests). */
#ifndef VNF_COST_H
#define VNF_COST_H

#include <stdint.h>

typedef uint64_t (*vnf_clock_fn)(void *ctx);

/* Spins until clock() has advanced by at least `cycles` from its first reading; returns the cycles spent
 * (>= cycles; 0 when cycles is 0, without reading the clock). */
uint64_t vnf_cost_spin(uint64_t cycles, vnf_clock_fn clock, void *ctx);

/* Calibration: the cycles one empty clock reading costs, the least of `rounds` back-to-back pairs. A per-packet
 * spin overshoots by about this much, which bounds how small a cost the knob can express. */
uint64_t vnf_cost_clock_overhead(vnf_clock_fn clock, void *ctx, unsigned rounds);

/* Cycles -> nanoseconds at tsc_hz (0 when tsc_hz is 0). */
uint64_t vnf_cycles_to_ns(uint64_t cycles, uint64_t tsc_hz);

#endif
