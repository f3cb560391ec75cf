/* Internal to the controller connection, which is two files: pof_conn.c (socket, framing, the handshake) and
 * pof_conn_msg.c (the messages the switch sends and the handlers of the controller's). */
#ifndef POF_CONN_INT_H
#define POF_CONN_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pof_conn.h"
#include "pof_wire.h"

#define IN_CAP (2 * 65536)
#define OUT_CAP (4 * 1024 * 1024)

/* Handshake states, in the order the reference requires. */
enum conn_state {
    ST_IDLE,            /* not connected; next attempt at retry_at */
    ST_CONNECTING,
    ST_WAIT_HELLO,
    ST_WAIT_FEATURES_REQUEST,
    ST_WAIT_SET_CONFIG,
    ST_WAIT_GET_CONFIG_REQUEST,
    ST_READY,
    ST_CLOSING,         /* a protocol error: what is queued goes out, then the socket closes (conn_linger) */
};

struct pof_conn {
    const struct pof_sw_cb *sw;
    struct pof_ctl_addr addrs[POF_MAX_CONTROLLERS];
    int n_addrs;
    int cur;                /* the controller dialled now (index into addrs) */
    int failed_in_round;    /* controllers that failed since the last session or backoff: all of them = back off */
    uint64_t timeout_ns;    /* liveness: see pof_conn_create */
    uint64_t connected_at;  /* when the TCP connection was established (the handshake's deadline counts from it) */
    uint64_t last_rx;       /* when the last whole message arrived */
    uint64_t echo_sent_at;  /* when the switch last asked "are you there" (ECHO_REQUEST) */
    int fd;
    enum conn_state state;
    uint64_t retry_at, backoff;
    uint64_t close_at;      /* ST_CLOSING: closes by then whatever is left */
    const char *close_why;  /* ST_CLOSING: the protocol error, for the log */
    bool shut;              /* ST_CLOSING: the write side is shut (everything queued was handed to TCP) */
    uint16_t config_flags, miss_send_len; /* from SET_CONFIG, reported by GET_CONFIG_REPLY */
    uint32_t in_len;
    size_t out_len;
    uint8_t in[IN_CAP];
    uint8_t *out;
    struct pof_msg msg; /* decode scratch: large, so not on the stack */
    uint8_t scratch[65536];
};

/* pof_conn.c: queues one message for the controller (dropped while not connected; on overflow the connection
 * is closed rather than losing messages silently). */
void conn_send(struct pof_conn *c, const struct pof_msg *m);
void conn_send_simple(struct pof_conn *c, uint8_t type, uint32_t xid);
void conn_send_error(struct pof_conn *c, uint32_t xid, uint16_t type, uint16_t code, const char *why);

/* pof_conn_msg.c: what the handshake answers and sends on its way. */
void conn_on_echo(struct pof_conn *c, const struct pof_msg *m);
void conn_on_features_request(struct pof_conn *c, const struct pof_msg *m);
void conn_on_set_config(struct pof_conn *c, const struct pof_msg *m);
void conn_on_get_config(struct pof_conn *c, const struct pof_msg *m);
void conn_send_resource_report(struct pof_conn *c, uint32_t xid);
void conn_send_all_ports(struct pof_conn *c, uint32_t xid);
/* pof_conn_msg.c: handles a message of the READY state; false if its type has no handler. */
bool conn_dispatch(struct pof_conn *c, const struct pof_msg *m);

#endif
