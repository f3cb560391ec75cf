/* In-band latency probes (issue 15), the part without the switch: one session's ICMP echo requests, the matching
 * of the replies and of ARP requests for the probe's address, and the RTT percentiles. The switch side
 * (pof_probe_sw.c) runs the requests through the pipeline as if received on the session's port and hands this
 * module every frame about to leave that port. Every function takes the time as an argument (the switch gives
 * pof_now_ns()), so the unit tests run it on a fake clock. Wire format: spec/switch-mgmt/README.md, "Probes". */
#ifndef POF_PROBE_H
#define POF_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define POF_PROBE_SIZE_MIN 64u         /* ICMP data bytes; 1472 fills a 1500-byte IP packet */
#define POF_PROBE_SIZE_MAX 1472u
#define POF_PROBE_SIZE_DEFAULT 64u
#define POF_PROBE_INTERVAL_MIN_US 1000u
#define POF_PROBE_INTERVAL_MAX_US 60000000u
#define POF_PROBE_INTERVAL_DEFAULT_US 10000u
#define POF_PROBE_COUNT_MAX 1000000000u
/* Requests remembered: at the shortest interval a second of them, so a request is counted lost by its timeout,
 * not pushed out of the ring. */
#define POF_PROBE_RING 1024u
/* RTT samples the percentiles are taken over: the latest ones (10 s at the default interval). */
#define POF_PROBE_WINDOW 1024u
/* A request without a reply after this long is lost; a later reply is not counted. */
#define POF_PROBE_TIMEOUT_NS 1000000000ull
#define POF_PROBE_FRAME_MAX (14u + 20u + 8u + POF_PROBE_SIZE_MAX)
#define POF_PROBE_ARP_LEN 60u          /* an ARP reply or request, padded to Ethernet's minimum (without FCS) */
/* DST_MAC auto: an unanswered ARP request is repeated after a second; an answer holds for a minute, then DST_IP is
 * resolved again (the requests go on to the MAC known meanwhile), and also after this many losses in a row (the
 * next hop may have changed its address). */
#define POF_PROBE_ARP_RETRY_NS 1000000000ull
#define POF_PROBE_ARP_REFRESH_NS 60000000000ull
#define POF_PROBE_ARP_LOSSES 3u

struct pof_probe_cfg {
    uint16_t id;                       /* ICMP identifier: replies carrying it are the session's */
    uint8_t src_mac[6], dst_mac[6];
    bool dst_auto;                     /* DST_MAC was auto: dst_mac comes from an ARP reply for dst_ip */
    uint8_t src_ip[4], dst_ip[4];      /* network byte order */
    uint32_t size;                     /* ICMP data bytes */
    uint32_t interval_us;
    uint32_t count;                    /* requests to send; 0 = until stopped */
};

struct pof_probe_stats {
    uint64_t sent, received, lost, arp_replies, arp_requests;
    uint32_t samples;                  /* RTTs in the window */
    bool resolved;                     /* dst_mac known (always, unless auto) */
    uint64_t p50_ns, p90_ns, p99_ns, max_ns; /* over the window; 0 without samples */
};

struct pof_probe {
    struct pof_probe_cfg cfg;
    uint64_t next_ns;                  /* when the next request is due */
    uint64_t sent, received, lost, arp_replies;
    uint64_t oldest;                   /* sequence of the oldest request neither answered nor lost */
    uint64_t sent_ns[POF_PROBE_RING];  /* by sequence % ring: send time, 0 once answered or lost */
    uint32_t rtt_ns[POF_PROBE_WINDOW]; /* the latest samples, a ring (1 s timeout: fits 32 bits) */
    uint32_t n_rtt, rtt_at;
    bool arp_pending;                  /* an ARP reply waits in arp to be injected */
    uint8_t arp[POF_PROBE_ARP_LEN];
    /* DST_MAC auto: requests wait until resolved; the next ARP request for dst_ip is due at arp_next_ns
     * (UINT64_MAX: never, the MAC was given) */
    bool resolved, asking;             /* asking: an ARP request is out, not answered yet (retried every second) */
    uint64_t arp_next_ns, arp_requests;
    uint32_t lost_run;                 /* losses since the last reply */
};

/* What pof_probe_tx made of a frame about to leave the port. */
enum pof_probe_take {
    POF_PROBE_PASS = 0,  /* not the session's: it leaves as it would */
    POF_PROBE_REPLY,     /* an echo reply of the session's: consumed */
    POF_PROBE_ARP,       /* an ARP request for the probe's address: consumed, an answer is pending in arp */
    POF_PROBE_RESOLVED,  /* DST_MAC auto: an ARP reply from DST_IP to the probe's address: consumed, dst_mac set */
};

/* Parses "ID SRC_MAC DST_MAC SRC_IP DST_IP [size=N] [interval_us=N] [count=N]" (split at spaces and tabs).
 * Returns 0, or -1 with a one-line reason in err (spec/switch-mgmt "Errors"). */
int pof_probe_parse(const char *args, struct pof_probe_cfg *cfg, char *err, size_t errlen);
/* Parses "ID" alone (probe-stats, probe-stop). Returns 0, -1 with err, or -2 if args is not one word. */
int pof_probe_parse_id(const char *args, uint16_t *id, char *err, size_t errlen);

/* A new session: the first request is due at now. */
void pof_probe_init(struct pof_probe *p, const struct pof_probe_cfg *cfg, uint64_t now);
/* When the next request is due, or UINT64_MAX once count requests have been sent or while an auto DST_MAC is
 * not resolved yet (requests wait, counted neither sent nor lost). */
uint64_t pof_probe_due_ns(const struct pof_probe *p);
/* Builds the next request into buf (POF_PROBE_FRAME_MAX bytes), sent at now; returns its length. The next one is
 * due an interval later, or an interval after now if the loop came late (no catching up in a burst). */
uint32_t pof_probe_request(struct pof_probe *p, uint64_t now, uint8_t *buf);
/* DST_MAC auto: when the next ARP request for DST_IP is due (UINT64_MAX: never, the MAC was given). */
uint64_t pof_probe_arp_due_ns(const struct pof_probe *p);
/* Builds that ARP request (broadcast, "who has DST_IP, tell SRC_IP" from SRC_MAC; POF_PROBE_ARP_LEN bytes) into
 * buf at now; it is repeated a second later unless answered. */
uint32_t pof_probe_arp_request(struct pof_probe *p, uint64_t now, uint8_t *buf);
/* A frame about to leave the session's port at now: a reply (RTT sample), an ARP request for the probe's
 * address (answer pending), an ARP reply resolving an auto DST_MAC, or none of these. */
enum pof_probe_take pof_probe_tx(struct pof_probe *p, const uint8_t *frame, uint32_t len, uint64_t now);
/* Counts as lost the requests older than the timeout without a reply. */
void pof_probe_expire(struct pof_probe *p, uint64_t now);
/* The counters and the window's percentiles (nearest rank), after expiring what is due at now. */
void pof_probe_stats(struct pof_probe *p, uint64_t now, struct pof_probe_stats *out);

#endif
