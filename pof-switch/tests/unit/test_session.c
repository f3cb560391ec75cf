/* Interoperability with controllers written for the reference switch, over loopback TCP (ctl_loop.c plays the
 * controller): OpenFlow 1.0's 12-byte SET_CONFIG in the handshake, GROUP_MOD's answer, QUERYALL's two forms and
 * its slots, what a new controller session does to the state (kept by default, cleared with the `reset` policy),
 * and the ERROR that precedes a close for lost framing or an unsupported HELLO. One switch, reconnected between
 * the tests. */
#include <string.h>

#include "ctl_loop.h"
#include "dummy_io.h"
#include "pof_conn.h"
#include "pof_mgmt.h"
#include "pof_switch.h"
#include "unit.h"

#define ETH_TYPE ((struct pof_match){2, 96, 16})
#define COUNTER_ID 5
#define METER_ID 1

static struct pof_sw sw;
static const struct pof_msg *const rx = &ctl.msg; /* the last message received */
static struct pof_port ports[2];
static uint8_t frame[64];

static void mgmt(const char *line, char *out, size_t n)
{
    char buf[128];
    snprintf(buf, sizeof(buf), "%s", line);
    pof_mgmt_command(&sw.cb, buf, out, n);
}

/* An ECHO round trip (everything sent before it has been applied): true if its reply is the next message, i.e.
 * nothing sent before it was answered with an ERROR. */
static bool no_error_before_echo(void)
{
    uint32_t xid = ctl_simple(POFT_ECHO_REQUEST);
    return ctl_recv() == 0 && rx->hdr.type == POFT_ECHO_REPLY && rx->hdr.xid == xid;
}

static void expect_error(uint32_t xid, uint16_t type, uint16_t code)
{
    CHECK(ctl_recv_type(POFT_ERROR) == 0);
    CHECK_MSG(rx->hdr.xid == xid && rx->u.error.type == type && rx->u.error.code == code, rx->u.error.string);
}

static uint32_t send_msg(struct pof_msg *m)
{
    m->hdr.xid = ++ctl.xid;
    ctl_send(m);
    return m->hdr.xid;
}

static void reconnect(void)
{
    ctl_hang_up();
    CHECK(ctl_accept(&sw));
    CHECK(ctl_handshake(NULL, 0, NULL, NULL, 2, ports));
}

static void test_of10_set_config_in_handshake(void)
{
    /* What a controller written for the reference sends (spec/pof/vectors/liberal/set_config_of10.json). */
    static const uint8_t of10[12] = {4, POFT_SET_CONFIG, 0, 12, 0, 0, 0, 3, 0x00, 0x01, 0x01, 0x00};
    struct pof_switch_config cfg;
    struct pof_resource_report res;
    CHECK(ctl_accept(&sw));
    CHECK(ctl_handshake(of10, sizeof(of10), &cfg, &res, 2, ports));
    CHECK(cfg.flags == 1 && cfg.miss_send_len == 256 && cfg.dev_id == 7 && !cfg.no_dev_id);
    CHECK(res.group_num == 0);
    CHECK(no_error_before_echo());
}

static void test_group_mod_answered_as_the_reference(void)
{
    struct pof_msg m = {.hdr = {.type = POFT_GROUP_MOD}};
    m.u.group_mod = (struct pof_group_mod){.command = POF_GROUP_ADD, .group_id = 1, .action_num = 1};
    expect_error(send_msg(&m), POFET_GROUP_MOD_FAILED, POFGMFC_INVALID_GROUP);
    m.u.group_mod.command = POF_GROUP_DELETE;
    expect_error(send_msg(&m), POFET_GROUP_MOD_FAILED, POFGMFC_INVALID_GROUP);
    m.u.group_mod.command = 9;
    expect_error(send_msg(&m), POFET_GROUP_MOD_FAILED, POFGMFC_BAD_COMMAND);
    CHECK(pof_conn_ready(sw.conn) && no_error_before_echo());
}

/* The answer to a QUERYALL up to its QUERYALL_FIN: true if it all came with this xid and without an ERROR. */
static bool queryall_answered(uint32_t xid)
{
    for (int i = 0; i < 20; i++) {
        if (ctl_recv() < 0 || rx->hdr.xid != xid || rx->hdr.type == POFT_ERROR)
            return false;
        if (rx->hdr.type == POFT_QUERYALL_FIN)
            return true;
    }
    return false;
}

