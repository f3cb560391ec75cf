/* The switch's side of pof_sw_cb.h: what the controller connection and the management socket may read and do.
 * Each callback is a thin adapter onto the switch; they exist so that pof_conn.c and pof_mgmt.c need neither
 * struct pof_sw nor pof_switch.h. */
#include "pof_switch.h"

#include <stdio.h>

void pof_sw_port_info(const struct sw_port *p, struct pof_sw_port_info *out)
{
    *out = (struct pof_sw_port_info){
        .id = p->id, .enabled = p->enabled, .name = p->name, .mac = p->mac,
        .rx_packets = p->rx_packets, .tx_packets = p->tx_packets, .rx_bytes = p->rx_bytes, .tx_bytes = p->tx_bytes,
        .tx_dropped = p->tx_dropped, .sched = p->sched,
    };
}

/* The port with this id, or NULL (ids come from the controller: any number). */
static struct sw_port *port_of(struct pof_sw *sw, uint16_t id)
{
    return id >= 1 && id <= POF_MAX_PORTS && sw->ports[id].in_use ? &sw->ports[id] : NULL;
}

static bool cb_port(void *sw, uint16_t id, struct pof_sw_port_info *out)
{
    const struct sw_port *p = port_of(sw, id);
    if (p)
        pof_sw_port_info(p, out);
    return p != NULL;
}

static uint16_t cb_port_by_name(void *sw, const char *name)
{
    const struct sw_port *p = pof_sw_port_by_name(sw, name);
    return p ? p->id : 0;
}

static int cb_port_add(void *sw, const char *name, const char *args, char *err, size_t errlen)
{
    return pof_sw_port_add(sw, name, args, err, errlen);
}

static int cb_port_del(void *sw, const char *name, char *err, size_t errlen)
{
    return pof_sw_port_del(sw, name, err, errlen);
}

static int cb_port_rate(void *sw, uint16_t id, uint32_t kbps, char *err, size_t errlen)
{
    struct sw_port *p = port_of(sw, id);
    if (!p) {
        snprintf(err, errlen, "no port %u", id);
        return -1;
    }
    return pof_sw_port_rate(sw, p, kbps, err, errlen);
}

static void cb_port_enable(void *sw, uint16_t id, bool on)
{
    struct sw_port *p = port_of(sw, id);
    if (p)
        p->enabled = on;
}

static void cb_port_latency(void *sw, uint16_t id, bool on)
{
    struct sw_port *p = port_of(sw, id);
    if (p)
        p->latency_mode = on;
}

static void cb_port_stats(void *sw, uint16_t id, uint64_t now_ns, struct pof_port_stats *out)
{
    pof_sw_port_stats(sw, id, now_ns, out);
}

static void cb_packet_out(void *sw, const struct pof_packet_out *po)
{
    pof_sw_packet_out(sw, po);
}

static uint64_t cb_packet_in_sent(void *sw)
{
    return ((const struct pof_sw *)sw)->packet_in_sent;
}

void pof_sw_cb_init(struct pof_sw *sw)
{
    sw->cb = (struct pof_sw_cb){
        .sw = sw,
        .dp = sw->dp,
        .dev_id = sw->cfg.dev_id,
        .backend = sw->io->name,
        .port = cb_port,
        .port_by_name = cb_port_by_name,
        .port_add = cb_port_add,
        .port_del = cb_port_del,
        .port_rate = cb_port_rate,
        .port_enable = cb_port_enable,
        .port_latency = cb_port_latency,
        .port_stats = cb_port_stats,
        .packet_out = cb_packet_out,
        .packet_in_sent = cb_packet_in_sent,
    };
}
