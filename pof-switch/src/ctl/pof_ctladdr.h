/* The controllers a switch may dial: HOST:PORT[,HOST:PORT...] as --controller and UCI give them, the same list
 * syntax as the agents' (a cluster's nodes). The switch dials them in order (pof_conn.c). */
#ifndef POF_CTLADDR_H
#define POF_CTLADDR_H

#include <stddef.h>
#include <stdint.h>

#define POF_MAX_CONTROLLERS 8
#define POF_CTL_HOST_MAX 255

struct pof_ctl_addr {
    char host[POF_CTL_HOST_MAX + 1];
    uint16_t port;
};

/* Parses text into out[0..max): each item HOST:PORT split at its last colon (an IPv6 address with or without
 * brackets: [fe80::1]:6643 or fe80::1:6643), HOST 1-255 characters of letters, digits, '.', '-', ':' (no spaces), PORT 1-65535 in decimal.
 * Returns the number of addresses (>= 1), or -1 with why (a static string) for an empty text or item, a bad host
 * or port, or more than max items. */
int pof_ctl_addrs_parse(const char *text, struct pof_ctl_addr *out, int max, const char **why);

#endif
