/* Instructions and actions: one table of ops per type, indexed by the wire's type number (the way DPDK's
 * lib/table and lib/port put each table or port type behind one ops struct). An instruction or action is one
 * block in pof_instr.c or pof_action.c: how its body is laid out on the wire (decode, encode, used by
 * pof_codec.c), what a flow may ask of it (check, used by pof_dp.c before a FLOW_MOD or PACKET_OUT is
 * applied) and what it does to a packet (exec, used by the pipeline in pof_dp.c). Nothing outside those two
 * files and the three callers switches on an instruction or action type. */
#ifndef POF_INSTR_H
#define POF_INSTR_H

#include <stdbool.h>
#include <stdint.h>

#include "bits.h"
#include "pof_dp.h"
#include "pof_wire.h"

/* What running one instruction or action leaves the pipeline to do. */
enum pof_step {
    POF_STEP_NEXT = 0, /* go on with the next one */
    POF_STEP_GOTO,     /* a GOTO chose the next table (pof_exec.next_table, .direct, .direct_index) */
    POF_STEP_DROP,     /* the packet is finished: the verdict says what happens to it */
    POF_STEP_MISS,     /* the lookup cannot go on (a GOTO_DIRECT_TABLE index past the packet): a table miss */
};

/* A counter, addressed by COUNTER_MOD, a flow's counter_id and the COUNTER action. */
struct pof_counter_slot { bool in_use; uint64_t packets, bytes; };

/* One packet on its way through the pipeline (or a PACKET_OUT's action list), as instructions and actions
 * see it. They touch nothing else of the core: the pipeline turns a GOTO into the next table itself. */
struct pof_exec {
    struct pof_pkt *pkt;
    uint32_t off;                      /* current packet offset in bytes (GOTO packet_offset moves it) */
    uint8_t md[POF_METADATA_BYTES];
    struct pof_verdict *v;
    struct pof_dp_stats *stats;        /* short_field: a field that lies past the packet */
    struct pof_counter_slot *counters; /* POF_COUNTERS of them */
    uint8_t next_table;                /* set with POF_STEP_GOTO: the global table id */
    bool direct;                       /*   ... looked up by index (GOTO_DIRECT_TABLE), not by key */
    uint32_t direct_index;
};

struct pof_instr_ops {
    /* The body (the bytes after type, len and the pad, POF_INS_SIZE - 8) into in->u; -1 with err if the
     * wire's values cannot be held. NULL: the instruction has no body the switch reads. */
    int (*decode)(const uint8_t *body, struct pof_instruction *in, struct pof_status *err);
    /* in->u into the body, which the caller has zeroed. NULL: nothing to write. */
    void (*encode)(uint8_t *body, const struct pof_instruction *in);
    /* May a flow carry it? 0, or -1 with err (the reference's ERROR). NULL: anything the codec took. */
    int (*check)(const struct pof_instruction *in, struct pof_status *err);
    /* Runs it. NULL: the codec knows it, the core does not run it, so a FLOW_MOD with it is refused
     * (BAD_INSTRUCTION / UNSUP_INST). */
    enum pof_step (*exec)(struct pof_exec *x, const struct pof_instruction *in);
};

struct pof_action_ops {
    /* As for instructions; an action's body is the POF_ACTION_SIZE - 4 bytes after type and len. */
    int (*decode)(const uint8_t *body, struct pof_action *a, struct pof_status *err);
    void (*encode)(uint8_t *body, const struct pof_action *a);
    int (*check)(const struct pof_action *a, struct pof_status *err);
    /* Returns POF_STEP_NEXT or POF_STEP_DROP. NULL: refused in flows and PACKET_OUT (BAD_ACTION / BAD_TYPE). */
    enum pof_step (*exec)(struct pof_exec *x, const struct pof_action *a);
};

/* The tables (pof_instr.c, pof_action.c); a type without an entry is unknown to the codec as well. */
extern const struct pof_instr_ops *const pof_instr_table[POFIT_TYPES];
extern const struct pof_action_ops *const pof_action_table[POFAT_TYPES];

