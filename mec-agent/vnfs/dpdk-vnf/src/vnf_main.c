/* dpdk-vnf: a DPDK vNF that shares cores politely. One virtio-user port (its vhost-user peer is the pof-switch);
 * what arrives goes back out of the same port with its Ethernet addresses swapped (testpmd's macswap), after
 * `cost_cycles` busy cycles a packet in mode cost. With --ports 2 ('in' and 'out', both the switch's) it is a bump
 * in the wire: what arrives on one port leaves by the other unchanged (the cost still spent). Idle (every ring
 * empty), it sleeps: rx interrupts when the ports give them, else the pof-switch's bounded exponential backoff.
 * Every stats interval it writes its counters (stats file, JSON); every queue interval the bytes waiting in its
 * rx ring (queue file, the agent's /run/vnf/queue), and checks the agent's throttle file (a throttled chain head
 * leaves its ring alone). In latency mode (--latency: a latency-class slice's vNF) it forwards each packet as it
 * comes (burst 1) and never sleeps. README.md has the details. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_epoll.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "vnf_args.h"
#include "vnf_backoff.h"
#include "vnf_chain.h"
#include "vnf_cost.h"
#include "vnf_pace.h"
#include "vnf_port.h"
#include "vnf_stats.h"

#define TX_RETRIES 8          /* the switch drains our tx ring from its own core: give it a moment */
#define OCCUPANCY_EVERY 16    /* polls between two rx_queue_count samples */
#define INTR_WAIT_MAX_MS 100  /* an interrupt wait also ends for the periodic work */
#define BACKPRESSURE_PAUSE_US 20 /* a backpressured head yields its (shared) core this long between bursts */

static volatile sig_atomic_t quit;

static void on_signal(int sig)
{
    (void)sig;
    quit = 1;
}

static uint64_t tsc_clock(void *ctx)
{
    (void)ctx;
    return rte_rdtsc();
}

struct vnf {
    struct vnf_args args;
    struct vnf_info info;
    struct vnf_stats st;
    struct vnf_port port[VNF_MAX_PORTS];
    uint32_t nports;    /* args.ports */
    bool intr;          /* every port's rx interrupt armed through the per-thread epoll (else: backoff) */
    bool core_shared;   /* the shared-core file exists: latency mode sleeps on rx interrupts when idle */
    bool queue_count;   /* rte_eth_rx_queue_count works on some port */
    uint32_t queue_max; /* the most in an rx ring since the queue file was last written */
    uint64_t queue_written; /* what it said */
    uint64_t start_tsc;
    struct vnf_chain_line *chain; /* the mapped chain file (--chain-file), or NULL */
    struct vnf_chain_next next;   /* our estimate of the next vNF's ring */
};

/* Writes `len` bytes to path atomically (a temporary file renamed over it), so a reader never sees half. */
static void write_file(const char *path, const char *data, size_t len)
{
    char tmp[VNF_PATH_MAX + 8];
    if (!path[0] || snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
        return;
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return;
    bool ok = write(fd, data, len) == (ssize_t)len;
    close(fd);
    if (!ok || rename(tmp, path) != 0)
        unlink(tmp);
}

/* Our line of the chain file: whether our rx ring is over its high watermark (hysteresis), for the head. */
static void publish_chain(struct vnf *v)
{
    if (!v->chain)
        return;
    bool next_full = v->args.chain_pos + 1 < v->args.chain_len &&
                     vnf_chain_next_full(&v->next, &v->chain[v->args.chain_pos + 1],
                                         v->st.port[v->nports - 1].tx_packets); /* what went downstream */
    vnf_chain_publish(v->chain, v->args.chain_pos, v->st.wm.over || next_full, v->st.occupancy, v->st.wm.episodes);
}

/* Maps the chain file the agent made (VNF_CHAIN_LINE bytes per vNF of the chain, README.md "Chain file"). */
static int map_chain(struct vnf *v)
{
    if (!v->args.chain_file[0])
        return 0;
    size_t len = (size_t)v->args.chain_len * VNF_CHAIN_LINE;
    int fd = open(v->args.chain_file, O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        fprintf(stderr, "dpdk-vnf: chain file %s: %s\n", v->args.chain_file, strerror(errno));
        return -1;
    }
    struct stat sb;
    if (fstat(fd, &sb) != 0 || (size_t)sb.st_size < len) {
        fprintf(stderr, "dpdk-vnf: chain file %s: shorter than %zu bytes\n", v->args.chain_file, len);
        close(fd);
        return -1;
    }
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED) {
        fprintf(stderr, "dpdk-vnf: chain file %s: mmap: %s\n", v->args.chain_file, strerror(errno));
        return -1;
    }
    v->chain = p;
    publish_chain(v); /* a restarted vNF must not leave its old "over" behind */
    return 0;
}

