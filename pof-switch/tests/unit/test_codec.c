/* The C codec against spec/pof/vectors: every valid vector decodes to the fields it lists and re-encodes to
 * the same bytes; every invalid vector is rejected with the ERROR type/code it names; every refused and
 * unsupported vector decodes and re-encodes like a valid one and the core refuses to apply it with the ERROR it
 * names; every liberal vector decodes to its message (and, this codec keeping its form, re-encodes to it). */
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pof_dp.h"
#include "pof_instr.h"
#include "pof_wire.h"
#include "unit.h"
#include "vec.h"

static const char *vector_dir;

static int check_match(json_t *j, const struct pof_match *m)
{
    return ival(j, "field_id") == m->field_id && ival(j, "offset") == m->offset && ival(j, "length") == m->len;
}

static int check_match_x(json_t *j, const struct pof_match_x *m)
{
    return check_match(j, &m->field) && hexeq(j, "value", m->value, 16) && hexeq(j, "mask", m->mask, 16);
}

static const char *action_names[] = {"OUTPUT", "SET_FIELD", "SET_FIELD_FROM_METADATA", "MODIFY_FIELD",
                                     "ADD_FIELD", "DELETE_FIELD", "CALC_CHECKSUM", "GROUP", "DROP",
                                     "PACKET_IN", "COUNTER"};

static int check_action(json_t *j, const struct pof_action *a)
{
    if (a->type > POFAT_COUNTER || !streq(j, "type", action_names[a->type]) || ival(j, "len") != a->len)
        return 0;
    switch (a->type) {
    case POFAT_OUTPUT:
        return ival(j, "port_type") == a->u.output.port_type && ival(j, "value") == a->u.output.port_id &&
               ival(j, "packet_offset") == a->u.output.packet_offset;
    case POFAT_SET_FIELD: return check_match_x(json_object_get(j, "field"), &a->u.set_field);
    case POFAT_MODIFY_FIELD:
        return check_match(json_object_get(j, "field"), &a->u.modify_field.field) &&
               ival(j, "increment") == a->u.modify_field.increment;
    case POFAT_ADD_FIELD:
        return ival(j, "tag_id") == a->u.add_field.tag_id && ival(j, "tag_pos") == a->u.add_field.tag_pos &&
               ival(j, "tag_len") == a->u.add_field.tag_len && hexeq(j, "tag_value", a->u.add_field.tag_value, 16);
    case POFAT_DELETE_FIELD:
        return ival(j, "tag_pos") == a->u.delete_field.tag_pos && ival(j, "value") == a->u.delete_field.len_value;
    case POFAT_CALC_CHECKSUM:
        return ival(j, "checksum_pos") == a->u.checksum.checksum_pos &&
               ival(j, "checksum_len") == a->u.checksum.checksum_len &&
               ival(j, "calc_start") == a->u.checksum.calc_start && ival(j, "calc_len") == a->u.checksum.calc_len;
    default: return ival(j, "value") == a->u.value;
    }
}

static int check_instruction(json_t *j, const struct pof_instruction *in)
{
    if (ival(j, "len") != in->len)
        return 0;
    switch (in->type) {
    case POFIT_GOTO_TABLE: {
        json_t *ms = json_object_get(j, "matches");
        if (!streq(j, "type", "GOTO_TABLE") || ival(j, "next_table_id") != in->u.goto_table.next_table_id ||
            json_array_size(ms) != in->u.goto_table.match_num)
            return 0;
        for (size_t i = 0; i < json_array_size(ms); i++)
            if (!check_match(json_array_get(ms, i), &in->u.goto_table.matches[i]))
                return 0;
        return 1;
    }
    case POFIT_WRITE_METADATA:
        return streq(j, "type", "WRITE_METADATA") &&
               ival(j, "metadata_offset") == in->u.write_metadata.metadata_offset &&
               ival(j, "length") == in->u.write_metadata.len && hexeq(j, "value", in->u.write_metadata.value, 16);
    case POFIT_WRITE_METADATA_FROM_PACKET:
        return streq(j, "type", "WRITE_METADATA_FROM_PACKET") &&
               ival(j, "metadata_offset") == in->u.write_metadata_from_packet.metadata_offset &&
               ival(j, "packet_offset") == in->u.write_metadata_from_packet.packet_offset &&
               ival(j, "length") == in->u.write_metadata_from_packet.len;
    case POFIT_METER: return streq(j, "type", "METER") && ival(j, "meter_id") == in->u.meter.meter_id;
    case POFIT_GOTO_DIRECT_TABLE:
        return streq(j, "type", "GOTO_DIRECT_TABLE") && ival(j, "next_table_id") == in->u.goto_direct.next_table_id &&
               ival(j, "packet_offset") == in->u.goto_direct.packet_offset &&
               ival(j, "value") == in->u.goto_direct.index_value;
    case POFIT_APPLY_ACTIONS: {
        json_t *as = json_object_get(j, "actions");
        if (!streq(j, "type", "APPLY_ACTIONS") || json_array_size(as) != in->u.apply_actions.action_num)
            return 0;
        for (size_t i = 0; i < json_array_size(as); i++)
            if (!check_action(json_array_get(as, i), &in->u.apply_actions.actions[i]))
                return 0;
        return 1;
    }
    default: return 0;
    }
}

