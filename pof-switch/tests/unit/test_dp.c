/* The forwarding core without I/O: tables, matching at any bit offset, instructions, actions, meters. */
#include <stdlib.h>
#include <string.h>

#include "pof_dp.h"
#include "unit.h"

static const struct pof_match ETH_DST = {0, 0, 48};
static const struct pof_match ETH_TYPE = {2, 96, 16};
static const struct pof_match ODD16 = {7, 99, 16}; /* 16 bits starting 3 bits into byte 12 */
static const struct pof_match IP_DST = {5, 240, 32};
static const struct pof_match MD_TAG = {POF_METADATA_FIELD, 32, 16};

/* A 64-byte IPv4/UDP frame: dst 02:00:00:00:00:02, src ...01, TTL 64, dst 10.0.0.2, valid checksum. */
static uint8_t frame[64 + 64];
static void make_frame(void)
{
    static const uint8_t f[] = {
        0x02, 0, 0, 0, 0, 0x02, 0x02, 0, 0, 0, 0, 0x01, 0x08, 0x00,
        0x45, 0x00, 0x00, 0x32, 0x00, 0x01, 0x00, 0x00, 0x40, 0x11, 0x00, 0x00, 10, 0, 0, 1, 10, 0, 0, 2,
        0x04, 0xd2, 0x16, 0x2e, 0x00, 0x1e, 0x00, 0x00};
    memset(frame, 0, sizeof(frame));
    memcpy(frame, f, sizeof(f));
}

static struct pof_table_mod table(uint8_t type, uint8_t tid, int n, const struct pof_match *ms)
{
    struct pof_table_mod t = {.command = POF_TABLE_ADD, .table_id = tid, .table_type = type,
                              .match_num = (uint8_t)n, .size = 512};
    for (int i = 0; i < n; i++)
        t.matches[i] = ms[i];
    return t;
}

static struct pof_match_x mx(struct pof_match m, const uint8_t *v, const uint8_t *mask)
{
    struct pof_match_x x = {.field = m};
    memcpy(x.value, v, (m.len + 7) / 8);
    if (mask)
        memcpy(x.mask, mask, (m.len + 7) / 8);
    else
        memset(x.mask, 0xFF, (m.len + 7) / 8);
    return x;
}

static struct pof_flow_mod flow(uint8_t type, uint8_t tid, uint32_t index, uint16_t prio)
{
    struct pof_flow_mod f = {.command = POF_FLOW_ADD, .table_type = type, .table_id = tid, .index = index,
                             .priority = prio};
    return f;
}

static void add_output(struct pof_flow_mod *f, uint32_t port)
{
    struct pof_instruction *in = &f->instructions[f->instruction_num++];
    in->type = POFIT_APPLY_ACTIONS;
    struct pof_action *a = &in->u.apply_actions.actions[in->u.apply_actions.action_num++];
    a->type = POFAT_OUTPUT;
    a->u.output.port_id = port;
}

static struct pof_action *add_action(struct pof_flow_mod *f, uint16_t type)
{
    struct pof_instruction *in = NULL;
    for (int i = 0; i < f->instruction_num; i++)
        if (f->instructions[i].type == POFIT_APPLY_ACTIONS)
            in = &f->instructions[i];
    if (!in) {
        in = &f->instructions[f->instruction_num++];
        in->type = POFIT_APPLY_ACTIONS;
    }
    struct pof_action *a = &in->u.apply_actions.actions[in->u.apply_actions.action_num++];
    a->type = type;
    return a;
}

static struct pof_verdict run(struct pof_dp *dp, uint8_t *data, uint32_t len, uint32_t room)
{
    struct pof_pkt p = {.data = data, .len = len, .room = room, .in_port = 1};
    struct pof_verdict v;
    pof_dp_process(dp, &p, &v);
    return v;
}

static int ok_table(struct pof_dp *dp, struct pof_table_mod t)
{
    struct pof_status st;
    return pof_dp_table_mod(dp, &t, &st);
}

static int ok_flow(struct pof_dp *dp, struct pof_flow_mod f, struct pof_status *st)
{
    struct pof_status tmp;
    return pof_dp_flow_mod(dp, &f, st ? st : &tmp);
}

