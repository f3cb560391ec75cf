/* Forwarding core: applies control edits and runs packets through the tables. */
#include "pof_dp.h"

#include <stdlib.h>
#include <string.h>

#include "pof_instr.h"
#include "pof_meter.h"
#include "pof_table.h"

#define MAX_TABLE_HOPS 64 /* a GOTO loop cannot spin a packet forever */

struct pof_dp {
    struct pof_table tables[POF_TABLES_TOTAL];
    struct pof_meter meters[POF_METERS];
    struct pof_counter_slot counters[POF_COUNTERS];
    struct pof_dp_stats stats;
};

static const uint8_t tables_per_type[POF_TABLE_TYPES] = {POF_TABLES_MM, POF_TABLES_LPM, POF_TABLES_EM,
                                                         POF_TABLES_LINEAR};

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

void pof_dp_reset(struct pof_dp *dp)
{
    for (int i = 0; i < POF_TABLES_TOTAL; i++)
        if (dp->tables[i].in_use)
            pof_table_free(&dp->tables[i]);
    /* A deleted meter colours yellow (pof_meter_color): packets its shaping queue still holds then leave. */
    memset(dp->meters, 0, sizeof(dp->meters));
    memset(dp->counters, 0, sizeof(dp->counters));
}

void pof_dp_destroy(struct pof_dp *dp)
{
    if (!dp)
        return;
    pof_dp_reset(dp);
    free(dp);
}

/* ---- table and flow edits ---------------------------------------------------------------------- */

/* Every instruction of a flow through its type's check (pof_instr.c). */
static int check_instructions(const struct pof_flow_mod *fm, struct pof_status *err)
{
    for (int i = 0; i < fm->instruction_num; i++)
        if (pof_instr_check(&fm->instructions[i], err) < 0)
            return -1;
    return 0;
}

