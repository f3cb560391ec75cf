/* The switch as the controller connection (pof_conn.c) and the management socket (pof_mgmt.c) see it: a few
 * values and callbacks that pof_switch.c fills in. They include this header, not pof_switch.h, and not each
 * other: the switch owns them and calls into them, they call back only through here. */
#ifndef POF_SW_CB_H
#define POF_SW_CB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pof_wire.h"

struct pof_dp;
struct pof_sched;

/* One port, as read by cb->port. The pointers stay valid until the port is removed. */
struct pof_sw_port_info {
    uint16_t id;
    bool enabled;
    const char *name;
    const uint8_t *mac;                 /* 6 bytes */
    uint64_t rx_packets, tx_packets, rx_bytes, tx_bytes, tx_dropped;
    const struct pof_sched *sched;      /* a rated port's scheduler (pof_sched.h), NULL at line rate */
};

struct pof_sw_cb {
    void *sw;                           /* handed back to every callback */
    struct pof_dp *dp;                  /* the forwarding core: edits and statistics go straight to it */
    uint32_t dev_id;
    const char *backend;                /* the I/O backend's name (FEATURES_REPLY) */

    /* Port id (1..POF_MAX_PORTS) into *out; false if no port has that id. */
    bool (*port)(void *sw, uint16_t id, struct pof_sw_port_info *out);
    /* The id of the port called name, or 0. */
    uint16_t (*port_by_name)(void *sw, const char *name);
    /* As pof_sw_port_add / pof_sw_port_del / pof_sw_port_rate (pof_switch.h). */
    int (*port_add)(void *sw, const char *name, const char *args, char *err, size_t errlen);
    int (*port_del)(void *sw, const char *name, char *err, size_t errlen);
    int (*port_rate)(void *sw, uint16_t id, uint32_t kbps, char *err, size_t errlen);
    /* PORT_MOD's of_enable; the management socket's `latency`. id is a port's. */
    void (*port_enable)(void *sw, uint16_t id, bool on);
    void (*port_latency)(void *sw, uint16_t id, bool on);
    /* Port id's counters in the wire's terms (MULTIPART port stats). */
    void (*port_stats)(void *sw, uint16_t id, uint64_t now_ns, struct pof_port_stats *out);
    /* Port id's residence time per class over the last 1-2 s (pof_lat.h; MULTIPART PORT_LATENCY). */
    void (*port_residence)(void *sw, uint16_t id, struct pof_port_latency *out);
    /* Runs a PACKET_OUT whose actions have been checked. */
    void (*packet_out)(void *sw, const struct pof_packet_out *po);
    /* PACKET_INs handed to the connection so far. */
    uint64_t (*packet_in_sent)(void *sw);
    /* A controller session has begun (its HELLO arrived): the switch applies its on-connect policy. */
    void (*session_start)(void *sw);
    /* The on-connect policy ("keep" or "reset", spec/pof "Controller sessions"): set to name unless name is
     * NULL. Returns the policy's name, or NULL if name names none (nothing changed). */
    const char *(*on_connect)(void *sw, const char *name);
    /* A probe command (probe-start, probe-stats, probe-stop) on port name, args the rest of its line: writes the
     * reply line into out (pof_probe_sw.h). */
    void (*probe)(void *sw, const char *cmd, const char *name, const char *args, char *out, size_t outlen);
};

#endif
