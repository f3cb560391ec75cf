/* POF wire protocol: host-order views of the messages of spec/pof/README.md.
 * The codec is the only place that knows byte offsets (pof_codec.c the messages', pof_instr.c and pof_action.c
 * the instruction and action bodies'); everything else uses these structs. */
#ifndef POF_WIRE_H
#define POF_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define POF_VERSION 4
#define POF_HEADER_LEN 8
#define POF_MAX_MATCH 8
#define POF_MAX_INS 6
#define POF_MAX_ACT 6
#define POF_FIELD_BYTES 16
#define POF_NAME_LEN 64
#define POF_ERR_STR_LEN 256
#define POF_PACKET_MAX 2048
#define POF_METADATA_FIELD 0xFFFF

/* Fixed body sizes (natural alignment of the reference's C structs). */
#define POF_MATCH_SIZE 8
#define POF_MATCH_X_SIZE 40
#define POF_ACTION_SIZE 48
#define POF_INS_SIZE 304
#define POF_FLOW_MOD_SIZE 2184
#define POF_TABLE_MOD_SIZE 144
#define POF_PORT_STATUS_SIZE 128
#define POF_FEATURES_SIZE 208
#define POF_RESOURCE_SIZE 80
#define POF_ERROR_SIZE 272
#define POF_CONFIG_SIZE 8
/* SET_CONFIG as controllers written for the reference send it: OpenFlow 1.0's body, flags and miss_send_len only. */
#define POF_CONFIG_OF10_SIZE 4
#define POF_QUERYALL_SIZE 8 /* slot_id u16, pad[6]: the reference built with POF_MULTIPLE_SLOTS */
#define POF_SLOT_ALL 0xFFFFu /* QUERYALL_REQUEST slot_id: every slot */
#define POF_METER_MOD_SIZE 16
#define POF_GROUP_MOD_SIZE 208
#define POF_GROUP_MAX_ACT 4
#define POF_COUNTER_SIZE 24
#define POF_PACKET_IN_HEAD 24
#define POF_PACKET_OUT_HEAD 304
#define POF_MULTIPART_REQUEST_SIZE 16 /* ofp_multipart_request + ofp_port_stats_request */
#define POF_MULTIPART_HEAD 8
#define POF_PORT_STATS_SIZE 112
/* Entries per MULTIPART_REPLY: 8 + 8 + 584 * 112 = 65424 fits the 16-bit length, 585 would not. */
#define POF_PORT_STATS_MAX 584
#define POF_PORT_LATENCY_SIZE 56 /* a PORT_LATENCY entry: port_no, pad, 2 classes of 24 bytes */
#define POF_PORT_ALL 0xFFFFFFFFu

enum pof_type {
    POFT_HELLO = 0, POFT_ERROR = 1, POFT_ECHO_REQUEST = 2, POFT_ECHO_REPLY = 3, POFT_EXPERIMENTER = 4,
    POFT_FEATURES_REQUEST = 5, POFT_FEATURES_REPLY = 6, POFT_GET_CONFIG_REQUEST = 7, POFT_GET_CONFIG_REPLY = 8,
    POFT_SET_CONFIG = 9, POFT_PACKET_IN = 10, POFT_FLOW_REMOVED = 11, POFT_PORT_STATUS = 12,
    POFT_RESOURCE_REPORT = 13, POFT_PACKET_OUT = 14, POFT_FLOW_MOD = 15, POFT_GROUP_MOD = 16, POFT_PORT_MOD = 17,
    POFT_TABLE_MOD = 18, POFT_MULTIPART_REQUEST = 19, POFT_MULTIPART_REPLY = 20, POFT_BARRIER_REQUEST = 21,
    POFT_BARRIER_REPLY = 22, POFT_ROLE_REQUEST = 25, POFT_ROLE_REPLY = 26, POFT_METER_MOD = 30,
    POFT_COUNTER_MOD = 31, POFT_COUNTER_REQUEST = 32, POFT_COUNTER_REPLY = 33, POFT_QUERYALL_REQUEST = 34,
    POFT_QUERYALL_FIN = 35,
};

