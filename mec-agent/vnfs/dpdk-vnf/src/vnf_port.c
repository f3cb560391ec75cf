#include "vnf_port.h"

#include <stdio.h>
#include <string.h>

#include <rte_epoll.h>
#include <rte_errno.h>
#include <rte_ethdev.h>

static int setup_one(struct vnf_port *p, uint16_t id, const struct vnf_args *a, struct rte_mempool *pool)
{
    memset(p, 0, sizeof(*p));
    p->id = id;
    struct rte_eth_conf conf;
    memset(&conf, 0, sizeof(conf));
    /* A busy poller takes no interrupts, unless the agent may tell it to share its core (then it sleeps on them) */
    conf.intr_conf.rxq = !a->no_intr && (!a->busy_poll || a->shared_core_file[0]);
    int rc = rte_eth_dev_configure(id, 1, 1, &conf);
    if (rc != 0 && conf.intr_conf.rxq) { /* the PMD refuses rx interrupts: backoff it is */
        conf.intr_conf.rxq = 0;
        rc = rte_eth_dev_configure(id, 1, 1, &conf);
    }
    uint16_t nrx = a->ring_size, ntx = a->ring_size;
    if (rc == 0)
        rc = rte_eth_dev_adjust_nb_rx_tx_desc(id, &nrx, &ntx);
    int socket = rte_eth_dev_socket_id(id);
    if (rc == 0)
        rc = rte_eth_rx_queue_setup(id, 0, nrx, socket < 0 ? 0 : (unsigned)socket, NULL, pool);
    if (rc == 0)
        rc = rte_eth_tx_queue_setup(id, 0, ntx, socket < 0 ? 0 : (unsigned)socket, NULL);
    if (rc == 0)
        rc = rte_eth_dev_start(id);
    if (rc != 0) {
        fprintf(stderr, "dpdk-vnf: port %u setup: %s\n", id, rte_strerror(-rc));
        return -1;
    }
    rte_eth_promiscuous_enable(id);
    p->queue_count = rte_eth_rx_queue_count(id, 0) >= 0;
    p->intr = conf.intr_conf.rxq &&
              rte_eth_dev_rx_intr_ctl_q(id, 0, RTE_EPOLL_PER_THREAD, RTE_INTR_EVENT_ADD, NULL) == 0;
    if (p->intr)
        rte_eth_dev_rx_intr_disable(id, 0);
    return 0;
}

int vnf_ports_setup(struct vnf_port *ports, const struct vnf_args *a, struct rte_mempool *pool)
{
    if (rte_eth_dev_count_avail() < a->ports) {
        fprintf(stderr, "dpdk-vnf: %u port(s) wanted, EAL has %u (give EAL --vdev net_virtio_user0,path=..., and "
                        "net_virtio_user1,path=... for --ports 2)\n", a->ports, rte_eth_dev_count_avail());
        return -1;
    }
    uint32_t k = 0;
    uint16_t id;
    RTE_ETH_FOREACH_DEV(id) {
        if (k == a->ports)
            break;
        if (setup_one(&ports[k], id, a, pool) < 0) {
            vnf_ports_close(ports, k);
            return -1;
        }
        k++;
    }
    return 0;
}

void vnf_ports_close(const struct vnf_port *ports, uint32_t n)
{
    for (uint32_t k = 0; k < n; k++) {
        rte_eth_dev_stop(ports[k].id);
        rte_eth_dev_close(ports[k].id);
    }
}
