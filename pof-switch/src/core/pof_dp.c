/* Forwarding core: applies control edits and runs packets through the tables. */
#include "pof_dp.h"

#include <stdlib.h>
#include <string.h>

#include "bits.h"
#include "pof_meter.h"
#include "pof_table.h"

#define MAX_TABLE_HOPS 64 /* a GOTO loop cannot spin a packet forever */

struct counter { bool in_use; uint64_t packets, bytes; };

struct pof_dp {
    struct pof_table tables[POF_TABLES_TOTAL];
    struct pof_meter meters[POF_METERS];
    struct counter counters[POF_COUNTERS];
    struct pof_dp_stats stats;
};

static const uint8_t tables_per_type[POF_TABLE_TYPES] = {POF_TABLES_MM, POF_TABLES_LPM, POF_TABLES_EM,
                                                         POF_TABLES_LINEAR};

static int fail(struct pof_status *err, uint16_t type, uint16_t code, const char *why)
{
    err->type = type;
    err->code = code;
    err->why = why;
    return -1;
}

int pof_dp_global_table_id(uint8_t type, uint8_t tid)
{
    if (type >= POF_TABLE_TYPES || tid >= tables_per_type[type])
        return -1;
    int base = 0;
    for (int t = 0; t < type; t++)
        base += tables_per_type[t];
    return base + tid;
}

struct pof_dp *pof_dp_create(void)
{
    return calloc(1, sizeof(struct pof_dp));
}

void pof_dp_destroy(struct pof_dp *dp)
{
    if (!dp)
        return;
    for (int i = 0; i < POF_TABLES_TOTAL; i++)
        if (dp->tables[i].in_use)
            pof_table_free(&dp->tables[i]);
    free(dp);
}

/* ---- validation of what a flow may name ------------------------------------------------------ */

static bool field_ok(const struct pof_match *m)
{
    if (m->len == 0 || m->len > POF_FIELD_BYTES * 8)
        return false;
    if (m->field_id == POF_METADATA_FIELD)
        return (uint32_t)m->offset + m->len <= POF_METADATA_BYTES * 8;
    return !(m->field_id & 0x8000) || m->field_id == POF_METADATA_FIELD;
}

int pof_dp_check_actions(const struct pof_action *acts, int n, struct pof_status *err)
{
    for (int i = 0; i < n; i++) {
        const struct pof_action *a = &acts[i];
        switch (a->type) {
        case POFAT_OUTPUT:
            if (a->u.output.port_type > 1 || (a->u.output.port_type == 1 && !field_ok(&a->u.output.port_field)))
                return fail(err, POFET_BAD_ACTION, POFBAC_BAD_OUT_PORT, "OUTPUT port field invalid");
            if (a->u.output.port_type == 0 && (a->u.output.port_id & 0xFFFF) == 0)
                return fail(err, POFET_BAD_ACTION, POFBAC_BAD_OUT_PORT, "OUTPUT to port 0");
            break;
        case POFAT_SET_FIELD:
            if (!field_ok(&a->u.set_field.field))
                return fail(err, POFET_BAD_ACTION, POFBAC_BAD_ARGUMENT, "SET_FIELD field invalid");
            break;
        case POFAT_SET_FIELD_FROM_METADATA: {
            const struct pof_match *f = &a->u.set_from_metadata.field;
            if (!field_ok(f) || (uint32_t)a->u.set_from_metadata.metadata_offset + f->len > POF_METADATA_BYTES * 8)
                return fail(err, POFET_BAD_ACTION, POFBAC_BAD_ARGUMENT, "SET_FIELD_FROM_METADATA invalid");
            break;
        }
        case POFAT_MODIFY_FIELD:
            if (!field_ok(&a->u.modify_field.field) || a->u.modify_field.field.len > 32)
                return fail(err, POFET_BAD_ACTION, POFBAC_BAD_ARGUMENT, "MODIFY_FIELD needs a field of 1-32 bits");
            break;
        case POFAT_ADD_FIELD:
            if (a->u.add_field.tag_pos % 8 || a->u.add_field.tag_len % 8 || a->u.add_field.tag_len == 0 ||
                a->u.add_field.tag_len > POF_FIELD_BYTES * 8)
                return fail(err, POFET_BAD_ACTION, POFBAC_BAD_ARGUMENT, "ADD_FIELD needs whole bytes, 1-16");
            break;
        case POFAT_DELETE_FIELD:
            if (a->u.delete_field.len_type != 0 || a->u.delete_field.tag_pos % 8 ||
                a->u.delete_field.len_value % 8 || a->u.delete_field.len_value == 0)
                return fail(err, POFET_BAD_ACTION, POFBAC_BAD_ARGUMENT, "DELETE_FIELD needs an immediate byte length");
            break;
        case POFAT_CALC_CHECKSUM:
            if (a->u.checksum.checksum_pos_type || a->u.checksum.calc_pos_type || a->u.checksum.checksum_len != 16 ||
                a->u.checksum.checksum_pos % 8 || a->u.checksum.calc_start % 8 || a->u.checksum.calc_len % 8)
                return fail(err, POFET_BAD_ACTION, POFBAC_BAD_ARGUMENT, "CALC_CHECKSUM needs byte-aligned packet fields");
            break;
        case POFAT_COUNTER:
            if (a->u.value == 0 || a->u.value >= POF_COUNTERS)
                return fail(err, POFET_BAD_ACTION, POFBAC_BAD_ARGUMENT, "COUNTER id out of range");
            break;
        case POFAT_DROP: case POFAT_PACKET_IN:
            break;
        default: /* GROUP and anything else */
            return fail(err, POFET_BAD_ACTION, POFBAC_BAD_TYPE, "action not supported");
        }
    }
    return 0;
}

