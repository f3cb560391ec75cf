/* Shared by the probe unit tests (test_probe.c, test_probe_auto.c): a session on a fake clock, the far end's
 * echo replies and ARP frames, and a two-port switch over the dummy backend whose flows go a <-> b by in_port. */
#ifndef PROBE_UTIL_H
#define PROBE_UTIL_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dummy_io.h"
#include "pof_mgmt.h"
#include "pof_probe.h"
#include "pof_probe_sw.h"
#include "pof_switch.h"
#include "unit.h"

#define US 1000ull
#define MS 1000000ull
#define T0 (5000 * MS)

static const char *CFG = "7 02:00:00:00:00:65 0a:00:00:00:00:02 10.9.0.101 10.9.0.2";

static uint16_t get16(const uint8_t *b) { return (uint16_t)(b[0] << 8 | b[1]); }

/* The Internet checksum over n bytes that include their checksum field: 0 when it is right. */
static inline uint16_t fold(const uint8_t *b, size_t n)
{
    uint32_t s = 0;
    for (size_t i = 0; i + 1 < n; i += 2)
        s += get16(b + i);
    if (n & 1)
        s += (uint32_t)b[n - 1] << 8;
    while (s >> 16)
        s = (s & 0xFFFF) + (s >> 16);
    return (uint16_t)~s;
}

static inline void session(struct pof_probe *p, const char *args, uint64_t now)
{
    struct pof_probe_cfg cfg;
    char err[160] = "";
    CHECK_MSG(pof_probe_parse(args, &cfg, err, sizeof(err)) == 0, err);
    pof_probe_init(p, &cfg, now);
}

/* The far end's answer to request req (len bytes): addresses swapped, type 0. */
static inline uint32_t echo_reply(const uint8_t *req, uint32_t len, uint8_t *out)
{
    memcpy(out, req, len);
    memcpy(out, req + 6, 6);
    memcpy(out + 6, req, 6);
    memcpy(out + 26, req + 30, 4);
    memcpy(out + 30, req + 26, 4);
    out[34] = 0;
    return len;
}

/* An ARP frame (60 bytes) from MAC ...:s, op, sender 10.9.0.sip, target MAC (02:..:65 if tgt) and 10.9.0.tip. */
static inline void arp_frame(uint8_t *a, uint8_t s, uint8_t op, uint8_t sip, bool tgt, uint8_t tip)
{
    static const uint8_t me[6] = {0x02, 0, 0, 0, 0, 0x65};
    uint8_t mac[6] = {0x0a, 0, 0, 0, 0, s};
    memset(a, 0, 60);
    memcpy(a, me, 6);
    memcpy(a + 6, mac, 6);
    memcpy(a + 12, "\x08\x06\x00\x01\x08\x00\x06\x04\x00", 9);
    a[21] = op;
    memcpy(a + 22, mac, 6);
    memcpy(a + 28, (uint8_t[]){10, 9, 0, sip}, 4);
    if (tgt)
        memcpy(a + 32, me, 6);
    memcpy(a + 38, (uint8_t[]){10, 9, 0, tip}, 4);
}

static char out[512];

static inline const char *cmd(struct pof_sw *sw, const char *line)
{
    char buf[512];
    snprintf(buf, sizeof(buf), "%s", line);
    pof_mgmt_command(&sw->cb, buf, out, sizeof(out));
    return out;
}

/* A flow by in_port (metadata bits 16-23), as a slice's on a host port: in -> out, through meter (0: none);
 * command ADD or MODIFY. */
static inline void port_flow(struct pof_sw *sw, uint8_t command, uint32_t index, uint8_t in, uint32_t out_port,
                      uint32_t meter)
{
    struct pof_status st;
    struct pof_flow_mod f = {.command = command, .table_type = POF_MM, .match_num = 1, .index = index, .priority = 1};
    f.matches[0].field = (struct pof_match){0xFFFF, 16, 8};
    f.matches[0].value[0] = in;
    f.matches[0].mask[0] = 0xFF;
    if (meter) {
        f.instructions[f.instruction_num].type = POFIT_METER;
        f.instructions[f.instruction_num++].u.meter.meter_id = meter;
    }
    struct pof_instruction *ins = &f.instructions[f.instruction_num++];
    ins->type = POFIT_APPLY_ACTIONS;
    ins->u.apply_actions.action_num = 1;
    ins->u.apply_actions.actions[0].type = POFAT_OUTPUT;
    ins->u.apply_actions.actions[0].u.output.port_id = out_port;
    CHECK(pof_dp_flow_mod(sw->dp, &f, &st) == 0);
}

static inline void switch_setup(struct pof_sw *sw)
{
    struct sw_config cfg = {.all_ports_enabled = true};
    CHECK(pof_sw_init(sw, &cfg, &dummy_io_ops) == 0);
    CHECK(strcmp(cmd(sw, "port-add a"), "OK 1") == 0 && strcmp(cmd(sw, "port-add b"), "OK 2") == 0);
    struct pof_status st;
    struct pof_table_mod t = {.command = 0, .table_type = POF_MM, .match_num = 1, .size = 16,
                              .matches = {{0xFFFF, 16, 8}}};
    CHECK(pof_dp_table_mod(sw->dp, &t, &st) == 0);
    port_flow(sw, POF_FLOW_ADD, 0, 1, 2, 0);
    port_flow(sw, POF_FLOW_ADD, 1, 2, 1, 0);
}

#endif
