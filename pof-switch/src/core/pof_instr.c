/* The instructions, one block each: wire body (decode, encode), what a flow may ask (check), what a packet gets
 * (exec). Offsets are relative to the body, which starts 8 bytes into the instruction (type, len, pad). */
#include "pof_instr.h"

#include <string.h>

#include "pof_bytes.h"

/* ---- GOTO_TABLE: match fields for the next table (kept for QUERYALL, the table's own define the key) ---- */

static int goto_table_decode(const uint8_t *d, struct pof_instruction *in, struct pof_status *err)
{
    in->u.goto_table.next_table_id = d[0];
    in->u.goto_table.match_num = d[1];
    in->u.goto_table.packet_offset = get16(d + 2);
    if (d[1] > POF_MAX_MATCH)
        return pof_fail(err, POFET_BAD_INSTRUCTION, POFBIC_BAD_LEN, "GOTO_TABLE with more than 8 matches");
    for (int i = 0; i < d[1]; i++)
        dec_match(d + 8 + 8 * i, &in->u.goto_table.matches[i]);
    return 0;
}

static void goto_table_encode(uint8_t *d, const struct pof_instruction *in)
{
    d[0] = in->u.goto_table.next_table_id;
    d[1] = in->u.goto_table.match_num;
    put16(d + 2, in->u.goto_table.packet_offset);
    for (int i = 0; i < in->u.goto_table.match_num && i < POF_MAX_MATCH; i++)
        enc_match(d + 8 + 8 * i, &in->u.goto_table.matches[i]);
}

static int goto_table_check(const struct pof_instruction *in, struct pof_status *err)
{
    if (in->u.goto_table.next_table_id >= POF_TABLES_TOTAL)
        return pof_fail(err, POFET_BAD_INSTRUCTION, POFBIC_BAD_TABLE_ID, "GOTO_TABLE id out of range");
    return 0;
}

static enum pof_step goto_table_exec(struct pof_exec *x, const struct pof_instruction *in)
{
    x->off += in->u.goto_table.packet_offset;
    x->next_table = in->u.goto_table.next_table_id;
    x->direct = false;
    return POF_STEP_GOTO;
}

static const struct pof_instr_ops goto_table_ops = {
    goto_table_decode, goto_table_encode, goto_table_check, goto_table_exec,
};

/* ---- WRITE_METADATA: an immediate value into the metadata --------------------------------------------- */

static int write_metadata_decode(const uint8_t *d, struct pof_instruction *in, struct pof_status *err)
{
    (void)err;
    in->u.write_metadata.metadata_offset = get16(d);
    in->u.write_metadata.len = get16(d + 2);
    memcpy(in->u.write_metadata.value, d + 4, POF_FIELD_BYTES);
    return 0;
}

static void write_metadata_encode(uint8_t *d, const struct pof_instruction *in)
{
    put16(d, in->u.write_metadata.metadata_offset);
    put16(d + 2, in->u.write_metadata.len);
    memcpy(d + 4, in->u.write_metadata.value, POF_FIELD_BYTES);
}

static int write_metadata_check(const struct pof_instruction *in, struct pof_status *err)
{
    if (in->u.write_metadata.len == 0 || in->u.write_metadata.len > 128 ||
        (uint32_t)in->u.write_metadata.metadata_offset + in->u.write_metadata.len > POF_METADATA_BYTES * 8)
        return pof_fail(err, POFET_BAD_INSTRUCTION, POFBIC_BAD_OFFSET, "WRITE_METADATA out of metadata");
    return 0;
}

static enum pof_step write_metadata_exec(struct pof_exec *x, const struct pof_instruction *in)
{
    pof_bits_set(x->md, sizeof(x->md), in->u.write_metadata.metadata_offset, in->u.write_metadata.len,
                 in->u.write_metadata.value, NULL);
    return POF_STEP_NEXT;
}

static const struct pof_instr_ops write_metadata_ops = {
    write_metadata_decode, write_metadata_encode, write_metadata_check, write_metadata_exec,
};

/* ---- WRITE_ACTIONS, CLEAR_ACTIONS: the codec takes them (header only), the core refuses them ------------ */

static const struct pof_instr_ops action_set_ops = {NULL, NULL, NULL, NULL};

/* ---- APPLY_ACTIONS: an action list (pof_action.c), run at once --------------------------------------- */

static int apply_actions_decode(const uint8_t *d, struct pof_instruction *in, struct pof_status *err)
{
    in->u.apply_actions.action_num = d[0];
    if (d[0] > POF_MAX_ACT)
        return pof_fail(err, POFET_BAD_INSTRUCTION, POFBIC_TOO_MANY_ACTIONS, "more than 6 actions");
    for (int i = 0; i < d[0]; i++)
        if (pof_action_decode(d + 8 + POF_ACTION_SIZE * i, &in->u.apply_actions.actions[i], err) < 0)
            return -1;
    return 0;
}

