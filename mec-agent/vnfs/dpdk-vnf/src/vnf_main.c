/* dpdk-vnf: a DPDK vNF that shares cores politely. One virtio-user port (its vhost-user peer is the pof-switch);
 * what arrives goes back out of the same port with its Ethernet addresses swapped (testpmd's macswap), after
 * `cost_cycles` busy cycles a packet in mode cost. Idle, it sleeps: rx interrupts when the port gives them,
 * else the pof-switch's bounded exponential backoff. Every stats interval it writes its counters (stats file,
 * JSON) and the bytes waiting in its rx ring (queue file, the agent's /run/vnf/queue), and checks the agent's
 * throttle file (a throttled chain head drops what it receives). In latency mode (--latency: a latency-class
 * slice's vNF) it forwards each packet as it comes (burst 1) and never sleeps. README.md has the details. */
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
    uint16_t port;
    bool intr;          /* rx interrupts armed through the per-thread epoll */
    bool core_shared;   /* the shared-core file exists: latency mode sleeps on rx interrupts when idle */
    bool queue_count;   /* rte_eth_rx_queue_count works on this port */
    uint32_t drain_run; /* "drain" occupancy: packets taken since the last burst that was not full */
    uint32_t queue_max; /* the most in the rx ring since the queue file was last written */
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
                     vnf_chain_next_full(&v->next, &v->chain[v->args.chain_pos + 1], v->st.tx_packets);
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

static void sample_occupancy(struct vnf *v)
{
    if (!v->queue_count)
        return;
    int c = rte_eth_rx_queue_count(v->port, 0);
    if (c < 0)
        return;
    v->st.occupancy = (uint32_t)c;
    if (v->st.occupancy > v->st.occupancy_max)
        v->st.occupancy_max = v->st.occupancy;
    if (v->st.occupancy > v->queue_max)
        v->queue_max = v->st.occupancy;
    vnf_watermark_update(&v->st.wm, v->st.occupancy);
    publish_chain(v);
}

/* Without rx_queue_count: the packets a run of full bursts drained is what had queued up (the backlog at its
 * start plus what arrived meanwhile), at most the ring; a vNF that never sees a burst that is not full reports a
 * full ring as soon as it has drained one (an overloaded vNF must not keep reporting an old, small queue). */
static void drain_occupancy(struct vnf *v, uint16_t n)
{
    if (v->queue_count)
        return;
    v->drain_run += n;
    if (n == v->args.burst && v->drain_run < v->args.ring_size)
        return;
    v->st.occupancy = v->drain_run < v->args.ring_size ? v->drain_run : v->args.ring_size;
    if (v->st.occupancy > v->st.occupancy_max)
        v->st.occupancy_max = v->st.occupancy;
    if (v->st.occupancy > v->queue_max)
        v->queue_max = v->st.occupancy;
    vnf_watermark_update(&v->st.wm, v->st.occupancy);
    publish_chain(v);
    v->drain_run = n == v->args.burst ? v->args.ring_size : 0;
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
    char buf[2048];
    uint64_t up_ms = (rte_rdtsc() - v->start_tsc) * 1000 / v->info.tsc_hz;
    int n = vnf_stats_json(&v->st, &v->info, up_ms, buf, sizeof(buf));
    if (n > 0)
        write_file(v->args.stats_file, buf, (size_t)n);
    v->st.occupancy_max = v->st.occupancy;
    memset(&v->st.proc, 0, sizeof(v->st.proc)); /* each report: the processing time under the current load */
}

static void handle(struct vnf *v, struct rte_mbuf **pkts, uint16_t n)
{
    uint64_t t0 = rte_rdtsc();
    uint64_t bytes = 0;
    for (uint16_t i = 0; i < n; i++)
        bytes += pkts[i]->pkt_len;
    v->st.rx_packets += n;
    v->st.rx_bytes += bytes;
    if (v->chain)
        vnf_chain_publish_rx(v->chain, v->args.chain_pos, v->st.rx_packets);
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
    for (uint16_t i = 0; i < n; i++) {
        struct rte_mbuf *m = pkts[i];
        if (m->data_len >= sizeof(struct rte_ether_hdr)) {
            struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
            struct rte_ether_addr a = eh->src_addr;
            eh->src_addr = eh->dst_addr;
            eh->dst_addr = a;
        }
        if (v->args.cost_cycles)
            v->st.cost_cycles_spent += vnf_cost_spin(v->args.cost_cycles, tsc_clock, NULL);
    }
    uint16_t sent = 0;
    for (int tries = 0; sent < n && tries <= TX_RETRIES; tries++)
        sent += rte_eth_tx_burst(v->port, 0, pkts + sent, n - sent);
    if (sent < n) {
        for (uint16_t i = sent; i < n; i++) /* still ours: the PMD took only the first `sent` */
            bytes -= pkts[i]->pkt_len;
        v->st.tx_dropped += n - sent;
        rte_pktmbuf_free_bulk(pkts + sent, n - sent);
    }
    v->st.tx_packets += sent;
    v->st.tx_bytes += bytes;
    /* every packet of the burst was in our hands from the rx burst until the tx: its processing time here */
    vnf_latency_add(&v->st.proc, vnf_cycles_to_ns(rte_rdtsc() - t0, v->info.tsc_hz), n);
}

