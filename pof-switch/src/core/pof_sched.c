/* Rated output ports: strict priority of latency over green over best effort, a token bucket at the port's
 * rate. */
#include "pof_sched.h"

#include <stdlib.h>

/* Service order: strict priority, highest first. */
static const int order[POF_SCHED_QUEUES] = {POF_SCHED_LATENCY, POF_SCHED_GREEN, POF_SCHED_BE};

static uint64_t port_burst(uint32_t kbps)
{
    uint64_t ten_ms = (uint64_t)kbps * 125 / 100;
    return ten_ms > POF_SCHED_BURST_MIN ? ten_ms : POF_SCHED_BURST_MIN;
}

/* Brings the bucket to now before it is used: up to its depth, or while anything waits up to the catch-up (the
 * port has been backlogged since the last refill: every refill happens here, and a queue only fills while the
 * tokens are short). The bucket's own refill at the same timestamp then adds nothing. */
static void refill(struct pof_sched *s, uint64_t now_ns)
{
    uint64_t cap = s->bucket.burst;
    if (pof_sched_queued(s)) {
        uint64_t catchup = s->bucket.bytes_per_s * (POF_SCHED_CATCHUP_NS / 1000000u) / 1000u;
        cap = catchup > cap ? catchup : cap;
    }
    pof_bucket_refill_upto(&s->bucket, now_ns, cap);
}

struct pof_sched *pof_sched_create(uint32_t rate_kbps)
{
    struct pof_sched *s = calloc(1, sizeof(*s));
    if (!s)
        return NULL;
    s->q[POF_SCHED_GREEN] = (struct pof_sched_queue){.slots = POF_SCHED_GREEN_SLOTS,
                                                     .limit_bytes = POF_SCHED_GREEN_BYTES};
    /* Best effort has room for the green queue's share too: green packets that keep their flow's order. */
    s->q[POF_SCHED_BE] = (struct pof_sched_queue){.slots = POF_SCHED_BE_SLOTS + POF_SCHED_GREEN_SLOTS,
                                                  .limit_bytes = POF_SCHED_BE_BYTES};
    s->q[POF_SCHED_LATENCY] = (struct pof_sched_queue){.slots = POF_SCHED_LATENCY_SLOTS,
                                                       .limit_bytes = POF_SCHED_LATENCY_BYTES};
    for (int i = 0; i < POF_SCHED_QUEUES; i++) {
        s->q[i].slot = calloc(s->q[i].slots, sizeof(struct pof_sched_item));
        if (!s->q[i].slot) {
            pof_sched_destroy(s);
            return NULL;
        }
    }
    s->rate_kbps = rate_kbps;
    pof_bucket_init(&s->bucket, rate_kbps, port_burst(rate_kbps));
    return s;
}

void pof_sched_destroy(struct pof_sched *s)
{
    if (!s)
        return;
    for (int i = 0; i < POF_SCHED_QUEUES; i++)
        free(s->q[i].slot);
    free(s);
}

void pof_sched_set_rate(struct pof_sched *s, uint32_t rate_kbps)
{
    s->rate_kbps = rate_kbps;
    pof_bucket_set(&s->bucket, rate_kbps, port_burst(rate_kbps));
}

static uint32_t tracked(uint32_t flow)
{
    return flow < POF_SCHED_FLOWS ? flow : 0;
}

