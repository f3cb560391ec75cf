/* The switch: ports, the forwarding core, shaping queues, the controller connection and the management
 * socket, driven by one run loop. Everything runs on one thread: control messages are applied between
 * bursts, which is what makes table edits atomic for packets. */
#ifndef POF_SWITCH_H
#define POF_SWITCH_H

#include <stdbool.h>
#include <stdint.h>

#include "pof_clock.h"
#include "pof_dp.h"
#include "pof_io.h"
#include "pof_ctladdr.h"
#include "pof_sw_cb.h"

#define SW_BURST POF_IO_BURST_MAX
#define SW_QUEUE_SLOTS 256 /* shaping queue per meter */

struct pof_conn;
struct pof_lat;
struct pof_mgmt;
struct pof_sched;
struct sw_probe;

struct sw_port {
    bool in_use;
    bool enabled;       /* of_enable from PORT_MOD; ports start disabled, as in the reference */
    bool latency_mode;  /* burst size 1, flushed at once, and the loop never sleeps */
    uint16_t id;        /* POF port id, from 1 */
    char name[64];
    uint8_t mac[6];
    struct pof_io_port *io;
    struct pof_sched *sched; /* a rated port (pof_sched.h: green first, at its rate); NULL = line rate */
    uint8_t probes;     /* probe sessions on this port (pof_probe_sw.h): its tx frames are shown to them */
    /* Counters since the port was added (MULTIPART port stats, the management socket's `ports`). rx counts
     * every frame taken from the port, rx_dropped those of them discarded because the port is disabled;
     * tx counts frames the backend accepted, tx_dropped those it refused (and, on a rated port, those its
     * green or best-effort queue had no room for). Bytes are frame lengths as seen by
     * the switch (Ethernet header on, no FCS), after the pipeline's edits for tx. */
    uint64_t rx_packets, tx_packets, rx_bytes, tx_bytes, rx_dropped, tx_dropped;
    uint64_t added_ns;  /* pof_now_ns() when the port was added */
    uint16_t tx_n;
    uint32_t tx_pending_bytes;   /* sum of tx_len[0..tx_n) */
    struct pof_io_buf *tx_buf[SW_BURST];
    uint32_t tx_len[SW_BURST];
    uint64_t tx_rx_ns[SW_BURST]; /* receive time of each held packet (residence, pof_portlat.c) */
    struct pof_lat *lat;         /* residence time of what left, per class (pof_lat.h) */
};

struct sw_queued { struct pof_io_buf *buf; uint16_t port; uint32_t len; uint64_t rx_ns; };
struct sw_meter_queue { uint32_t head, n, bytes; struct sw_queued slot[SW_QUEUE_SLOTS]; };

/* What a new controller session does to the state the previous one left (index into sw_on_connect_policies,
 * pof_switch_cb.c). KEEP is the default: a slice's traffic survives a controller restart. */
enum sw_on_connect { SW_ON_CONNECT_KEEP = 0, SW_ON_CONNECT_RESET, SW_ON_CONNECT_POLICIES };

struct sw_config {
    struct pof_ctl_addr controllers[POF_MAX_CONTROLLERS]; /* dialled in order; none (0) = no controller */
    int n_controllers;
    const char *mgmt_path;       /* unix socket for port add/remove; NULL = none */
    uint32_t dev_id;
    bool busy_poll;              /* never sleep (the reference point for adaptive polling) */
    bool all_ports_enabled;      /* start ports enabled (standalone tests without a controller) */
    uint32_t max_sleep_us;       /* adaptive polling: longest sleep when idle */
    enum sw_on_connect on_connect; /* --reset-on-connect; the management socket's `on-connect` changes it */
    uint32_t controller_timeout_s; /* --controller-timeout: see pof_conn_create (0 = its default, 15 s) */
};

