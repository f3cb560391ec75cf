/* libFuzzer target: the packet pipeline under arbitrary tables, flows and meters.
 * The input is a script of records: 'T' + TABLE_MOD body, 'F' + FLOW_MOD body, 'M' + METER_MOD body,
 * 'P' + u8 room + u16 len + packet bytes (run through the pipeline in an exact-size heap buffer, then with the
 * colour its meter gives into a rated port's scheduler at 1 Mbit/s), 'R' (the core reset, as a new controller
 * session does with --reset-on-connect). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pof_dp.h"
#include "pof_sched.h"
#include "pof_wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Wraps a body in a header and decodes it, so flows reach the core only as the wire can express them. */
static int decode_body(uint8_t type, const uint8_t *body, size_t len, struct pof_msg *m)
{
    static uint8_t buf[POF_HEADER_LEN + POF_FLOW_MOD_SIZE];
    struct pof_status st;
    buf[0] = POF_VERSION;
    buf[1] = type;
    buf[2] = (uint8_t)((len + POF_HEADER_LEN) >> 8);
    buf[3] = (uint8_t)(len + POF_HEADER_LEN);
    memcpy(buf + POF_HEADER_LEN, body, len);
    return pof_decode(buf, len + POF_HEADER_LEN, m, &st);
}

static void drop_item(void *arg, void *pkt, uint32_t len)
{
    (void)arg;
    (void)pkt;
    (void)len;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct pof_msg m;
    struct pof_status st;
    struct pof_dp *dp = pof_dp_create();
    struct pof_sched *port = pof_sched_create(1000);
    size_t at = 0;
    while (at < size) {
        uint8_t kind = data[at++];
        if (kind == 'R') {
            pof_dp_reset(dp);
            continue;
        }
        size_t need = kind == 'T' ? POF_TABLE_MOD_SIZE : kind == 'F' ? POF_FLOW_MOD_SIZE
                    : kind == 'M' ? POF_METER_MOD_SIZE : kind == 'P' ? 3 : 0;
        if (need == 0 || size - at < need)
            break;
        if (kind == 'T' && decode_body(POFT_TABLE_MOD, data + at, need, &m) == 0) {
            m.u.table_mod.size = m.u.table_mod.size % 64 + 1; /* keep tables small: speed, not coverage */
            pof_dp_table_mod(dp, &m.u.table_mod, &st);
        } else if (kind == 'F' && decode_body(POFT_FLOW_MOD, data + at, need, &m) == 0) {
            pof_dp_flow_mod(dp, &m.u.flow_mod, &st);
        } else if (kind == 'M' && decode_body(POFT_METER_MOD, data + at, need, &m) == 0) {
            pof_dp_meter_mod(dp, &m.u.meter_mod, &st);
        } else if (kind == 'P') {
            uint32_t room = data[at], len = (uint32_t)data[at + 1] << 8 | data[at + 2];
            at += 3;
            if (len > size - at)
                len = (uint32_t)(size - at);
            uint8_t *pkt = malloc(len + room + 1);
            memcpy(pkt, data + at, len);
            struct pof_pkt p = {.data = pkt, .len = len, .room = room, .in_port = 1};
            struct pof_verdict v;
            pof_dp_process(dp, &p, &v);
            if (p.len + p.room != len + room)
                abort(); /* the pipeline may move bytes between len and room, never invent them */
            uint64_t now = 1000000000ull + at * 1000;
            enum pof_color c = v.meter_id ? pof_dp_meter_color(dp, v.meter_id, p.len, now) : POF_COLOR_YELLOW;
            if (c != POF_COLOR_RED && port) {
                uint32_t out_len;
                static char token; /* the scheduler holds pointers it never dereferences */
                pof_sched_offer(port, &token, p.len, c, v.meter_id, now);
                while (pof_sched_next(port, now, &out_len, NULL))
                    ;
            }
            free(pkt);
            at += len;
            continue;
        }
        at += need;
    }
    if (port)
        pof_sched_drain(port, drop_item, NULL);
    pof_sched_destroy(port);
    pof_dp_destroy(dp);
    return 0;
}