/* Error types and codes, numbered as the reference switch numbers them. */
enum pof_error_type {
    POFET_HELLO_FAILED = 0, POFET_BAD_REQUEST = 1, POFET_BAD_ACTION = 2, POFET_BAD_INSTRUCTION = 3,
    POFET_BAD_MATCH = 4, POFET_FLOW_MOD_FAILED = 5, POFET_GROUP_MOD_FAILED = 6, POFET_PORT_MOD_FAILED = 7,
    POFET_TABLE_MOD_FAILED = 8, POFET_METER_MOD_FAILED = 12, POFET_SOFTWARE_FAILED = 14,
    POFET_COUNTER_MOD_FAILED = 15,
};
/* SOFTWARE_FAILED codes are the reference's pof_soft_error values; only the slot one is answered here. */
enum { POF_INVALID_SLOT_ID = 0x5006 };
enum { POFBRC_BAD_VERSION = 0, POFBRC_BAD_TYPE = 1, POFBRC_BAD_MULTIPART = 2, POFBRC_BAD_LEN = 6,
       POFBRC_BAD_PORT = 11, POFBRC_BAD_PACKET = 12 };
enum { POFBAC_BAD_TYPE = 0, POFBAC_BAD_LEN = 1, POFBAC_BAD_OUT_PORT = 4, POFBAC_BAD_ARGUMENT = 5,
       POFBAC_TOO_MANY = 7 };
enum { POFBIC_UNKNOWN_INST = 0, POFBIC_UNSUP_INST = 1, POFBIC_BAD_TABLE_ID = 2, POFBIC_BAD_LEN = 7,
       POFBIC_TOO_MANY_ACTIONS = 9, POFBIC_TABLE_UNEXIST = 17, POFBIC_BAD_OFFSET = 19 };
enum { POFBMC_BAD_LEN = 1, POFBMC_BAD_FIELD = 6, POFBMC_BAD_VALUE = 7 };
enum { POFFMFC_UNKNOWN = 0, POFFMFC_TABLE_FULL = 1, POFFMFC_BAD_TABLE_ID = 2, POFFMFC_BAD_COMMAND = 6,
       POFFMFC_ENTRY_EXIST = 8, POFFMFC_ENTRY_UNEXIST = 9, POFFMFC_BAD_TABLE_TYPE = 10,
       POFFMFC_BAD_ENTRY_ID = 11, POFFMFC_BAD_COUNTER_ID = 12 };
enum { POFTMFC_BAD_COMMAND = 1, POFTMFC_BAD_TABLE_TYPE = 2, POFTMFC_BAD_TABLE_ID = 3, POFTMFC_TABLE_EXIST = 4,
       POFTMFC_TABLE_UNEXIST = 5, POFTMFC_BAD_TABLE_SIZE = 6, POFTMFC_BAD_KEY_LEN = 7 };
enum { POFMMFC_METER_EXISTS = 1, POFMMFC_INVALID_METER = 2, POFMMFC_UNKNOWN_METER = 3, POFMMFC_BAD_COMMAND = 4,
       POFMMFC_BAD_FLAGS = 5, POFMMFC_BAD_RATE = 6 };
enum { POFGMFC_INVALID_GROUP = 1, POFGMFC_BAD_COMMAND = 11 };
enum { POFPMFC_BAD_PORT_ID = 1 };
enum { POFCMFC_BAD_COUNTER_ID = 1, POFCMFC_BAD_COMMAND = 2 };

