/* A rated output port's scheduler: a token bucket at the port's rate decides when the next packet may leave,
 * and three bounded FIFOs hold what waits, served in strict priority: latency packets (within a latency-class
 * meter's cap), then green packets (within a meter's committed rate), then yellow and unmetered ones (best
 * effort). A latency slice cannot starve the others: its meter holds it to its cap before it gets here.
 *
 * A flow (a meter: one slice's path in one direction) keeps its order. While excess (yellow) packets of a flow
 * wait in best effort, its green packets join them there instead of overtaking them; they may use the green
 * queue's room on top of best effort's, so others' excess cannot push them out. A slice within its guarantee is
 * served first; a slice above it has its packets leave in the order they came. Overtaking its own excess would
 * reorder a TCP flow by a whole queue's delay: the receiver's duplicate ACKs then make the sender retransmit and
 * halve its window (a slice above its guarantee got ~75 % of an idle 6 Mbit/s port, and resent ~15 % of what it
 * sent). DiffServ's assured forwarding has the same rule (RFC 2597: colours are drop precedences, not queues).
 * Only excess holds a flow in best effort, not the green packets that joined it: else one burst above the
 * guarantee under a neighbour's flood kept a slice there for good (each green packet joining best effort kept
 * the flow waiting there, and the flood kept best effort full: 0.9 of a guaranteed 6 Mbit/s). Once its excess has
 * left, a flow's new green packets take the priority queue and may pass its last green ones still in best effort:
 * one reordering as a burst ends, not a slice without its guarantee.
 *
 * No I/O: packets are opaque pointers that the owner sends or frees; the caller passes the time, so tests drive
 * it with a fake clock. */
#ifndef POF_SCHED_H
#define POF_SCHED_H

#include <stdint.h>

#include "pof_meter.h"

/* Queue bounds. The green queue only absorbs bursts: green traffic is already held to the committed rates by
 * the meters (each with a 20 ms bucket), and the admission keeps the sum of committed rates within the port's
 * rate, so 64 KiB (26 ms at 20 Mbit/s, 5 ms at 100 Mbit/s) is ample and bounds the delay of guaranteed
 * traffic. The best-effort queue takes the excess of every slice: 192 KiB, as a meter's shaping queue, is about
 * one bandwidth-delay product of a TCP flow at tens of Mbit/s (78 ms at 20 Mbit/s), so TCP keeps its window
 * without the queue turning into seconds of delay. Packet counts bound both too (1024 / 2048 slots), so a flood
 * of small frames holds at most 3072 buffers of the backend's pool (AF_PACKET 8192, DPDK 16383). */
#define POF_SCHED_GREEN_BYTES (64u * 1024u)
/* The latency queue is small on purpose. What waits in it waits at least bytes / rate (8 KiB: 0.66 ms at
 * 100 Mbit/s, 3.3 ms at 20 Mbit/s), so a longer queue would only turn a burst above what the port can carry
 * within a latency budget (sub-millisecond to a few ms) into late packets for every packet behind it; a late
 * control or AR packet is as useless as a lost one, and a dropped one does not delay the next. It normally
 * holds nothing or one frame: the one that arrived while the port's bucket was paying for the frame before.
 * 32 slots bound a flood of small frames as well. */
#define POF_SCHED_LATENCY_BYTES (8u * 1024u)
#define POF_SCHED_LATENCY_SLOTS 32u
#define POF_SCHED_BE_BYTES (192u * 1024u)
#define POF_SCHED_GREEN_SLOTS 1024u
#define POF_SCHED_BE_SLOTS 2048u
/* The port's bucket holds 10 ms of its rate, at least four 1514-byte frames (so a slow port still sends whole
 * frames back to back, and a late loop round loses no rate). */
#define POF_SCHED_BURST_MIN (4u * 1514u)
/* While packets wait, the bucket fills up to this much of the rate instead of its depth: a port that stays
 * backlogged sends rate x time even when a loop round comes late (a starved VM: the testbed's TCG AP wakes tens
 * of ms late, and with a 10 ms bucket its rated uplink carried 55-83 % of its rate to TCP, where the kernel's
 * HTB carried 93-97 % on the same VM). The depth still bounds the burst after an idle port. */