static int check_port(json_t *j, const struct pof_port *p)
{
    return ival(j, "port_id") == p->port_id && ival(j, "dev_id") == p->dev_id && hexeq(j, "hw_addr", p->hw_addr, 6) &&
           streq(j, "name", p->name) && ival(j, "curr_speed") == p->curr_speed && ival(j, "of_enable") == p->of_enable;
}

static int check_port_stats(json_t *j, const struct pof_port_stats *p)
{
    const struct { const char *k; uint64_t v; } f[] = {
        {"port_no", p->port_no}, {"rx_packets", p->rx_packets}, {"tx_packets", p->tx_packets},
        {"rx_bytes", p->rx_bytes}, {"tx_bytes", p->tx_bytes}, {"rx_dropped", p->rx_dropped},
        {"tx_dropped", p->tx_dropped}, {"rx_errors", p->rx_errors}, {"tx_errors", p->tx_errors},
        {"rx_frame_err", p->rx_frame_err}, {"rx_over_err", p->rx_over_err}, {"rx_crc_err", p->rx_crc_err},
        {"collisions", p->collisions}, {"duration_sec", p->duration_sec}, {"duration_nsec", p->duration_nsec},
    };
    for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
        if ((uint64_t)ival(j, f[i].k) != f[i].v)
            return 0;
    return 1;
}

static int check_multipart(json_t *b, uint8_t type, const struct pof_multipart *mp)
{
    if (ival(b, "mp_type") != mp->mp_type || ival(b, "flags") != mp->flags)
        return 0;
    if (type == POFT_MULTIPART_REQUEST)
        return ival(b, "port_no") == mp->port_no;
    json_t *ss = json_object_get(b, "stats");
    if (json_array_size(ss) != mp->stats_num)
        return 0;
    for (uint16_t i = 0; i < mp->stats_num; i++) {
        struct pof_port_stats st;
        pof_port_stats_at(mp, i, &st);
        if (!check_port_stats(json_array_get(ss, i), &st))
            return 0;
    }
    return 1;
}

