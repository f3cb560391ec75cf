/* POF wire codec: byte offsets of spec/pof/README.md, big-endian, fixed-size bodies. Bodies with a structure
 * of their own are in pof_codec_body.c; instruction and action bodies are their types' (pof_instr.c,
 * pof_action.c). */
#include "pof_wire.h"

#include <stdbool.h>
#include <string.h>

#include "pof_bytes.h"
#include "pof_codec_int.h"
#include "pof_instr.h"

/* Minimum body length per type; -1 = no body rule (unknown type), 0 = empty or variable. */
static int min_body(uint8_t type)
{
    switch (type) {
    case POFT_HELLO: case POFT_FEATURES_REQUEST: case POFT_GET_CONFIG_REQUEST: case POFT_QUERYALL_REQUEST:
    case POFT_QUERYALL_FIN: case POFT_ECHO_REQUEST: case POFT_ECHO_REPLY: return 0;
    case POFT_ERROR: return POF_ERROR_SIZE;
    case POFT_FEATURES_REPLY: return POF_FEATURES_SIZE;
    case POFT_SET_CONFIG: return POF_CONFIG_OF10_SIZE; /* or POF_CONFIG_SIZE: see the decoder */
    case POFT_GET_CONFIG_REPLY: return POF_CONFIG_SIZE;
    case POFT_RESOURCE_REPORT: return POF_RESOURCE_SIZE;
    case POFT_PORT_STATUS: case POFT_PORT_MOD: return POF_PORT_STATUS_SIZE;
    case POFT_PACKET_IN: return POF_PACKET_IN_HEAD;
    case POFT_TABLE_MOD: return POF_TABLE_MOD_SIZE;
    case POFT_FLOW_MOD: return POF_FLOW_MOD_SIZE;
    case POFT_METER_MOD: return POF_METER_MOD_SIZE;
    case POFT_GROUP_MOD: return POF_GROUP_MOD_SIZE;
    case POFT_COUNTER_MOD: case POFT_COUNTER_REQUEST: case POFT_COUNTER_REPLY: return POF_COUNTER_SIZE;
    case POFT_PACKET_OUT: return POF_PACKET_OUT_HEAD;
    case POFT_MULTIPART_REQUEST: return POF_MULTIPART_REQUEST_SIZE;
    case POFT_MULTIPART_REPLY: return POF_MULTIPART_HEAD;
    default: return -1;
    }
}