/* Idle: block on the rx interrupt (the switch's vhost-user enqueue signals our call eventfd once we re-enable
 * notifications), or sleep `us` microseconds. Returns with notifications off again, and the packets a last look
 * after enabling them found (they came between the last empty poll and the enable, and raised no interrupt). */
static uint16_t idle_sleep(struct vnf *v, uint32_t us, uint64_t next_periodic, struct rte_mbuf **pkts)
{
    uint16_t n = 0;
    uint64_t t0 = rte_rdtsc();
    /* Asleep we publish nothing: a flag left set (our estimate of the next ring) would hold the head until we woke,
     * and we wake only for packets it then does not send. Our ring is empty; the estimate resumes with traffic. */
    if (v->chain && v->next.full) {
        v->next.full = false;
        vnf_chain_publish(v->chain, v->args.chain_pos, v->st.wm.over, v->st.occupancy, v->st.wm.episodes);
    }
    if (v->intr && rte_eth_dev_rx_intr_enable(v->port, 0) == 0) {
        n = rte_eth_rx_burst(v->port, 0, pkts, v->args.burst);
        if (n == 0) {
            v->st.idle_sleeps++;
            uint64_t left_ms = next_periodic > t0 ? (next_periodic - t0) * 1000 / v->info.tsc_hz + 1 : 1;
            struct rte_epoll_event ev;
            if (rte_epoll_wait(RTE_EPOLL_PER_THREAD, &ev, 1,
                               (int)(left_ms < INTR_WAIT_MAX_MS ? left_ms : INTR_WAIT_MAX_MS)) > 0)
                v->st.intr_wakeups++;
        }
        rte_eth_dev_rx_intr_disable(v->port, 0);
    } else {
        v->st.idle_sleeps++;
        struct timespec ts = {.tv_sec = us / 1000000, .tv_nsec = (long)(us % 1000000) * 1000};
        nanosleep(&ts, NULL);
    }
    v->st.slept_us += (rte_rdtsc() - t0) * 1000000 / v->info.tsc_hz;
    return n;
}

static void run(struct vnf *v)
{
    struct rte_mbuf *pkts[VNF_MAX_BURST];
    struct vnf_backoff bo;
    vnf_backoff_init(&bo, v->args.spin_rounds, v->args.max_sleep_us, v->args.busy_poll);
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
        uint16_t n = rte_eth_rx_burst(v->port, 0, pkts, v->args.burst);
        vnf_stats_burst(&v->st, n);
        drain_occupancy(v, n);
        if (n)
            handle(v, pkts, n);
        if (v->st.backpressure) {
            /* Taking and dropping at line rate would spend the core the downstream vNFs need to drain: yield it
             * for a moment; meanwhile the switch drops at our ring, still before any vNF worked on those. */
            struct timespec ts = {.tv_sec = 0, .tv_nsec = BACKPRESSURE_PAUSE_US * 1000};
            nanosleep(&ts, NULL);
            continue;
        }
        uint32_t us = vnf_backoff_after_poll(&bo, n);
        if (us) {
            /* idle: the queue file needs rewriting only while it says non-zero or we are throttled */
            bool tick = v->queue_written || v->st.throttled;
            n = idle_sleep(v, us, tick && next_queue < next_periodic ? next_queue : next_periodic, pkts);
            if (n) {
                vnf_stats_burst(&v->st, n);
                drain_occupancy(v, n);
                handle(v, pkts, n);
                vnf_backoff_after_poll(&bo, n);
            }
        }
    }
    queue_tick(v);
    periodic(v);
}