enum pof_table_type { POF_MM = 0, POF_LPM = 1, POF_EM = 2, POF_LINEAR = 3, POF_TABLE_TYPES = 4 };
enum pof_ins_type {
    POFIT_GOTO_TABLE = 1, POFIT_WRITE_METADATA = 2, POFIT_WRITE_ACTIONS = 3, POFIT_APPLY_ACTIONS = 4,
    POFIT_CLEAR_ACTIONS = 5, POFIT_METER = 6, POFIT_WRITE_METADATA_FROM_PACKET = 7, POFIT_GOTO_DIRECT_TABLE = 8,
    POFIT_TYPES /* one past the highest: the size of pof_instr_table */
};
enum pof_act_type {
    POFAT_OUTPUT = 0, POFAT_SET_FIELD = 1, POFAT_SET_FIELD_FROM_METADATA = 2, POFAT_MODIFY_FIELD = 3,
    POFAT_ADD_FIELD = 4, POFAT_DELETE_FIELD = 5, POFAT_CALC_CHECKSUM = 6, POFAT_GROUP = 7, POFAT_DROP = 8,
    POFAT_PACKET_IN = 9, POFAT_COUNTER = 10,
    POFAT_TYPES /* one past the highest: the size of pof_action_table */
};
enum { POF_FLOW_ADD = 0, POF_FLOW_MODIFY = 1, POF_FLOW_MODIFY_STRICT = 2, POF_FLOW_DELETE = 3,
       POF_FLOW_DELETE_STRICT = 4 };
enum { POF_TABLE_ADD = 0, POF_TABLE_MODIFY = 1, POF_TABLE_DELETE = 2 };
enum { POF_GROUP_ADD = 0, POF_GROUP_MODIFY = 1, POF_GROUP_DELETE = 2 };
enum { POF_PORT_REASON_ADD = 0, POF_PORT_REASON_DELETE = 1, POF_PORT_REASON_MODIFY = 2 };
/* multipart types (WiSlice extension): OpenFlow 1.3's port stats, and WiSlice's own port latency (a value in no
 * OpenFlow version and unused by the reference) */
enum { POFMP_PORT_STATS = 4, POFMP_PORT_LATENCY = 0xF001 };
enum { POFMPF_REPLY_MORE = 1 };

struct pof_header { uint8_t version, type; uint16_t length; uint32_t xid; };

struct pof_match { uint16_t field_id, offset, len; };
struct pof_match_x { struct pof_match field; uint8_t value[POF_FIELD_BYTES], mask[POF_FIELD_BYTES]; };

struct pof_action {
    uint16_t type, len;
    union {
        struct { uint8_t port_type; uint16_t metadata_offset, metadata_len, packet_offset;
                 uint32_t port_id; struct pof_match port_field; } output;
        struct pof_match_x set_field;
        struct { struct pof_match field; uint16_t metadata_offset; } set_from_metadata;
        struct { struct pof_match field; int32_t increment; } modify_field;
        struct { uint16_t tag_id, tag_pos; uint32_t tag_len; uint8_t tag_value[POF_FIELD_BYTES]; } add_field;
        struct { uint16_t tag_pos; uint8_t len_type; uint32_t len_value; struct pof_match len_field; } delete_field;
        struct { uint8_t checksum_pos_type, calc_pos_type;
                 uint16_t checksum_pos, checksum_len, calc_start, calc_len; } checksum;
        uint32_t value; /* GROUP, DROP, PACKET_IN, COUNTER */
    } u;
};

struct pof_instruction {
    uint16_t type, len;
    union {
        struct { uint8_t next_table_id, match_num; uint16_t packet_offset;
                 struct pof_match matches[POF_MAX_MATCH]; } goto_table;
        struct { uint16_t metadata_offset, len; uint8_t value[POF_FIELD_BYTES]; } write_metadata;
        struct { uint16_t metadata_offset, packet_offset, len; } write_metadata_from_packet;
        struct { uint8_t action_num; struct pof_action actions[POF_MAX_ACT]; } apply_actions;
        struct { uint32_t meter_id; } meter;
        struct { uint8_t next_table_id, index_type; uint16_t packet_offset;
                 uint32_t index_value; struct pof_match index_field; } goto_direct;
    } u;
};

struct pof_flow_mod {
    uint8_t command, match_num, instruction_num;
    uint32_t counter_id;
    uint64_t cookie, cookie_mask;
    uint8_t table_id, table_type;
    uint16_t idle_timeout, hard_timeout, priority;
    uint32_t index;
    uint16_t slot_id;
    struct pof_match_x matches[POF_MAX_MATCH];
    struct pof_instruction instructions[POF_MAX_INS];
};

struct pof_table_mod {
    uint8_t command, table_id, table_type, match_num;
    uint32_t size;
    uint16_t key_len, slot_id;
    char name[POF_NAME_LEN];
    struct pof_match matches[POF_MAX_MATCH];
};