/* QUERYALL as the reference's controllers send it (8-byte body, slot 0xFFFF or 0) and as earlier ones did (no
 * body: every slot); a slot the switch does not have is refused as the reference refuses it, without a FIN. */
static void test_queryall_slots(void)
{
    struct pof_msg m = {.hdr = {.type = POFT_QUERYALL_REQUEST}};
    m.u.queryall.slot_id = POF_SLOT_ALL;
    CHECK(queryall_answered(send_msg(&m)));
    m.u.queryall.slot_id = 0;
    CHECK(queryall_answered(send_msg(&m)));
    static const uint8_t bare[8] = {4, POFT_QUERYALL_REQUEST, 0, 8, 0, 0, 0x0F, 0x01};
    ctl_send_raw(bare, sizeof(bare));
    CHECK(queryall_answered(0x0F01));
    m.u.queryall.slot_id = 3;
    expect_error(send_msg(&m), POFET_SOFTWARE_FAILED, POF_INVALID_SLOT_ID);
    CHECK(no_error_before_echo()); /* and no QUERYALL_FIN either */
}

/* Port 1 enabled, and MM 0 sends the frame out of port 2 (enabled too), counting it. */
static void program(void)
{
    struct pof_msg m = {.hdr = {.type = POFT_PORT_MOD}};
    for (int i = 0; i < 2; i++) {
        m.u.port_status.port = ports[i];
        m.u.port_status.port.of_enable = 1;
        send_msg(&m);
    }
    m = (struct pof_msg){.hdr = {.type = POFT_TABLE_MOD}};
    m.u.table_mod = (struct pof_table_mod){.table_type = POF_MM, .match_num = 1, .size = 16, .key_len = 16,
                                           .matches = {ETH_TYPE}};
    send_msg(&m);
    m = (struct pof_msg){.hdr = {.type = POFT_METER_MOD}};
    m.u.meter_mod = (struct pof_meter_mod){.meter_id = METER_ID, .rate = 10000};
    send_msg(&m);
    m = (struct pof_msg){.hdr = {.type = POFT_COUNTER_MOD}};
    m.u.counter = (struct pof_counter){.counter_id = COUNTER_ID};
    send_msg(&m);
    m = (struct pof_msg){.hdr = {.type = POFT_FLOW_MOD}};
    struct pof_flow_mod *f = &m.u.flow_mod;
    *f = (struct pof_flow_mod){.table_type = POF_MM, .match_num = 1, .instruction_num = 1, .counter_id = COUNTER_ID};
    f->matches[0].field = ETH_TYPE;
    f->matches[0].value[0] = 0x08;
    f->matches[0].mask[0] = f->matches[0].mask[1] = 0xFF;
    f->instructions[0].type = POFIT_APPLY_ACTIONS;
    f->instructions[0].u.apply_actions.action_num = 1;
    f->instructions[0].u.apply_actions.actions[0] = (struct pof_action){.type = POFAT_OUTPUT, .u.output.port_id = 2};
    send_msg(&m);
    CHECK(no_error_before_echo());
}

/* Frames injected into port a that leave by port b. */
static int forwarded(int n)
{
    int before = dummy_sent_count("b");
    for (int i = 0; i < n; i++)
        dummy_inject("a", frame, sizeof(frame));
    pof_sw_poll_once(&sw, pof_now_ns());
    return dummy_sent_count("b") - before;
}

static uint64_t counter_packets(void)
{
    struct pof_counter k = {.counter_id = COUNTER_ID};
    struct pof_status st;
    return pof_dp_counter(sw.dp, &k, true, &st) == 0 ? k.packets : UINT64_MAX;
}

static void test_state_kept_over_a_new_session_by_default(void)
{
    char out[64];
    mgmt("on-connect", out, sizeof(out));
    CHECK(strcmp(out, "OK keep") == 0);
    program();
    CHECK(forwarded(3) == 3);
    ctl_hang_up();
    CHECK(forwarded(2) == 2); /* no controller: a slice's traffic goes on */
    CHECK(ctl_accept(&sw));
    CHECK(ctl_handshake(NULL, 0, NULL, NULL, 2, ports));
    CHECK(ports[0].of_enable == 1 && ports[1].of_enable == 1);
    CHECK(pof_dp_table_count(sw.dp) == 1 && pof_dp_flow_count(sw.dp) == 1 && counter_packets() == 5);
    CHECK(forwarded(1) == 1);
    /* A controller that assumes an empty switch is told what is there. */
    struct pof_msg m = {.hdr = {.type = POFT_TABLE_MOD}};
    m.u.table_mod = (struct pof_table_mod){.table_type = POF_MM, .match_num = 1, .size = 16, .matches = {ETH_TYPE}};
    expect_error(send_msg(&m), POFET_TABLE_MOD_FAILED, POFTMFC_TABLE_EXIST);
}