static int check_instructions(const struct pof_flow_mod *fm, struct pof_status *err)
{
    for (int i = 0; i < fm->instruction_num; i++) {
        const struct pof_instruction *in = &fm->instructions[i];
        switch (in->type) {
        case POFIT_GOTO_TABLE:
            if (in->u.goto_table.next_table_id >= POF_TABLES_TOTAL)
                return fail(err, POFET_BAD_INSTRUCTION, POFBIC_BAD_TABLE_ID, "GOTO_TABLE id out of range");
            break;
        case POFIT_GOTO_DIRECT_TABLE: {
            int lin = pof_dp_global_table_id(POF_LINEAR, 0);
            if (in->u.goto_direct.next_table_id < lin || in->u.goto_direct.next_table_id >= POF_TABLES_TOTAL)
                return fail(err, POFET_BAD_INSTRUCTION, POFBIC_BAD_TABLE_ID, "GOTO_DIRECT_TABLE needs a LINEAR table");
            if (in->u.goto_direct.index_type == 1 && !field_ok(&in->u.goto_direct.index_field))
                return fail(err, POFET_BAD_INSTRUCTION, POFBIC_BAD_OFFSET, "GOTO_DIRECT_TABLE index field invalid");
            break;
        }
        case POFIT_WRITE_METADATA:
            if (in->u.write_metadata.len == 0 || in->u.write_metadata.len > 128 ||
                (uint32_t)in->u.write_metadata.metadata_offset + in->u.write_metadata.len > POF_METADATA_BYTES * 8)
                return fail(err, POFET_BAD_INSTRUCTION, POFBIC_BAD_OFFSET, "WRITE_METADATA out of metadata");
            break;
        case POFIT_WRITE_METADATA_FROM_PACKET: {
            uint16_t len = in->u.write_metadata_from_packet.len;
            if (len == 0 || len > 128 || (uint32_t)in->u.write_metadata_from_packet.metadata_offset + len > POF_METADATA_BYTES * 8)
                return fail(err, POFET_BAD_INSTRUCTION, POFBIC_BAD_OFFSET, "WRITE_METADATA_FROM_PACKET out of metadata");
            break;
        }
        case POFIT_APPLY_ACTIONS:
            if (pof_dp_check_actions(in->u.apply_actions.actions, in->u.apply_actions.action_num, err) < 0)
                return -1;
            break;
        case POFIT_METER:
            if (in->u.meter.meter_id == 0 || in->u.meter.meter_id >= POF_METERS)
                return fail(err, POFET_BAD_INSTRUCTION, POFBIC_UNSUP_INST, "METER id out of range");
            break;
        default:
            return fail(err, POFET_BAD_INSTRUCTION, POFBIC_UNSUP_INST, "instruction not supported");
        }
    }
    return 0;
}