static void dump_table(void *arg, const struct pof_table_mod *tm) { (void)tm; ((int *)arg)[0]++; }
static void dump_flow(void *arg, const struct pof_flow_mod *fm) { (void)fm; ((int *)arg)[1]++; }
static void dump_meter(void *arg, const struct pof_meter_mod *mm) { (void)mm; ((int *)arg)[2]++; }

/* The benchmark's pipeline: MM on 16 bits at a non-byte-aligned offset, GOTO an EM on dst MAC, OUTPUT. */
static void test_two_table_pipeline(void)
{
    struct pof_dp *dp = pof_dp_create();
    make_frame();
    CHECK(ok_table(dp, table(POF_MM, 0, 1, &ODD16)) == 0);
    CHECK(ok_table(dp, table(POF_EM, 0, 1, &ETH_DST)) == 0);
    /* bits 99..114 of the frame: ethertype 0x0800 and the next byte 0x45 shifted by 3 */
    uint8_t odd[2] = {(uint8_t)(0x08 << 3 | 0x00 >> 5), (uint8_t)(0x00 << 3 | 0x45 >> 5)};
    struct pof_flow_mod f = flow(POF_MM, 0, 0, 10);
    f.match_num = 1;
    f.matches[0] = mx(ODD16, odd, NULL);
    f.instruction_num = 1;
    f.instructions[0].type = POFIT_GOTO_TABLE;
    f.instructions[0].u.goto_table.next_table_id = (uint8_t)pof_dp_global_table_id(POF_EM, 0);
    CHECK(ok_flow(dp, f, NULL) == 0);
    for (uint32_t i = 0; i < 300; i++) { /* a few hundred flows, one per destination */
        uint8_t mac[6] = {0x02, 0, 0, 0, (uint8_t)(i >> 8), (uint8_t)i};
        struct pof_flow_mod e = flow(POF_EM, 0, i, 0);
        e.match_num = 1;
        e.matches[0] = mx(ETH_DST, mac, NULL);
        e.counter_id = i == 2 ? 7 : 0;
        add_output(&e, 2 + i % 3);
        CHECK(ok_flow(dp, e, NULL) == 0);
    }
    struct pof_verdict v = run(dp, frame, 64, 64);
    CHECK(v.kind == POF_V_OUTPUT && v.out_port == 4); /* dst ...02 -> 2 + 2 % 3 */
    frame[5] = 0x03;
    v = run(dp, frame, 64, 64);
    CHECK(v.kind == POF_V_OUTPUT && v.out_port == 2);
    frame[5] = 0x02;
    frame[14] = 0x65; /* changes the odd-offset bits: MM misses */
    v = run(dp, frame, 64, 64);
    CHECK(v.kind == POF_V_DROP);
    struct pof_counter c = {.counter_id = 7};
    struct pof_status st;
    CHECK(pof_dp_counter(dp, &c, true, &st) == 0 && c.packets == 1 && c.bytes == 64);
    CHECK(pof_dp_flow_count(dp) == 301 && pof_dp_table_count(dp) == 2);
    int dumped[3] = {0};
    struct pof_dp_dump_ops ops = {dump_table, dump_flow, dump_meter};
    pof_dp_dump(dp, &ops, dumped);
    CHECK(dumped[0] == 2 && dumped[1] == 301 && dumped[2] == 0);
    pof_dp_destroy(dp);
}

static void test_short_packets_never_read_past_end(void)
{
    struct pof_dp *dp = pof_dp_create();
    make_frame();
    CHECK(ok_table(dp, table(POF_MM, 0, 1, &IP_DST)) == 0);
    uint8_t ip[4] = {10, 0, 0, 2};
    struct pof_flow_mod f = flow(POF_MM, 0, 0, 1);
    f.match_num = 1;
    f.matches[0] = mx(IP_DST, ip, NULL);
    add_output(&f, 2);
    CHECK(ok_flow(dp, f, NULL) == 0);
    /* The field ends at byte 34: every shorter packet is a miss (the heap copy lets ASan see overreads). */
    for (uint32_t len = 0; len < 34; len++) {
        uint8_t *p = malloc(len ? len : 1);
        memcpy(p, frame, len);
        CHECK(run(dp, p, len, 0).kind == POF_V_DROP);
        free(p);
    }
    CHECK(run(dp, frame, 34, 0).kind == POF_V_OUTPUT);
    struct pof_dp_stats s;
    pof_dp_get_stats(dp, &s);
    CHECK(s.short_field == 34);
    pof_dp_destroy(dp);
}

