/* AF_PACKET backend: one raw socket per netdev, batched with recvmmsg/sendmmsg, buffers from a fixed pool
 * (no allocation per packet). Builds without DPDK, for OpenWrt APs. Offloads (TSO/GSO/GRO, tx checksum) must
 * be off on the netdevs: frames arrive as the wire would carry them, at most BUF_DATA bytes. */
#include "port_afpacket.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#define BUF_DATA 2048
#define BUF_ROOM 128 /* tail room for ADD_FIELD */
#define POOL_SIZE 8192

#ifndef PACKET_IGNORE_OUTGOING
#define PACKET_IGNORE_OUTGOING 23
#endif

struct pof_io_buf {
    struct pof_io_buf *next; /* free list */
    uint32_t head, len;
    uint8_t mem[BUF_DATA + BUF_ROOM];
};

struct pof_io_port { int fd; int ifindex; };

static struct pof_io_buf *pool_mem;
static struct pof_io_buf *free_list;
static uint32_t pool_free;

static int pool_init(void)
{
    if (pool_mem)
        return 0;
    pool_mem = calloc(POOL_SIZE, sizeof(*pool_mem));
    if (!pool_mem)
        return -1;
    for (int i = 0; i < POOL_SIZE; i++) {
        pool_mem[i].next = free_list;
        free_list = &pool_mem[i];
    }
    pool_free = POOL_SIZE;
    return 0;
}

static struct pof_io_buf *buf_get(void)
{
    struct pof_io_buf *b = free_list;
    if (b) {
        free_list = b->next;
        pool_free--;
        b->head = 0;
        b->len = 0;
    }
    return b;
}

static void afp_free(struct pof_io_buf *b)
{
    b->next = free_list;
    free_list = b;
    pool_free++;
}

static struct pof_io_port *afp_open(const char *name, const char *args, uint8_t mac[6], char *err, size_t errlen)
{
    const char *ifname = args && args[0] ? args : name;
    if (pool_init() < 0) {
        snprintf(err, errlen, "out of memory for the buffer pool");
        return NULL;
    }
    unsigned idx = if_nametoindex(ifname);
    if (idx == 0) {
        snprintf(err, errlen, "no netdev %s: %s", ifname, strerror(errno));
        return NULL;
    }
    int fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, htons(ETH_P_ALL));
    if (fd < 0) {
        snprintf(err, errlen, "AF_PACKET socket for %s: %s", ifname, strerror(errno));
        return NULL;
    }
    int one = 1;
    setsockopt(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one));
    int rcvbuf = 4 * 1024 * 1024;
    setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf));
    struct sockaddr_ll sll = {.sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL), .sll_ifindex = (int)idx};
    if (bind(fd, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
        snprintf(err, errlen, "bind to %s: %s", ifname, strerror(errno));
        close(fd);
        return NULL;
    }
    struct packet_mreq mr = {.mr_ifindex = (int)idx, .mr_type = PACKET_MR_PROMISC};
    setsockopt(fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &mr, sizeof(mr));
    struct ifreq ifr = {0};
    snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
    if (ioctl(fd, SIOCGIFHWADDR, &ifr) == 0)
        memcpy(mac, ifr.ifr_hwaddr.sa_data, 6);
    struct pof_io_port *p = calloc(1, sizeof(*p));
    if (!p) {
        close(fd);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    p->fd = fd;
    p->ifindex = (int)idx;
    return p;
}

static void afp_close(struct pof_io_port *p)
{
    close(p->fd);
    free(p);
}

static int afp_fd(struct pof_io_port *p)
{
    return p->fd;
}

static uint16_t afp_rx(struct pof_io_port *p, struct pof_io_buf **bufs, uint16_t n)
{
    struct mmsghdr msgs[POF_IO_BURST_MAX];
    struct iovec iov[POF_IO_BURST_MAX];
    uint16_t got = 0;
    if (n > POF_IO_BURST_MAX)
        n = POF_IO_BURST_MAX;
    for (; got < n; got++) {
        bufs[got] = buf_get();
        if (!bufs[got])
            break;
        iov[got] = (struct iovec){.iov_base = bufs[got]->mem, .iov_len = BUF_DATA};
        msgs[got] = (struct mmsghdr){.msg_hdr = {.msg_iov = &iov[got], .msg_iovlen = 1}};
    }
    int r = got ? recvmmsg(p->fd, msgs, got, MSG_DONTWAIT | MSG_TRUNC, NULL) : 0;
    if (r < 0)
        r = 0;
    uint16_t kept = 0;
    for (int i = 0; i < got; i++) {
        if (i < r && msgs[i].msg_len <= BUF_DATA) {
            bufs[i]->len = msgs[i].msg_len;
            bufs[kept++] = bufs[i];
        } else {
            afp_free(bufs[i]); /* unused, or truncated (an offloaded super-frame) */
        }
    }
    return kept;
}

static uint16_t afp_tx(struct pof_io_port *p, struct pof_io_buf **bufs, uint16_t n)
{
    struct mmsghdr msgs[POF_IO_BURST_MAX];
    struct iovec iov[POF_IO_BURST_MAX];
    int sent = 0;
    if (n > POF_IO_BURST_MAX)
        n = POF_IO_BURST_MAX;
    for (uint16_t i = 0; i < n; i++) {
        iov[i] = (struct iovec){.iov_base = bufs[i]->mem + bufs[i]->head, .iov_len = bufs[i]->len};
        msgs[i] = (struct mmsghdr){.msg_hdr = {.msg_iov = &iov[i], .msg_iovlen = 1}};
    }
    while (sent < n) {
        int r = sendmmsg(p->fd, msgs + sent, (unsigned)(n - sent), MSG_DONTWAIT);
        if (r <= 0)
            break; /* full or down: the rest is dropped */
        sent += r;
    }
    for (uint16_t i = 0; i < n; i++)
        afp_free(bufs[i]);
    return (uint16_t)sent;
}

static struct pof_io_view afp_view(struct pof_io_buf *b)
{
    return (struct pof_io_view){b->mem + b->head, b->len, (uint32_t)sizeof(b->mem) - b->head - b->len};
}

static void afp_commit(struct pof_io_buf *b, uint32_t head, uint32_t len)
{
    b->head += head;
    b->len = len;
}

static struct pof_io_buf *afp_copy(const uint8_t *data, uint32_t len)
{
    if (len > BUF_DATA)
        return NULL;
    struct pof_io_buf *b = buf_get();
    if (b) {
        memcpy(b->mem, data, len);
        b->len = len;
    }
    return b;
}

const struct pof_io_ops pof_afpacket_ops = {
    .name = "af_packet",
    .port_open = afp_open,
    .port_close = afp_close,
    .port_fd = afp_fd,
    .rx = afp_rx,
    .tx = afp_tx,
    .view = afp_view,
    .commit = afp_commit,
    .copy = afp_copy,
    .free = afp_free,
};
