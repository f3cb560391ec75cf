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