static uint16_t ip_checksum(const uint8_t *h)
{
    uint32_t sum = 0;
    for (int i = 0; i < 20; i += 2)
        sum += (uint32_t)(h[i] << 8 | h[i + 1]);
    while (sum >> 16)
        sum = (sum & 0xFFFF) + (sum >> 16);
    return (uint16_t)sum;
}

static void test_rewrite_actions(void)
{
    struct pof_dp *dp = pof_dp_create();
    make_frame();
    CHECK(ok_table(dp, table(POF_MM, 0, 1, &ETH_TYPE)) == 0);
    uint8_t ipv4[2] = {0x08, 0x00}, newmac[6] = {0x02, 0, 0, 0, 0, 0xAA};
    struct pof_flow_mod f = flow(POF_MM, 0, 0, 1);
    f.match_num = 1;
    f.matches[0] = mx(ETH_TYPE, ipv4, NULL);
    struct pof_action *a = add_action(&f, POFAT_SET_FIELD);
    a->u.set_field = mx(ETH_DST, newmac, NULL);
    a = add_action(&f, POFAT_MODIFY_FIELD);
    a->u.modify_field.field = (struct pof_match){9, 176, 8}; /* TTL */
    a->u.modify_field.increment = -1;
    a = add_action(&f, POFAT_CALC_CHECKSUM);
    a->u.checksum.checksum_pos = 24 * 8;
    a->u.checksum.checksum_len = 16;
    a->u.checksum.calc_start = 14 * 8;
    a->u.checksum.calc_len = 20 * 8;
    a = add_action(&f, POFAT_OUTPUT);
    a->u.output.port_id = 3;
    CHECK(ok_flow(dp, f, NULL) == 0);
    struct pof_verdict v = run(dp, frame, 64, 64);
    CHECK(v.kind == POF_V_OUTPUT && v.out_port == 3);
    CHECK(memcmp(frame, newmac, 6) == 0);
    CHECK(frame[22] == 63);
    CHECK(ip_checksum(frame + 14) == 0xFFFF);
    pof_dp_destroy(dp);
}

static void test_add_and_delete_field(void)
{
    struct pof_dp *dp = pof_dp_create();
    make_frame();
    uint8_t orig[64];
    memcpy(orig, frame, 64);
    CHECK(ok_table(dp, table(POF_MM, 0, 1, &ETH_TYPE)) == 0);
    uint8_t ipv4[2] = {0x08, 0x00};
    struct pof_flow_mod f = flow(POF_MM, 0, 0, 1);
    f.match_num = 1;
    f.matches[0] = mx(ETH_TYPE, ipv4, NULL);
    struct pof_action *a = add_action(&f, POFAT_ADD_FIELD);
    a->u.add_field.tag_pos = 96;
    a->u.add_field.tag_len = 32;
    memcpy(a->u.add_field.tag_value, "\x81\x00\x00\x05", 4);
    a = add_action(&f, POFAT_OUTPUT);
    a->u.output.port_id = 2;
    CHECK(ok_flow(dp, f, NULL) == 0);
    struct pof_pkt p = {.data = frame, .len = 64, .room = 64, .in_port = 1};
    struct pof_verdict v;
    pof_dp_process(dp, &p, &v);
    CHECK(p.len == 68 && memcmp(frame + 12, "\x81\x00\x00\x05\x08\x00", 6) == 0);
    /* Without room the tag is not added, and nothing past the buffer is touched. */
    make_frame();
    p = (struct pof_pkt){.data = frame, .len = 64, .room = 0, .in_port = 1};
    pof_dp_process(dp, &p, &v);
    CHECK(p.len == 64 && memcmp(frame, orig, 64) == 0);

    struct pof_action del[2] = {{.type = POFAT_DELETE_FIELD}, {.type = POFAT_OUTPUT}};
    del[0].u.delete_field.tag_pos = 96;
    del[0].u.delete_field.len_value = 32;
    del[1].u.output.port_id = 2;
    struct pof_status st;
    CHECK(pof_dp_check_actions(del, 2, &st) == 0);
    memcpy(frame, orig, 12);
    memcpy(frame + 12, "\x81\x00\x00\x05", 4);
    memcpy(frame + 16, orig + 12, 52);
    p = (struct pof_pkt){.data = frame, .len = 68, .room = 0, .in_port = 1};
    pof_dp_apply_actions(dp, &p, del, 2, &v);
    CHECK(p.len == 64 && memcmp(frame, orig, 64) == 0 && v.out_port == 2);
    pof_dp_destroy(dp);
}