static void apply_actions_encode(uint8_t *d, const struct pof_instruction *in)
{
    d[0] = in->u.apply_actions.action_num;
    for (int i = 0; i < in->u.apply_actions.action_num && i < POF_MAX_ACT; i++)
        pof_action_encode(d + 8 + POF_ACTION_SIZE * i, &in->u.apply_actions.actions[i]);
}

static int apply_actions_check(const struct pof_instruction *in, struct pof_status *err)
{
    return pof_dp_check_actions(in->u.apply_actions.actions, in->u.apply_actions.action_num, err);
}

static enum pof_step apply_actions_exec(struct pof_exec *x, const struct pof_instruction *in)
{
    return pof_run_actions(x, in->u.apply_actions.actions, in->u.apply_actions.action_num) ? POF_STEP_NEXT
                                                                                          : POF_STEP_DROP;
}

static const struct pof_instr_ops apply_actions_ops = {
    apply_actions_decode, apply_actions_encode, apply_actions_check, apply_actions_exec,
};

/* ---- METER: the packet leaves through meter meter_id (coloured at egress, pof_meter.c) ----------------- */

static int meter_decode(const uint8_t *d, struct pof_instruction *in, struct pof_status *err)
{
    (void)err;
    in->u.meter.meter_id = get32(d);
    return 0;
}

static void meter_encode(uint8_t *d, const struct pof_instruction *in)
{
    put32(d, in->u.meter.meter_id);
}

static int meter_check(const struct pof_instruction *in, struct pof_status *err)
{
    if (in->u.meter.meter_id == 0 || in->u.meter.meter_id >= POF_METERS)
        return pof_fail(err, POFET_BAD_INSTRUCTION, POFBIC_UNSUP_INST, "METER id out of range");
    return 0;
}

static enum pof_step meter_exec(struct pof_exec *x, const struct pof_instruction *in)
{
    x->v->meter_id = in->u.meter.meter_id;
    return POF_STEP_NEXT;
}

static const struct pof_instr_ops meter_ops = {meter_decode, meter_encode, meter_check, meter_exec};

/* ---- WRITE_METADATA_FROM_PACKET: packet bits into the metadata --------------------------------------- */

static int write_metadata_from_packet_decode(const uint8_t *d, struct pof_instruction *in, struct pof_status *err)
{
    (void)err;
    in->u.write_metadata_from_packet.metadata_offset = get16(d);
    in->u.write_metadata_from_packet.packet_offset = get16(d + 2);
    in->u.write_metadata_from_packet.len = get16(d + 4);
    return 0;
}

static void write_metadata_from_packet_encode(uint8_t *d, const struct pof_instruction *in)
{
    put16(d, in->u.write_metadata_from_packet.metadata_offset);
    put16(d + 2, in->u.write_metadata_from_packet.packet_offset);
    put16(d + 4, in->u.write_metadata_from_packet.len);
}

static int write_metadata_from_packet_check(const struct pof_instruction *in, struct pof_status *err)
{
    uint16_t len = in->u.write_metadata_from_packet.len;
    if (len == 0 || len > 128 ||
        (uint32_t)in->u.write_metadata_from_packet.metadata_offset + len > POF_METADATA_BYTES * 8)
        return pof_fail(err, POFET_BAD_INSTRUCTION, POFBIC_BAD_OFFSET, "WRITE_METADATA_FROM_PACKET out of metadata");
    return 0;
}

static enum pof_step write_metadata_from_packet_exec(struct pof_exec *x, const struct pof_instruction *in)
{
    uint8_t b[POF_FIELD_BYTES];
    uint16_t mdo = in->u.write_metadata_from_packet.metadata_offset;
    uint16_t po = in->u.write_metadata_from_packet.packet_offset;
    uint16_t len = in->u.write_metadata_from_packet.len;
    if (x->off <= x->pkt->len && pof_bits_get(x->pkt->data + x->off, x->pkt->len - x->off, po, len, b))
        pof_bits_set(x->md, sizeof(x->md), mdo, len, b, NULL);
    else
        x->stats->short_field++;
    return POF_STEP_NEXT;
}

static const struct pof_instr_ops write_metadata_from_packet_ops = {
    write_metadata_from_packet_decode, write_metadata_from_packet_encode, write_metadata_from_packet_check,
    write_metadata_from_packet_exec,
};

/* ---- GOTO_DIRECT_TABLE: a LINEAR table's entry by index, immediate or read from the packet ------------ */