/* ---- table and flow edits ---------------------------------------------------------------------- */

int pof_dp_table_mod(struct pof_dp *dp, const struct pof_table_mod *tm, struct pof_status *err)
{
    if (tm->table_type >= POF_TABLE_TYPES)
        return fail(err, POFET_TABLE_MOD_FAILED, POFTMFC_BAD_TABLE_TYPE, "unknown table type");
    int gid = pof_dp_global_table_id(tm->table_type, tm->table_id);
    if (gid < 0)
        return fail(err, POFET_TABLE_MOD_FAILED, POFTMFC_BAD_TABLE_ID, "table id out of range for its type");
    struct pof_table *t = &dp->tables[gid];
    switch (tm->command) {
    case POF_TABLE_ADD: {
        if (t->in_use)
            return fail(err, POFET_TABLE_MOD_FAILED, POFTMFC_TABLE_EXIST, "table exists");
        if (tm->size == 0 || tm->size > POF_TABLE_MAX_SIZE)
            return fail(err, POFET_TABLE_MOD_FAILED, POFTMFC_BAD_TABLE_SIZE, "table size must be 1-8000");
        for (int i = 0; i < tm->match_num; i++)
            if (!field_ok(&tm->matches[i]))
                return fail(err, POFET_BAD_MATCH, POFBMC_BAD_FIELD, "table match field invalid");
        if (pof_table_key_words(tm->matches, tm->match_num) < 0 ||
            (tm->table_type != POF_LINEAR && tm->match_num == 0))
            return fail(err, POFET_TABLE_MOD_FAILED, POFTMFC_BAD_KEY_LEN, "key length unsupported");
        if (pof_table_init(t, tm, (uint8_t)gid) < 0)
            return fail(err, POFET_TABLE_MOD_FAILED, POFTMFC_BAD_TABLE_SIZE, "out of memory");
        return 0;
    }
    case POF_TABLE_DELETE:
        if (!t->in_use)
            return fail(err, POFET_TABLE_MOD_FAILED, POFTMFC_TABLE_UNEXIST, "table does not exist");
        pof_table_free(t);
        return 0;
    default:
        return fail(err, POFET_TABLE_MOD_FAILED, POFTMFC_BAD_COMMAND, "table command unsupported");
    }
}

/* Packs each field's leading (len+7)/8 bytes one after another: the key layout of flows and packets. */
static void pack_key(const struct pof_table *t, const uint8_t fields[][POF_FIELD_BYTES], struct pof_key *k)
{
    memset(k, 0, sizeof(*k));
    for (int i = 0; i < t->match_num; i++) {
        k->w[t->parts[i].word] = pof_load_be64(fields[i]);
        if (t->parts[i].len > 64)
            k->w[t->parts[i].word + 1] = pof_load_be64(fields[i] + 8);
    }
}

/* Mask of exactly len leading bits. */
static void len_mask(uint16_t len, uint8_t out[POF_FIELD_BYTES])
{
    memset(out, 0, POF_FIELD_BYTES);
    for (uint16_t i = 0; i < len && i < POF_FIELD_BYTES * 8; i++)
        out[i / 8] |= (uint8_t)(0x80 >> (i % 8));
}