static void test_priority_lpm_linear_metadata(void)
{
    struct pof_dp *dp = pof_dp_create();
    make_frame();
    /* MM: the higher priority wins even though both match */
    CHECK(ok_table(dp, table(POF_MM, 0, 1, &IP_DST)) == 0);
    uint8_t net[4] = {10, 0, 0, 0}, m8[4] = {255, 0, 0, 0}, m24[4] = {255, 255, 255, 0};
    struct pof_flow_mod lo = flow(POF_MM, 0, 0, 1), hi = flow(POF_MM, 0, 1, 9);
    lo.match_num = hi.match_num = 1;
    lo.matches[0] = mx(IP_DST, net, m8);
    hi.matches[0] = mx(IP_DST, net, m8);
    add_output(&lo, 2);
    /* hi writes a metadata tag and goes to LPM 0 */
    hi.instruction_num = 2;
    hi.instructions[0].type = POFIT_WRITE_METADATA;
    hi.instructions[0].u.write_metadata.metadata_offset = 32;
    hi.instructions[0].u.write_metadata.len = 16;
    hi.instructions[0].u.write_metadata.value[0] = 0x00;
    hi.instructions[0].u.write_metadata.value[1] = 0x07;
    hi.instructions[1].type = POFIT_GOTO_TABLE;
    hi.instructions[1].u.goto_table.next_table_id = (uint8_t)pof_dp_global_table_id(POF_LPM, 0);
    CHECK(ok_flow(dp, lo, NULL) == 0 && ok_flow(dp, hi, NULL) == 0);
    /* LPM: /24 beats /8 whatever the order of insertion */
    CHECK(ok_table(dp, table(POF_LPM, 0, 1, &IP_DST)) == 0);
    struct pof_flow_mod p8 = flow(POF_LPM, 0, 0, 0), p24 = flow(POF_LPM, 0, 1, 0);
    p8.match_num = p24.match_num = 1;
    p8.matches[0] = mx(IP_DST, net, m8);
    p24.matches[0] = mx(IP_DST, net, m24);
    add_output(&p8, 5);
    p24.instruction_num = 1;
    p24.instructions[0].type = POFIT_GOTO_TABLE;
    p24.instructions[0].u.goto_table.next_table_id = (uint8_t)pof_dp_global_table_id(POF_MM, 1);
    CHECK(ok_flow(dp, p8, NULL) == 0 && ok_flow(dp, p24, NULL) == 0);
    /* MM 1 matches the metadata tag, then jumps to LINEAR 0 entry 3 */
    CHECK(ok_table(dp, table(POF_MM, 1, 1, &MD_TAG)) == 0);
    uint8_t tag[2] = {0x00, 0x07};
    struct pof_flow_mod t = flow(POF_MM, 1, 0, 0);
    t.match_num = 1;
    t.matches[0] = mx(MD_TAG, tag, NULL);
    t.instruction_num = 1;
    t.instructions[0].type = POFIT_GOTO_DIRECT_TABLE;
    t.instructions[0].u.goto_direct.next_table_id = (uint8_t)pof_dp_global_table_id(POF_LINEAR, 0);
    t.instructions[0].u.goto_direct.index_value = 3;
    CHECK(ok_flow(dp, t, NULL) == 0);
    struct pof_table_mod lin = table(POF_LINEAR, 0, 0, NULL);
    lin.size = 16;
    CHECK(ok_table(dp, lin) == 0);
    struct pof_flow_mod l3 = flow(POF_LINEAR, 0, 3, 0);
    add_output(&l3, 6);
    CHECK(ok_flow(dp, l3, NULL) == 0);
    struct pof_verdict v = run(dp, frame, 64, 0);
    CHECK(v.kind == POF_V_OUTPUT && v.out_port == 6);
    /* delete the LINEAR entry: the packet now misses */
    l3.command = POF_FLOW_DELETE;
    CHECK(ok_flow(dp, l3, NULL) == 0);
    CHECK(run(dp, frame, 64, 0).kind == POF_V_DROP);
    pof_dp_destroy(dp);
}

