/* The switch's connection to its POF controller: dials out, does the reference handshake, applies the
 * controller's messages to the switch, reports ports and packet-ins. Non-blocking; reconnects with backoff.
 * It reaches the switch only through the callbacks of pof_sw_cb.h. */
#ifndef POF_CONN_H
#define POF_CONN_H

#include <stdbool.h>
#include <stdint.h>

#include "pof_sw_cb.h"

struct pof_conn;

/* sw must outlive the connection. */
struct pof_conn *pof_conn_create(const struct pof_sw_cb *sw, const char *host, uint16_t port);
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
