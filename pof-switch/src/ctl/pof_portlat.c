/* Residence time per output port (see pof_portlat.h). */
#include "pof_portlat.h"

#include <stdlib.h>

struct pof_lat *sw_lat_create(void)
{
    return calloc(1, sizeof(struct pof_lat));
}

void pof_sw_port_residence(struct pof_sw *sw, uint16_t id, struct pof_port_latency *out)
{
    struct sw_port *p = &sw->ports[id];
    *out = (struct pof_port_latency){.port_no = id};
    if (!p->in_use || !p->lat)
        return;
    uint64_t now = sw->clock();
    for (int c = 0; c < POF_LAT_CLASSES; c++) {
        struct pof_lat_summary s;
        pof_lat_read(p->lat, now, c, &s);
        out->cls[c] = (struct pof_port_latency_class){s.packets, s.p50_ns, s.p99_ns, s.max_ns};
    }
}
