/* pofswitch: the switch on DPDK. EAL options first, then "--", then the switch's own options:
 *   pofswitch -l 1 --in-memory --vdev net_null0 -- --port n0=net_null0 --controller 127.0.0.1:6643 */
#include <stdio.h>

#include <rte_eal.h>
#include <rte_errno.h>

#include "pof_main.h"
#include "port_dpdk.h"

int main(int argc, char **argv)
{
    int used = rte_eal_init(argc, argv);
    if (used < 0) {
        fprintf(stderr, "pofswitch: EAL init failed: %s\n", rte_strerror(rte_errno));
        return 1;
    }
    int rc = pof_dpdk_init(16383) < 0 ? 1 : pof_main(argc - used, argv + used, &pof_dpdk_ops);
    rte_eal_cleanup();
    return rc;
}
