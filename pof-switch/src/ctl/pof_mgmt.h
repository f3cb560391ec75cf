/* Local management socket (unix stream, one text command per line, one reply line each):
 *   port-add NAME [ARGS]   -> "OK <port id>"      (ARGS: DPDK devargs, or the netdev for AF_PACKET, with an
 *                                                  optional item rate=KBPS: "eth1,rate=20000")
 *   port-del NAME          -> "OK"
 *   latency NAME on|off    -> "OK"                (burst size 1 on that port, the loop never sleeps)
 *   port-rate NAME KBPS    -> "OK"                (the port sends at KBPS kbit/s, green first; 0 = line rate)
 *   port-stats NAME        -> "OK rate=<kbps> green_pkts=N green_bytes=N green_drops=N green_queued=<bytes>
 *                              be_pkts=N be_bytes=N be_drops=N be_queued=<bytes> tx_dropped=N"
 *                             (per class of a rated port since it was rated, all 0 on a line-rate port;
 *                              tx_dropped = the port's MULTIPART port stats count: full queues of a rated
 *                              port plus frames the backend refused)
 *   ports                  -> "OK <id>:<name>:<enabled>:<rx_packets>:<tx_packets>:<rx_bytes>:<tx_bytes> ..."
 *   stats                  -> "OK processed=N miss=N dropped=N short=N tables=N flows=N packet_in=N"
 *   on-connect [keep|reset] -> "OK keep|reset" (no argument: the policy now), "OK" (set): whether a new
 *                             controller session keeps the tables, flows, meters and counters or clears them
 *   probe-start NAME ID SRC_MAC DST_MAC SRC_IP DST_IP [size=N] [interval_us=N] [count=N] -> "OK"
 *   probe-stats NAME ID    -> "OK sent=N received=N lost=N p50_us=N p90_us=N p99_us=N max_us=N samples=N
 *                              arp_replies=N"
 *   probe-stop NAME ID     -> "OK"                (in-band latency probes: pof_probe_sw.h)
 * Errors reply "ERROR <reason>". Used by the mec-agent and ap-agent to hot-add vNF and vAP ports.
 * It reaches the switch only through the callbacks of pof_sw_cb.h. */
#ifndef POF_MGMT_H
#define POF_MGMT_H

#include <poll.h>
#include <stddef.h>

#include "pof_sw_cb.h"

struct pof_mgmt;

/* sw must outlive the socket. */
struct pof_mgmt *pof_mgmt_open(const struct pof_sw_cb *sw, const char *path);
void pof_mgmt_close(struct pof_mgmt *m);
/* Adds the descriptors to poll to fds (at most max); returns how many. */
int pof_mgmt_fds(const struct pof_mgmt *m, struct pollfd *fds, int max);
/* Accepts clients and answers complete command lines. Never blocks. */
void pof_mgmt_service(struct pof_mgmt *m);
/* Runs one command line and writes the reply (without newline) into out. Exposed for unit tests. */
void pof_mgmt_command(const struct pof_sw_cb *sw, char *line, char *out, size_t outlen);

#endif