/* Field-by-field comparison of the decoded message with the vector's "body". */
static int check_fields(json_t *b, const struct pof_msg *m)
{
    switch (m->hdr.type) {
    case POFT_FLOW_MOD: {
        const struct pof_flow_mod *f = &m->u.flow_mod;
        json_t *ms = json_object_get(b, "matches"), *is = json_object_get(b, "instructions");
        if (ival(b, "command") != f->command || ival(b, "counter_id") != f->counter_id ||
            (uint64_t)ival(b, "cookie") != f->cookie || ival(b, "table_id") != f->table_id ||
            ival(b, "table_type") != f->table_type || ival(b, "priority") != f->priority ||
            ival(b, "index") != f->index || json_array_size(ms) != f->match_num ||
            json_array_size(is) != f->instruction_num)
            return 0;
        for (size_t i = 0; i < f->match_num; i++)
            if (!check_match_x(json_array_get(ms, i), &f->matches[i]))
                return 0;
        for (size_t i = 0; i < f->instruction_num; i++)
            if (!check_instruction(json_array_get(is, i), &f->instructions[i]))
                return 0;
        return 1;
    }
    case POFT_TABLE_MOD: {
        const struct pof_table_mod *t = &m->u.table_mod;
        json_t *ms = json_object_get(b, "matches");
        if (ival(b, "command") != t->command || ival(b, "table_id") != t->table_id ||
            ival(b, "table_type") != t->table_type || ival(b, "size") != t->size || ival(b, "key_len") != t->key_len ||
            !streq(b, "name", t->name) || json_array_size(ms) != t->match_num)
            return 0;
        for (size_t i = 0; i < t->match_num; i++)
            if (!check_match(json_array_get(ms, i), &t->matches[i]))
                return 0;
        return 1;
    }
    case POFT_PORT_STATUS: case POFT_PORT_MOD:
        return ival(b, "reason") == m->u.port_status.reason &&
               check_port(json_object_get(b, "port"), &m->u.port_status.port);
    case POFT_FEATURES_REPLY:
        return ival(b, "dev_id") == m->u.features.dev_id && ival(b, "port_num") == m->u.features.port_num &&
               ival(b, "table_num") == m->u.features.table_num && streq(b, "vendor_id", m->u.features.vendor_id) &&
               streq(b, "dev_fw_id", m->u.features.dev_fw_id);
    case POFT_SET_CONFIG: case POFT_GET_CONFIG_REPLY:
        if (ival(b, "flags") != m->u.config.flags || ival(b, "miss_send_len") != m->u.config.miss_send_len)
            return 0;
        if (!json_object_get(b, "dev_id")) /* OpenFlow 1.0's SET_CONFIG (liberal/) */
            return m->u.config.no_dev_id;
        return !m->u.config.no_dev_id && ival(b, "dev_id") == m->u.config.dev_id;
    case POFT_QUERYALL_REQUEST:
        if (!json_object_get(b, "slot_id")) /* the bare header of earlier controllers (liberal/): every slot */
            return m->u.queryall.no_body && m->u.queryall.slot_id == POF_SLOT_ALL;
        return !m->u.queryall.no_body && ival(b, "slot_id") == m->u.queryall.slot_id;
    case POFT_GROUP_MOD: {
        const struct pof_group_mod *g = &m->u.group_mod;
        json_t *as = json_object_get(b, "actions");
        if (ival(b, "command") != g->command || ival(b, "group_type") != g->group_type ||
            ival(b, "group_id") != g->group_id || ival(b, "counter_id") != g->counter_id ||
            ival(b, "slot_id") != g->slot_id || json_array_size(as) != g->action_num)
            return 0;
        for (size_t i = 0; i < g->action_num; i++) { /* the codec keeps them on the wire: decode them here */
            struct pof_action a;
            struct pof_status st;
            if (pof_action_decode(g->actions_wire + POF_ACTION_SIZE * i, &a, &st) < 0 ||
                !check_action(json_array_get(as, i), &a))
                return 0;
        }
        return 1;
    }
    case POFT_RESOURCE_REPORT: {
        const struct pof_resource_report *r = &m->u.resource;
        json_t *ts = json_object_get(b, "tables");
        if (ival(b, "counter_num") != r->counter_num || ival(b, "meter_num") != r->meter_num ||
            ival(b, "group_num") != r->group_num || json_array_size(ts) != POF_TABLE_TYPES)
            return 0;
        for (int i = 0; i < POF_TABLE_TYPES; i++) {
            json_t *t = json_array_get(ts, (size_t)i);
            if (ival(t, "type") != r->tables[i].type || ival(t, "tbl_num") != r->tables[i].tbl_num ||
                ival(t, "key_len") != r->tables[i].key_len || ival(t, "total_size") != r->tables[i].total_size)
                return 0;
        }
        return 1;
    }
    case POFT_ERROR:
        return ival(b, "type") == m->u.error.type && ival(b, "code") == m->u.error.code &&
               streq(b, "string", m->u.error.string);
    case POFT_METER_MOD:
        return ival(b, "command") == m->u.meter_mod.command && ival(b, "meter_id") == m->u.meter_mod.meter_id &&
               ival(b, "rate") == m->u.meter_mod.rate && ival(b, "committed_rate") == m->u.meter_mod.committed_rate &&
               ival(b, "flags") == m->u.meter_mod.flags;
    case POFT_COUNTER_MOD: case POFT_COUNTER_REQUEST: case POFT_COUNTER_REPLY:
        return ival(b, "counter_id") == m->u.counter.counter_id && ival(b, "packets") == (json_int_t)m->u.counter.packets &&
               ival(b, "bytes") == (json_int_t)m->u.counter.bytes;
    case POFT_PACKET_IN:
        return ival(b, "port_id") == m->u.packet_in.port_id && ival(b, "table_id") == m->u.packet_in.table_id &&
               ival(b, "reason") == m->u.packet_in.reason &&
               hexeq(b, "data", m->u.packet_in.data, m->u.packet_in.total_len);
    case POFT_PACKET_OUT: {
        json_t *as = json_object_get(b, "actions");
        if (ival(b, "in_port") != m->u.packet_out.in_port || json_array_size(as) != m->u.packet_out.action_num)
            return 0;
        for (size_t i = 0; i < json_array_size(as); i++)
            if (!check_action(json_array_get(as, i), &m->u.packet_out.actions[i]))
                return 0;
        return 1;
    }
    case POFT_ECHO_REQUEST: case POFT_ECHO_REPLY:
        return hexeq(b, "data", m->u.echo.data, m->u.echo.len) || m->u.echo.len > 64;
    case POFT_MULTIPART_REQUEST: case POFT_MULTIPART_REPLY:
        return check_multipart(b, m->hdr.type, &m->u.multipart);
    default:
        return json_object_size(b) == 0;
    }
}