/* The rings' occupancy is the larger of the ports' (README.md "What it reports": a ring overflows on its own,
 * whatever the other holds, and the watermarks are a fraction of one ring). */
static void update_occupancy(struct vnf *v)
{
    uint32_t occ = 0;
    for (uint32_t k = 0; k < v->nports; k++)
        if (v->port[k].occupancy > occ)
            occ = v->port[k].occupancy;
    v->st.occupancy = occ;
    if (occ > v->st.occupancy_max)
        v->st.occupancy_max = occ;
    if (occ > v->queue_max)
        v->queue_max = occ;
    vnf_watermark_update(&v->st.wm, occ);
    publish_chain(v);
}

static void sample_occupancy(struct vnf *v)
{
    if (!v->queue_count)
        return;
    for (uint32_t k = 0; k < v->nports; k++) {
        int c = v->port[k].queue_count ? rte_eth_rx_queue_count(v->port[k].id, 0) : -1;
        if (c >= 0)
            v->port[k].occupancy = (uint32_t)c;
    }
    update_occupancy(v);
}

/* Without rx_queue_count: the packets a run of full bursts drained is what had queued up (the backlog at its
 * start plus what arrived meanwhile), at most the ring; a vNF that never sees a burst that is not full reports a
 * full ring as soon as it has drained one (an overloaded vNF must not keep reporting an old, small queue). */
static void drain_occupancy(struct vnf *v, struct vnf_port *p, uint16_t n)
{
    if (p->queue_count)
        return;
    p->drain_run += n;
    if (n == v->args.burst && p->drain_run < v->args.ring_size)
        return;
    p->occupancy = p->drain_run < v->args.ring_size ? p->drain_run : v->args.ring_size;
    update_occupancy(v);
    p->drain_run = n == v->args.burst ? v->args.ring_size : 0;
}

/* Backpressure's side, every queue_interval_ms (10): the queue file (the most the ring held since the last
 * write, so a backlog that built while we waited for a shared core is seen after our slice drained it) and whether
 * the agent throttles us. Often, because a ring of 1024 fills in a few ms; stats.json is for people, every 500. */
static void queue_tick(struct vnf *v)
{
    v->st.throttled = v->args.throttle_file[0] && access(v->args.throttle_file, F_OK) == 0;
    v->core_shared = v->args.shared_core_file[0] && access(v->args.shared_core_file, F_OK) == 0;
    sample_occupancy(v);
    char buf[32];
    v->queue_written = vnf_stats_queue_bytes(&v->st, v->queue_max);
    int n = snprintf(buf, sizeof(buf), "%llu\n", (unsigned long long)v->queue_written);
    write_file(v->args.queue_file, buf, (size_t)n);
    v->queue_max = v->st.occupancy;
}

static void periodic(struct vnf *v)
{
    sample_occupancy(v);
    char buf[3072];
    uint64_t up_ms = (rte_rdtsc() - v->start_tsc) * 1000 / v->info.tsc_hz;
    int n = vnf_stats_json(&v->st, &v->info, up_ms, buf, sizeof(buf));
    if (n > 0)
        write_file(v->args.stats_file, buf, (size_t)n);
    v->st.occupancy_max = v->st.occupancy;
    memset(&v->st.proc, 0, sizeof(v->st.proc)); /* each report: the processing time under the current load */
}

