/* The actions, one block each: wire body (decode, encode), what a flow or PACKET_OUT may ask (check), what a
 * packet gets (exec). Offsets are relative to the body, which starts 4 bytes into the action (type, len). */
#include "pof_instr.h"

#include <string.h>

#include "pof_bytes.h"

/* GROUP, DROP, PACKET_IN and COUNTER carry one 32-bit word; so does, when encoded, a type without ops. */
static int value_decode(const uint8_t *d, struct pof_action *a, struct pof_status *err)
{
    (void)err;
    a->u.value = get32(d);
    return 0;
}

static void value_encode(uint8_t *d, const struct pof_action *a)
{
    put32(d, a->u.value);
}

/* ---- OUTPUT: to a port, immediate or read from the packet; the last OUTPUT wins, 255 floods ------------- */

static int output_decode(const uint8_t *d, struct pof_action *a, struct pof_status *err)
{
    (void)err;
    a->u.output.port_type = d[0];
    a->u.output.metadata_offset = get16(d + 2);
    a->u.output.metadata_len = get16(d + 4);
    a->u.output.packet_offset = get16(d + 6);
    if (a->u.output.port_type == 1)
        dec_match(d + 8, &a->u.output.port_field);
    else
        a->u.output.port_id = get32(d + 8);
    return 0;
}

static void output_encode(uint8_t *d, const struct pof_action *a)
{
    d[0] = a->u.output.port_type;
    put16(d + 2, a->u.output.metadata_offset);
    put16(d + 4, a->u.output.metadata_len);
    put16(d + 6, a->u.output.packet_offset);
    if (a->u.output.port_type == 1)
        enc_match(d + 8, &a->u.output.port_field);
    else
        put32(d + 8, a->u.output.port_id);
}

static int output_check(const struct pof_action *a, struct pof_status *err)
{
    if (a->u.output.port_type > 1 || (a->u.output.port_type == 1 && !pof_field_ok(&a->u.output.port_field)))
        return pof_fail(err, POFET_BAD_ACTION, POFBAC_BAD_OUT_PORT, "OUTPUT port field invalid");
    if (a->u.output.port_type == 0 && (a->u.output.port_id & 0xFFFF) == 0)
        return pof_fail(err, POFET_BAD_ACTION, POFBAC_BAD_OUT_PORT, "OUTPUT to port 0");
    return 0;
}

static enum pof_step output_exec(struct pof_exec *x, const struct pof_action *a)
{
    uint8_t buf[POF_FIELD_BYTES];
    uint32_t port = a->u.output.port_id & 0xFFFF;
    if (a->u.output.port_type == 1) {
        if (!pof_read_field(x, &a->u.output.port_field, buf) || a->u.output.port_field.len > 32) {
            x->stats->short_field++;
            x->v->kind = POF_V_DROP;
            return POF_STEP_DROP;
        }
        port = pof_field_to_u32(buf, a->u.output.port_field.len) & 0xFFFF;
    }
    x->v->kind = port == POF_FLOOD_PORT ? POF_V_FLOOD : POF_V_OUTPUT;
    x->v->out_port = (uint16_t)port;
    x->v->out_offset = a->u.output.packet_offset;
    return POF_STEP_NEXT;
}

static const struct pof_action_ops output_ops = {output_decode, output_encode, output_check, output_exec};

/* ---- SET_FIELD: as the reference, value AND mask is written over the whole field ------------------------ */

static int set_field_decode(const uint8_t *d, struct pof_action *a, struct pof_status *err)
{
    (void)err;
    dec_match_x(d, &a->u.set_field);
    return 0;
}

static void set_field_encode(uint8_t *d, const struct pof_action *a)
{
    enc_match_x(d, &a->u.set_field);
}

static int set_field_check(const struct pof_action *a, struct pof_status *err)
{
    if (!pof_field_ok(&a->u.set_field.field))
        return pof_fail(err, POFET_BAD_ACTION, POFBAC_BAD_ARGUMENT, "SET_FIELD field invalid");
    return 0;
}

static enum pof_step set_field_exec(struct pof_exec *x, const struct pof_action *a)
{
    uint8_t buf[POF_FIELD_BYTES];
    for (int i = 0; i < POF_FIELD_BYTES; i++)
        buf[i] = (uint8_t)(a->u.set_field.value[i] & a->u.set_field.mask[i]);
    if (!pof_write_field(x, &a->u.set_field.field, buf, NULL))
        x->stats->short_field++;
    return POF_STEP_NEXT;
}

static const struct pof_action_ops set_field_ops = {set_field_decode, set_field_encode, set_field_check,
                                                    set_field_exec};

/* ---- SET_FIELD_FROM_METADATA ------------------------------------------------------------------------------ */