enum kind { VALID, INVALID, REFUSED, LIBERAL, UNSUPPORTED };

/* A refused or unsupported vector decodes to its message and re-encodes to its bytes like a valid one; the core
 * then refuses to apply it with the ERROR the vector names. */
static void check_refused(json_t *doc, const struct pof_msg *msg, const char *path)
{
    struct pof_dp *dp = pof_dp_create();
    struct pof_status st = {0};
    int rc = msg->hdr.type == POFT_METER_MOD         ? pof_dp_meter_mod(dp, &msg->u.meter_mod, &st)
             : msg->hdr.type == POFT_GROUP_MOD       ? pof_dp_group_mod(dp, &msg->u.group_mod, &st)
             : msg->hdr.type == POFT_QUERYALL_REQUEST ? pof_queryall_check(&msg->u.queryall, &st)
                                                     : 0;
    json_t *e = json_object_get(doc, "error");
    CHECK_MSG(rc < 0 && st.type == ival(e, "type") && st.code == ival(e, "code"), path);
    pof_dp_destroy(dp);
}

static void run_vector(const char *path, void *arg)
{
    enum kind kind = *(const enum kind *)arg;
    json_error_t jerr;
    json_t *doc = json_load_file(path, 0, &jerr);
    CHECK(doc != NULL);
    if (!doc)
        return;
    static uint8_t raw[65536], again[65536];
    static struct pof_msg msg;
    size_t n = unhex(json_string_value(json_object_get(doc, "hex")), raw, sizeof(raw));
    struct pof_status st;
    int rc = pof_decode(raw, n, &msg, &st);
    if (kind == INVALID) {
        json_t *e = json_object_get(doc, "error");
        CHECK_MSG(rc < 0 && st.type == ival(e, "type") && st.code == ival(e, "code"), path);
    } else {
        CHECK_MSG(rc == 0, path);
        if (rc == 0) {
            json_t *m = json_object_get(doc, "message");
            CHECK_MSG(msg.hdr.xid == ival(m, "xid"), path);
            CHECK_MSG(check_fields(json_object_get(m, "body"), &msg), path);
            int len = pof_encode(&msg, again, sizeof(again));
            CHECK_MSG(len == (int)n && memcmp(raw, again, n) == 0, path);
            if (kind == REFUSED || kind == UNSUPPORTED)
                check_refused(doc, &msg, path);
        }
    }
    json_decref(doc);
}

static int run_dir(const char *dir, enum kind kind)
{
    int n = vec_each(dir, run_vector, &kind);
    CHECK_MSG(n >= 0, dir);
    return n;
}

static void test_all_vectors(void)
{
    static const struct { const char *sub; enum kind kind; int at_least; } dirs[] = {
        {"", VALID, 29}, {"/invalid", INVALID, 7}, {"/refused", REFUSED, 5}, {"/liberal", LIBERAL, 2},
        {"/unsupported", UNSUPPORTED, 2},
    };
    for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
        char dir[1024];
        snprintf(dir, sizeof(dir), "%s%s", vector_dir, dirs[i].sub);
        CHECK_MSG(run_dir(dir, dirs[i].kind) >= dirs[i].at_least, dir);
    }
}

/* SET_CONFIG is 8 bytes of body (POF) or 4 (OpenFlow 1.0, no dev_id); any other short length is BAD_LEN, and
 * GET_CONFIG_REPLY, which only the switch sends, has the POF form only. A short GROUP_MOD is BAD_LEN too. */
