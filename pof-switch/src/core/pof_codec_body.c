/* The codec's bodies with a structure of their own (see pof_codec_int.h): ports, FLOW_MOD, the MULTIPART port
 * statistics and GROUP_MOD. */
#include "pof_codec_int.h"

#include <string.h>

#include "pof_bytes.h"
#include "pof_instr.h"

_Static_assert(16 + POF_GROUP_MAX_ACT * POF_ACTION_SIZE == POF_GROUP_MOD_SIZE, "GROUP_MOD: 16 bytes, then 4 actions");

void codec_dec_port(const uint8_t *p, struct pof_port *o)
{
    o->slot_id = get16(p);
    o->port_id = get16(p + 2);
    o->dev_id = get32(p + 4);
    memcpy(o->hw_addr, p + 8, 6);
    get_str(o->name, p + 16, POF_NAME_LEN);
    o->config = get32(p + 80);
    o->state = get32(p + 84);
    o->curr = get32(p + 88);
    o->advertised = get32(p + 92);
    o->supported = get32(p + 96);
    o->peer = get32(p + 100);
    o->curr_speed = get32(p + 104);
    o->max_speed = get32(p + 108);
    o->of_enable = p[112];
}

void codec_enc_port(uint8_t *p, const struct pof_port *o)
{
    put16(p, o->slot_id);
    put16(p + 2, o->port_id);
    put32(p + 4, o->dev_id);
    memcpy(p + 8, o->hw_addr, 6);
    put_str(p + 16, o->name, POF_NAME_LEN);
    put32(p + 80, o->config);
    put32(p + 84, o->state);
    put32(p + 88, o->curr);
    put32(p + 92, o->advertised);
    put32(p + 96, o->supported);
    put32(p + 100, o->peer);
    put32(p + 104, o->curr_speed);
    put32(p + 108, o->max_speed);
    p[112] = o->of_enable;
}

int codec_dec_flow_mod(const uint8_t *b, struct pof_flow_mod *f, struct pof_status *err)
{
    f->command = b[0];
    f->match_num = b[1];
    f->instruction_num = b[2];
    f->counter_id = get32(b + 4);
    f->cookie = get64(b + 8);
    f->cookie_mask = get64(b + 16);
    f->table_id = b[24];
    f->table_type = b[25];
    f->idle_timeout = get16(b + 26);
    f->hard_timeout = get16(b + 28);
    f->priority = get16(b + 30);
    f->index = get32(b + 32);
    f->slot_id = get16(b + 36);
    if (f->match_num > POF_MAX_MATCH)
        return pof_fail(err, POFET_BAD_MATCH, POFBMC_BAD_LEN, "FLOW_MOD with more than 8 matches");
    if (f->instruction_num > POF_MAX_INS)
        return pof_fail(err, POFET_BAD_INSTRUCTION, POFBIC_BAD_LEN, "FLOW_MOD with more than 6 instructions");
    for (int i = 0; i < f->match_num; i++)
        dec_match_x(b + 40 + POF_MATCH_X_SIZE * i, &f->matches[i]);
    for (int i = 0; i < f->instruction_num; i++)
        if (pof_instr_decode(b + 360 + POF_INS_SIZE * i, &f->instructions[i], err) < 0)
            return -1;
    return 0;
}

void codec_enc_flow_mod(uint8_t *b, const struct pof_flow_mod *f)
{
    b[0] = f->command;
    b[1] = f->match_num;
    b[2] = f->instruction_num;
    put32(b + 4, f->counter_id);
    put64(b + 8, f->cookie);
    put64(b + 16, f->cookie_mask);
    b[24] = f->table_id;
    b[25] = f->table_type;
    put16(b + 26, f->idle_timeout);
    put16(b + 28, f->hard_timeout);
    put16(b + 30, f->priority);
    put32(b + 32, f->index);
    put16(b + 36, f->slot_id);
    for (int i = 0; i < f->match_num && i < POF_MAX_MATCH; i++)
        enc_match_x(b + 40 + POF_MATCH_X_SIZE * i, &f->matches[i]);
    for (int i = 0; i < f->instruction_num && i < POF_MAX_INS; i++)
        pof_instr_encode(b + 360 + POF_INS_SIZE * i, &f->instructions[i]);
}

static void dec_port_stats(const uint8_t *p, struct pof_port_stats *o)
{
    o->port_no = get32(p);
    o->rx_packets = get64(p + 8);
    o->tx_packets = get64(p + 16);
    o->rx_bytes = get64(p + 24);
    o->tx_bytes = get64(p + 32);
    o->rx_dropped = get64(p + 40);
    o->tx_dropped = get64(p + 48);
    o->rx_errors = get64(p + 56);
    o->tx_errors = get64(p + 64);
    o->rx_frame_err = get64(p + 72);
    o->rx_over_err = get64(p + 80);
    o->rx_crc_err = get64(p + 88);
    o->collisions = get64(p + 96);
    o->duration_sec = get32(p + 104);
    o->duration_nsec = get32(p + 108);
}

