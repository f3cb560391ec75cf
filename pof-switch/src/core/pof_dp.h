/* The forwarding core: flow tables, the instruction/action interpreter, meters and counters.
 * No I/O here. The owner calls the *_mod functions and pof_dp_process from one thread, so a packet never
 * sees half an edit (control messages are applied between bursts). */
#ifndef POF_DP_H
#define POF_DP_H

#include <stdbool.h>
#include <stdint.h>

#include "pof_meter.h"
#include "pof_wire.h"

/* Table resources per type, as announced in RESOURCE_REPORT (reference defaults). */
#define POF_TABLES_MM 10
#define POF_TABLES_LPM 10
#define POF_TABLES_EM 5
#define POF_TABLES_LINEAR 20
#define POF_TABLES_TOTAL (POF_TABLES_MM + POF_TABLES_LPM + POF_TABLES_EM + POF_TABLES_LINEAR)
#define POF_TABLE_MAX_SIZE 8000
#define POF_KEY_MAX_WORDS 8 /* keys of up to 8 fields of <= 64 bits (a field over 64 bits counts twice) */
#define POF_COUNTERS 512
#define POF_METERS 256
#define POF_GROUPS 0 /* no groups: GROUP_MOD is refused (pof_dp_group_mod) */
#define POF_METADATA_BYTES 32
#define POF_FLOOD_PORT 255
#define POF_MAX_PORTS 254

/* A packet handed to the pipeline. data may grow by up to `room` bytes (ADD_FIELD) and shrink (DELETE_FIELD). */
struct pof_pkt {
    uint8_t *data;
    uint32_t len;
    uint32_t room; /* writable bytes after data + len */
    uint16_t in_port;
};

enum pof_verdict_kind { POF_V_DROP = 0, POF_V_OUTPUT, POF_V_FLOOD };

struct pof_verdict {
    enum pof_verdict_kind kind;
    uint16_t out_port;
    uint16_t out_offset;   /* bytes stripped from the front on output (OUTPUT packet_offset) */
    uint32_t meter_id;     /* 0 = unmetered */
    bool to_controller;    /* PACKET_IN action fired */
    uint8_t packet_in_reason;
    uint8_t table_id;      /* global id of the last table that matched (for PACKET_IN) */
};

struct pof_dp;

struct pof_dp *pof_dp_create(void);
void pof_dp_destroy(struct pof_dp *dp);

/* Control-plane edits. Return 0, or -1 with err set to the reference's ERROR type/code. */
int pof_dp_table_mod(struct pof_dp *dp, const struct pof_table_mod *tm, struct pof_status *err);
int pof_dp_flow_mod(struct pof_dp *dp, const struct pof_flow_mod *fm, struct pof_status *err);
int pof_dp_meter_mod(struct pof_dp *dp, const struct pof_meter_mod *mm, struct pof_status *err);
/* COUNTER_MOD (ADD/DEL/CLEAR) when is_request is false; COUNTER_REQUEST fills c->packets/bytes when true. */
int pof_dp_counter(struct pof_dp *dp, struct pof_counter *c, bool is_request, struct pof_status *err);
/* GROUP_MOD: always refused, as the reference refuses a group beyond the POF_GROUPS it announced (0). */
int pof_dp_group_mod(struct pof_dp *dp, const struct pof_group_mod *gm, struct pof_status *err);
/* Back to the state of pof_dp_create: no tables, flows, meters or counters. The statistics stay (they are the
 * switch's diagnostics, not controller state). Used by --reset-on-connect. */
void pof_dp_reset(struct pof_dp *dp);
/* Validates an action list outside a flow (PACKET_OUT); defined with the actions, in pof_action.c. */
int pof_dp_check_actions(const struct pof_action *acts, int n, struct pof_status *err);

/* Runs the pipeline from table 0 (MM 0). */
void pof_dp_process(struct pof_dp *dp, struct pof_pkt *pkt, struct pof_verdict *v);
/* Runs an action list only (PACKET_OUT). */
void pof_dp_apply_actions(struct pof_dp *dp, struct pof_pkt *pkt, const struct pof_action *acts, int n,
                          struct pof_verdict *v);

/* Meters (pof_meter.h): colours a packet of `bytes` through meter meter_id and takes its tokens. GREEN =
 * within the committed rate, YELLOW = within the peak rate only (or a single-rate meter, or no such meter),
 * RED = beyond the peak: nothing taken; the caller holds it in the meter's shaping queue and retries once
 * pof_dp_meter_wait_ns says the peak bucket has room. */
enum pof_color pof_dp_meter_color(struct pof_dp *dp, uint32_t meter_id, uint32_t bytes, uint64_t now_ns);
/* Nanoseconds until `bytes` fit the meter's peak bucket (0 if now). */
uint64_t pof_dp_meter_wait_ns(struct pof_dp *dp, uint32_t meter_id, uint32_t bytes, uint64_t now_ns);

/* Walks the installed state in the form it was given (QUERYALL): tables, then flows, then meters. */
struct pof_dp_dump_ops {
    void (*table)(void *arg, const struct pof_table_mod *tm);
    void (*flow)(void *arg, const struct pof_flow_mod *fm);
    void (*meter)(void *arg, const struct pof_meter_mod *mm);
};
void pof_dp_dump(const struct pof_dp *dp, const struct pof_dp_dump_ops *ops, void *arg);

/* Statistics for tests and the management socket. */
struct pof_dp_stats { uint64_t processed, table_miss, dropped, short_field; };
void pof_dp_get_stats(const struct pof_dp *dp, struct pof_dp_stats *s);
int pof_dp_table_count(const struct pof_dp *dp);
int pof_dp_flow_count(const struct pof_dp *dp);

/* Global table id of (type, per-type index), or -1. */
int pof_dp_global_table_id(uint8_t type, uint8_t tid);

#endif