static int set_from_metadata_decode(const uint8_t *d, struct pof_action *a, struct pof_status *err)
{
    (void)err;
    dec_match(d, &a->u.set_from_metadata.field);
    a->u.set_from_metadata.metadata_offset = get16(d + 8);
    return 0;
}

static void set_from_metadata_encode(uint8_t *d, const struct pof_action *a)
{
    enc_match(d, &a->u.set_from_metadata.field);
    put16(d + 8, a->u.set_from_metadata.metadata_offset);
}

static int set_from_metadata_check(const struct pof_action *a, struct pof_status *err)
{
    const struct pof_match *f = &a->u.set_from_metadata.field;
    if (!pof_field_ok(f) || (uint32_t)a->u.set_from_metadata.metadata_offset + f->len > POF_METADATA_BYTES * 8)
        return pof_fail(err, POFET_BAD_ACTION, POFBAC_BAD_ARGUMENT, "SET_FIELD_FROM_METADATA invalid");
    return 0;
}

static enum pof_step set_from_metadata_exec(struct pof_exec *x, const struct pof_action *a)
{
    uint8_t buf[POF_FIELD_BYTES];
    const struct pof_match *f = &a->u.set_from_metadata.field;
    if (pof_bits_get(x->md, sizeof(x->md), a->u.set_from_metadata.metadata_offset, f->len, buf))
        if (!pof_write_field(x, f, buf, NULL))
            x->stats->short_field++;
    return POF_STEP_NEXT;
}

static const struct pof_action_ops set_from_metadata_ops = {
    set_from_metadata_decode, set_from_metadata_encode, set_from_metadata_check, set_from_metadata_exec,
};

/* ---- MODIFY_FIELD: adds a signed increment to a field of up to 32 bits (wrapping) ----------------------- */

static int modify_field_decode(const uint8_t *d, struct pof_action *a, struct pof_status *err)
{
    (void)err;
    dec_match(d, &a->u.modify_field.field);
    a->u.modify_field.increment = (int32_t)get32(d + 8);
    return 0;
}

static void modify_field_encode(uint8_t *d, const struct pof_action *a)
{
    enc_match(d, &a->u.modify_field.field);
    put32(d + 8, (uint32_t)a->u.modify_field.increment);
}

static int modify_field_check(const struct pof_action *a, struct pof_status *err)
{
    if (!pof_field_ok(&a->u.modify_field.field) || a->u.modify_field.field.len > 32)
        return pof_fail(err, POFET_BAD_ACTION, POFBAC_BAD_ARGUMENT, "MODIFY_FIELD needs a field of 1-32 bits");
    return 0;
}

static enum pof_step modify_field_exec(struct pof_exec *x, const struct pof_action *a)
{
    uint8_t buf[POF_FIELD_BYTES];
    const struct pof_match *f = &a->u.modify_field.field;
    if (!pof_read_field(x, f, buf)) {
        x->stats->short_field++;
        return POF_STEP_NEXT;
    }
    uint32_t v = pof_field_to_u32(buf, f->len) + (uint32_t)a->u.modify_field.increment;
    pof_u32_to_field(v, f->len, buf);
    pof_write_field(x, f, buf, NULL);
    return POF_STEP_NEXT;
}

static const struct pof_action_ops modify_field_ops = {modify_field_decode, modify_field_encode,
                                                       modify_field_check, modify_field_exec};

/* ---- ADD_FIELD: inserts whole bytes at a byte position, into the buffer's room ---------------------------- */

static int add_field_decode(const uint8_t *d, struct pof_action *a, struct pof_status *err)
{
    (void)err;
    a->u.add_field.tag_id = get16(d);
    a->u.add_field.tag_pos = get16(d + 2);
    a->u.add_field.tag_len = get32(d + 4);
    memcpy(a->u.add_field.tag_value, d + 8, POF_FIELD_BYTES);
    return 0;
}

static void add_field_encode(uint8_t *d, const struct pof_action *a)
{
    put16(d, a->u.add_field.tag_id);
    put16(d + 2, a->u.add_field.tag_pos);
    put32(d + 4, a->u.add_field.tag_len);
    memcpy(d + 8, a->u.add_field.tag_value, POF_FIELD_BYTES);
}

static int add_field_check(const struct pof_action *a, struct pof_status *err)
{
    if (a->u.add_field.tag_pos % 8 || a->u.add_field.tag_len % 8 || a->u.add_field.tag_len == 0 ||
        a->u.add_field.tag_len > POF_FIELD_BYTES * 8)
        return pof_fail(err, POFET_BAD_ACTION, POFBAC_BAD_ARGUMENT, "ADD_FIELD needs whole bytes, 1-16");
    return 0;
}