static int build_entry(const struct pof_table *t, const struct pof_flow_mod *fm, struct pof_entry *e,
                       struct pof_status *err)
{
    if (t->type != POF_LINEAR && fm->match_num != t->match_num)
        return fail(err, POFET_BAD_MATCH, POFBMC_BAD_LEN, "flow match count differs from its table");
    uint8_t vals[POF_MAX_MATCH][POF_FIELD_BYTES], masks[POF_MAX_MATCH][POF_FIELD_BYTES];
    for (int i = 0; i < t->match_num && t->type != POF_LINEAR; i++) {
        const struct pof_match *want = &t->matches[i], *got = &fm->matches[i].field;
        if (want->field_id != got->field_id || want->offset != got->offset || want->len != got->len)
            return fail(err, POFET_BAD_MATCH, POFBMC_BAD_FIELD, "flow match field differs from its table");
        uint8_t lm[POF_FIELD_BYTES];
        len_mask(want->len, lm);
        for (int b = 0; b < POF_FIELD_BYTES; b++) {
            masks[i][b] = t->type == POF_EM ? lm[b] : (uint8_t)(fm->matches[i].mask[b] & lm[b]);
            vals[i][b] = (uint8_t)(fm->matches[i].value[b] & masks[i][b]);
        }
    }
    memset(e, 0, sizeof(*e));
    if (t->type != POF_LINEAR) {
        pack_key(t, (const uint8_t(*)[POF_FIELD_BYTES])vals, &e->key);
        pack_key(t, (const uint8_t(*)[POF_FIELD_BYTES])masks, &e->mask);
    }
    for (int w = 0; w < POF_KEY_WORDS; w++)
        e->mask_bits = (uint16_t)(e->mask_bits + __builtin_popcountll(e->mask.w[w]));
    e->priority = fm->priority;
    e->index = fm->index;
    e->counter_id = fm->counter_id;
    e->cookie = fm->cookie;
    e->instruction_num = fm->instruction_num;
    memcpy(e->instructions, fm->instructions, sizeof(e->instructions));
    return 0;
}

int pof_dp_flow_mod(struct pof_dp *dp, const struct pof_flow_mod *fm, struct pof_status *err)
{
    int gid = pof_dp_global_table_id(fm->table_type, fm->table_id);
    if (fm->table_type >= POF_TABLE_TYPES)
        return fail(err, POFET_FLOW_MOD_FAILED, POFFMFC_BAD_TABLE_TYPE, "unknown table type");
    if (gid < 0 || !dp->tables[gid].in_use)
        return fail(err, POFET_FLOW_MOD_FAILED, POFFMFC_BAD_TABLE_ID, "table does not exist");
    struct pof_table *t = &dp->tables[gid];
    if (fm->index >= t->size)
        return fail(err, POFET_FLOW_MOD_FAILED, POFFMFC_BAD_ENTRY_ID, "entry index beyond table size");
    if (fm->counter_id >= POF_COUNTERS)
        return fail(err, POFET_FLOW_MOD_FAILED, POFFMFC_BAD_COUNTER_ID, "counter id out of range");

    switch (fm->command) {
    case POF_FLOW_ADD: case POF_FLOW_MODIFY: case POF_FLOW_MODIFY_STRICT: {
        bool exists = t->by_index[fm->index] != NULL;
        if (fm->command == POF_FLOW_ADD && exists)
            return fail(err, POFET_FLOW_MOD_FAILED, POFFMFC_ENTRY_EXIST, "entry index in use");
        if (fm->command != POF_FLOW_ADD && !exists)
            return fail(err, POFET_FLOW_MOD_FAILED, POFFMFC_ENTRY_UNEXIST, "no entry at index");
        if (check_instructions(fm, err) < 0)
            return -1;
        struct pof_entry *e = malloc(sizeof(*e));
        struct pof_flow_mod *src = malloc(sizeof(*src));
        if (!e || !src) {
            free(e);
            free(src);
            return fail(err, POFET_FLOW_MOD_FAILED, POFFMFC_TABLE_FULL, "out of memory");
        }
        if (build_entry(t, fm, e, err) < 0) {
            free(e);
            free(src);
            return -1;
        }
        *src = *fm;
        src->command = POF_FLOW_ADD;
        e->source = src;
        if (fm->counter_id)
            dp->counters[fm->counter_id].in_use = true;
        pof_table_put(t, e);
        return 0;
    }
    case POF_FLOW_DELETE: case POF_FLOW_DELETE_STRICT:
        if (!t->by_index[fm->index])
            return fail(err, POFET_FLOW_MOD_FAILED, POFFMFC_ENTRY_UNEXIST, "no entry at index");
        pof_table_remove(t, fm->index);
        return 0;
    default:
        return fail(err, POFET_FLOW_MOD_FAILED, POFFMFC_BAD_COMMAND, "flow command unsupported");
    }
}

