/* Residence time per output port (pof_lat.h): from the receive time of a packet's rx burst (one clock read per
 * burst, sw->rx_ns) to its hand-off to the port's backend (one clock read per tx burst, or per latency packet,
 * which leaves alone). Kept per class: latency packets (sent at once) and the rest. Lives in the shell, so both
 * backends have it. Internal to pof_switch.c, pof_shape.c and pof_switch_cb.c. */
#ifndef POF_PORTLAT_H
#define POF_PORTLAT_H

#include "pof_lat.h"
#include "pof_switch.h"

/* A port's histograms, zeroed (NULL when out of memory). Freed with free(). */
struct pof_lat *sw_lat_create(void);

/* The first `sent` packets of p's tx burst were handed to the backend (class: not latency). */
static inline void sw_lat_sent(struct pof_sw *sw, struct sw_port *p, uint16_t sent)
{
    uint64_t t = sw->clock();
    pof_lat_rotate(p->lat, t);
    for (uint16_t i = 0; i < sent; i++)
        pof_lat_add(p->lat, POF_LAT_OTHER, t > p->tx_rx_ns[i] ? t - p->tx_rx_ns[i] : 0);
}

/* A latency packet received at sw->rx_ns was handed to p's backend alone. */
static inline void sw_lat_sent_now(struct pof_sw *sw, struct sw_port *p)
{
    uint64_t t = sw->clock();
    pof_lat_rotate(p->lat, t);
    pof_lat_add(p->lat, POF_LAT_LATENCY, t > sw->rx_ns ? t - sw->rx_ns : 0);
}

#endif
