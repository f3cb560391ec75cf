/* libFuzzer: the argument parser on argv split from the input at NUL bytes (the parameters come from a
 * tenant's createVnf through run.sh). Checks it never crashes, overruns, or accepts values out of range. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vnf_args.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *copy = malloc(size + 1);
    if (!copy)
        return 0;
    memcpy(copy, data, size);
    copy[size] = '\0';
    char *argv[64];
    int argc = 0;
    argv[argc++] = "dpdk-vnf";
    for (size_t i = 0; i <= size && argc < 63;) {
        argv[argc++] = copy + i;
        i += strlen(copy + i) + 1;
    }
    argv[argc] = NULL;
    struct vnf_args a;
    char err[96];
    vnf_args_defaults(&a);
    if (vnf_args_parse(&a, argc, argv, err, sizeof(err)) == 0) {
        if (a.burst < 1 || a.burst > VNF_MAX_BURST || (a.ring_size & (a.ring_size - 1)) || a.low_pct >= a.high_pct ||
            strlen(a.stats_file) >= VNF_PATH_MAX || (a.mode == VNF_MODE_FWD && a.cost_cycles) ||
            (a.latency && (a.burst != 1 || !a.busy_poll)) || a.ports < 1 || a.ports > VNF_MAX_PORTS)
            abort();
    } else if (strnlen(err, sizeof(err)) >= sizeof(err)) {
        abort();
    }
    free(copy);
    return 0;
}
