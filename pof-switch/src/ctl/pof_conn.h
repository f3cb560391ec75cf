/* The switch's connection to its POF controller: dials out, does the reference handshake, applies the
 * controller's messages to the switch, reports ports and packet-ins. Non-blocking; when a connection fails or
 * ends it dials the next controller of its list at once, and backs off only after a whole round failed. It
 * reaches the switch only through the callbacks of pof_sw_cb.h. */
#ifndef POF_CONN_H
#define POF_CONN_H

#include <stdbool.h>
#include <stdint.h>

#include "pof_ctladdr.h"
#include "pof_sw_cb.h"

struct pof_conn;

/* The default of timeout_ns: a controller that sends no whole message for this long is gone. */
#define POF_CONN_TIMEOUT_NS 15000000000ull

/* sw must outlive the connection; addrs (1..POF_MAX_CONTROLLERS, copied) are dialled in order, the first first.
 * timeout_ns (0 = POF_CONN_TIMEOUT_NS): the handshake must be complete within it; once ready, a third of it
 * without a whole message from the controller sends an ECHO_REQUEST, all of it closes the connection (and the
 * switch dials the next controller). */
struct pof_conn *pof_conn_create(const struct pof_sw_cb *sw, const struct pof_ctl_addr *addrs, int n_addrs,
                                 uint64_t timeout_ns);
/* The controller the connection dials or is connected to (index into its list). */
int pof_conn_controller(const struct pof_conn *c);
void pof_conn_destroy(struct pof_conn *c);

/* The socket to poll and the events wanted (0 when there is nothing to wait for). */
int pof_conn_fd(const struct pof_conn *c, short *events);
/* Makes progress: connect, read and handle messages, flush output. Never blocks. */
void pof_conn_service(struct pof_conn *c, uint64_t now_ns);
bool pof_conn_ready(const struct pof_conn *c);

void pof_conn_port_status(struct pof_conn *c, const struct pof_sw_port_info *p, uint8_t reason);
void pof_conn_packet_in(struct pof_conn *c, uint16_t in_port, uint8_t reason, uint8_t table_id,
                        const uint8_t *data, uint32_t len);

#endif