enum pof_sched_result pof_sched_offer_at(struct pof_sched *s, void *pkt, uint32_t len, enum pof_color c,
                                         uint32_t flow, uint64_t now_ns, uint64_t stamp)
{
    flow = tracked(flow);
    /* green: a colour above best effort (green or latency), whose flow may wait in best effort */
    bool green = c == POF_COLOR_GREEN || c == POF_COLOR_LATENCY;
    int k = !green || (flow && s->be_waiting[flow]) ? POF_SCHED_BE
            : c == POF_COLOR_LATENCY               ? POF_SCHED_LATENCY
                                                   : POF_SCHED_GREEN;
    struct pof_sched_queue *q = &s->q[k];
    /* Nothing of its class or above waits: it may go at once if the tokens are there (FIFO within a class,
     * and no packet overtakes a waiting one of a higher class). */
    bool ahead = false;
    for (int i = 0; i < POF_SCHED_QUEUES && !ahead; i++) {
        ahead = s->q[order[i]].n != 0;
        if (order[i] == k)
            break;
    }
    refill(s, now_ns);
    if (!ahead && pof_bucket_take(&s->bucket, len, now_ns)) {
        q->sent_pkts++;
        q->sent_bytes += len;
        return POF_SCHED_SEND;
    }
    /* In best effort, a green packet may also use the green queue's room (see the header). */
    bool green_in_be = k == POF_SCHED_BE && green;
    uint32_t slots = k == POF_SCHED_BE && !green ? POF_SCHED_BE_SLOTS : q->slots;
    uint32_t limit = q->limit_bytes + (green_in_be ? POF_SCHED_GREEN_BYTES : 0);
    if (q->n >= slots || q->bytes + len > limit) {
        q->drop_pkts++;
        q->drop_bytes += len;
        return POF_SCHED_DROP;
    }
    /* Only excess in best effort holds its flow there (see the header); the item names the flow it counted for. */
    uint32_t holds = k == POF_SCHED_BE && !green ? flow : 0;
    q->slot[(q->head + q->n) % q->slots] = (struct pof_sched_item){pkt, len, holds, stamp};
    q->n++;
    q->bytes += len;
    if (holds)
        s->be_waiting[holds]++;
    return POF_SCHED_QUEUED;
}

static void *pop(struct pof_sched *s, int k, uint32_t *len, uint64_t *stamp)
{
    struct pof_sched_queue *q = &s->q[k];
    struct pof_sched_item it = q->slot[q->head];
    q->head = (q->head + 1) % q->slots;
    q->n--;
    q->bytes -= it.len;
    if (k == POF_SCHED_BE && it.flow)
        s->be_waiting[it.flow]--;
    *len = it.len;
    if (stamp)
        *stamp = it.stamp;
    return it.pkt;
}

/* The highest non-empty queue (best effort if all are empty). */
static int head_queue(const struct pof_sched *s)
{
    for (int i = 0; i < POF_SCHED_QUEUES - 1; i++)
        if (s->q[order[i]].n)
            return order[i];
    return POF_SCHED_BE;
}

void *pof_sched_next_at(struct pof_sched *s, uint64_t now_ns, uint32_t *len, int *kp, uint64_t *stamp)
{
    /* Strict priority: while a higher class waits, a lower one does not go, even if a smaller packet would fit. */
    int k = head_queue(s);
    struct pof_sched_queue *q = &s->q[k];
    if (!q->n)
        return NULL;
    refill(s, now_ns);
    if (!pof_bucket_take(&s->bucket, q->slot[q->head].len, now_ns))
        return NULL;
    void *pkt = pop(s, k, len, stamp);
    if (kp)
        *kp = k;
    q->sent_pkts++;
    q->sent_bytes += *len;
    return pkt;
}

uint64_t pof_sched_wait_ns(struct pof_sched *s, uint64_t now_ns)
{
    struct pof_sched_queue *q = &s->q[head_queue(s)];
    if (!q->n)
        return UINT64_MAX;
    refill(s, now_ns);
    return pof_bucket_wait_ns(&s->bucket, q->slot[q->head].len, now_ns);
}

void pof_sched_drain(struct pof_sched *s, void (*fn)(void *arg, void *pkt, uint32_t len), void *arg)
{
    for (int i = 0; i < POF_SCHED_QUEUES; i++)
        while (s->q[order[i]].n) {
            uint32_t len;
            void *pkt = pop(s, order[i], &len, NULL);
            fn(arg, pkt, len);
        }
}

uint32_t pof_sched_queued(const struct pof_sched *s)
{
    return s->q[0].n + s->q[1].n + s->q[2].n;
}