static int goto_direct_decode(const uint8_t *d, struct pof_instruction *in, struct pof_status *err)
{
    (void)err;
    in->u.goto_direct.next_table_id = d[0];
    in->u.goto_direct.index_type = d[1];
    in->u.goto_direct.packet_offset = get16(d + 2);
    if (d[1] == 1)
        dec_match(d + 8, &in->u.goto_direct.index_field);
    else
        in->u.goto_direct.index_value = get32(d + 8);
    return 0;
}

static void goto_direct_encode(uint8_t *d, const struct pof_instruction *in)
{
    d[0] = in->u.goto_direct.next_table_id;
    d[1] = in->u.goto_direct.index_type;
    put16(d + 2, in->u.goto_direct.packet_offset);
    if (in->u.goto_direct.index_type == 1)
        enc_match(d + 8, &in->u.goto_direct.index_field);
    else
        put32(d + 8, in->u.goto_direct.index_value);
}

static int goto_direct_check(const struct pof_instruction *in, struct pof_status *err)
{
    int lin = pof_dp_global_table_id(POF_LINEAR, 0);
    if (in->u.goto_direct.next_table_id < lin || in->u.goto_direct.next_table_id >= POF_TABLES_TOTAL)
        return pof_fail(err, POFET_BAD_INSTRUCTION, POFBIC_BAD_TABLE_ID, "GOTO_DIRECT_TABLE needs a LINEAR table");
    if (in->u.goto_direct.index_type == 1 && !pof_field_ok(&in->u.goto_direct.index_field))
        return pof_fail(err, POFET_BAD_INSTRUCTION, POFBIC_BAD_OFFSET, "GOTO_DIRECT_TABLE index field invalid");
    return 0;
}

static enum pof_step goto_direct_exec(struct pof_exec *x, const struct pof_instruction *in)
{
    uint8_t b[POF_FIELD_BYTES];
    x->off += in->u.goto_direct.packet_offset;
    x->direct_index = in->u.goto_direct.index_value;
    if (in->u.goto_direct.index_type == 1) {
        if (!pof_read_field(x, &in->u.goto_direct.index_field, b) || in->u.goto_direct.index_field.len > 32)
            return POF_STEP_MISS;
        x->direct_index = pof_field_to_u32(b, in->u.goto_direct.index_field.len);
    }
    x->next_table = in->u.goto_direct.next_table_id;
    x->direct = true;
    return POF_STEP_GOTO;
}

static const struct pof_instr_ops goto_direct_ops = {
    goto_direct_decode, goto_direct_encode, goto_direct_check, goto_direct_exec,
};

/* ---- the table, and the instruction header around the bodies -------------------------------------------- */

const struct pof_instr_ops *const pof_instr_table[POFIT_TYPES] = {
    [POFIT_GOTO_TABLE] = &goto_table_ops,
    [POFIT_WRITE_METADATA] = &write_metadata_ops,
    [POFIT_WRITE_ACTIONS] = &action_set_ops,
    [POFIT_APPLY_ACTIONS] = &apply_actions_ops,
    [POFIT_CLEAR_ACTIONS] = &action_set_ops,
    [POFIT_METER] = &meter_ops,
    [POFIT_WRITE_METADATA_FROM_PACKET] = &write_metadata_from_packet_ops,
    [POFIT_GOTO_DIRECT_TABLE] = &goto_direct_ops,
};

int pof_instr_decode(const uint8_t *p, struct pof_instruction *in, struct pof_status *err)
{
    memset(in, 0, sizeof(*in));
    in->type = get16(p);
    in->len = get16(p + 2);
    if (in->len > POF_INS_SIZE)
        return pof_fail(err, POFET_BAD_INSTRUCTION, POFBIC_BAD_LEN, "instruction len over 304");
    const struct pof_instr_ops *ops = pof_instr_find(in->type);
    if (!ops)
        return pof_fail(err, POFET_BAD_INSTRUCTION, POFBIC_UNKNOWN_INST, "unknown instruction type");
    return ops->decode ? ops->decode(p + 8, in, err) : 0;
}

void pof_instr_encode(uint8_t *p, const struct pof_instruction *in)
{
    const struct pof_instr_ops *ops = pof_instr_find(in->type);
    put16(p, in->type);
    put16(p + 2, in->len);
    if (ops && ops->encode)
        ops->encode(p + 8, in);
}

int pof_instr_check(const struct pof_instruction *in, struct pof_status *err)
{
    const struct pof_instr_ops *ops = pof_instr_find(in->type);
    if (!ops || !ops->exec)
        return pof_fail(err, POFET_BAD_INSTRUCTION, POFBIC_UNSUP_INST, "instruction not supported");
    return ops->check ? ops->check(in, err) : 0;
}