/* ---- meters and counters ----------------------------------------------------------------------- */

int pof_dp_meter_mod(struct pof_dp *dp, const struct pof_meter_mod *mm, struct pof_status *err)
{
    return pof_meter_mod(dp->meters, POF_METERS, mm, err);
}

enum pof_color pof_dp_meter_color(struct pof_dp *dp, uint32_t meter_id, uint32_t bytes, uint64_t now_ns)
{
    return meter_id < POF_METERS ? pof_meter_color(&dp->meters[meter_id], bytes, now_ns) : POF_COLOR_YELLOW;
}

uint64_t pof_dp_meter_wait_ns(struct pof_dp *dp, uint32_t meter_id, uint32_t bytes, uint64_t now_ns)
{
    return meter_id < POF_METERS ? pof_meter_wait_ns(&dp->meters[meter_id], bytes, now_ns) : 0;
}

int pof_dp_counter(struct pof_dp *dp, struct pof_counter *c, bool is_request, struct pof_status *err)
{
    if (c->counter_id == 0 || c->counter_id >= POF_COUNTERS)
        return fail(err, POFET_COUNTER_MOD_FAILED, POFCMFC_BAD_COUNTER_ID, "counter id out of range");
    struct counter *k = &dp->counters[c->counter_id];
    if (is_request) {
        c->packets = k->packets;
        c->bytes = k->bytes;
        return 0;
    }
    switch (c->command) {
    case 0: k->in_use = true; k->packets = k->bytes = 0; return 0;
    case 1: memset(k, 0, sizeof(*k)); return 0;
    case 2: k->packets = k->bytes = 0; return 0;
    default: return fail(err, POFET_COUNTER_MOD_FAILED, POFCMFC_BAD_COMMAND, "counter command unsupported");
    }
}

/* ---- the packet pipeline ----------------------------------------------------------------------- */

struct ctx {
    struct pof_pkt *pkt;
    uint32_t off; /* current packet offset in bytes (GOTO packet_offset moves it) */
    uint8_t md[POF_METADATA_BYTES];
};

/* Reads a field relative to the current offset (packet) or the metadata. */
static bool read_field(const struct ctx *c, const struct pof_match *m, uint8_t *out)
{
    if (m->field_id == POF_METADATA_FIELD)
        return pof_bits_get(c->md, sizeof(c->md), m->offset, m->len, out);
    if (c->off > c->pkt->len)
        return false;
    return pof_bits_get(c->pkt->data + c->off, c->pkt->len - c->off, m->offset, m->len, out);
}

static bool write_field(struct ctx *c, const struct pof_match *m, const uint8_t *val, const uint8_t *mask)
{
    if (m->field_id == POF_METADATA_FIELD)
        return pof_bits_set(c->md, sizeof(c->md), m->offset, m->len, val, mask);
    if (c->off > c->pkt->len)
        return false;
    return pof_bits_set(c->pkt->data + c->off, c->pkt->len - c->off, m->offset, m->len, val, mask);
}

static uint32_t field_to_u32(const uint8_t *v, uint16_t len)
{
    uint32_t x = 0;
    for (uint16_t i = 0; i < (len + 7) / 8; i++)
        x = x << 8 | v[i];
    return x >> ((8 - len % 8) % 8);
}

static void u32_to_field(uint32_t x, uint16_t len, uint8_t *v)
{
    x <<= (8 - len % 8) % 8;
    for (int i = (len + 7) / 8 - 1; i >= 0; i--, x >>= 8)
        v[i] = (uint8_t)x;
}

static uint16_t inet_checksum(const uint8_t *p, uint32_t n)
{
    uint32_t sum = 0;
    for (uint32_t i = 0; i + 1 < n; i += 2)
        sum += (uint32_t)(p[i] << 8 | p[i + 1]);
    if (n & 1)
        sum += (uint32_t)p[n - 1] << 8;
    while (sum >> 16)
        sum = (sum & 0xFFFF) + (sum >> 16);
    return (uint16_t)~sum;
}