static void enc_port_stats(uint8_t *p, const struct pof_port_stats *o)
{
    put32(p, o->port_no);
    put64(p + 8, o->rx_packets);
    put64(p + 16, o->tx_packets);
    put64(p + 24, o->rx_bytes);
    put64(p + 32, o->tx_bytes);
    put64(p + 40, o->rx_dropped);
    put64(p + 48, o->tx_dropped);
    put64(p + 56, o->rx_errors);
    put64(p + 64, o->tx_errors);
    put64(p + 72, o->rx_frame_err);
    put64(p + 80, o->rx_over_err);
    put64(p + 88, o->rx_crc_err);
    put64(p + 96, o->collisions);
    put32(p + 104, o->duration_sec);
    put32(p + 108, o->duration_nsec);
}

void pof_port_stats_at(const struct pof_multipart *mp, uint16_t i, struct pof_port_stats *out)
{
    dec_port_stats(mp->stats_wire + (size_t)POF_PORT_STATS_SIZE * i, out);
}

static void dec_latency_class(const uint8_t *p, struct pof_port_latency_class *o)
{
    o->packets = get64(p);
    o->p50_ns = get32(p + 8);
    o->p99_ns = get32(p + 12);
    o->max_ns = get32(p + 16);
}

static void enc_latency_class(uint8_t *p, const struct pof_port_latency_class *o)
{
    put64(p, o->packets);
    put32(p + 8, o->p50_ns);
    put32(p + 12, o->p99_ns);
    put32(p + 16, o->max_ns);
}

void pof_port_latency_at(const struct pof_multipart *mp, uint16_t i, struct pof_port_latency *out)
{
    const uint8_t *p = mp->stats_wire + (size_t)POF_PORT_LATENCY_SIZE * i;
    out->port_no = get32(p);
    dec_latency_class(p + 8, &out->cls[0]);
    dec_latency_class(p + 32, &out->cls[1]);
}

static void enc_port_latency(uint8_t *p, const struct pof_port_latency *o)
{
    put32(p, o->port_no);
    enc_latency_class(p + 8, &o->cls[0]);
    enc_latency_class(p + 32, &o->cls[1]);
}

/* Both directions share the 8-byte multipart head. Lengths are checked first, as for every other type; then
 * only PORT_STATS and PORT_LATENCY exist, so any other multipart type is refused here rather than by each
 * receiver. */
int codec_dec_multipart(const uint8_t *b, size_t blen, bool reply, struct pof_multipart *mp,
                         struct pof_status *err)
{
    mp->mp_type = get16(b);
    mp->flags = get16(b + 2);
    if (mp->mp_type != POFMP_PORT_STATS && mp->mp_type != POFMP_PORT_LATENCY)
        return pof_fail(err, POFET_BAD_REQUEST, POFBRC_BAD_MULTIPART,
                        "multipart type is not PORT_STATS (4) or PORT_LATENCY (0xF001)");
    size_t entry = mp->mp_type == POFMP_PORT_LATENCY ? POF_PORT_LATENCY_SIZE : POF_PORT_STATS_SIZE;
    if (reply && (blen - POF_MULTIPART_HEAD) % entry)
        return pof_fail(err, POFET_BAD_REQUEST, POFBRC_BAD_LEN, "MULTIPART_REPLY body is not whole entries");
    if (reply) {
        mp->stats_num = (uint16_t)((blen - POF_MULTIPART_HEAD) / entry);
        mp->stats_wire = b + POF_MULTIPART_HEAD;
    } else {
        mp->port_no = get32(b + 8);
    }
    return 0;
}

void codec_enc_multipart(uint8_t *b, uint8_t type, const struct pof_multipart *mp)
{
    put16(b, mp->mp_type);
    put16(b + 2, mp->flags);
    if (type == POFT_MULTIPART_REQUEST) {
        put32(b + 8, mp->port_no);
        return;
    }
    for (uint16_t i = 0; i < mp->stats_num; i++) {
        if (mp->mp_type == POFMP_PORT_LATENCY) {
            struct pof_port_latency l;
            if (!mp->lat)
                pof_port_latency_at(mp, i, &l);
            enc_port_latency(b + POF_MULTIPART_HEAD + (size_t)POF_PORT_LATENCY_SIZE * i, mp->lat ? &mp->lat[i] : &l);
            continue;
        }
        struct pof_port_stats s;
        if (!mp->stats)
            pof_port_stats_at(mp, i, &s);
        enc_port_stats(b + POF_MULTIPART_HEAD + (size_t)POF_PORT_STATS_SIZE * i, mp->stats ? &mp->stats[i] : &s);
    }
}

void codec_dec_group_mod(const uint8_t *b, struct pof_group_mod *g)
{
    g->command = b[0];
    g->group_type = b[1];
    g->action_num = b[2];
    g->group_id = get32(b + 4);
    g->counter_id = get32(b + 8);
    g->slot_id = get16(b + 12);
    g->actions_wire = b + 16;
}

void codec_enc_group_mod(uint8_t *b, const struct pof_group_mod *g)
{
    b[0] = g->command;
    b[1] = g->group_type;
    b[2] = g->action_num;
    put32(b + 4, g->group_id);
    put32(b + 8, g->counter_id);
    put16(b + 12, g->slot_id);
    if (g->actions_wire)
        memcpy(b + 16, g->actions_wire, POF_GROUP_MAX_ACT * POF_ACTION_SIZE);
}
