/* Shaping in the switch shell, shared by both backends: the meters' shaping queues (packets beyond a meter's
 * peak rate wait there) and rated output ports (pof_sched: green first, at the port's rate). Internal to
 * pof_switch.c and pof_shape.c; the rest of the program uses pof_switch.h. */
#ifndef POF_SHAPE_H
#define POF_SHAPE_H

#include "pof_switch.h"

/* pof_switch.c: hands b to port p's next tx burst (freed if p is disabled); no rate applies. */
void sw_push_tx(struct pof_sw *sw, struct sw_port *p, struct pof_io_buf *b, uint32_t len);
/* pof_switch.c: sends b out of p at once, alone (a latency packet; freed if p is disabled). */
void sw_send_now(struct pof_sw *sw, struct sw_port *p, struct pof_io_buf *b, uint32_t len);
/* pof_switch.c: sends b out of port id `port` with colour c from meter meter_id (0 = none), through the port's
 * scheduler if it is rated. */
void sw_enqueue_tx(struct pof_sw *sw, uint16_t port, struct pof_io_buf *b, uint32_t len, enum pof_color c,
                   uint32_t meter_id, uint64_t now);

/* Holds b, beyond meter meter_id's peak rate (or behind others that are), in the meter's shaping queue; dropped
 * when that is full. Released and coloured by sw_shape_release. */
void sw_shape_hold(struct pof_sw *sw, uint32_t meter_id, uint16_t port, struct pof_io_buf *b, uint32_t len);
/* A rated port's share of sw_enqueue_tx. */
void sw_shape_rated(struct pof_sw *sw, struct sw_port *p, struct pof_io_buf *b, uint32_t len, enum pof_color c,
                    uint32_t meter_id, uint64_t now);
/* Releases what the meters' and rated ports' buckets allow now; returns the number of packets released. */
uint32_t sw_shape_release(struct pof_sw *sw, uint64_t now);
/* Nanoseconds until a held packet may leave, or UINT64_MAX if none is held. */
uint64_t sw_shape_next_ns(struct pof_sw *sw, uint64_t now);
/* Splits port arguments into the backend's part (dev, comma-separated items as given) and the switch's own items
 * rate=KBPS (0 if absent) and id=N (the port number asked for, 0 if absent). Returns 0, or -1 with err. */
int sw_split_port_args(const char *args, char *dev, size_t devlen, uint32_t *kbps, int *port_id, char *err,
                       size_t errlen);
/* Port p is going away: frees what its scheduler holds, and what meter queues hold for it when they reach it. */
void sw_shape_port_gone(struct pof_sw *sw, struct sw_port *p);
/* Frees every held packet and queue. */
void sw_shape_fini(struct pof_sw *sw);

#endif