static void count(struct pof_dp *dp, uint32_t id, uint32_t bytes)
{
    if (id && id < POF_COUNTERS) {
        dp->counters[id].packets++;
        dp->counters[id].bytes += bytes;
    }
}

/* Returns false when the packet is finished (DROP). */
static bool run_action(struct pof_dp *dp, struct ctx *c, const struct pof_action *a, struct pof_verdict *v)
{
    struct pof_pkt *p = c->pkt;
    uint8_t buf[POF_FIELD_BYTES];
    switch (a->type) {
    case POFAT_OUTPUT: {
        uint32_t port = a->u.output.port_id & 0xFFFF;
        if (a->u.output.port_type == 1) {
            if (!read_field(c, &a->u.output.port_field, buf) || a->u.output.port_field.len > 32) {
                dp->stats.short_field++;
                v->kind = POF_V_DROP;
                return false;
            }
            port = field_to_u32(buf, a->u.output.port_field.len) & 0xFFFF;
        }
        v->kind = port == POF_FLOOD_PORT ? POF_V_FLOOD : POF_V_OUTPUT;
        v->out_port = (uint16_t)port;
        v->out_offset = a->u.output.packet_offset;
        return true;
    }
    case POFAT_SET_FIELD: /* as the reference: value AND mask is written over the whole field */
        for (int i = 0; i < POF_FIELD_BYTES; i++)
            buf[i] = (uint8_t)(a->u.set_field.value[i] & a->u.set_field.mask[i]);
        if (!write_field(c, &a->u.set_field.field, buf, NULL))
            dp->stats.short_field++;
        return true;
    case POFAT_SET_FIELD_FROM_METADATA: {
        const struct pof_match *f = &a->u.set_from_metadata.field;
        if (pof_bits_get(c->md, sizeof(c->md), a->u.set_from_metadata.metadata_offset, f->len, buf))
            if (!write_field(c, f, buf, NULL))
                dp->stats.short_field++;
        return true;
    }
    case POFAT_MODIFY_FIELD: {
        const struct pof_match *f = &a->u.modify_field.field;
        if (!read_field(c, f, buf)) {
            dp->stats.short_field++;
            return true;
        }
        uint32_t x = field_to_u32(buf, f->len) + (uint32_t)a->u.modify_field.increment;
        u32_to_field(x, f->len, buf);
        write_field(c, f, buf, NULL);
        return true;
    }
    case POFAT_ADD_FIELD: {
        uint32_t at = c->off + a->u.add_field.tag_pos / 8u, n = a->u.add_field.tag_len / 8u;
        if (at > p->len || n > p->room) {
            dp->stats.short_field++;
            return true;
        }
        memmove(p->data + at + n, p->data + at, p->len - at);
        memcpy(p->data + at, a->u.add_field.tag_value, n);
        p->len += n;
        p->room -= n;
        return true;
    }
    case POFAT_DELETE_FIELD: {
        uint32_t at = c->off + a->u.delete_field.tag_pos / 8u, n = a->u.delete_field.len_value / 8u;
        if (at > p->len || n > p->len - at) {
            dp->stats.short_field++;
            return true;
        }
        memmove(p->data + at, p->data + at + n, p->len - at - n);
        p->len -= n;
        p->room += n;
        return true;
    }
    case POFAT_CALC_CHECKSUM: {
        uint32_t cpos = c->off + a->u.checksum.checksum_pos / 8u;
        uint32_t start = c->off + a->u.checksum.calc_start / 8u, n = a->u.checksum.calc_len / 8u;
        if (cpos + 2 > p->len || start > p->len || n > p->len - start) {
            dp->stats.short_field++;
            return true;
        }
        p->data[cpos] = p->data[cpos + 1] = 0;
        uint16_t sum = inet_checksum(p->data + start, n);
        p->data[cpos] = (uint8_t)(sum >> 8);
        p->data[cpos + 1] = (uint8_t)sum;
        return true;
    }
    case POFAT_COUNTER:
        count(dp, a->u.value, p->len);
        return true;
    case POFAT_PACKET_IN:
        v->to_controller = true;
        v->packet_in_reason = (uint8_t)a->u.value;
        return true;
    case POFAT_DROP:
    default:
        v->kind = POF_V_DROP;
        return false;
    }
}