/* A burst that came in on port k: back out of it (one port) or out of the other one (two). */
static void handle(struct vnf *v, uint32_t k, struct rte_mbuf **pkts, uint16_t n)
{
    uint64_t t0 = rte_rdtsc();
    uint64_t bytes = 0;
    for (uint16_t i = 0; i < n; i++)
        bytes += pkts[i]->pkt_len;
    v->st.rx_packets += n;
    v->st.rx_bytes += bytes;
    v->st.port[k].rx_packets += n;
    v->st.port[k].rx_bytes += bytes;
    if (v->chain) /* what came from upstream: the one port's, or 'in''s */
        vnf_chain_publish_rx(v->chain, v->args.chain_pos, v->st.port[0].rx_packets);
    if (v->st.throttled) { /* the agent throttles our chain at its head: drop before doing any work */
        v->st.throttle_dropped += n;
        rte_pktmbuf_free_bulk(pkts, n);
        return;
    }
    /* Chain head and a downstream ring is over its high watermark: what we would forward now dies there after
     * the chain's work on it; drop it at entry instead (NFVnice's backpressure, looked at on every burst). */
    if (v->chain)
        publish_chain(v); /* our estimate of the next ring, every burst: it fills while the next vNF waits */
    v->st.backpressure = v->chain && v->args.chain_pos == 0 &&
                         (v->next.full || vnf_chain_downstream_over(v->chain, v->args.chain_len, 0));
    if (v->st.backpressure) {
        v->st.backpressure_dropped += n;
        rte_pktmbuf_free_bulk(pkts, n);
        return;
    }
    bool swap = v->nports == 1; /* two ports: a bump in the wire, the frames leave as they came */
    for (uint16_t i = 0; i < n; i++) {
        struct rte_mbuf *m = pkts[i];
        if (swap && m->data_len >= sizeof(struct rte_ether_hdr)) {
            struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
            struct rte_ether_addr a = eh->src_addr;
            eh->src_addr = eh->dst_addr;
            eh->dst_addr = a;
        }
        if (v->args.cost_cycles)
            v->st.cost_cycles_spent += vnf_cost_spin(v->args.cost_cycles, tsc_clock, NULL);
    }
    uint32_t out = v->nports == 2 ? 1 - k : k;
    uint16_t sent = 0;
    for (int tries = 0; sent < n && tries <= TX_RETRIES; tries++)
        sent += rte_eth_tx_burst(v->port[out].id, 0, pkts + sent, n - sent);
    if (sent < n) {
        for (uint16_t i = sent; i < n; i++) /* still ours: the PMD took only the first `sent` */
            bytes -= pkts[i]->pkt_len;
        v->st.tx_dropped += n - sent;
        v->st.port[out].tx_dropped += n - sent;
        rte_pktmbuf_free_bulk(pkts + sent, n - sent);
    }
    v->st.tx_packets += sent;
    v->st.tx_bytes += bytes;
    v->st.port[out].tx_packets += sent;
    v->st.port[out].tx_bytes += bytes;
    /* every packet of the burst was in our hands from the rx burst until the tx: its processing time here */
    vnf_latency_add(&v->st.proc, vnf_cycles_to_ns(rte_rdtsc() - t0, v->info.tsc_hz), n);
}

/* One rx burst on port k, handled. Returns the packets it took. */
static uint16_t poll_port(struct vnf *v, uint32_t k, struct rte_mbuf **pkts)
{
    uint16_t n = rte_eth_rx_burst(v->port[k].id, 0, pkts, v->args.burst);
    vnf_stats_burst(&v->st, n);
    drain_occupancy(v, &v->port[k], n);
    if (n)
        handle(v, k, pkts, n);
    return n;
}

/* Idle: block on the rx interrupts of every port (the switch's vhost-user enqueue signals a port's call eventfd
 * once we re-enable its notifications), or sleep `us` microseconds. Returns with notifications off again, and the
 * packets a last look at every port after enabling them took (they came between the last empty poll and the
 * enable, and raised no interrupt). */
static uint32_t idle_sleep(struct vnf *v, uint32_t us, uint64_t next_periodic, struct rte_mbuf **pkts)
{
    uint32_t n = 0, on = 0;
    uint64_t t0 = rte_rdtsc();
    /* Asleep we publish nothing: a flag left set (our estimate of the next ring) would hold the head until we woke,
     * and we wake only for packets it then does not send. Our ring is empty; the estimate resumes with traffic. */
    if (v->chain && v->next.full) {
        v->next.full = false;
        vnf_chain_publish(v->chain, v->args.chain_pos, v->st.wm.over, v->st.occupancy, v->st.wm.episodes);
    }
    while (v->intr && on < v->nports && rte_eth_dev_rx_intr_enable(v->port[on].id, 0) == 0)
        on++;
    if (v->intr && on == v->nports) { /* sleep only when every ring is empty, and wake for any of them */
        for (uint32_t k = 0; k < v->nports; k++)
            n += poll_port(v, k, pkts);
        if (n == 0) {
            v->st.idle_sleeps++;
            uint64_t left_ms = next_periodic > t0 ? (next_periodic - t0) * 1000 / v->info.tsc_hz + 1 : 1;
            struct rte_epoll_event ev[VNF_MAX_PORTS];
            if (rte_epoll_wait(RTE_EPOLL_PER_THREAD, ev, VNF_MAX_PORTS,
                               (int)(left_ms < INTR_WAIT_MAX_MS ? left_ms : INTR_WAIT_MAX_MS)) > 0)
                v->st.intr_wakeups++;
        }
    } else {
        v->st.idle_sleeps++;
        struct timespec ts = {.tv_sec = us / 1000000, .tv_nsec = (long)(us % 1000000) * 1000};
        nanosleep(&ts, NULL);
    }
    for (uint32_t k = 0; k < on; k++)
        rte_eth_dev_rx_intr_disable(v->port[k].id, 0);
    v->st.slept_us += (rte_rdtsc() - t0) * 1000000 / v->info.tsc_hz;
    return n;
}