struct pof_port {
    uint16_t slot_id, port_id;
    uint32_t dev_id;
    uint8_t hw_addr[6];
    char name[POF_NAME_LEN];
    uint32_t config, state, curr, advertised, supported, peer, curr_speed, max_speed;
    uint8_t of_enable;
};
struct pof_port_status { uint8_t reason; struct pof_port port; }; /* also PORT_MOD */

struct pof_features {
    uint32_t dev_id; uint16_t slot_id, port_num, table_num; uint32_t capabilities;
    char vendor_id[POF_NAME_LEN], dev_fw_id[POF_NAME_LEN], dev_lkup_id[POF_NAME_LEN];
};
/* no_dev_id: a SET_CONFIG in the 12-byte OpenFlow 1.0 layout (POF_CONFIG_OF10_SIZE body), dev_id absent. The
 * switch accepts that form and never sends it (zero-initialised structs are the POF form). */
struct pof_switch_config { uint32_t dev_id; uint16_t flags, miss_send_len; bool no_dev_id; };
/* QUERYALL_REQUEST. no_body: the bare header that earlier controllers and tools send (spec/pof "Liberal
 * acceptance"), decoded as every slot; zero-initialised structs are the 8-byte form. */
struct pof_queryall { uint16_t slot_id; bool no_body; };
struct pof_table_resource { uint32_t dev_id; uint8_t type, tbl_num; uint16_t key_len; uint32_t total_size; };
struct pof_resource_report {
    uint8_t resource_type; uint16_t slot_id; uint32_t counter_num, meter_num, group_num;
    struct pof_table_resource tables[POF_TABLE_TYPES];
};
struct pof_error { uint16_t type, code; uint32_t dev_id; uint16_t slot_id; char string[POF_ERR_STR_LEN]; };
/* rate = the peak rate (kbit/s). committed_rate (WiSlice, in the reference's pad bytes 12-15): 0 = single-rate.
 * flags (WiSlice, in the reference's pad byte 1; a reference controller sends 0): POF_METER_LATENCY. */
struct pof_meter_mod { uint8_t command, flags; uint16_t slot_id; uint32_t meter_id, rate, committed_rate; };
/* A latency-class meter: within its peak its packets go out strictly before every other class (spec/pof
 * "Meters"). Other flag bits are refused (BAD_FLAGS), so a future flag is never silently ignored. */
#define POF_METER_LATENCY 0x01u
#define POF_METER_FLAGS_KNOWN POF_METER_LATENCY
/* FEATURES_REPLY capabilities bit a WiSlice switch sets when it applies POF_METER_LATENCY (spec/pof,
 * "Capabilities the controller reads"): above every OpenFlow statistics flag the reference may set. */
#define POF_CAP_LATENCY_METERS 0x80000000u
/* GROUP_MOD. pof-switch has no groups and answers every one with an ERROR (spec/pof, "Groups"), so it is decoded
 * only that far: its actions are neither decoded nor checked, they stay on the wire and re-encode unchanged. */
struct pof_group_mod {
    uint8_t command, group_type, action_num;
    uint32_t group_id, counter_id;
    uint16_t slot_id;
    const uint8_t *actions_wire; /* POF_GROUP_MAX_ACT action slots in the decoded buffer; NULL encodes zeros */
};
struct pof_counter { uint8_t command; uint16_t slot_id; uint32_t counter_id; uint64_t packets, bytes; };
struct pof_packet_in {
    uint32_t buffer_id; uint16_t total_len; uint8_t reason, table_id; uint64_t cookie;
    uint32_t dev_id; uint16_t slot_id, port_id; const uint8_t *data;
};
struct pof_packet_out {
    uint32_t buffer_id, in_port; uint8_t action_num; uint32_t packet_len;
    struct pof_action actions[POF_MAX_ACT]; const uint8_t *data; /* points into the decoded buffer */
};