static bool run_actions(struct pof_dp *dp, struct ctx *c, const struct pof_action *acts, int n,
                        struct pof_verdict *v)
{
    for (int i = 0; i < n; i++)
        if (!run_action(dp, c, &acts[i], v))
            return false;
    return true;
}

/* Builds the lookup key of table t from the packet; false if a field lies past the packet's end.
 * Fast path: one unaligned 8-byte load per field of up to 57 bits that is not near the end of the buffer. */
static bool packet_key(const struct ctx *c, const struct pof_table *t, struct pof_key *k)
{
    const uint8_t *pkt = c->off <= c->pkt->len ? c->pkt->data + c->off : NULL;
    uint32_t pkt_bytes = pkt ? c->pkt->len - c->off : 0;
    for (int i = 0; i < t->match_num; i++) {
        const struct pof_key_part *p = &t->parts[i];
        const uint8_t *src = p->from_metadata ? c->md : pkt;
        uint32_t src_bytes = p->from_metadata ? POF_METADATA_BYTES : pkt_bytes;
        if (p->end_bits > src_bytes * 8u)
            return false;
        if (p->shift + p->len <= 64 && src_bytes - p->byte_off >= 8) {
            k->w[p->word] = (pof_load_be64(src + p->byte_off) << p->shift) & pof_mask64(p->len);
        } else {
            uint8_t tmp[POF_FIELD_BYTES + 8] = {0};
            pof_bits_get(src, src_bytes, (uint32_t)p->byte_off * 8 + p->shift, p->len, tmp);
            k->w[p->word] = pof_load_be64(tmp);
            if (p->len > 64)
                k->w[p->word + 1] = pof_load_be64(tmp + 8);
        }
    }
    return true;
}

void pof_dp_apply_actions(struct pof_dp *dp, struct pof_pkt *pkt, const struct pof_action *acts, int n,
                          struct pof_verdict *v)
{
    struct ctx c = {.pkt = pkt, .off = 0};
    memset(v, 0, sizeof(*v));
    run_actions(dp, &c, acts, n, v);
}

