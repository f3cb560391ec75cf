/* DPDK backend: any ethdev, probed at run time from devargs (net_vhost, net_af_packet, net_null, PCI...).
 * Single-segment mbufs; one rx and one tx queue per port, all polled by the one forwarding core. */
#include "port_dpdk.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_bus.h>
#include <rte_dev.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#define RX_DESC 1024
#define TX_DESC 1024

struct pof_io_port { uint16_t port_id; bool probed; char devargs[256]; };

static struct rte_mempool *pool;

int pof_dpdk_init(unsigned mbufs)
{
    pool = rte_pktmbuf_pool_create("pof_mbufs", mbufs, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE, (int)rte_socket_id());
    if (!pool) {
        fprintf(stderr, "pofswitch: mbuf pool of %u: %s\n", mbufs, rte_strerror(rte_errno));
        return -1;
    }
    return 0;
}

/* The ethdev name is the devargs up to the first comma (e.g. "net_vhost0,iface=..." -> "net_vhost0"). */
static void devname_of(const char *devargs, char *out, size_t n)
{
    size_t l = strcspn(devargs, ",");
    if (l >= n)
        l = n - 1;
    memcpy(out, devargs, l);
    out[l] = '\0';
}

static struct rte_device *device_of(uint16_t id)
{
    struct rte_eth_dev_info info;
    return rte_eth_dev_info_get(id, &info) == 0 ? info.device : NULL;
}

static int setup_port(uint16_t id, char *err, size_t errlen)
{
    struct rte_eth_conf conf;
    memset(&conf, 0, sizeof(conf));
    struct rte_eth_dev_info info;
    int rc = rte_eth_dev_info_get(id, &info);
    if (rc == 0)
        rc = rte_eth_dev_configure(id, 1, 1, &conf);
    if (rc == 0)
        rc = rte_eth_rx_queue_setup(id, 0, RX_DESC, rte_eth_dev_socket_id(id), NULL, pool);
    if (rc == 0)
        rc = rte_eth_tx_queue_setup(id, 0, TX_DESC, rte_eth_dev_socket_id(id), NULL);
    if (rc == 0)
        rc = rte_eth_dev_start(id);
    if (rc != 0) {
        snprintf(err, errlen, "ethdev %u setup failed: %s", id, rte_strerror(-rc));
        return -1;
    }
    rte_eth_promiscuous_enable(id); /* not every PMD has it; forwarding does not depend on it */
    return 0;
}

static struct pof_io_port *dpdk_open(const char *name, const char *args, uint8_t mac[6], char *err, size_t errlen)
{
    struct pof_io_port *p = calloc(1, sizeof(*p));
    if (!p) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    char devname[RTE_ETH_NAME_MAX_LEN];
    const char *spec = args && args[0] ? args : name;
    devname_of(spec, devname, sizeof(devname));
    uint16_t id;
    if (rte_eth_dev_get_port_by_name(devname, &id) != 0) {
        /* not probed yet (EAL --vdev/-a would have): hot-plug it from the devargs */
        int rc = rte_dev_probe(spec);
        if (rc != 0 || rte_eth_dev_get_port_by_name(devname, &id) != 0) {
            snprintf(err, errlen, "cannot probe %s: %s", spec, rte_strerror(rc ? -rc : ENODEV));
            free(p);
            return NULL;
        }
        p->probed = true;
        snprintf(p->devargs, sizeof(p->devargs), "%s", devname);
    }
    p->port_id = id;
    if (setup_port(id, err, errlen) < 0) {
        if (p->probed)
            rte_dev_remove(device_of(id));
        free(p);
        return NULL;
    }
    struct rte_ether_addr a;
    if (rte_eth_macaddr_get(id, &a) == 0)
        memcpy(mac, a.addr_bytes, 6);
    return p;
}

static void dpdk_close(struct pof_io_port *p)
{
    rte_eth_dev_stop(p->port_id);
    struct rte_device *dev = device_of(p->port_id);
    rte_eth_dev_close(p->port_id);
    if (p->probed && dev)
        rte_dev_remove(dev);
    free(p);
}

static int dpdk_fd(struct pof_io_port *p)
{
    (void)p;
    return -1;
}

static uint16_t dpdk_rx(struct pof_io_port *p, struct pof_io_buf **bufs, uint16_t n)
{
    return rte_eth_rx_burst(p->port_id, 0, (struct rte_mbuf **)bufs, n);
}

static uint16_t dpdk_tx(struct pof_io_port *p, struct pof_io_buf **bufs, uint16_t n)
{
    struct rte_mbuf **m = (struct rte_mbuf **)bufs;
    uint16_t sent = rte_eth_tx_burst(p->port_id, 0, m, n);
    if (sent < n)
        rte_pktmbuf_free_bulk(m + sent, n - sent);
    return sent;
}

static struct pof_io_view dpdk_view(struct pof_io_buf *b)
{
    struct rte_mbuf *m = (struct rte_mbuf *)b;
    /* The pipeline sees the first segment; fields beyond it are past the end and simply miss. */
    uint32_t room = m->nb_segs == 1 ? rte_pktmbuf_tailroom(m) : 0;
    return (struct pof_io_view){rte_pktmbuf_mtod(m, uint8_t *), m->data_len, room};
}

static void dpdk_commit(struct pof_io_buf *b, uint32_t head, uint32_t len)
{
    struct rte_mbuf *m = (struct rte_mbuf *)b;
    int32_t delta = (int32_t)len + (int32_t)head - (int32_t)m->data_len; /* ADD/DELETE_FIELD change */
    m->data_len = (uint16_t)(m->data_len + delta);
    m->pkt_len = (uint32_t)((int32_t)m->pkt_len + delta);
    if (head)
        rte_pktmbuf_adj(m, (uint16_t)head);
}

static struct pof_io_buf *dpdk_copy(const uint8_t *data, uint32_t len)
{
    struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
    if (!m)
        return NULL;
    char *dst = rte_pktmbuf_append(m, (uint16_t)len);
    if (!dst) {
        rte_pktmbuf_free(m);
        return NULL;
    }
    memcpy(dst, data, len);
    return (struct pof_io_buf *)m;
}

static void dpdk_free(struct pof_io_buf *b)
{
    rte_pktmbuf_free((struct rte_mbuf *)b);
}

const struct pof_io_ops pof_dpdk_ops = {
    .name = "dpdk",
    .port_open = dpdk_open,
    .port_close = dpdk_close,
    .port_fd = dpdk_fd,
    .rx = dpdk_rx,
    .tx = dpdk_tx,
    .view = dpdk_view,
    .commit = dpdk_commit,
    .copy = dpdk_copy,
    .free = dpdk_free,
};