#define POF_SCHED_CATCHUP_NS (50u * 1000000u)

/* queue index; the service order is LATENCY, GREEN, BE (indices kept: GREEN and BE predate LATENCY) */
enum { POF_SCHED_GREEN = 0, POF_SCHED_BE = 1, POF_SCHED_LATENCY = 2, POF_SCHED_QUEUES = 3 };

/* Flows whose order is kept: ids 1 .. POF_SCHED_FLOWS - 1 (0 = none, as an unmetered packet's). */
#define POF_SCHED_FLOWS 256u

/* flow: 0 unless counted in be_waiting; stamp: the owner's, handed back with the packet (the switch's receive time) */
struct pof_sched_item { void *pkt; uint32_t len; uint32_t flow; uint64_t stamp; };

struct pof_sched_queue {
    struct pof_sched_item *slot;
    uint32_t slots, head, n;
    uint32_t bytes, limit_bytes;
    /* since the port was rated: packets and bytes that left through this queue's class (sent at once or
     * after waiting), and those dropped because the queue was full */
    uint64_t sent_pkts, sent_bytes, drop_pkts, drop_bytes;
};

struct pof_sched {
    uint32_t rate_kbps;
    struct pof_bucket bucket;
    struct pof_sched_queue q[POF_SCHED_QUEUES];
    uint16_t be_waiting[POF_SCHED_FLOWS]; /* excess (yellow) packets of each flow in the best-effort queue */
};

enum pof_sched_result { POF_SCHED_SEND, POF_SCHED_QUEUED, POF_SCHED_DROP };

/* A scheduler at rate_kbps (1 .. POF_METER_MAX_KBPS), queues empty, bucket full; NULL when out of memory. */
struct pof_sched *pof_sched_create(uint32_t rate_kbps);
/* Frees the scheduler; the queues must have been drained (pof_sched_drain) first. */
void pof_sched_destroy(struct pof_sched *s);
/* Changes the rate (1 .. POF_METER_MAX_KBPS); queued packets stay. */
void pof_sched_set_rate(struct pof_sched *s, uint32_t rate_kbps);

/* Offers a packet of colour c from flow (a meter id, 0 = none): LATENCY -> latency queue, GREEN -> green queue,
 * unless packets of its flow wait in best effort (then it joins them, as above); anything else -> best effort.
 * SEND: it may leave now (tokens taken, nothing of its class or above waits); QUEUED: the scheduler holds it;
 * DROP: its queue is full (counted), the caller frees it. */
enum pof_sched_result pof_sched_offer_at(struct pof_sched *s, void *pkt, uint32_t len, enum pof_color c,
                                         uint32_t flow, uint64_t now_ns, uint64_t stamp);
/* pof_sched_offer_at without a stamp of the owner's. */
static inline enum pof_sched_result pof_sched_offer(struct pof_sched *s, void *pkt, uint32_t len, enum pof_color c,
                                                    uint32_t flow, uint64_t now_ns)
{
    return pof_sched_offer_at(s, pkt, len, c, flow, now_ns, 0);
}
/* The next packet that may leave now, latency first, then green (tokens taken), or NULL. *len gets its length,
 * *k (unless NULL) the queue it left (POF_SCHED_LATENCY: the caller sends it at once). */
void *pof_sched_next_at(struct pof_sched *s, uint64_t now_ns, uint32_t *len, int *k, uint64_t *stamp);
/* The stamp given with a queued packet (pof_sched_offer_at) comes back in *stamp unless that is NULL. */
static inline void *pof_sched_next(struct pof_sched *s, uint64_t now_ns, uint32_t *len, int *k)
{
    return pof_sched_next_at(s, now_ns, len, k, NULL);
}
/* Nanoseconds until the next queued packet may leave: 0 = now, UINT64_MAX = nothing queued. */
uint64_t pof_sched_wait_ns(struct pof_sched *s, uint64_t now_ns);
/* Hands every queued packet, in service order, to fn and empties the queues (not counted as sent or dropped). */
void pof_sched_drain(struct pof_sched *s, void (*fn)(void *arg, void *pkt, uint32_t len), void *arg);
/* Packets queued in all queues. */
uint32_t pof_sched_queued(const struct pof_sched *s);

#endif