void pof_dp_process(struct pof_dp *dp, struct pof_pkt *pkt, struct pof_verdict *v)
{
    struct ctx c;
    c.pkt = pkt;
    c.off = 0;
    memset(c.md, 0, sizeof(c.md));
    c.md[0] = (uint8_t)(pkt->len >> 8); /* metadata bits 0-15: packet length, 16-23: input port */
    c.md[1] = (uint8_t)pkt->len;
    c.md[2] = (uint8_t)pkt->in_port;
    memset(v, 0, sizeof(*v));
    dp->stats.processed++;

    const struct pof_table *t = &dp->tables[0];
    const struct pof_entry *e = NULL;
    uint32_t direct_index = 0;
    bool direct = false;
    for (int hop = 0; hop < MAX_TABLE_HOPS; hop++) {
        if (!t->in_use)
            goto miss;
        if (direct) {
            e = direct_index < t->size ? t->by_index[direct_index] : NULL;
        } else {
            struct pof_key k;
            if (!packet_key(&c, t, &k)) {
                dp->stats.short_field++;
                goto miss;
            }
            e = pof_table_lookup(t, &k);
        }
        if (!e)
            goto miss;
        v->table_id = t->global_id;
        count(dp, e->counter_id, pkt->len);

        const struct pof_table *next = NULL;
        for (int i = 0; i < e->instruction_num && !next; i++) {
            const struct pof_instruction *in = &e->instructions[i];
            switch (in->type) {
            case POFIT_GOTO_TABLE:
                c.off += in->u.goto_table.packet_offset;
                next = &dp->tables[in->u.goto_table.next_table_id];
                direct = false;
                break;
            case POFIT_GOTO_DIRECT_TABLE: {
                uint8_t b[POF_FIELD_BYTES];
                c.off += in->u.goto_direct.packet_offset;
                direct_index = in->u.goto_direct.index_value;
                if (in->u.goto_direct.index_type == 1) {
                    if (!read_field(&c, &in->u.goto_direct.index_field, b) || in->u.goto_direct.index_field.len > 32)
                        goto miss;
                    direct_index = field_to_u32(b, in->u.goto_direct.index_field.len);
                }
                next = &dp->tables[in->u.goto_direct.next_table_id];
                direct = true;
                break;
            }
            case POFIT_WRITE_METADATA:
                pof_bits_set(c.md, sizeof(c.md), in->u.write_metadata.metadata_offset, in->u.write_metadata.len,
                             in->u.write_metadata.value, NULL);
                break;
            case POFIT_WRITE_METADATA_FROM_PACKET: {
                uint8_t b[POF_FIELD_BYTES];
                uint16_t mdo = in->u.write_metadata_from_packet.metadata_offset;
                uint16_t po = in->u.write_metadata_from_packet.packet_offset;
                uint16_t len = in->u.write_metadata_from_packet.len;
                if (c.off <= pkt->len && pof_bits_get(pkt->data + c.off, pkt->len - c.off, po, len, b))
                    pof_bits_set(c.md, sizeof(c.md), mdo, len, b, NULL);
                else
                    dp->stats.short_field++;
                break;
            }
            case POFIT_APPLY_ACTIONS:
                if (!run_actions(dp, &c, in->u.apply_actions.actions, in->u.apply_actions.action_num, v)) {
                    dp->stats.dropped++;
                    return;
                }
                break;
            case POFIT_METER:
                v->meter_id = in->u.meter.meter_id;
                break;
            default:
                break;
            }
        }
        if (!next)
            return; /* end of pipeline: the verdict is whatever the actions chose (default drop) */
        t = next;
    }
miss:
    dp->stats.table_miss++;
    v->kind = POF_V_DROP;
}

void pof_dp_dump(const struct pof_dp *dp, const struct pof_dp_dump_ops *ops, void *arg)
{
    for (int g = 0; g < POF_TABLES_TOTAL; g++) {
        const struct pof_table *t = &dp->tables[g];
        if (!t->in_use)
            continue;
        int base = 0;
        for (int ty = 0; ty < t->type; ty++)
            base += tables_per_type[ty];
        struct pof_table_mod tm = {.command = POF_TABLE_ADD, .table_id = (uint8_t)(g - base), .table_type = t->type,
                                   .match_num = t->match_num, .size = t->size, .key_len = t->key_bits};
        memcpy(tm.matches, t->matches, sizeof(tm.matches));
        memcpy(tm.name, t->name, sizeof(tm.name));
        ops->table(arg, &tm);
    }
    for (int g = 0; g < POF_TABLES_TOTAL; g++)
        for (uint32_t i = 0; dp->tables[g].in_use && i < dp->tables[g].size; i++)
            if (dp->tables[g].by_index[i])
                ops->flow(arg, dp->tables[g].by_index[i]->source);
    for (uint32_t m = 1; m < POF_METERS; m++)
        if (dp->meters[m].in_use) {
            struct pof_meter_mod mm = {.command = 0, .meter_id = m, .rate = dp->meters[m].rate_kbps,
                                       .committed_rate = dp->meters[m].committed_kbps};
            ops->meter(arg, &mm);
        }
}

void pof_dp_get_stats(const struct pof_dp *dp, struct pof_dp_stats *s)
{
    *s = dp->stats;
}

int pof_dp_table_count(const struct pof_dp *dp)
{
    int n = 0;
    for (int i = 0; i < POF_TABLES_TOTAL; i++)
        n += dp->tables[i].in_use;
    return n;
}

int pof_dp_flow_count(const struct pof_dp *dp)
{
    int n = 0;
    for (int i = 0; i < POF_TABLES_TOTAL; i++)
        n += (int)dp->tables[i].n_entries;
    return n;
}