static void test_state_reset_for_a_new_session(void)
{
    char out[64];
    mgmt("on-connect sideways", out, sizeof(out));
    CHECK(strcmp(out, "ERROR usage: on-connect [keep|reset]") == 0);
    mgmt("on-connect reset", out, sizeof(out));
    CHECK(strcmp(out, "OK") == 0);
    mgmt("on-connect", out, sizeof(out));
    CHECK(strcmp(out, "OK reset") == 0);
    CHECK(pof_dp_table_count(sw.dp) == 1); /* the session in progress keeps what it found */
    reconnect();
    /* The state of a freshly started switch: no tables, flows, meters or counters, ports disabled. */
    CHECK(ports[0].of_enable == 0 && ports[1].of_enable == 0);
    CHECK(pof_dp_table_count(sw.dp) == 0 && pof_dp_flow_count(sw.dp) == 0 && counter_packets() == 0);
    struct pof_meter_mod mm = {.command = 1, .meter_id = METER_ID, .rate = 5000};
    struct pof_status st;
    CHECK(pof_dp_meter_mod(sw.dp, &mm, &st) < 0 && st.code == POFMMFC_UNKNOWN_METER);
    CHECK(forwarded(2) == 0);
    program(); /* the same program again, without an ERROR */
    CHECK(forwarded(2) == 2 && counter_packets() == 2);
    mgmt("on-connect keep", out, sizeof(out));
    CHECK(strcmp(out, "OK") == 0);
}

/* A length below the header's loses the framing: the switch answers BAD_LEN, then closes, and the ERROR
 * reaches the controller before the end of the stream. */
static void test_bad_framing_error_arrives_before_the_close(void)
{
    static const uint8_t bad[8] = {4, POFT_ECHO_REQUEST, 0, 4, 0, 0, 0, 42};
    ctl_send_raw(bad, sizeof(bad));
    CHECK(ctl_wait_eof(3000));
    CHECK(ctl_recv() == 0 && rx->hdr.type == POFT_ERROR && rx->u.error.type == POFET_BAD_REQUEST &&
          rx->u.error.code == POFBRC_BAD_LEN && rx->hdr.xid == 0);
    CHECK(!pof_conn_ready(sw.conn));
    /* It dials again; a HELLO of a version it does not speak gets BAD_VERSION, then the close. */
    ctl_hang_up();
    CHECK(ctl_accept(&sw));
    CHECK(ctl_recv_type(POFT_HELLO) == 0);
    static const uint8_t hello5[8] = {5, POFT_HELLO, 0, 8, 0, 0, 0, 43};
    ctl_send_raw(hello5, sizeof(hello5));
    CHECK(ctl_wait_eof(3000));
    CHECK(ctl_recv() == 0 && rx->hdr.type == POFT_ERROR && rx->u.error.code == POFBRC_BAD_VERSION &&
          rx->hdr.xid == 43);
    reconnect();
    CHECK(no_error_before_echo());
}

int main(void)
{
    struct sw_config cfg = {.controllers = {{.host = "127.0.0.1", .port = ctl_listen()}},
                            .n_controllers = 1, .dev_id = 7};
    CHECK(cfg.controllers[0].port != 0);
    CHECK(pof_sw_init(&sw, &cfg, &dummy_io_ops) == 0);
    char err[128];
    CHECK(pof_sw_port_add(&sw, "a", "", err, sizeof(err)) == 1);
    CHECK(pof_sw_port_add(&sw, "b", "", err, sizeof(err)) == 2);
    frame[12] = 0x08;
    RUN(test_of10_set_config_in_handshake);
    RUN(test_group_mod_answered_as_the_reference);
    RUN(test_queryall_slots);
    RUN(test_state_kept_over_a_new_session_by_default);
    RUN(test_state_reset_for_a_new_session);
    RUN(test_bad_framing_error_arrives_before_the_close);
    ctl_close();
    pof_sw_fini(&sw);
    CHECK(dummy_live_buffers() == 0);
    return unit_summary();
}
