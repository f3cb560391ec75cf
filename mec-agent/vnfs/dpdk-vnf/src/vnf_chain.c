#include "vnf_chain.h"

void vnf_chain_publish(struct vnf_chain_line *lines, uint32_t pos, bool over, uint32_t occupancy,
                       uint64_t episodes)
{
    struct vnf_chain_line *l = &lines[pos];
    /* written only on a change: the head reads these lines on every burst, and a
     * store that changes nothing would still pull the line away from it */
    if (__atomic_load_n(&l->over, __ATOMIC_RELAXED) != (uint32_t)over)
        __atomic_store_n(&l->over, (uint32_t)over, __ATOMIC_RELAXED);
    if (__atomic_load_n(&l->occupancy, __ATOMIC_RELAXED) != occupancy)
        __atomic_store_n(&l->occupancy, occupancy, __ATOMIC_RELAXED);
    if (__atomic_load_n(&l->episodes, __ATOMIC_RELAXED) != episodes)
        __atomic_store_n(&l->episodes, episodes, __ATOMIC_RELAXED);
}

bool vnf_chain_downstream_over(const struct vnf_chain_line *lines, uint32_t len, uint32_t pos)
{
    for (uint32_t i = pos + 1; i < len && i < VNF_CHAIN_MAX; i++)
        if (__atomic_load_n(&lines[i].over, __ATOMIC_RELAXED))
            return true;
    return false;
}

void vnf_chain_publish_rx(struct vnf_chain_line *lines, uint32_t pos, uint64_t rx_packets)
{
    __atomic_store_n(&lines[pos].rx_packets, rx_packets, __ATOMIC_RELAXED);
}

bool vnf_chain_next_full(struct vnf_chain_next *nx, const struct vnf_chain_line *next, uint64_t tx_total)
{
    uint64_t rx = __atomic_load_n(&next->rx_packets, __ATOMIC_RELAXED);
    if (rx == 0) { /* no vNF there (we are the last, or the agent cleared a gone one's line) or none taken yet */
        nx->seen_rx = 0;
        nx->tx_at_seen = tx_total;
        nx->full = false;
        return false;
    }
    if (rx != nx->seen_rx) { /* it ran: count from here */
        nx->seen_rx = rx;
        nx->tx_at_seen = tx_total;
    }
    uint64_t est = __atomic_load_n(&next->occupancy, __ATOMIC_RELAXED) + (tx_total - nx->tx_at_seen);
    nx->full = nx->full ? est >= nx->low : est > nx->high;
    return nx->full;
}
