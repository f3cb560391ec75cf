/* libFuzzer target: the management commands (pof_mgmt_command, as the socket passes a line) on a switch over the
 * dummy backend with ports a and b forwarding to each other by in_port, as a slice's flows do, so that probe
 * sessions started on a send requests out of b and see what b receives on its way out of a. The input is a
 * script of records: 0x01 + u16 length + frame bytes (received on b, then one poll round), or a command line up
 * to '\n' (then one poll round). A fresh switch per input, torn down at its end: a leak is a finding. */
#include <stdint.h>
#include <string.h>

#include "dummy_io.h"
#include "pof_mgmt.h"
#include "pof_switch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define LINE_MAX_LEN 510 /* what the socket passes (spec/switch-mgmt "Transport") */

static void setup(struct pof_sw *sw)
{
    struct sw_config cfg = {.all_ports_enabled = true};
    char out[64], a[] = "port-add a", b[] = "port-add b";
    if (pof_sw_init(sw, &cfg, &dummy_io_ops) != 0)
        __builtin_trap();
    pof_mgmt_command(&sw->cb, a, out, sizeof(out));
    pof_mgmt_command(&sw->cb, b, out, sizeof(out));
    struct pof_status st;
    struct pof_table_mod t = {.command = 0, .table_type = POF_MM, .match_num = 1, .size = 4,
                              .matches = {{0xFFFF, 16, 8}}};
    pof_dp_table_mod(sw->dp, &t, &st);
    for (uint8_t in = 1; in <= 2; in++) {
        struct pof_flow_mod f = {.table_type = POF_MM, .match_num = 1, .index = in - 1u, .instruction_num = 1};
        f.matches[0].field = (struct pof_match){0xFFFF, 16, 8};
        f.matches[0].value[0] = in;
        f.matches[0].mask[0] = 0xFF;
        f.instructions[0].type = POFIT_APPLY_ACTIONS;
        f.instructions[0].u.apply_actions.action_num = 1;
        f.instructions[0].u.apply_actions.actions[0].type = POFAT_OUTPUT;
        f.instructions[0].u.apply_actions.actions[0].u.output.port_id = 3u - in;
        pof_dp_flow_mod(sw->dp, &f, &st);
    }
}

static void drain(const char *port)
{
    uint8_t f[2048];
    while (dummy_take(port, f, sizeof(f)) >= 0)
        ;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct pof_sw sw;
    static char line[LINE_MAX_LEN + 1], out[49152];
    setup(&sw);
    size_t at = 0;
    while (at < size) {
        if (data[at] == 0x01) {
            size_t len = size - at >= 3 ? (size_t)(data[at + 1] << 8 | data[at + 2]) : 0;
            at = size - at >= 3 ? at + 3 : size;
            if (len > size - at)
                len = size - at;
            dummy_inject("b", data + at, (uint32_t)len);
            at += len;
        } else {
            const uint8_t *nl = memchr(data + at, '\n', size - at);
            size_t len = nl ? (size_t)(nl - (data + at)) : size - at;
            size_t n = len < LINE_MAX_LEN ? len : LINE_MAX_LEN;
            memcpy(line, data + at, n);
            line[n] = '\0';
            at += len + 1;
            if (strlen(line) == n) /* a NUL byte: the socket refuses the line before any command sees it */
                pof_mgmt_command(&sw.cb, line, out, sizeof(out) - 1);
        }
        pof_sw_poll_once(&sw, pof_now_ns());
        drain("a");
        drain("b");
    }
    pof_sw_fini(&sw);
    return 0;
}
