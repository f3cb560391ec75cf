/* libFuzzer target: the control-message decoder, then the datapath edits a decoded message would make.
 * Whatever the bytes, decode must not read past them, and encode(decode(x)) must reproduce a valid message. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pof_dp.h"
#include "pof_wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct pof_msg msg, again;
    static uint8_t out[65536 + 64];
    struct pof_status st;
    uint8_t *copy = malloc(size ? size : 1); /* exact-size heap copy so ASan sees any overread */
    if (!copy)
        return 0;
    memcpy(copy, data, size);
    if (pof_decode(copy, size, &msg, &st) == 0) {
        int n = pof_encode(&msg, out, sizeof(out));
        if (n > 0 && pof_decode(out, (size_t)n, &again, &st) != 0)
            abort(); /* what we encode we must be able to decode */
        struct pof_dp *dp = pof_dp_create();
        switch (msg.hdr.type) {
        case POFT_TABLE_MOD: pof_dp_table_mod(dp, &msg.u.table_mod, &st); break;
        case POFT_FLOW_MOD: {
            struct pof_table_mod t = {.command = 0, .table_id = msg.u.flow_mod.table_id,
                                      .table_type = msg.u.flow_mod.table_type, .size = 64,
                                      .match_num = msg.u.flow_mod.match_num};
            for (int i = 0; i < t.match_num; i++)
                t.matches[i] = msg.u.flow_mod.matches[i].field;
            pof_dp_table_mod(dp, &t, &st);
            pof_dp_flow_mod(dp, &msg.u.flow_mod, &st);
            break;
        }
        case POFT_METER_MOD: pof_dp_meter_mod(dp, &msg.u.meter_mod, &st); break;
        case POFT_GROUP_MOD: pof_dp_group_mod(dp, &msg.u.group_mod, &st); break;
        case POFT_COUNTER_MOD: pof_dp_counter(dp, &msg.u.counter, false, &st); break;
        case POFT_PACKET_OUT: {
            if (pof_dp_check_actions(msg.u.packet_out.actions, msg.u.packet_out.action_num, &st) == 0) {
                uint8_t *pkt = malloc(msg.u.packet_out.packet_len + 64);
                memcpy(pkt, msg.u.packet_out.data, msg.u.packet_out.packet_len);
                struct pof_pkt p = {.data = pkt, .len = msg.u.packet_out.packet_len, .room = 64};
                struct pof_verdict v;
                pof_dp_apply_actions(dp, &p, msg.u.packet_out.actions, msg.u.packet_out.action_num, &v);
                free(pkt);
            }
            break;
        }
        default: break;
        }
        pof_dp_destroy(dp);
    }
    free(copy);
    return 0;
}