static inline const struct pof_instr_ops *pof_instr_find(uint16_t type)
{
    return type < POFIT_TYPES ? pof_instr_table[type] : NULL;
}

static inline const struct pof_action_ops *pof_action_find(uint16_t type)
{
    return type < POFAT_TYPES ? pof_action_table[type] : NULL;
}

/* One instruction (POF_INS_SIZE bytes) or action (POF_ACTION_SIZE bytes) on the wire: the header (type, len,
 * checked here), then the body through the type's ops. Decoding an unknown type fails. */
int pof_instr_decode(const uint8_t *p, struct pof_instruction *in, struct pof_status *err);
void pof_instr_encode(uint8_t *p, const struct pof_instruction *in);
int pof_action_decode(const uint8_t *p, struct pof_action *a, struct pof_status *err);
void pof_action_encode(uint8_t *p, const struct pof_action *a);

/* 0 if a flow may carry the instruction, else -1 with err (a type the core does not run included). Action
 * lists are checked by pof_dp_check_actions (pof_dp.h, defined in pof_action.c). */
int pof_instr_check(const struct pof_instruction *in, struct pof_status *err);

/* Runs one instruction of an installed (so checked) flow. */
static inline enum pof_step pof_instr_exec(struct pof_exec *x, const struct pof_instruction *in)
{
    const struct pof_instr_ops *ops = pof_instr_find(in->type);
    return ops && ops->exec ? ops->exec(x, in) : POF_STEP_NEXT;
}

/* Runs an action list; false when an action finished the packet (DROP, or an OUTPUT whose port field lies
 * past the packet). */
bool pof_run_actions(struct pof_exec *x, const struct pof_action *acts, int n);

/* ---- helpers shared by the checks and the exec functions ---------------------------------------- */

/* A match field a flow may name: 1-128 bits of the packet, or of the metadata within its 32 bytes. */
static inline bool pof_field_ok(const struct pof_match *m)
{
    if (m->len == 0 || m->len > POF_FIELD_BYTES * 8)
        return false;
    if (m->field_id == POF_METADATA_FIELD)
        return (uint32_t)m->offset + m->len <= POF_METADATA_BYTES * 8;
    return !(m->field_id & 0x8000) || m->field_id == POF_METADATA_FIELD;
}

/* Reads a field relative to the current offset (packet) or the metadata. */
static inline bool pof_read_field(const struct pof_exec *x, const struct pof_match *m, uint8_t *out)
{
    if (m->field_id == POF_METADATA_FIELD)
        return pof_bits_get(x->md, sizeof(x->md), m->offset, m->len, out);
    if (x->off > x->pkt->len)
        return false;
    return pof_bits_get(x->pkt->data + x->off, x->pkt->len - x->off, m->offset, m->len, out);
}

static inline bool pof_write_field(struct pof_exec *x, const struct pof_match *m, const uint8_t *val,
                                   const uint8_t *mask)
{
    if (m->field_id == POF_METADATA_FIELD)
        return pof_bits_set(x->md, sizeof(x->md), m->offset, m->len, val, mask);
    if (x->off > x->pkt->len)
        return false;
    return pof_bits_set(x->pkt->data + x->off, x->pkt->len - x->off, m->offset, m->len, val, mask);
}

/* A left-aligned field of len (1-32) bits as a number, and back. */
static inline uint32_t pof_field_to_u32(const uint8_t *v, uint16_t len)
{
    uint32_t x = 0;
    for (uint16_t i = 0; i < (len + 7) / 8; i++)
        x = x << 8 | v[i];
    return x >> ((8 - len % 8) % 8);
}

static inline void pof_u32_to_field(uint32_t x, uint16_t len, uint8_t *v)
{
    x <<= (8 - len % 8) % 8;
    for (int i = (len + 7) / 8 - 1; i >= 0; i--, x >>= 8)
        v[i] = (uint8_t)x;
}

static inline void pof_count(struct pof_counter_slot *counters, uint32_t id, uint32_t bytes)
{
    if (id && id < POF_COUNTERS) {
        counters[id].packets++;
        counters[id].bytes += bytes;
    }
}

#endif