static int setup_port(struct vnf *v, struct rte_mempool *pool)
{
    if (rte_eth_dev_count_avail() < 1) {
        fprintf(stderr, "dpdk-vnf: no port (give EAL --vdev net_virtio_user0,path=...)\n");
        return -1;
    }
    RTE_ETH_FOREACH_DEV(v->port)
        break;
    struct rte_eth_conf conf;
    memset(&conf, 0, sizeof(conf));
    /* A busy poller takes no interrupts, unless the agent may tell it to share its core (then it sleeps on them) */
    conf.intr_conf.rxq = !v->args.no_intr && (!v->args.busy_poll || v->args.shared_core_file[0]);
    int rc = rte_eth_dev_configure(v->port, 1, 1, &conf);
    if (rc != 0 && conf.intr_conf.rxq) { /* the PMD refuses rx interrupts: backoff it is */
        conf.intr_conf.rxq = 0;
        rc = rte_eth_dev_configure(v->port, 1, 1, &conf);
    }
    uint16_t nrx = v->args.ring_size, ntx = v->args.ring_size;
    if (rc == 0)
        rc = rte_eth_dev_adjust_nb_rx_tx_desc(v->port, &nrx, &ntx);
    int socket = rte_eth_dev_socket_id(v->port);
    if (rc == 0)
        rc = rte_eth_rx_queue_setup(v->port, 0, nrx, socket < 0 ? 0 : (unsigned)socket, NULL, pool);
    if (rc == 0)
        rc = rte_eth_tx_queue_setup(v->port, 0, ntx, socket < 0 ? 0 : (unsigned)socket, NULL);
    if (rc == 0)
        rc = rte_eth_dev_start(v->port);
    if (rc != 0) {
        fprintf(stderr, "dpdk-vnf: port %u setup: %s\n", v->port, rte_strerror(-rc));
        return -1;
    }
    rte_eth_promiscuous_enable(v->port);
    v->queue_count = rte_eth_rx_queue_count(v->port, 0) >= 0;
    v->intr = conf.intr_conf.rxq &&
              rte_eth_dev_rx_intr_ctl_q(v->port, 0, RTE_EPOLL_PER_THREAD, RTE_INTR_EVENT_ADD, NULL) == 0;
    if (v->intr)
        rte_eth_dev_rx_intr_disable(v->port, 0);
    return 0;
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
    unsigned mbufs = 2u * v.args.ring_size + 2u * v.args.burst + 512u;
    struct rte_mempool *pool = rte_pktmbuf_pool_create("vnf_mbufs", mbufs, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
                                                       (int)rte_socket_id());
    if (!pool) {
        fprintf(stderr, "dpdk-vnf: mbuf pool of %u: %s\n", mbufs, rte_strerror(rte_errno));
        rte_eal_cleanup();
        return 1;
    }
    if (map_chain(&v) < 0 || setup_port(&v, pool) < 0) {
        rte_eal_cleanup();
        return 1;
    }
    uint64_t hz = rte_get_tsc_hz();
    v.info = (struct vnf_info){
        .mode = vnf_mode_name(v.args.mode), .wake = v.args.busy_poll ? "busy" : v.intr ? "intr" : "backoff",
        .occupancy_source = v.queue_count ? "rx_queue_count" : "drain", .cost_cycles = v.args.cost_cycles,
        .cost_ns = vnf_cycles_to_ns(v.args.cost_cycles, hz),
        .clock_overhead_cycles = vnf_cost_clock_overhead(tsc_clock, NULL, 1000), .tsc_hz = hz,
        .burst = v.args.burst, .ring_size = v.args.ring_size, .max_sleep_us = v.args.max_sleep_us};
    vnf_watermark_init(&v.st.wm, v.args.ring_size, v.args.high_pct, v.args.low_pct);
    v.next.high = v.st.wm.high; /* the next vNF's ring: the same size and watermarks (run.sh gives all 1024) */
    v.next.low = v.st.wm.low;
    v.start_tsc = rte_rdtsc();
    printf("dpdk-vnf: port %u, mode %s%s, cost %llu cycles (%llu ns), burst %u, ring %u, wake %s, occupancy %s\n",
           v.port, v.info.mode, v.args.latency ? " (latency)" : "", (unsigned long long)v.info.cost_cycles,
           (unsigned long long)v.info.cost_ns, v.info.burst, v.info.ring_size, v.info.wake, v.info.occupancy_source);
    fflush(stdout);
    run(&v);
    printf("dpdk-vnf: rx %llu tx %llu tx_dropped %llu backpressure_dropped %llu sleeps %llu\n",
           (unsigned long long)v.st.rx_packets, (unsigned long long)v.st.tx_packets,
           (unsigned long long)v.st.tx_dropped, (unsigned long long)v.st.backpressure_dropped,
           (unsigned long long)v.st.idle_sleeps);
    rte_eth_dev_stop(v.port);
    rte_eth_dev_close(v.port);
    rte_eal_cleanup();
    return 0;
}
