/* Probe sessions in the switch (issue 15): each sends its echo requests through the pipeline as if received on
 * its port, and takes its replies and the ARP requests for its address from the frames about to leave that
 * port (pof_probe.h does the packets). Internal to the shell: pof_switch.c calls these hooks, the management
 * socket reaches sw_probe_command through pof_sw_cb's probe. */
#ifndef POF_PROBE_SW_H
#define POF_PROBE_SW_H

#include "pof_switch.h"

#define SW_PROBES 8 /* sessions per switch: a few slices' paths on one AP, each a few KiB of state */

/* pof_switch.c: runs b (a frame the switch made) through the pipeline as if port in received it. */
void sw_inject(struct pof_sw *sw, struct sw_port *in, struct pof_io_buf *b, uint64_t now);

/* probe-start, probe-stats, probe-stop (cmd) on port NAME with the rest of the line in args; a reply line. */
void sw_probe_command(struct pof_sw *sw, const char *cmd, const char *name, const char *args, char *out,
                      size_t outlen);
/* Sends what is due at now: pending ARP answers, then requests. Returns the frames injected. */
uint32_t sw_probe_tick(struct pof_sw *sw, uint64_t now);
/* Nanoseconds until a session has something to send, or UINT64_MAX. */
uint64_t sw_probe_next_ns(const struct pof_sw *sw, uint64_t now);
/* Port p (with sessions) is about to hand its tx burst to the backend: the sessions' frames are taken out. */
void sw_probe_tx_burst(struct pof_sw *sw, struct sw_port *p);
/* The same for one frame sent alone; true if a session took it (and freed it). */
bool sw_probe_take(struct pof_sw *sw, struct sw_port *p, struct pof_io_buf *b);
/* Port p goes away, and its sessions with it. */
void sw_probe_port_gone(struct pof_sw *sw, struct sw_port *p);
void sw_probe_fini(struct pof_sw *sw);

#endif
