/* A test controller on loopback TCP for the unit tests of the controller connection: it listens, accepts the
 * switch's connection, speaks through the C codec, and drives the switch's side by calling pof_conn_service
 * whenever it waits (the switch under test has no run loop). One controller at a time. */
#ifndef CTL_LOOP_H
#define CTL_LOOP_H

#include <stdbool.h>
#include <stdint.h>

#include "pof_switch.h"

struct ctl {
    struct pof_sw *sw;
    int lfd, fd;
    uint32_t xid;
    struct pof_msg msg;      /* the last message ctl_recv decoded */
    uint8_t in[1 << 17];
    size_t in_len, consumed;
};
extern struct ctl ctl;

/* Listens on 127.0.0.1; returns the port for the switch's sw_config. */
uint16_t ctl_listen(void);
/* Lets sw (initialised with that port) connect, and accepts it; false if it does not within 5 s. */
bool ctl_accept(struct pof_sw *sw);
/* The switch's side makes progress, waiting up to ms for the controller's socket. */
void ctl_pump(int ms);
void ctl_send(const struct pof_msg *m);
void ctl_send_raw(const uint8_t *raw, size_t n);
/* A message without body, with the next xid; returns the xid. */
uint32_t ctl_simple(uint8_t type);
/* Next message from the switch into ctl.msg: 0, or -1 (nothing within 2 s, or undecodable). */
int ctl_recv(void);
/* Skips to the next message of this type (at most 20 messages); 0 or -1. */
int ctl_recv_type(uint8_t type);
/* The reference handshake, with a SET_CONFIG of these raw bytes (NULL: the POF form with the switch's dev_id);
 * reads GET_CONFIG_REPLY into *config and RESOURCE_REPORT into *resources (either may be NULL), and nports
 * PORT_STATUS into ports (NULL: not kept). true if all came. */
bool ctl_handshake(const uint8_t *set_config, size_t set_config_len, struct pof_switch_config *config,
                   struct pof_resource_report *resources, int nports, struct pof_port *ports);
/* Waits for the switch to close the connection: true if it did within ms (anything it sent first is in
 * ctl.in, decodable with ctl_recv). */
bool ctl_wait_eof(int ms);
/* Closes the controller's side of the connection (the listening socket stays). */
void ctl_hang_up(void);
void ctl_close(void);

#endif