int pof_decode(const uint8_t *buf, size_t len, struct pof_msg *msg, struct pof_status *err)
{
    memset(msg, 0, sizeof(*msg));
    if (len < POF_HEADER_LEN)
        return pof_fail(err, POFET_BAD_REQUEST, POFBRC_BAD_LEN, "shorter than the header");
    msg->hdr.version = buf[0];
    msg->hdr.type = buf[1];
    msg->hdr.length = get16(buf + 2);
    msg->hdr.xid = get32(buf + 4);
    if (msg->hdr.length != len)
        return pof_fail(err, POFET_BAD_REQUEST, POFBRC_BAD_LEN, "header length differs from message size");
    if (msg->hdr.version != POF_VERSION)
        return pof_fail(err, POFET_BAD_REQUEST, POFBRC_BAD_VERSION, "version is not 4");
    int need = min_body(msg->hdr.type);
    if (need < 0)
        return pof_fail(err, POFET_BAD_REQUEST, POFBRC_BAD_TYPE, "unsupported message type");
    const uint8_t *b = buf + POF_HEADER_LEN;
    size_t blen = len - POF_HEADER_LEN;
    if (blen < (size_t)need)
        return pof_fail(err, POFET_BAD_REQUEST, POFBRC_BAD_LEN, "body shorter than its type requires");

    switch (msg->hdr.type) {
    case POFT_ECHO_REQUEST: case POFT_ECHO_REPLY:
        msg->u.echo.data = b;
        msg->u.echo.len = (uint16_t)blen;
        break;
    case POFT_ERROR: {
        struct pof_error *e = &msg->u.error;
        e->type = get16(b);
        e->code = get16(b + 2);
        e->dev_id = get32(b + 4);
        e->slot_id = get16(b + 8);
        get_str(e->string, b + 16, POF_ERR_STR_LEN);
        break;
    }
    case POFT_FEATURES_REPLY: {
        struct pof_features *f = &msg->u.features;
        f->dev_id = get32(b);
        f->slot_id = get16(b + 4);
        f->port_num = get16(b + 6);
        f->table_num = get16(b + 8);
        f->capabilities = get32(b + 12);
        get_str(f->vendor_id, b + 16, POF_NAME_LEN);
        get_str(f->dev_fw_id, b + 80, POF_NAME_LEN);
        get_str(f->dev_lkup_id, b + 144, POF_NAME_LEN);
        break;
    }
    case POFT_SET_CONFIG: case POFT_GET_CONFIG_REPLY:
        /* Liberal acceptance (spec/pof): a 4-byte SET_CONFIG body is OpenFlow 1.0's, which controllers written
         * for the reference send and the reference takes; 5-7 bytes are neither form. */
        if (blen < POF_CONFIG_SIZE) {
            if (blen != POF_CONFIG_OF10_SIZE)
                return pof_fail(err, POFET_BAD_REQUEST, POFBRC_BAD_LEN, "SET_CONFIG body is neither 8 nor 4 bytes");
            msg->u.config = (struct pof_switch_config){.flags = get16(b), .miss_send_len = get16(b + 2),
                                                       .no_dev_id = true};
            break;
        }
        msg->u.config.dev_id = get32(b);
        msg->u.config.flags = get16(b + 4);
        msg->u.config.miss_send_len = get16(b + 6);
        break;
    case POFT_QUERYALL_REQUEST:
        /* Liberal acceptance (spec/pof): no body is what earlier controllers sent, taken as every slot. */
        if (blen == 0) {
            msg->u.queryall = (struct pof_queryall){.slot_id = POF_SLOT_ALL, .no_body = true};
            break;
        }
        if (blen < POF_QUERYALL_SIZE)
            return pof_fail(err, POFET_BAD_REQUEST, POFBRC_BAD_LEN, "QUERYALL_REQUEST body of 1-7 bytes");
        msg->u.queryall.slot_id = get16(b);
        break;
    case POFT_RESOURCE_REPORT: {
        struct pof_resource_report *r = &msg->u.resource;
        r->resource_type = b[0];
        r->slot_id = get16(b + 2);
        r->counter_num = get32(b + 4);
        r->meter_num = get32(b + 8);
        r->group_num = get32(b + 12);
        for (int i = 0; i < POF_TABLE_TYPES; i++) {
            const uint8_t *t = b + 16 + 16 * i;
            r->tables[i] = (struct pof_table_resource){get32(t), t[4], t[5], get16(t + 6), get32(t + 8)};
        }
        break;
    }
    case POFT_PORT_STATUS: case POFT_PORT_MOD:
        msg->u.port_status.reason = b[0];
        codec_dec_port(b + 8, &msg->u.port_status.port);
        break;
    case POFT_PACKET_IN: {
        struct pof_packet_in *p = &msg->u.packet_in;
        p->buffer_id = get32(b);
        p->total_len = get16(b + 4);
        p->reason = b[6];
        p->table_id = b[7];
        p->cookie = get64(b + 8);
        p->dev_id = get32(b + 16);
        p->slot_id = get16(b + 20);
        p->port_id = get16(b + 22);
        if (blen < (size_t)POF_PACKET_IN_HEAD + p->total_len)
            return pof_fail(err, POFET_BAD_REQUEST, POFBRC_BAD_LEN, "PACKET_IN data shorter than total_len");
        p->data = b + POF_PACKET_IN_HEAD;
        break;
    }
    case POFT_TABLE_MOD: {
        struct pof_table_mod *t = &msg->u.table_mod;
        t->command = b[0];
        t->table_id = b[1];
        t->table_type = b[2];
        t->match_num = b[3];
        t->size = get32(b + 4);
        t->key_len = get16(b + 8);
        t->slot_id = get16(b + 10);
        get_str(t->name, b + 16, POF_NAME_LEN);
        if (t->match_num > POF_MAX_MATCH)
            return pof_fail(err, POFET_BAD_MATCH, POFBMC_BAD_LEN, "TABLE_MOD with more than 8 matches");
        for (int i = 0; i < t->match_num; i++)
            dec_match(b + 80 + 8 * i, &t->matches[i]);
        break;
    }
    case POFT_FLOW_MOD:
        return codec_dec_flow_mod(b, &msg->u.flow_mod, err);
    case POFT_METER_MOD:
        msg->u.meter_mod.command = b[0];
        msg->u.meter_mod.flags = b[1];
        msg->u.meter_mod.slot_id = get16(b + 2);
        msg->u.meter_mod.meter_id = get32(b + 4);
        msg->u.meter_mod.rate = get32(b + 8);
        msg->u.meter_mod.committed_rate = get32(b + 12);
        break;
    case POFT_GROUP_MOD:
        codec_dec_group_mod(b, &msg->u.group_mod);
        break;
    case POFT_COUNTER_MOD: case POFT_COUNTER_REQUEST: case POFT_COUNTER_REPLY:
        msg->u.counter.command = b[0];
        msg->u.counter.slot_id = get16(b + 2);
        msg->u.counter.counter_id = get32(b + 4);
        msg->u.counter.packets = get64(b + 8);
        msg->u.counter.bytes = get64(b + 16);
        break;
    case POFT_PACKET_OUT: {
        struct pof_packet_out *o = &msg->u.packet_out;
        o->buffer_id = get32(b);
        o->in_port = get32(b + 4);
        o->action_num = b[8];
        o->packet_len = get32(b + 12);
        if (o->action_num > POF_MAX_ACT)
            return pof_fail(err, POFET_BAD_ACTION, POFBAC_TOO_MANY, "PACKET_OUT with more than 6 actions");
        if (o->packet_len > POF_PACKET_MAX || blen < (size_t)POF_PACKET_OUT_HEAD + o->packet_len)
            return pof_fail(err, POFET_BAD_REQUEST, POFBRC_BAD_PACKET, "PACKET_OUT data length invalid");
        for (int i = 0; i < o->action_num; i++)
            if (pof_action_decode(b + 16 + POF_ACTION_SIZE * i, &o->actions[i], err) < 0)
                return -1;
        o->data = b + POF_PACKET_OUT_HEAD;
        break;
    }
    case POFT_MULTIPART_REQUEST: case POFT_MULTIPART_REPLY:
        return codec_dec_multipart(b, blen, msg->hdr.type == POFT_MULTIPART_REPLY, &msg->u.multipart, err);
    default:
        break;
    }
    return 0;
}

