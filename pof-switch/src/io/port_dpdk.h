/* The DPDK backend's ops table; pof_dpdk_init must run after rte_eal_init. */
#ifndef PORT_DPDK_H
#define PORT_DPDK_H

#include "pof_io.h"

extern const struct pof_io_ops pof_dpdk_ops;
int pof_dpdk_init(unsigned mbufs);

#endif