static void test_config_forms_and_short_group_mod(void)
{
    static struct pof_msg msg;
    uint8_t raw[POF_HEADER_LEN + POF_GROUP_MOD_SIZE] = {4, POFT_SET_CONFIG, 0, 0, 0, 0, 0, 9, 0, 2, 0, 0x80};
    struct pof_status st;
    for (uint8_t body = 0; body <= POF_CONFIG_SIZE; body++) {
        raw[3] = (uint8_t)(POF_HEADER_LEN + body);
        int rc = pof_decode(raw, POF_HEADER_LEN + body, &msg, &st);
        if (body == POF_CONFIG_OF10_SIZE)
            CHECK(rc == 0 && msg.u.config.no_dev_id && msg.u.config.flags == 2 && msg.u.config.miss_send_len == 128);
        else if (body == POF_CONFIG_SIZE)
            CHECK(rc == 0 && !msg.u.config.no_dev_id && msg.u.config.dev_id == 0x00020080);
        else
            CHECK(rc < 0 && st.type == POFET_BAD_REQUEST && st.code == POFBRC_BAD_LEN);
    }
    raw[1] = POFT_GET_CONFIG_REPLY;
    raw[3] = POF_HEADER_LEN + POF_CONFIG_OF10_SIZE;
    CHECK(pof_decode(raw, POF_HEADER_LEN + POF_CONFIG_OF10_SIZE, &msg, &st) < 0 && st.code == POFBRC_BAD_LEN);
    /* A switch-built GET_CONFIG_REPLY is zero-initialised: always the POF form. */
    msg = (struct pof_msg){.hdr = {.type = POFT_GET_CONFIG_REPLY}};
    CHECK(pof_encode(&msg, raw, sizeof(raw)) == POF_HEADER_LEN + POF_CONFIG_SIZE);
    memset(raw, 0, sizeof(raw));
    raw[0] = 4;
    raw[1] = POFT_GROUP_MOD;
    raw[2] = (uint8_t)(sizeof(raw) >> 8);
    raw[3] = (uint8_t)(sizeof(raw) - 1);
    CHECK(pof_decode(raw, sizeof(raw) - 1, &msg, &st) < 0 && st.code == POFBRC_BAD_LEN);
    raw[3] = (uint8_t)sizeof(raw);
    CHECK(pof_decode(raw, sizeof(raw), &msg, &st) == 0 && msg.hdr.type == POFT_GROUP_MOD);
}

/* QUERYALL_REQUEST: the reference's 8-byte body (slot_id, pad[6]), or no body (every slot); 1-7 bytes are BAD_LEN.
 * A switch-built request is the 8-byte form; slots other than 0 and every slot are refused, as the reference
 * refuses a slot it does not have. */
static void test_queryall_forms_and_slots(void)
{
    static struct pof_msg msg;
    uint8_t raw[POF_HEADER_LEN + POF_QUERYALL_SIZE] = {4, POFT_QUERYALL_REQUEST, 0, 0, 0, 0, 0, 9, 0xFF, 0xFF};
    struct pof_status st;
    for (uint8_t body = 0; body <= POF_QUERYALL_SIZE; body++) {
        raw[3] = (uint8_t)(POF_HEADER_LEN + body);
        int rc = pof_decode(raw, POF_HEADER_LEN + body, &msg, &st);
        if (body == 0 || body == POF_QUERYALL_SIZE)
            CHECK(rc == 0 && msg.u.queryall.no_body == (body == 0) && msg.u.queryall.slot_id == POF_SLOT_ALL);
        else
            CHECK(rc < 0 && st.type == POFET_BAD_REQUEST && st.code == POFBRC_BAD_LEN);
    }
    msg = (struct pof_msg){.hdr = {.type = POFT_QUERYALL_REQUEST}};
    CHECK(pof_encode(&msg, raw, sizeof(raw)) == POF_HEADER_LEN + POF_QUERYALL_SIZE && raw[8] == 0 && raw[9] == 0);
    CHECK(pof_queryall_check(&msg.u.queryall, &st) == 0);
    msg.u.queryall.slot_id = 1;
    CHECK(pof_queryall_check(&msg.u.queryall, &st) < 0 && st.type == POFET_SOFTWARE_FAILED &&
          st.code == POF_INVALID_SLOT_ID);
}