int pof_encode(const struct pof_msg *msg, uint8_t *out, size_t cap)
{
    size_t body;
    switch (msg->hdr.type) {
    case POFT_ECHO_REQUEST: case POFT_ECHO_REPLY: body = msg->u.echo.len; break;
    case POFT_PACKET_IN: body = POF_PACKET_IN_HEAD + (size_t)msg->u.packet_in.total_len; break;
    case POFT_PACKET_OUT: body = POF_PACKET_OUT_HEAD + (size_t)msg->u.packet_out.packet_len; break;
    case POFT_SET_CONFIG: body = msg->u.config.no_dev_id ? POF_CONFIG_OF10_SIZE : POF_CONFIG_SIZE; break;
    case POFT_QUERYALL_REQUEST: body = msg->u.queryall.no_body ? 0 : POF_QUERYALL_SIZE; break;
    case POFT_MULTIPART_REPLY: {
        const struct pof_multipart *mp = &msg->u.multipart;
        bool lat = mp->mp_type == POFMP_PORT_LATENCY;
        if (mp->stats_num && !(lat ? (const void *)mp->lat : (const void *)mp->stats) && !mp->stats_wire)
            return -1;
        /* too many entries for the 16-bit length: refused below */
        body = POF_MULTIPART_HEAD + (size_t)(lat ? POF_PORT_LATENCY_SIZE : POF_PORT_STATS_SIZE) * mp->stats_num;
        break;
    }
    default: {
        int need = min_body(msg->hdr.type);
        if (need < 0)
            return -1;
        body = (size_t)need;
    }
    }
    size_t len = POF_HEADER_LEN + body;
    if (len > cap || len > UINT16_MAX)
        return -1;
    memset(out, 0, len);
    out[0] = POF_VERSION;
    out[1] = msg->hdr.type;
    put16(out + 2, (uint16_t)len);
    put32(out + 4, msg->hdr.xid);
    uint8_t *b = out + POF_HEADER_LEN;

    switch (msg->hdr.type) {
    case POFT_ECHO_REQUEST: case POFT_ECHO_REPLY:
        if (body)
            memcpy(b, msg->u.echo.data, body);
        break;
    case POFT_ERROR: {
        const struct pof_error *e = &msg->u.error;
        put16(b, e->type);
        put16(b + 2, e->code);
        put32(b + 4, e->dev_id);
        put16(b + 8, e->slot_id);
        put_str(b + 16, e->string, POF_ERR_STR_LEN);
        break;
    }
    case POFT_FEATURES_REPLY: {
        const struct pof_features *f = &msg->u.features;
        put32(b, f->dev_id);
        put16(b + 4, f->slot_id);
        put16(b + 6, f->port_num);
        put16(b + 8, f->table_num);
        put32(b + 12, f->capabilities);
        put_str(b + 16, f->vendor_id, POF_NAME_LEN);
        put_str(b + 80, f->dev_fw_id, POF_NAME_LEN);
        put_str(b + 144, f->dev_lkup_id, POF_NAME_LEN);
        break;
    }
    case POFT_SET_CONFIG: case POFT_GET_CONFIG_REPLY:
        if (msg->hdr.type == POFT_SET_CONFIG && msg->u.config.no_dev_id) {
            put16(b, msg->u.config.flags);
            put16(b + 2, msg->u.config.miss_send_len);
            break;
        }
        put32(b, msg->u.config.dev_id);
        put16(b + 4, msg->u.config.flags);
        put16(b + 6, msg->u.config.miss_send_len);
        break;
    case POFT_QUERYALL_REQUEST:
        if (!msg->u.queryall.no_body)
            put16(b, msg->u.queryall.slot_id);
        break;
    case POFT_RESOURCE_REPORT: {
        const struct pof_resource_report *r = &msg->u.resource;
        b[0] = r->resource_type;
        put16(b + 2, r->slot_id);
        put32(b + 4, r->counter_num);
        put32(b + 8, r->meter_num);
        put32(b + 12, r->group_num);
        for (int i = 0; i < POF_TABLE_TYPES; i++) {
            uint8_t *t = b + 16 + 16 * i;
            put32(t, r->tables[i].dev_id);
            t[4] = r->tables[i].type;
            t[5] = r->tables[i].tbl_num;
            put16(t + 6, r->tables[i].key_len);
            put32(t + 8, r->tables[i].total_size);
        }
        break;
    }
    case POFT_PORT_STATUS: case POFT_PORT_MOD:
        b[0] = msg->u.port_status.reason;
        codec_enc_port(b + 8, &msg->u.port_status.port);
        break;
    case POFT_PACKET_IN: {
        const struct pof_packet_in *p = &msg->u.packet_in;
        put32(b, p->buffer_id);
        put16(b + 4, p->total_len);
        b[6] = p->reason;
        b[7] = p->table_id;
        put64(b + 8, p->cookie);
        put32(b + 16, p->dev_id);
        put16(b + 20, p->slot_id);
        put16(b + 22, p->port_id);
        if (p->total_len)
            memcpy(b + POF_PACKET_IN_HEAD, p->data, p->total_len);
        break;
    }
    case POFT_TABLE_MOD: {
        const struct pof_table_mod *t = &msg->u.table_mod;
        b[0] = t->command;
        b[1] = t->table_id;
        b[2] = t->table_type;
        b[3] = t->match_num;
        put32(b + 4, t->size);
        put16(b + 8, t->key_len);
        put16(b + 10, t->slot_id);
        put_str(b + 16, t->name, POF_NAME_LEN);
        for (int i = 0; i < t->match_num && i < POF_MAX_MATCH; i++)
            enc_match(b + 80 + 8 * i, &t->matches[i]);
        break;
    }
    case POFT_FLOW_MOD: codec_enc_flow_mod(b, &msg->u.flow_mod); break;
    case POFT_METER_MOD:
        b[0] = msg->u.meter_mod.command;
        b[1] = msg->u.meter_mod.flags;
        put16(b + 2, msg->u.meter_mod.slot_id);
        put32(b + 4, msg->u.meter_mod.meter_id);
        put32(b + 8, msg->u.meter_mod.rate);
        put32(b + 12, msg->u.meter_mod.committed_rate);
        break;
    case POFT_GROUP_MOD: codec_enc_group_mod(b, &msg->u.group_mod); break;
    case POFT_COUNTER_MOD: case POFT_COUNTER_REQUEST: case POFT_COUNTER_REPLY:
        b[0] = msg->u.counter.command;
        put16(b + 2, msg->u.counter.slot_id);
        put32(b + 4, msg->u.counter.counter_id);
        put64(b + 8, msg->u.counter.packets);
        put64(b + 16, msg->u.counter.bytes);
        break;
    case POFT_PACKET_OUT: {
        const struct pof_packet_out *o = &msg->u.packet_out;
        put32(b, o->buffer_id);
        put32(b + 4, o->in_port);
        b[8] = o->action_num;
        put32(b + 12, o->packet_len);
        for (int i = 0; i < o->action_num && i < POF_MAX_ACT; i++)
            pof_action_encode(b + 16 + POF_ACTION_SIZE * i, &o->actions[i]);
        if (o->packet_len)
            memcpy(b + POF_PACKET_OUT_HEAD, o->data, o->packet_len);
        break;
    }
    case POFT_MULTIPART_REQUEST: case POFT_MULTIPART_REPLY:
        codec_enc_multipart(b, msg->hdr.type, &msg->u.multipart);
        break;
    default:
        break;
    }
    return (int)len;
}