static void test_set_field_writes_value_and_mask_over_the_field(void)
{
    struct pof_dp *dp = pof_dp_create();
    make_frame();
    struct pof_action a = {.type = POFAT_SET_FIELD};
    a.u.set_field.field = ETH_TYPE;
    a.u.set_field.value[0] = 0x86;
    a.u.set_field.value[1] = 0xDD;
    a.u.set_field.mask[0] = 0xFF; /* second byte masked off: it becomes 0, as the reference does */
    struct pof_pkt p = {.data = frame, .len = 64, .in_port = 1};
    struct pof_verdict v;
    pof_dp_apply_actions(dp, &p, &a, 1, &v);
    CHECK(frame[12] == 0x86 && frame[13] == 0x00);
    CHECK(v.kind == POF_V_DROP); /* no OUTPUT: dropped */
    pof_dp_destroy(dp);
}

static void test_control_errors(void)
{
    struct pof_dp *dp = pof_dp_create();
    struct pof_status st;
    struct pof_flow_mod f = flow(POF_MM, 0, 0, 0);
    CHECK(ok_flow(dp, f, &st) < 0 && st.type == POFET_FLOW_MOD_FAILED && st.code == POFFMFC_BAD_TABLE_ID);
    CHECK(ok_table(dp, table(POF_MM, 0, 1, &ETH_TYPE)) == 0);
    struct pof_table_mod dup = table(POF_MM, 0, 1, &ETH_TYPE);
    CHECK(pof_dp_table_mod(dp, &dup, &st) < 0 && st.code == POFTMFC_TABLE_EXIST);
    struct pof_table_mod bad = table(POF_EM, 5, 1, &ETH_TYPE);
    CHECK(pof_dp_table_mod(dp, &bad, &st) < 0 && st.code == POFTMFC_BAD_TABLE_ID);
    f.match_num = 1;
    f.matches[0] = mx(ETH_DST, (const uint8_t *)"\x02\0\0\0\0\x02", NULL); /* not the table's field */
    CHECK(ok_flow(dp, f, &st) < 0 && st.type == POFET_BAD_MATCH);
    f.matches[0] = mx(ETH_TYPE, (const uint8_t *)"\x08\x00", NULL);
    add_action(&f, POFAT_GROUP)->u.value = 1;
    CHECK(ok_flow(dp, f, &st) < 0 && st.type == POFET_BAD_ACTION && st.code == POFBAC_BAD_TYPE);
    f.instruction_num = 1;
    f.instructions[0] = (struct pof_instruction){.type = POFIT_WRITE_ACTIONS};
    CHECK(ok_flow(dp, f, &st) < 0 && st.type == POFET_BAD_INSTRUCTION && st.code == POFBIC_UNSUP_INST);
    f.instructions[0] = (struct pof_instruction){.type = POFIT_METER};
    CHECK(ok_flow(dp, f, &st) < 0 && st.type == POFET_BAD_INSTRUCTION);
    f.instruction_num = 0;
    f.index = 512;
    CHECK(ok_flow(dp, f, &st) < 0 && st.code == POFFMFC_BAD_ENTRY_ID);
    f.index = 0;
    CHECK(ok_flow(dp, f, &st) == 0);
    CHECK(ok_flow(dp, f, &st) < 0 && st.code == POFFMFC_ENTRY_EXIST);
    f.command = 9;
    CHECK(ok_flow(dp, f, &st) < 0 && st.code == POFFMFC_BAD_COMMAND);
    struct pof_meter_mod mm = {.command = 0, .meter_id = 0, .rate = 100};
    CHECK(pof_dp_meter_mod(dp, &mm, &st) < 0 && st.type == POFET_METER_MOD_FAILED);
    mm.meter_id = 1;
    mm.rate = 0;
    CHECK(pof_dp_meter_mod(dp, &mm, &st) < 0 && st.code == POFMMFC_BAD_RATE);
    pof_dp_destroy(dp);
}

