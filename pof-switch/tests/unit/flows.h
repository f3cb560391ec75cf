/* A flow for the data-path unit tests (include after unit.h and pof_switch.h): frames of EtherType 0x08<et> at
 * MM index `index` go through `meter` (0: none) to `out_port`. Inline: CHECK counts in the including test. */
#ifndef TEST_FLOWS_H
#define TEST_FLOWS_H

#include "pof_dp.h"

static inline void flow(struct pof_sw *sw, uint32_t index, uint8_t et, uint32_t meter, uint32_t out_port)
{
    struct pof_status st;
    struct pof_flow_mod f = {.command = 0, .table_type = POF_MM, .match_num = 1, .index = index, .priority = 1};
    f.matches[0].field = (struct pof_match){2, 96, 16};
    f.matches[0].value[0] = 0x08;
    f.matches[0].value[1] = et;
    f.matches[0].mask[0] = f.matches[0].mask[1] = 0xFF;
    if (meter) {
        f.instructions[f.instruction_num].type = POFIT_METER;
        f.instructions[f.instruction_num++].u.meter.meter_id = meter;
    }
    struct pof_instruction *in = &f.instructions[f.instruction_num++];
    in->type = POFIT_APPLY_ACTIONS;
    in->u.apply_actions.action_num = 1;
    in->u.apply_actions.actions[0].type = POFAT_OUTPUT;
    in->u.apply_actions.actions[0].u.output.port_id = out_port;
    CHECK(pof_dp_flow_mod(sw->dp, &f, &st) == 0);
}

#endif