static enum pof_step add_field_exec(struct pof_exec *x, const struct pof_action *a)
{
    struct pof_pkt *p = x->pkt;
    uint32_t at = x->off + a->u.add_field.tag_pos / 8u, n = a->u.add_field.tag_len / 8u;
    if (at > p->len || n > p->room) {
        x->stats->short_field++;
        return POF_STEP_NEXT;
    }
    memmove(p->data + at + n, p->data + at, p->len - at);
    memcpy(p->data + at, a->u.add_field.tag_value, n);
    p->len += n;
    p->room -= n;
    return POF_STEP_NEXT;
}

static const struct pof_action_ops add_field_ops = {add_field_decode, add_field_encode, add_field_check,
                                                    add_field_exec};

/* ---- DELETE_FIELD: removes whole bytes at a byte position (immediate length only) ----------------------- */

static int delete_field_decode(const uint8_t *d, struct pof_action *a, struct pof_status *err)
{
    (void)err;
    a->u.delete_field.tag_pos = get16(d);
    a->u.delete_field.len_type = d[2];
    if (a->u.delete_field.len_type == 1)
        dec_match(d + 8, &a->u.delete_field.len_field);
    else
        a->u.delete_field.len_value = get32(d + 8);
    return 0;
}

static void delete_field_encode(uint8_t *d, const struct pof_action *a)
{
    put16(d, a->u.delete_field.tag_pos);
    d[2] = a->u.delete_field.len_type;
    if (a->u.delete_field.len_type == 1)
        enc_match(d + 8, &a->u.delete_field.len_field);
    else
        put32(d + 8, a->u.delete_field.len_value);
}

static int delete_field_check(const struct pof_action *a, struct pof_status *err)
{
    if (a->u.delete_field.len_type != 0 || a->u.delete_field.tag_pos % 8 || a->u.delete_field.len_value % 8 ||
        a->u.delete_field.len_value == 0)
        return pof_fail(err, POFET_BAD_ACTION, POFBAC_BAD_ARGUMENT, "DELETE_FIELD needs an immediate byte length");
    return 0;
}

static enum pof_step delete_field_exec(struct pof_exec *x, const struct pof_action *a)
{
    struct pof_pkt *p = x->pkt;
    uint32_t at = x->off + a->u.delete_field.tag_pos / 8u, n = a->u.delete_field.len_value / 8u;
    if (at > p->len || n > p->len - at) {
        x->stats->short_field++;
        return POF_STEP_NEXT;
    }
    memmove(p->data + at, p->data + at + n, p->len - at - n);
    p->len -= n;
    p->room += n;
    return POF_STEP_NEXT;
}

static const struct pof_action_ops delete_field_ops = {delete_field_decode, delete_field_encode,
                                                       delete_field_check, delete_field_exec};

/* ---- CALC_CHECKSUM: a 16-bit Internet checksum over byte-aligned packet bytes --------------------------- */

static int checksum_decode(const uint8_t *d, struct pof_action *a, struct pof_status *err)
{
    (void)err;
    a->u.checksum.checksum_pos_type = d[0];
    a->u.checksum.calc_pos_type = d[1];
    a->u.checksum.checksum_pos = get16(d + 2);
    a->u.checksum.checksum_len = get16(d + 4);
    a->u.checksum.calc_start = get16(d + 6);
    a->u.checksum.calc_len = get16(d + 8);
    return 0;
}

static void checksum_encode(uint8_t *d, const struct pof_action *a)
{
    d[0] = a->u.checksum.checksum_pos_type;
    d[1] = a->u.checksum.calc_pos_type;
    put16(d + 2, a->u.checksum.checksum_pos);
    put16(d + 4, a->u.checksum.checksum_len);
    put16(d + 6, a->u.checksum.calc_start);
    put16(d + 8, a->u.checksum.calc_len);
}