static void test_meter_rate(void)
{
    struct pof_dp *dp = pof_dp_create();
    struct pof_status st;
    struct pof_meter_mod mm = {.command = 0, .meter_id = 3, .rate = 10000}; /* 10 Mbit/s = 1.25 MB/s */
    CHECK(pof_dp_meter_mod(dp, &mm, &st) == 0);
    uint64_t t0 = 1000000000ull, sent = 0;
    /* offer 1500-byte packets every 100 us (120 Mbit/s) for one simulated second */
    for (uint64_t t = t0; t < t0 + 1000000000ull; t += 100000)
        if (pof_dp_meter_color(dp, 3, 1500, t) != POF_COLOR_RED)
            sent += 1500;
    CHECK(sent >= 1200000 && sent <= 1250000 + 25000 + 1500);
    CHECK(pof_dp_meter_wait_ns(dp, 3, 1500, t0 + 1000000000ull) <= 1200000);
    pof_dp_destroy(dp);
}

/* pof_dp_reset (--reset-on-connect) leaves the state of pof_dp_create: no tables, flows, meters or counters,
 * and the same ids are free again; the statistics stay. */
static void test_reset_clears_the_controller_state(void)
{
    struct pof_dp *dp = pof_dp_create();
    struct pof_status st;
    CHECK(ok_table(dp, table(POF_MM, 0, 1, &ETH_TYPE)) == 0 && ok_table(dp, table(POF_EM, 1, 1, &IP_DST)) == 0);
    struct pof_flow_mod f = flow(POF_MM, 0, 3, 1);
    f.match_num = 1;
    f.matches[0] = mx(ETH_TYPE, (const uint8_t[]){0x08, 0x00}, NULL);
    f.counter_id = 9;
    add_output(&f, 2);
    CHECK(ok_flow(dp, f, &st) == 0);
    struct pof_meter_mod mm = {.command = 0, .meter_id = 4, .rate = 1000};
    CHECK(pof_dp_meter_mod(dp, &mm, &st) == 0);
    make_frame();
    CHECK(run(dp, frame, 64, 0).kind == POF_V_OUTPUT);
    struct pof_counter k = {.counter_id = 9};
    CHECK(pof_dp_counter(dp, &k, true, &st) == 0 && k.packets == 1);

    pof_dp_reset(dp);
    int seen[3] = {0};
    pof_dp_dump(dp, &(struct pof_dp_dump_ops){dump_table, dump_flow, dump_meter}, seen);
    CHECK(seen[0] == 0 && seen[1] == 0 && seen[2] == 0);
    CHECK(pof_dp_table_count(dp) == 0 && pof_dp_flow_count(dp) == 0);
    CHECK(pof_dp_counter(dp, &k, true, &st) == 0 && k.packets == 0 && k.bytes == 0);
    CHECK(run(dp, frame, 64, 0).kind == POF_V_DROP); /* no table 0: a miss */
    struct pof_dp_stats s;
    pof_dp_get_stats(dp, &s);
    CHECK(s.processed == 2 && s.table_miss == 1);
    /* The same ids again: no TABLE_EXIST, ENTRY_EXIST or METER_EXISTS. */
    CHECK(ok_table(dp, table(POF_MM, 0, 1, &ETH_TYPE)) == 0 && ok_flow(dp, f, &st) == 0);
    CHECK(pof_dp_meter_mod(dp, &mm, &st) == 0);
    pof_dp_destroy(dp);
}

int main(void)
{
    RUN(test_two_table_pipeline);
    RUN(test_short_packets_never_read_past_end);
    RUN(test_rewrite_actions);
    RUN(test_add_and_delete_field);
    RUN(test_priority_lpm_linear_metadata);
    RUN(test_set_field_writes_value_and_mask_over_the_field);
    RUN(test_control_errors);
    RUN(test_meter_rate);
    RUN(test_reset_clears_the_controller_state);
    return unit_summary();
}