static void run(struct vnf *v)
{
    struct rte_mbuf *pkts[VNF_MAX_BURST];
    struct vnf_backoff bo;
    vnf_backoff_init(&bo, v->args.spin_rounds, v->args.max_sleep_us, v->args.busy_poll);
    /* Paced polling is for sleepers: a busy poller (latency mode, a core of its own) never waits for a batch. */
    struct vnf_pace pace;
    bool pacing = !v->args.busy_poll && !v->args.latency;
    vnf_pace_init(&pace, pacing ? v->args.pace_us : 0, v->args.burst, v->info.tsc_hz, rte_rdtsc());
    uint64_t interval = v->info.tsc_hz * v->args.stats_interval_ms / 1000;
    uint64_t queue_interval = v->info.tsc_hz * v->args.queue_interval_ms / 1000;
    uint64_t next_periodic = rte_rdtsc(), next_queue = next_periodic;
    uint32_t polls = 0;
    while (!quit) {
        uint64_t now = rte_rdtsc();
        if (now >= next_queue) {
            queue_tick(v);
            next_queue = now + queue_interval;
            /* Busy polling is for a core of our own: once the agent says another vNF shares it, sleep on rx
             * interrupts when idle (burst stays 1), else the two would take turns by scheduler slices. */
            bo.busy_poll = v->args.busy_poll && !v->core_shared;
            v->info.wake = bo.busy_poll ? "busy" : v->intr ? "intr" : "backoff";
        }
        if (now >= next_periodic) {
            periodic(v);
            next_periodic = now + interval;
        }
        if (v->st.throttled) {
            /* The agent throttles our chain at its head: leave the ring alone until the next look at the throttle
             * file. The switch then drops at our full ring, before any vNF did work on those packets, and the
             * core we share goes to the downstream vNFs that must drain (taking and dropping at line rate here
             * would spend it; NFVnice does not schedule a throttled NF at all). */
            uint64_t until = next_queue < next_periodic ? next_queue : next_periodic;
            uint64_t ns = until > now ? (until - now) * 1000000000ull / v->info.tsc_hz : 0;
            struct timespec ts = {.tv_sec = (time_t)(ns / 1000000000ull), .tv_nsec = (long)(ns % 1000000000ull)};
            nanosleep(&ts, NULL);
            continue;
        }
        if (v->queue_count && ++polls % OCCUPANCY_EVERY == 0)
            sample_occupancy(v);
        uint32_t n = 0; /* one burst from each port: both rings are served alike */
        for (uint32_t k = 0; k < v->nports; k++)
            n += poll_port(v, k, pkts);
        if (v->st.backpressure) {
            /* Taking and dropping at line rate would spend the core the downstream vNFs need to drain: yield it
             * for a moment; meanwhile the switch drops at our ring, still before any vNF worked on those. */
            struct timespec ts = {.tv_sec = 0, .tv_nsec = BACKPRESSURE_PAUSE_US * 1000};
            nanosleep(&ts, NULL);
            continue;
        }
        uint32_t paced_us = vnf_pace_after_poll(&pace, n, now);
        if (paced_us) {
            /* an empty ring under steady traffic: sleep until about a burst is there, not until the next packet */
            v->st.paced_sleeps++;
            struct timespec ts = {.tv_sec = 0, .tv_nsec = (long)paced_us * 1000};
            nanosleep(&ts, NULL);
            continue;
        }
        uint32_t us = vnf_backoff_after_poll(&bo, n);
        if (us) {
            /* idle: the queue file needs rewriting only while it says non-zero or we are throttled */
            bool tick = v->queue_written || v->st.throttled;
            n = idle_sleep(v, us, tick && next_queue < next_periodic ? next_queue : next_periodic, pkts);
            if (n) {
                vnf_backoff_after_poll(&bo, n);
                vnf_pace_after_poll(&pace, n, rte_rdtsc());
            }
        }
    }
    queue_tick(v);
    periodic(v);
}