struct pof_sw {
    struct sw_config cfg;
    const struct pof_io_ops *io;
    struct pof_dp *dp;
    struct sw_port ports[POF_MAX_PORTS + 1]; /* index = port id */
    struct sw_meter_queue *queues[POF_METERS];
    uint16_t queue_ids[POF_METERS];          /* meters that have a shaping queue, so rounds skip the rest */
    uint16_t n_queues;
    uint16_t active[POF_MAX_PORTS];          /* ids of ports in use, in id order */
    uint16_t n_active;
    uint16_t rated[POF_MAX_PORTS];           /* ids of rated ports (sched set), so rounds skip the rest */
    uint16_t n_rated;
    uint32_t poll_rounds;                    /* with rated ports: the rx order of a round rotates by it */
    struct sw_probe *probes[8];              /* latency probe sessions (pof_probe_sw.h, SW_PROBES) */
    uint8_t n_probes;
    struct pof_sw_cb cb;                     /* the switch as conn and mgmt see it (pof_switch_cb.c) */
    struct pof_conn *conn;
    struct pof_mgmt *mgmt;
    uint32_t idle_rounds;
    uint64_t packet_in_sent;
    /* Residence time (pof_portlat.c): the receive time of the packet being handed on (read once per rx burst),
     * and the clock it is read from (pof_now_ns; tests put their fake clock here). */
    uint64_t rx_ns;
    uint64_t (*clock)(void);
    volatile int quit;
};

int pof_sw_init(struct pof_sw *sw, const struct sw_config *cfg, const struct pof_io_ops *io);
void pof_sw_fini(struct pof_sw *sw);

/* Adds a port (reported to the controller by PORT_STATUS ADD). args are the backend's, plus an optional
 * comma-separated item rate=KBPS (taken out before the backend sees them): "eth1,rate=20000", "rate=20000"
 * (AF_PACKET: the netdev is then the name), "net_af_packet0,iface=eth0,rate=20000". Returns the port id, or -1
 * with err. */
int pof_sw_port_add(struct pof_sw *sw, const char *name, const char *args, char *err, size_t errlen);
int pof_sw_port_del(struct pof_sw *sw, const char *name, char *err, size_t errlen);
struct sw_port *pof_sw_port_by_name(struct pof_sw *sw, const char *name);
/* Sets port p's rate in kbit/s (0 = line rate: what it holds is sent at once). Returns 0, or -1 with err. */
int pof_sw_port_rate(struct pof_sw *sw, struct sw_port *p, uint32_t kbps, char *err, size_t errlen);

/* Fills out with the counters of port id (in use), in the wire's terms; now_ns gives the duration. */
void pof_sw_port_stats(const struct pof_sw *sw, uint16_t id, uint64_t now_ns, struct pof_port_stats *out);

/* Sends raw bytes out of a port (PACKET_OUT without actions); false if the port is unknown or busy. */
bool pof_sw_send(struct pof_sw *sw, uint16_t port, const uint8_t *data, uint32_t len);
/* Runs a PACKET_OUT: actions over data, then output as they say. */
void pof_sw_packet_out(struct pof_sw *sw, const struct pof_packet_out *po);

/* One round: every port's rx burst through the pipeline, shaping queues released, tx flushed.
 * Returns the number of packets handled. */
uint32_t pof_sw_poll_once(struct pof_sw *sw, uint64_t now_ns);
/* Runs until sw->quit: poll rounds, control and management messages, adaptive sleep when idle. */
void pof_sw_run(struct pof_sw *sw);

/* pof_portlat.c: port id's residence time per class (the wire's PORT_LATENCY entry, spec/pof). */
void pof_sw_port_residence(struct pof_sw *sw, uint16_t id, struct pof_port_latency *out);

/* pof_switch_cb.c: fills sw->cb (its callbacks are the pof_sw_* functions above, and a few port setters). */
void pof_sw_cb_init(struct pof_sw *sw);
/* pof_switch_cb.c: a controller session has begun; applies sw->cfg.on_connect. */
void pof_sw_session_start(struct pof_sw *sw);
/* pof_switch_cb.c: port p as the controller connection and the management socket see it. */
void pof_sw_port_info(const struct sw_port *p, struct pof_sw_port_info *out);

#endif