/* One port's counters in a MULTIPART_REPLY (OpenFlow 1.3 ofp_port_stats layout). */
struct pof_port_stats {
    uint32_t port_no;
    uint64_t rx_packets, tx_packets, rx_bytes, tx_bytes, rx_dropped, tx_dropped, rx_errors, tx_errors;
    uint64_t rx_frame_err, rx_over_err, rx_crc_err, collisions;
    uint32_t duration_sec, duration_nsec;
};
/* One port's residence time per class in a PORT_LATENCY reply (spec/pof, "Port latency"): index 0 the latency
 * class, 1 the rest. */
struct pof_port_latency_class { uint64_t packets; uint32_t p50_ns, p99_ns, max_ns; };
struct pof_port_latency {
    uint32_t port_no;
    struct pof_port_latency_class cls[2];
};

/* MULTIPART_REQUEST / _REPLY with the PORT_STATS body. A decoded reply keeps its entries on the wire (up to
 * 584 would make struct pof_msg 64 KB): read them with pof_port_stats_at(). An encoded reply takes host-order
 * entries from stats, or, when stats is NULL, re-encodes the wire entries of a decoded reply. */
struct pof_multipart {
    uint16_t mp_type, flags;
    uint32_t port_no;                   /* request: (slot << 16) | port, POF_PORT_ALL = every port */
    uint16_t stats_num;                 /* reply: number of entries */
    const struct pof_port_stats *stats; /* reply, for encoding */
    const uint8_t *stats_wire;          /* reply, as decoded: points into the decoded buffer */
    const struct pof_port_latency *lat; /* PORT_LATENCY reply, for encoding (stats_num entries) */
};

/* One decoded message. Variable-length payloads (echo data, packet data) point into the input buffer. */
struct pof_msg {
    struct pof_header hdr;
    union {
        struct pof_flow_mod flow_mod;
        struct pof_table_mod table_mod;
        struct pof_port_status port_status;
        struct pof_features features;
        struct pof_switch_config config;
        struct pof_resource_report resource;
        struct pof_error error;
        struct pof_meter_mod meter_mod;
        struct pof_group_mod group_mod;
        struct pof_counter counter;
        struct pof_packet_in packet_in;
        struct pof_packet_out packet_out;
        struct pof_multipart multipart;
        struct pof_queryall queryall;
        struct { const uint8_t *data; uint16_t len; } echo;
    } u;
};

/* A decode failure: the ERROR type/code to answer with, and why. */
struct pof_status { uint16_t type, code; const char *why; };

/* Fills err in and returns -1, so that a refusal is one line: return pof_fail(err, type, code, why). */
static inline int pof_fail(struct pof_status *err, uint16_t type, uint16_t code, const char *why)
{
    err->type = type;
    err->code = code;
    err->why = why;
    return -1;
}

/* pof-switch has one slot, 0: a QUERYALL for any other than it or every slot is refused as the reference refuses
 * a slot it does not have (SOFTWARE_FAILED/INVALID_SLOT_ID), not answered with slot 0's state. 0, or -1. */
static inline int pof_queryall_check(const struct pof_queryall *q, struct pof_status *err)
{
    if (q->slot_id == 0 || q->slot_id == POF_SLOT_ALL)
        return 0;
    return pof_fail(err, POFET_SOFTWARE_FAILED, POF_INVALID_SLOT_ID, "QUERYALL for a slot this switch does not have");
}

/* Decodes exactly one message of len bytes. Returns 0, or -1 with *err filled in. */
int pof_decode(const uint8_t *buf, size_t len, struct pof_msg *msg, struct pof_status *err);

/* Encodes msg (hdr.type selects the body; hdr.length is computed) into out.
 * Returns the message length, or -1 if it does not fit or the type has no encoder. */
int pof_encode(const struct pof_msg *msg, uint8_t *out, size_t cap);

/* Entry i (< stats_num) of a decoded MULTIPART_REPLY, in host order. */
void pof_port_stats_at(const struct pof_multipart *mp, uint16_t i, struct pof_port_stats *out);
/* Entry i (< stats_num) of a decoded PORT_LATENCY reply, in host order. */
void pof_port_latency_at(const struct pof_multipart *mp, uint16_t i, struct pof_port_latency *out);

#endif
