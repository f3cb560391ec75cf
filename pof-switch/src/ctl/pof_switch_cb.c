/* The switch's side of pof_sw_cb.h: what the controller connection and the management socket may read and do.
 * Each callback is a thin adapter onto the switch; they exist so that pof_conn.c and pof_mgmt.c need neither
 * struct pof_sw nor pof_switch.h. */
#include "pof_switch.h"

#include <stdio.h>
#include <string.h>

#include "pof_probe_sw.h"

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

void pof_sw_port_stats(const struct pof_sw *sw, uint16_t id, uint64_t now, struct pof_port_stats *out)
{
    const struct sw_port *p = &sw->ports[id];
    uint64_t up = now > p->added_ns ? now - p->added_ns : 0;
    /* No error, frame, overrun, CRC or collision counts are kept: those stay 0. */
    *out = (struct pof_port_stats){
        .port_no = id, /* slot 0 */
        .rx_packets = p->rx_packets, .tx_packets = p->tx_packets,
        .rx_bytes = p->rx_bytes, .tx_bytes = p->tx_bytes,
        .rx_dropped = p->rx_dropped, .tx_dropped = p->tx_dropped,
        .duration_sec = (uint32_t)(up / 1000000000u), .duration_nsec = (uint32_t)(up % 1000000000u),
    };
}

static void cb_port_stats(void *sw, uint16_t id, uint64_t now_ns, struct pof_port_stats *out)
{
    pof_sw_port_stats(sw, id, now_ns, out);
}

static void cb_port_residence(void *sw, uint16_t id, struct pof_port_latency *out)
{
    pof_sw_port_residence(sw, id, out);
}

static void cb_packet_out(void *sw, const struct pof_packet_out *po)
{
    pof_sw_packet_out(sw, po);
}

static uint64_t cb_packet_in_sent(void *sw)
{
    return ((const struct pof_sw *)sw)->packet_in_sent;
}

/* ---- on-connect policies: what a new controller session does to the state the last one left ---------- */

/* KEEP: tables, flows, meters, counters and ports' of_enable stay; a controller reconciles them (QUERYALL). */
static void keep_state(struct pof_sw *sw)
{
    (void)sw;
}

/* RESET: the state of a freshly started switch, as the reference clears its resources when a controller says
 * HELLO: no tables, flows, meters or counters, and every port disabled until PORT_MOD (unless --enable-ports,
 * where ports never wait for a controller). Ports themselves, their rates and counters are the switch's own. */
static void reset_state(struct pof_sw *sw)
{
    pof_dp_reset(sw->dp);
    for (int i = 1; i <= POF_MAX_PORTS; i++)
        if (sw->ports[i].in_use)
            sw->ports[i].enabled = sw->cfg.all_ports_enabled;
}

static const struct sw_on_connect_policy {
    const char *name;
    void (*session_start)(struct pof_sw *sw);
} sw_on_connect_policies[SW_ON_CONNECT_POLICIES] = {
    [SW_ON_CONNECT_KEEP] = {"keep", keep_state},
    [SW_ON_CONNECT_RESET] = {"reset", reset_state},
};

void pof_sw_session_start(struct pof_sw *sw)
{
    const struct sw_on_connect_policy *p = &sw_on_connect_policies[sw->cfg.on_connect];
    fprintf(stderr, "pofswitch: controller session: %s state\n", p->name);
    p->session_start(sw);
}

static void cb_session_start(void *sw)
{
    pof_sw_session_start(sw);
}

static const char *cb_on_connect(void *arg, const char *name)
{
    struct pof_sw *sw = arg;
    if (name) {
        int i = 0;
        while (i < SW_ON_CONNECT_POLICIES && strcmp(name, sw_on_connect_policies[i].name) != 0)
            i++;
        if (i == SW_ON_CONNECT_POLICIES)
            return NULL;
        sw->cfg.on_connect = (enum sw_on_connect)i; /* from the next session on */
    }
    return sw_on_connect_policies[sw->cfg.on_connect].name;
}

static void cb_probe(void *sw, const char *cmd, const char *name, const char *args, char *out, size_t outlen)
{
    sw_probe_command(sw, cmd, name, args, out, outlen);
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
        .port_residence = cb_port_residence,
        .packet_out = cb_packet_out,
        .packet_in_sent = cb_packet_in_sent,
        .session_start = cb_session_start,
        .on_connect = cb_on_connect,
        .probe = cb_probe,
    };
}