int pof_dp_table_mod(struct pof_dp *dp, const struct pof_table_mod *tm, struct pof_status *err)
{
    if (tm->table_type >= POF_TABLE_TYPES)
        return pof_fail(err, POFET_TABLE_MOD_FAILED, POFTMFC_BAD_TABLE_TYPE, "unknown table type");
    int gid = pof_dp_global_table_id(tm->table_type, tm->table_id);
    if (gid < 0)
        return pof_fail(err, POFET_TABLE_MOD_FAILED, POFTMFC_BAD_TABLE_ID, "table id out of range for its type");
    struct pof_table *t = &dp->tables[gid];
    switch (tm->command) {
    case POF_TABLE_ADD: {
        if (t->in_use)
            return pof_fail(err, POFET_TABLE_MOD_FAILED, POFTMFC_TABLE_EXIST, "table exists");
        if (tm->size == 0 || tm->size > POF_TABLE_MAX_SIZE)
            return pof_fail(err, POFET_TABLE_MOD_FAILED, POFTMFC_BAD_TABLE_SIZE, "table size must be 1-8000");
        for (int i = 0; i < tm->match_num; i++)
            if (!pof_field_ok(&tm->matches[i]))
                return pof_fail(err, POFET_BAD_MATCH, POFBMC_BAD_FIELD, "table match field invalid");
        if (pof_table_key_words(tm->matches, tm->match_num) < 0 ||
            (tm->table_type != POF_LINEAR && tm->match_num == 0))
            return pof_fail(err, POFET_TABLE_MOD_FAILED, POFTMFC_BAD_KEY_LEN, "key length unsupported");
        if (pof_table_init(t, tm, (uint8_t)gid) < 0)
            return pof_fail(err, POFET_TABLE_MOD_FAILED, POFTMFC_BAD_TABLE_SIZE, "out of memory");
        return 0;
    }
    case POF_TABLE_DELETE:
        if (!t->in_use)
            return pof_fail(err, POFET_TABLE_MOD_FAILED, POFTMFC_TABLE_UNEXIST, "table does not exist");
        pof_table_free(t);
        return 0;
    default:
        return pof_fail(err, POFET_TABLE_MOD_FAILED, POFTMFC_BAD_COMMAND, "table command unsupported");
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
        return pof_fail(err, POFET_BAD_MATCH, POFBMC_BAD_LEN, "flow match count differs from its table");
    uint8_t vals[POF_MAX_MATCH][POF_FIELD_BYTES], masks[POF_MAX_MATCH][POF_FIELD_BYTES];
    for (int i = 0; i < t->match_num && t->type != POF_LINEAR; i++) {
        const struct pof_match *want = &t->matches[i], *got = &fm->matches[i].field;
        if (want->field_id != got->field_id || want->offset != got->offset || want->len != got->len)
            return pof_fail(err, POFET_BAD_MATCH, POFBMC_BAD_FIELD, "flow match field differs from its table");
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
        return pof_fail(err, POFET_FLOW_MOD_FAILED, POFFMFC_BAD_TABLE_TYPE, "unknown table type");
    if (gid < 0 || !dp->tables[gid].in_use)
        return pof_fail(err, POFET_FLOW_MOD_FAILED, POFFMFC_BAD_TABLE_ID, "table does not exist");
    struct pof_table *t = &dp->tables[gid];
    if (fm->index >= t->size)
        return pof_fail(err, POFET_FLOW_MOD_FAILED, POFFMFC_BAD_ENTRY_ID, "entry index beyond table size");
    if (fm->counter_id >= POF_COUNTERS)
        return pof_fail(err, POFET_FLOW_MOD_FAILED, POFFMFC_BAD_COUNTER_ID, "counter id out of range");

    switch (fm->command) {
    case POF_FLOW_ADD: case POF_FLOW_MODIFY: case POF_FLOW_MODIFY_STRICT: {
        bool exists = t->by_index[fm->index] != NULL;
        if (fm->command == POF_FLOW_ADD && exists)
            return pof_fail(err, POFET_FLOW_MOD_FAILED, POFFMFC_ENTRY_EXIST, "entry index in use");
        if (fm->command != POF_FLOW_ADD && !exists)
            return pof_fail(err, POFET_FLOW_MOD_FAILED, POFFMFC_ENTRY_UNEXIST, "no entry at index");
        if (check_instructions(fm, err) < 0)
            return -1;
        struct pof_entry *e = malloc(sizeof(*e));
        struct pof_flow_mod *src = malloc(sizeof(*src));
        if (!e || !src) {
            free(e);
            free(src);
            return pof_fail(err, POFET_FLOW_MOD_FAILED, POFFMFC_TABLE_FULL, "out of memory");
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
            return pof_fail(err, POFET_FLOW_MOD_FAILED, POFFMFC_ENTRY_UNEXIST, "no entry at index");
        pof_table_remove(t, fm->index);
        return 0;
    default:
        return pof_fail(err, POFET_FLOW_MOD_FAILED, POFFMFC_BAD_COMMAND, "flow command unsupported");
    }
}

/* ---- meters, counters and groups --------------------------------------------------------------- */

int pof_dp_group_mod(struct pof_dp *dp, const struct pof_group_mod *gm, struct pof_status *err)
{
    (void)dp;
    /* The reference checks the command first, then that the group id is below the number of groups it
     * announced: with none announced, every id fails that check. */
    if (gm->command > POF_GROUP_DELETE)
        return pof_fail(err, POFET_GROUP_MOD_FAILED, POFGMFC_BAD_COMMAND, "group command unsupported");
    return pof_fail(err, POFET_GROUP_MOD_FAILED, POFGMFC_INVALID_GROUP,
                    "no groups: the switch announces group_num 0");
}

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
        return pof_fail(err, POFET_COUNTER_MOD_FAILED, POFCMFC_BAD_COUNTER_ID, "counter id out of range");
    struct pof_counter_slot *k = &dp->counters[c->counter_id];
    if (is_request) {
        c->packets = k->packets;
        c->bytes = k->bytes;
        return 0;
    }
    switch (c->command) {
    case 0: k->in_use = true; k->packets = k->bytes = 0; return 0;
    case 1: memset(k, 0, sizeof(*k)); return 0;
    case 2: k->packets = k->bytes = 0; return 0;
    default: return pof_fail(err, POFET_COUNTER_MOD_FAILED, POFCMFC_BAD_COMMAND, "counter command unsupported");
    }
}

/* ---- the packet pipeline ----------------------------------------------------------------------- */

/* Builds the lookup key of table t from the packet; false if a field lies past the packet's end.
 * Fast path: one unaligned 8-byte load per field of up to 57 bits that is not near the end of the buffer. */
static bool packet_key(const struct pof_exec *x, const struct pof_table *t, struct pof_key *k)
{
    const uint8_t *pkt = x->off <= x->pkt->len ? x->pkt->data + x->off : NULL;
    uint32_t pkt_bytes = pkt ? x->pkt->len - x->off : 0;
    for (int i = 0; i < t->match_num; i++) {
        const struct pof_key_part *p = &t->parts[i];
        const uint8_t *src = p->from_metadata ? x->md : pkt;
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
    struct pof_exec x = {.pkt = pkt, .off = 0, .v = v, .stats = &dp->stats, .counters = dp->counters};
    memset(v, 0, sizeof(*v));
    pof_run_actions(&x, acts, n);
}

void pof_dp_process(struct pof_dp *dp, struct pof_pkt *pkt, struct pof_verdict *v)
{
    struct pof_exec x = {.pkt = pkt, .off = 0, .v = v, .stats = &dp->stats, .counters = dp->counters};
    x.md[0] = (uint8_t)(pkt->len >> 8); /* metadata bits 0-15: packet length, 16-23: input port */
    x.md[1] = (uint8_t)pkt->len;
    x.md[2] = (uint8_t)pkt->in_port;
    memset(v, 0, sizeof(*v));
    dp->stats.processed++;

    const struct pof_table *t = &dp->tables[0];
    for (int hop = 0; hop < MAX_TABLE_HOPS; hop++) {
        if (!t->in_use)
            goto miss;
        const struct pof_entry *e;
        if (x.direct) {
            e = x.direct_index < t->size ? t->by_index[x.direct_index] : NULL;
        } else {
            struct pof_key k;
            if (!packet_key(&x, t, &k)) {
                dp->stats.short_field++;
                goto miss;
            }
            e = pof_table_lookup(t, &k);
        }
        if (!e)
            goto miss;
        v->table_id = t->global_id;
        pof_count(dp->counters, e->counter_id, pkt->len);

        /* The instructions run in order until one ends the packet or chooses the next table. */
        enum pof_step step = POF_STEP_NEXT;
        for (int i = 0; i < e->instruction_num && step == POF_STEP_NEXT; i++)
            step = pof_instr_exec(&x, &e->instructions[i]);
        if (step == POF_STEP_DROP) {
            dp->stats.dropped++;
            return;
        }
        if (step == POF_STEP_MISS)
            goto miss;
        if (step != POF_STEP_GOTO)
            return; /* end of pipeline: the verdict is whatever the actions chose (default drop) */
        t = &dp->tables[x.next_table];
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
                                       .committed_rate = dp->meters[m].committed_kbps,
                                       .flags = dp->meters[m].latency ? POF_METER_LATENCY : 0};
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
