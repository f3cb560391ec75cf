/* Command line of dpdk-vnf (the part after EAL's "--"): pure parsing, no DPDK, unit-tested and fuzzed. */
#ifndef VNF_ARGS_H
#define VNF_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VNF_MAX_BURST 256
#define VNF_PATH_MAX 256
#define VNF_MAX_PORTS 2 /* 1: macswap back out of the one port; 2: a bump in the wire between "in" and "out" */

enum vnf_mode { VNF_MODE_FWD = 0, VNF_MODE_COST = 1 };

struct vnf_args {
    enum vnf_mode mode;
    uint64_t cost_cycles;        /* busy TSC cycles per packet (mode cost) */
    uint16_t burst;              /* rx burst size */
    uint16_t ring_size;          /* virtio-user queue size the port asks for */
    uint32_t spin_rounds;        /* adaptive polling: empty polls before the first sleep */
    uint32_t max_sleep_us;       /* adaptive polling: longest idle sleep */
    uint32_t stats_interval_ms;  /* how often the stats file is written */
    uint32_t queue_interval_ms;  /* how often the queue file is written and the throttle file looked at */
    uint32_t high_pct, low_pct;  /* ring occupancy watermarks, percent of ring_size */
    bool busy_poll;              /* never sleep (reference, like testpmd) */
    bool no_intr;                /* do not try rx interrupts, backoff only */
    bool latency;                /* latency mode: burst 1 and busy poll (a latency-class slice's vNF) */
    char stats_file[VNF_PATH_MAX];    /* "" = none */
    char queue_file[VNF_PATH_MAX];    /* bytes waiting, the agent's /run/vnf/queue; "" = none */
    char throttle_file[VNF_PATH_MAX]; /* exists while the agent throttles this chain head; "" = none */
    /* exists while the vNF's core is shared with another vNF: latency mode then sleeps on rx interrupts when idle
     * instead of busy polling (two pollers on one core take turns by scheduler slices); "" = none */
    char shared_core_file[VNF_PATH_MAX];
    /* chain backpressure (vnf_chain.h): the chain's shared file, this vNF's position in it and the chain's
     * length; "" = none. Position 0 is the head, which drops at entry while a downstream ring is over. */
    char chain_file[VNF_PATH_MAX];
    uint32_t chain_pos, chain_len;
    uint32_t pace_us;            /* paced polling under steady traffic: longest sleep (vnf_pace.h); 0 = off */
    uint32_t ports;              /* 1 or 2 (port 0 = 'in', port 1 = 'out': each one's packets leave by the other) */
};

void vnf_args_defaults(struct vnf_args *a);

/* Parses argv[0..argc) (argv[0] is the program name). Returns 0, or -1 with a message in err.
 * Never reads past argc, never writes past err[errlen). */
int vnf_args_parse(struct vnf_args *a, int argc, char *const argv[], char *err, size_t errlen);

const char *vnf_mode_name(enum vnf_mode m);

#endif
