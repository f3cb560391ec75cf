/* dpdk-vnf's virtio-user ports: setup (one rx and one tx queue each, rx interrupts where the PMD gives them) and
 * what the loop keeps per port. Port 0 is 'in', port 1 (with --ports 2) is 'out', in EAL's port order (the --vdev
 * order of run.sh). */
#ifndef VNF_PORT_H
#define VNF_PORT_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_mempool.h>

#include "vnf_args.h"

struct vnf_port {
    uint16_t id;         /* ethdev port id */
    bool intr;           /* its queue 0's rx interrupt joined the thread's epoll */
    bool queue_count;    /* rte_eth_rx_queue_count works on it */
    uint32_t drain_run;  /* "drain" occupancy: packets taken since its last burst that was not full */
    uint32_t occupancy;  /* packets in its rx ring at the last sample */
};

/* Sets up the first a->ports ports EAL has. Returns 0, or -1 with a message on stderr. */
int vnf_ports_setup(struct vnf_port *ports, const struct vnf_args *a, struct rte_mempool *pool);

void vnf_ports_close(const struct vnf_port *ports, uint32_t n);

#endif