static void test_truncated_prefixes_never_decode_past_end(void)
{
    /* Every prefix of a FLOW_MOD with a patched length must be rejected, not read past its end. */
    char path[1024];
    snprintf(path, sizeof(path), "%s/flow_mod_meter_output.json", vector_dir);
    json_t *doc = json_load_file(path, 0, NULL);
    CHECK(doc != NULL);
    if (!doc)
        return;
    static uint8_t raw[4096], cut[4096];
    static struct pof_msg msg;
    size_t n = unhex(json_string_value(json_object_get(doc, "hex")), raw, sizeof(raw));
    for (size_t l = 0; l < n; l++) {
        memcpy(cut, raw, l);
        if (l >= 4) {
            cut[2] = (uint8_t)(l >> 8);
            cut[3] = (uint8_t)l;
        }
        struct pof_status st;
        CHECK(pof_decode(cut, l, &msg, &st) < 0);
    }
    json_decref(doc);
}

static void test_bad_counts_rejected(void)
{
    static uint8_t raw[POF_HEADER_LEN + POF_FLOW_MOD_SIZE];
    static struct pof_msg msg;
    struct pof_status st;
    raw[0] = 4;
    raw[1] = POFT_FLOW_MOD;
    raw[2] = (uint8_t)(sizeof(raw) >> 8);
    raw[3] = (uint8_t)sizeof(raw);
    raw[8 + 1] = 9; /* nine matches */
    CHECK(pof_decode(raw, sizeof(raw), &msg, &st) < 0 && st.type == POFET_BAD_MATCH);
    raw[8 + 1] = 0;
    raw[8 + 2] = 7; /* seven instructions */
    CHECK(pof_decode(raw, sizeof(raw), &msg, &st) < 0 && st.type == POFET_BAD_INSTRUCTION);
}

/* committed_rate lives in the reference's pad bytes 12-15 of the METER_MOD body: a reference controller's
 * message (zeros there) decodes as a single-rate meter, and the field round-trips at its offset. */
static void test_meter_mod_committed_rate_offset(void)
{
    static struct pof_msg msg, back;
    uint8_t out[64];
    struct pof_status st;
    msg.hdr.type = POFT_METER_MOD;
    msg.u.meter_mod = (struct pof_meter_mod){.command = 1, .slot_id = 0, .meter_id = 0x01020304,
                                             .rate = 0x0A0B0C0D, .committed_rate = 0xA1B2C3D4};
    CHECK(pof_encode(&msg, out, sizeof(out)) == 24);
    static const uint8_t body[16] = {1, 0, 0, 0, 1, 2, 3, 4, 0x0A, 0x0B, 0x0C, 0x0D, 0xA1, 0xB2, 0xC3, 0xD4};
    CHECK(memcmp(out + 8, body, 16) == 0);
    CHECK(pof_decode(out, 24, &back, &st) == 0 && back.u.meter_mod.committed_rate == 0xA1B2C3D4 &&
          back.u.meter_mod.rate == 0x0A0B0C0D && back.u.meter_mod.meter_id == 0x01020304);
    memset(out + 20, 0, 4); /* what a reference controller sends */
    CHECK(pof_decode(out, 24, &back, &st) == 0 && back.u.meter_mod.committed_rate == 0);
}

/* The latency flag is body byte 1, the reference's pad byte after command: a reference controller's zero there
 * is a meter of no class; the flag round-trips, and QUERYALL replays it. */
static void test_meter_mod_latency_flag(void)
{
    static struct pof_msg msg, back;
    uint8_t out[64];
    struct pof_status st;
    msg.hdr.type = POFT_METER_MOD;
    msg.u.meter_mod = (struct pof_meter_mod){.command = 0, .flags = POF_METER_LATENCY, .meter_id = 9, .rate = 3000};
    CHECK(pof_encode(&msg, out, sizeof(out)) == 24 && out[8] == 0 && out[9] == 1);
    CHECK(pof_decode(out, 24, &back, &st) == 0 && back.u.meter_mod.flags == POF_METER_LATENCY);
    out[9] = 0;
    CHECK(pof_decode(out, 24, &back, &st) == 0 && back.u.meter_mod.flags == 0);
}

int main(int argc, char **argv)
{
    vector_dir = argc > 1 ? argv[1] : "../../spec/pof/vectors";
    RUN(test_all_vectors);
    RUN(test_config_forms_and_short_group_mod);
    RUN(test_queryall_forms_and_slots);
    RUN(test_truncated_prefixes_never_decode_past_end);
    RUN(test_bad_counts_rejected);
    RUN(test_meter_mod_committed_rate_offset);
    RUN(test_meter_mod_latency_flag);
    return unit_summary();
}