int main(int argc, char **argv)
{
    int eal = rte_eal_init(argc, argv);
    if (eal < 0) {
        fprintf(stderr, "dpdk-vnf: EAL init: %s\n", rte_strerror(rte_errno));
        return 1;
    }
    static struct vnf v;
    vnf_args_defaults(&v.args);
    char err[160];
    argv[eal] = argv[0];
    if (vnf_args_parse(&v.args, argc - eal, argv + eal, err, sizeof(err)) < 0) {
        fprintf(stderr, "dpdk-vnf: %s\n", err);
        rte_eal_cleanup();
        return 2;
    }
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    signal(SIGPIPE, SIG_IGN); /* a vhost-user peer that went away must not kill us mid-write */
    prctl(PR_SET_TIMERSLACK, 1UL); /* short backoff sleeps mean short, not the default 50 us slack */
    v.nports = v.args.ports;
    unsigned mbufs = v.nports * (2u * v.args.ring_size + 2u * v.args.burst) + 512u;
    struct rte_mempool *pool = rte_pktmbuf_pool_create("vnf_mbufs", mbufs, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
                                                       (int)rte_socket_id());
    if (!pool) {
        fprintf(stderr, "dpdk-vnf: mbuf pool of %u: %s\n", mbufs, rte_strerror(rte_errno));
        rte_eal_cleanup();
        return 1;
    }
    if (map_chain(&v) < 0 || vnf_ports_setup(v.port, &v.args, pool) < 0) {
        rte_eal_cleanup();
        return 1;
    }
    v.intr = true;
    for (uint32_t k = 0; k < v.nports; k++) {
        v.intr &= v.port[k].intr; /* one port without: its ring is never slept on, backoff for both */
        v.queue_count |= v.port[k].queue_count;
    }
    uint64_t hz = rte_get_tsc_hz();
    v.info = (struct vnf_info){
        .mode = vnf_mode_name(v.args.mode), .wake = v.args.busy_poll ? "busy" : v.intr ? "intr" : "backoff",
        .occupancy_source = v.queue_count ? "rx_queue_count" : "drain", .cost_cycles = v.args.cost_cycles,
        .cost_ns = vnf_cycles_to_ns(v.args.cost_cycles, hz),
        .clock_overhead_cycles = vnf_cost_clock_overhead(tsc_clock, NULL, 1000), .tsc_hz = hz,
        .burst = v.args.burst, .ring_size = v.args.ring_size, .max_sleep_us = v.args.max_sleep_us,
        .ports = v.nports};
    vnf_watermark_init(&v.st.wm, v.args.ring_size, v.args.high_pct, v.args.low_pct);
    v.next.high = v.st.wm.high; /* the next vNF's ring: the same size and watermarks (run.sh gives all 1024) */
    v.next.low = v.st.wm.low;
    v.start_tsc = rte_rdtsc();
    printf("dpdk-vnf: %u port(s)%s, mode %s%s, cost %llu cycles (%llu ns), burst %u, ring %u, wake %s, "
           "occupancy %s\n", v.nports, v.nports == 2 ? " (in <-> out)" : " (macswap)", v.info.mode,
           v.args.latency ? " (latency)" : "", (unsigned long long)v.info.cost_cycles,
           (unsigned long long)v.info.cost_ns, v.info.burst, v.info.ring_size, v.info.wake, v.info.occupancy_source);
    fflush(stdout);
    run(&v);
    printf("dpdk-vnf: rx %llu tx %llu tx_dropped %llu backpressure_dropped %llu sleeps %llu\n",
           (unsigned long long)v.st.rx_packets, (unsigned long long)v.st.tx_packets,
           (unsigned long long)v.st.tx_dropped, (unsigned long long)v.st.backpressure_dropped,
           (unsigned long long)v.st.idle_sleeps);
    vnf_ports_close(v.port, v.nports);
    rte_eal_cleanup();
    return 0;
}
