/* Data-plane chain backpressure (NFVnice): the vNFs of a chain share one small file (README.md, "Chain file"),
 * one cache line per vNF by position. Each vNF publishes whether its rx ring is over the high watermark
 * (hysteresis down to the low one, struct vnf_watermark); the chain head reads its downstream lines on every rx
 * burst and, while any is set, drops at entry instead of doing work a full downstream ring would throw away.
 * Reacts within a burst, where the agent's 0.1 s loop throttled for far longer than a ring's milliseconds of
 * work. Pure: no DPDK, no I/O (the caller maps the file). */
#ifndef VNF_CHAIN_H
#define VNF_CHAIN_H

#include <stdbool.h>
#include <stdint.h>

#define VNF_CHAIN_MAX 16   /* vNFs in one chain file */
#define VNF_CHAIN_LINE 64  /* bytes a vNF's line takes: its own cache line, so writers never share one */

/* One vNF's line, little-endian host order (the vNFs of a chain run on one host). Each field is written by its
 * vNF alone with relaxed atomic stores and read the same way by the head; no field depends on another. */
struct vnf_chain_line {
    uint32_t over;      /* 1 while the rx ring is over the high watermark (not yet back under the low one) */
    uint32_t occupancy; /* packets in the rx ring at the last sample */
    uint64_t episodes;  /* times it went over */
    uint64_t rx_packets; /* taken from its rx ring so far: the vNF before it sees whether it is running */
    uint8_t pad[VNF_CHAIN_LINE - 24];
};

/* What a vNF knows of the next one's ring. On a shared core the next vNF samples its ring only while it runs, and
 * it drains the ring before it yields: its own flag is clear exactly while we refill it. So each vNF also
 * estimates the next ring as what the next vNF last said it held plus what we sent since its rx count last moved,
 * with the same hysteresis, and publishes that in its own `over`. */
struct vnf_chain_next {
    uint64_t seen_rx;    /* the next vNF's rx_packets when we last looked */
    uint64_t tx_at_seen; /* our tx count then */
    uint32_t high, low;  /* its watermarks, packets */
    bool full;
};

_Static_assert(sizeof(struct vnf_chain_line) == VNF_CHAIN_LINE, "one cache line per vNF");

/* Publishes position pos's state into lines[pos]. */
void vnf_chain_publish(struct vnf_chain_line *lines, uint32_t pos, bool over, uint32_t occupancy,
                       uint64_t episodes);

/* Updates the estimate of the next vNF's ring from its line and our tx count so far; returns whether it is full. */
bool vnf_chain_next_full(struct vnf_chain_next *nx, const struct vnf_chain_line *next, uint64_t tx_total);

void vnf_chain_publish_rx(struct vnf_chain_line *lines, uint32_t pos, uint64_t rx_packets);

/* Whether any vNF after pos (of len) says it is over its high watermark. */
bool vnf_chain_downstream_over(const struct vnf_chain_line *lines, uint32_t len, uint32_t pos);

#endif