static int checksum_check(const struct pof_action *a, struct pof_status *err)
{
    if (a->u.checksum.checksum_pos_type || a->u.checksum.calc_pos_type || a->u.checksum.checksum_len != 16 ||
        a->u.checksum.checksum_pos % 8 || a->u.checksum.calc_start % 8 || a->u.checksum.calc_len % 8)
        return pof_fail(err, POFET_BAD_ACTION, POFBAC_BAD_ARGUMENT, "CALC_CHECKSUM needs byte-aligned packet fields");
    return 0;
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

static enum pof_step checksum_exec(struct pof_exec *x, const struct pof_action *a)
{
    struct pof_pkt *p = x->pkt;
    uint32_t cpos = x->off + a->u.checksum.checksum_pos / 8u;
    uint32_t start = x->off + a->u.checksum.calc_start / 8u, n = a->u.checksum.calc_len / 8u;
    if (cpos + 2 > p->len || start > p->len || n > p->len - start) {
        x->stats->short_field++;
        return POF_STEP_NEXT;
    }
    p->data[cpos] = p->data[cpos + 1] = 0;
    uint16_t sum = inet_checksum(p->data + start, n);
    p->data[cpos] = (uint8_t)(sum >> 8);
    p->data[cpos + 1] = (uint8_t)sum;
    return POF_STEP_NEXT;
}

static const struct pof_action_ops checksum_ops = {checksum_decode, checksum_encode, checksum_check,
                                                   checksum_exec};

/* ---- GROUP: the codec takes it, the core refuses it (groups are not supported) --------------------------- */

static const struct pof_action_ops group_ops = {value_decode, value_encode, NULL, NULL};

/* ---- DROP -------------------------------------------------------------------------------------------------- */

static enum pof_step drop_exec(struct pof_exec *x, const struct pof_action *a)
{
    (void)a;
    x->v->kind = POF_V_DROP;
    return POF_STEP_DROP;
}

static const struct pof_action_ops drop_ops = {value_decode, value_encode, NULL, drop_exec};

/* ---- PACKET_IN: a copy to the controller, with the action's value as the reason ------------------------ */

static enum pof_step packet_in_exec(struct pof_exec *x, const struct pof_action *a)
{
    x->v->to_controller = true;
    x->v->packet_in_reason = (uint8_t)a->u.value;
    return POF_STEP_NEXT;
}

static const struct pof_action_ops packet_in_ops = {value_decode, value_encode, NULL, packet_in_exec};

/* ---- COUNTER: counts the packet (as it is now) in counter `value` --------------------------------------- */

static int counter_check(const struct pof_action *a, struct pof_status *err)
{
    if (a->u.value == 0 || a->u.value >= POF_COUNTERS)
        return pof_fail(err, POFET_BAD_ACTION, POFBAC_BAD_ARGUMENT, "COUNTER id out of range");
    return 0;
}

static enum pof_step counter_exec(struct pof_exec *x, const struct pof_action *a)
{
    pof_count(x->counters, a->u.value, x->pkt->len);
    return POF_STEP_NEXT;
}

static const struct pof_action_ops counter_ops = {value_decode, value_encode, counter_check, counter_exec};

/* ---- the table, and the action header around the bodies ------------------------------------------------- */

const struct pof_action_ops *const pof_action_table[POFAT_TYPES] = {
    [POFAT_OUTPUT] = &output_ops,
    [POFAT_SET_FIELD] = &set_field_ops,
    [POFAT_SET_FIELD_FROM_METADATA] = &set_from_metadata_ops,
    [POFAT_MODIFY_FIELD] = &modify_field_ops,
    [POFAT_ADD_FIELD] = &add_field_ops,
    [POFAT_DELETE_FIELD] = &delete_field_ops,
    [POFAT_CALC_CHECKSUM] = &checksum_ops,
    [POFAT_GROUP] = &group_ops,
    [POFAT_DROP] = &drop_ops,
    [POFAT_PACKET_IN] = &packet_in_ops,
    [POFAT_COUNTER] = &counter_ops,
};

int pof_action_decode(const uint8_t *p, struct pof_action *a, struct pof_status *err)
{
    memset(a, 0, sizeof(*a));
    a->type = get16(p);
    a->len = get16(p + 2);
    if (a->len > POF_ACTION_SIZE)
        return pof_fail(err, POFET_BAD_ACTION, POFBAC_BAD_LEN, "action len over 48");
    const struct pof_action_ops *ops = pof_action_find(a->type);
    if (!ops)
        return pof_fail(err, POFET_BAD_ACTION, POFBAC_BAD_TYPE, "unknown action type");
    return ops->decode ? ops->decode(p + 4, a, err) : 0;
}

void pof_action_encode(uint8_t *p, const struct pof_action *a)
{
    const struct pof_action_ops *ops = pof_action_find(a->type);
    put16(p, a->type);
    put16(p + 2, a->len);
    if (ops && ops->encode)
        ops->encode(p + 4, a);
    else
        value_encode(p + 4, a); /* a type no decoder returns: its value word, as always */
}

int pof_dp_check_actions(const struct pof_action *acts, int n, struct pof_status *err)
{
    for (int i = 0; i < n; i++) {
        const struct pof_action_ops *ops = pof_action_find(acts[i].type);
        if (!ops || !ops->exec)
            return pof_fail(err, POFET_BAD_ACTION, POFBAC_BAD_TYPE, "action not supported");
        if (ops->check && ops->check(&acts[i], err) < 0)
            return -1;
    }
    return 0;
}

bool pof_run_actions(struct pof_exec *x, const struct pof_action *acts, int n)
{
    for (int i = 0; i < n; i++) {
        const struct pof_action_ops *ops = pof_action_find(acts[i].type);
        if (!ops || !ops->exec) { /* never in a checked list; dropping is the safe answer */
            x->v->kind = POF_V_DROP;
            return false;
        }
        if (ops->exec(x, &acts[i]) == POF_STEP_DROP)
            return false;
    }
    return true;
}
