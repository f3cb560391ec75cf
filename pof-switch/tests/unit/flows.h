/* Flows and frames for the data-path unit tests (include after unit.h and pof_switch.h): frames of EtherType
 * 0x08<et> sent in through dummy ports, and flows that match them. Static: CHECK counts in the including test,
 * and each test has its own frame. */
#ifndef TEST_FLOWS_H
#define TEST_FLOWS_H

#include <string.h>

#include "dummy_io.h"
#include "pof_dp.h"

static uint8_t frame[1600];

/* Zeros with EtherType 0x08<et> at bytes 12-13 (et starts 0: IPv4). */
static inline void frame_reset(void)
{
    memset(frame, 0, sizeof(frame));
    frame[12] = 0x08;
}

/* n frames of len bytes, EtherType 0x08<et>, in through `port`. */
static inline void inject(const char *port, uint8_t et, uint32_t len, int n)
{
    frame[13] = et;
    for (int i = 0; i < n; i++)
        CHECK(dummy_inject(port, frame, len) == 0);
}

/* Frames of EtherType 0x08<et> at MM index `index` go through `meter` (0: none) to `out_port`. */
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
