/* libFuzzer target: controller address lists (pof_ctl_addrs_parse, what --controller and UCI pass). Whatever the
 * input, a list it accepts holds 1..max addresses with a non-empty host of allowed characters and a port >= 1. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pof_ctladdr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0'; /* a NUL inside ends the text, as it would on a command line */
    struct pof_ctl_addr a[POF_MAX_CONTROLLERS];
    const char *why = NULL;
    int n = pof_ctl_addrs_parse(text, a, POF_MAX_CONTROLLERS, &why);
    if (n == 0 || n > POF_MAX_CONTROLLERS || (n < 0 && !why))
        __builtin_trap();
    for (int i = 0; i < n; i++)
        if (a[i].host[0] == '\0' || a[i].port == 0 || strchr(a[i].host, ',') || strlen(a[i].host) > POF_CTL_HOST_MAX)
            __builtin_trap();
    free(text);
    return 0;
}
