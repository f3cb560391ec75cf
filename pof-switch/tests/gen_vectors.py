"""Write the hex test vectors of spec/pof/vectors/ (and its invalid/, refused/, liberal/, unsupported/, port_latency/) from the
message definitions below.

Run once after a deliberate change of the contract: python pof-switch/tests/gen_vectors.py
The vectors are checked in; the C, Java and Python codecs are all tested against the files, not this script.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import pofwire  # noqa: E402

OUT = Path(__file__).resolve().parents[2] / "spec" / "pof" / "vectors"

PORT = {"slot_id": 0, "port_id": 1, "dev_id": 1, "hw_addr": "020000000001", "name": "veth-a", "config": 0,
        "state": 0, "curr": 0, "advertised": 0, "supported": 0, "peer": 0, "curr_speed": 10000000,
        "max_speed": 10000000, "of_enable": 1}
ETH_TYPE = {"field_id": 2, "offset": 96, "length": 16}
DST_MAC = {"field_id": 0, "offset": 0, "length": 48}
ODD_FIELD = {"field_id": 7, "offset": 99, "length": 16}  # not byte aligned on purpose


def mx(m: dict, value: str, mask: str) -> dict:
    return {**m, "value": value.ljust(32, "0"), "mask": mask.ljust(32, "0")}


def port_stats(port_no: int, rx: tuple[int, int, int], tx: tuple[int, int, int], up_ns: int) -> dict:
    """One port's entry: (packets, bytes, dropped) each way; no error counts, as pof-switch keeps none."""
    zero = dict.fromkeys(("rx_errors", "tx_errors", "rx_frame_err", "rx_over_err", "rx_crc_err", "collisions"), 0)
    return {"port_no": port_no, "rx_packets": rx[0], "tx_packets": tx[0], "rx_bytes": rx[1], "tx_bytes": tx[1],
            "rx_dropped": rx[2], "tx_dropped": tx[2], **zero, "duration_sec": up_ns // 10**9,
            "duration_nsec": up_ns % 10**9}


VALID = {
    "hello": {"type": "HELLO", "xid": 0, "body": {}},
    "echo_request": {"type": "ECHO_REQUEST", "xid": 9, "body": {"data": "cafe"}},
    "features_request": {"type": "FEATURES_REQUEST", "xid": 2, "body": {}},
    "features_reply": {"type": "FEATURES_REPLY", "xid": 2, "body": {
        "dev_id": 1, "slot_id": 0, "port_num": 2, "table_num": 45, "capabilities": 0x80000000,
        "vendor_id": "WiSlice", "dev_fw_id": "pofswitch 0.1", "dev_lkup_id": "wislice-core"}},
    "set_config": {"type": "SET_CONFIG", "xid": 3, "body": {"dev_id": 1, "flags": 0, "miss_send_len": 128}},
    "get_config_reply": {"type": "GET_CONFIG_REPLY", "xid": 4,
                         "body": {"dev_id": 1, "flags": 0, "miss_send_len": 128}},
    "resource_report": {"type": "RESOURCE_REPORT", "xid": 4, "body": {
        "resource_type": 0, "slot_id": 0, "counter_num": 512, "meter_num": 256, "group_num": 128,
        "tables": [{"dev_id": 1, "type": t, "tbl_num": n, "key_len": 160, "total_size": 8000}
                   for t, n in ((0, 10), (1, 10), (2, 5), (3, 20))]}},
    "port_status_add": {"type": "PORT_STATUS", "xid": 4, "body": {"reason": 0, "port": PORT}},
    "port_mod_enable": {"type": "PORT_MOD", "xid": 5, "body": {"reason": 2, "port": PORT}},
    "error_bad_type": {"type": "ERROR", "xid": 6, "body": {
        "type": 1, "code": 1, "dev_id": 1, "slot_id": 0, "string": "unsupported message type 21"}},
    "table_mod_mm": {"type": "TABLE_MOD", "xid": 10, "body": {
        "command": 0, "table_id": 0, "table_type": 0, "size": 512, "key_len": 16, "slot_id": 0,
        "name": "classify", "matches": [ODD_FIELD]}},
    "table_mod_em": {"type": "TABLE_MOD", "xid": 11, "body": {
        "command": 0, "table_id": 0, "table_type": 2, "size": 1024, "key_len": 64, "slot_id": 0,
        "name": "steer", "matches": [DST_MAC, ETH_TYPE]}},
    "flow_mod_goto": {"type": "FLOW_MOD", "xid": 12, "body": {
        "command": 0, "counter_id": 0, "cookie": 0x1122334455667788, "cookie_mask": 0, "table_id": 0,
        "table_type": 0, "idle_timeout": 0, "hard_timeout": 0, "priority": 10, "index": 0, "slot_id": 0,
        "matches": [mx(ODD_FIELD, "0801", "ffff")],
        "instructions": [
            {"type": "WRITE_METADATA", "metadata_offset": 32, "length": 16, "value": "00070000"},
            {"type": "GOTO_TABLE", "next_table_id": 20, "packet_offset": 0, "matches": [DST_MAC, ETH_TYPE]}]}},
    "flow_mod_meter_output": {"type": "FLOW_MOD", "xid": 13, "body": {
        "command": 0, "counter_id": 3, "cookie": 0, "cookie_mask": 0, "table_id": 0, "table_type": 2,
        "idle_timeout": 0, "hard_timeout": 0, "priority": 0, "index": 5, "slot_id": 0,
        "matches": [mx(DST_MAC, "020000000002", "ffffffffffff"), mx(ETH_TYPE, "0800", "ffff")],
        "instructions": [
            {"type": "METER", "meter_id": 1},
            {"type": "APPLY_ACTIONS", "actions": [
                {"type": "SET_FIELD", "field": mx(DST_MAC, "0200000000aa", "ffffffffffff")},
                {"type": "MODIFY_FIELD", "field": {"field_id": 9, "offset": 176, "length": 8}, "increment": -1},
                {"type": "COUNTER", "value": 3},
                {"type": "OUTPUT", "port_type": 0, "metadata_offset": 0, "metadata_len": 0, "packet_offset": 0,
                 "value": 2}]}]}},
    "flow_mod_fields": {"type": "FLOW_MOD", "xid": 14, "body": {
        "command": 0, "counter_id": 0, "cookie": 0, "cookie_mask": 0, "table_id": 1, "table_type": 0,
        "idle_timeout": 0, "hard_timeout": 0, "priority": 5, "index": 1, "slot_id": 0,
        "matches": [mx(ETH_TYPE, "86dd", "ffff")],
        "instructions": [
            {"type": "WRITE_METADATA_FROM_PACKET", "metadata_offset": 64, "packet_offset": 0, "length": 48},
            {"type": "APPLY_ACTIONS", "actions": [
                {"type": "ADD_FIELD", "tag_id": 1, "tag_pos": 96, "tag_len": 32, "tag_value": "81000005"},
                {"type": "DELETE_FIELD", "tag_pos": 96, "len_type": 0, "value": 32},
                {"type": "CALC_CHECKSUM", "checksum_pos_type": 0, "calc_pos_type": 0, "checksum_pos": 192,
                 "checksum_len": 16, "calc_start": 112, "calc_len": 160},
                {"type": "PACKET_IN", "value": 1},
                {"type": "DROP", "value": 0}]},
            {"type": "GOTO_DIRECT_TABLE", "next_table_id": 25, "index_type": 0, "packet_offset": 14, "value": 3}]}},
    "flow_mod_delete": {"type": "FLOW_MOD", "xid": 15, "body": {
        "command": 3, "counter_id": 0, "cookie": 0, "cookie_mask": 0, "table_id": 0, "table_type": 2,
        "idle_timeout": 0, "hard_timeout": 0, "priority": 0, "index": 5, "slot_id": 0, "matches": [],
        "instructions": []}},
    "meter_mod_add": {"type": "METER_MOD", "xid": 16,
                      "body": {"command": 0, "slot_id": 0, "meter_id": 1, "rate": 10000}},
    # A slice's two-rate meter: guarantee 8 Mbit/s (committed_rate, green), cap 20 Mbit/s (rate, the peak).
    "meter_mod_two_rate": {"type": "METER_MOD", "xid": 22,
                           "body": {"command": 0, "slot_id": 0, "meter_id": 2, "rate": 20000,
                                    "committed_rate": 8000}},
    # A latency-class slice (WiSlice flags byte, LATENCY 1): a cap of 2 Mbit/s, served before every other class.
    "meter_mod_latency": {"type": "METER_MOD", "xid": 28,
                          "body": {"command": 0, "flags": 1, "slot_id": 0, "meter_id": 5, "rate": 2000}},
    # A guarantee without a cap: the peak is the largest rate (100 Gbit/s); MODIFY of a live meter.
    "meter_mod_guarantee_uncapped": {"type": "METER_MOD", "xid": 23,
                                     "body": {"command": 1, "slot_id": 0, "meter_id": 3, "rate": 100000000,
                                              "committed_rate": 1000}},
    "counter_request": {"type": "COUNTER_REQUEST", "xid": 17,
                        "body": {"command": 0, "slot_id": 0, "counter_id": 3, "packets": 0, "bytes": 0}},
    "counter_reply": {"type": "COUNTER_REPLY", "xid": 17,
                      "body": {"command": 0, "slot_id": 0, "counter_id": 3, "packets": 1000, "bytes": 64000}},
    "packet_in": {"type": "PACKET_IN", "xid": 0, "body": {
        "buffer_id": 0xFFFFFFFF, "reason": 1, "table_id": 20, "cookie": 0, "dev_id": 1, "slot_id": 0,
        "port_id": 1, "data": "0200000000020200000000010800"}},
    "packet_out": {"type": "PACKET_OUT", "xid": 18, "body": {
        "buffer_id": 0xFFFFFFFF, "in_port": 0,
        "actions": [{"type": "OUTPUT", "port_type": 0, "metadata_offset": 0, "metadata_len": 0,
                     "packet_offset": 0, "value": 2}],
        "data": "0200000000020200000000010800" + "45" + "00" * 45}},
    # The reference built with POF_MULTIPLE_SLOTS reads an 8-byte body: slot_id, 0xFFFF for every slot.
    "queryall_request": {"type": "QUERYALL_REQUEST", "xid": 19, "body": {"slot_id": pofwire.ALL_SLOTS}},
    "queryall_fin": {"type": "QUERYALL_FIN", "xid": 19, "body": {}},
    "multipart_request_port_stats": {"type": "MULTIPART_REQUEST", "xid": 20,
                                     "body": {"mp_type": 4, "flags": 0, "port_no": 1}},
    "multipart_request_port_stats_all": {"type": "MULTIPART_REQUEST", "xid": 21,
                                         "body": {"mp_type": 4, "flags": 0, "port_no": 0xFFFFFFFF}},
    # A day of a bulk download in through port 1 and out of port 2 (rx_bytes of port 1 is over 2^32).
    "multipart_reply_port_stats": {"type": "MULTIPART_REPLY", "xid": 21, "body": {"mp_type": 4, "flags": 0, "stats": [
        port_stats(1, (5123456, 7512345678, 12), (2561728, 169074048, 0), 86400_250000000),
        port_stats(2, (2561731, 169074246, 0), (5123441, 7512323670, 3), 86399_998000000)]}},
}

# Malformed messages and the ERROR (type, code) the switch answers with.
INVALID = {
    "flow_mod_short_body": (bytes.fromhex("040f0010000000630000000000000000"), (1, 6)),
    "barrier_unsupported": (bytes.fromhex("0415000800000064"), (1, 1)),
    "unknown_type": (bytes.fromhex("04c8000800000065"), (1, 1)),
    "bad_version": (bytes.fromhex("0100000800000066"), (1, 0)),
    # PORT_STATS (4) is the only multipart type: mp_type 0 (DESC in OpenFlow) is BAD_REQUEST/BAD_MULTIPART.
    "multipart_bad_type": (bytes.fromhex("0413001800000067" "0000000000000000" "0000000100000000"), (1, 2)),
    # A MULTIPART_REQUEST with only the 8-byte multipart head, no port_no.
    "multipart_short_body": (bytes.fromhex("0413001000000068" "0004000000000000"), (1, 6)),
    # A QUERYALL_REQUEST body of 1-7 bytes is neither the 8-byte form nor the bare header.
    "queryall_request_short_body": (bytes.fromhex("0422000c00000069" "ffff0000"), (1, 6)),
}

# Well-formed messages (they decode to "message") that the switch refuses to apply, with its ERROR (type, code).
REFUSED = {
    "meter_mod_committed_over_rate": ({"type": "METER_MOD", "xid": 24, "body": {
        "command": 0, "slot_id": 0, "meter_id": 4, "rate": 5000, "committed_rate": 8000}}, (12, 6)),
    # rate 0 is no "uncapped" peak: a meter needs a peak rate, so a guarantee alone is refused as well.
    "meter_mod_committed_without_rate": ({"type": "METER_MOD", "xid": 25, "body": {
        "command": 0, "slot_id": 0, "meter_id": 4, "rate": 0, "committed_rate": 1000}}, (12, 6)),
    # Strict priority without a cap would starve every other slice: a latency meter needs a peak below 100 Gbit/s.
    "meter_mod_latency_uncapped": ({"type": "METER_MOD", "xid": 29, "body": {
        "command": 0, "flags": 1, "slot_id": 0, "meter_id": 4, "rate": 100000000}}, (12, 6)),
    # A flag this switch does not know is refused (METER_MOD_FAILED/BAD_FLAGS), never silently ignored.
    "meter_mod_unknown_flags": ({"type": "METER_MOD", "xid": 30, "body": {
        "command": 0, "flags": 2, "slot_id": 0, "meter_id": 4, "rate": 2000}}, (12, 5)),
    # pof-switch has one slot, 0: another slot is refused as the reference refuses a slot it does not have.
    "queryall_request_bad_slot": ({"type": "QUERYALL_REQUEST", "xid": 33, "body": {"slot_id": 3}},
                                  (pofwire.SOFTWARE_FAILED, pofwire.INVALID_SLOT_ID)),
}

# Forms the switch accepts though WiSlice's own senders never use them (spec/pof "Liberal acceptance"): the switch
# decodes "hex" to "message" and does what "about" says.
LIBERAL = {
    # What controllers written for the reference send: OpenFlow 1.0's 12-byte SET_CONFIG, no dev_id.
    "set_config_of10": ({"type": "SET_CONFIG", "xid": 3, "body": {"flags": 1, "miss_send_len": 256}},
                        "SET_CONFIG in OpenFlow 1.0's layout (flags u16@0, miss_send_len u16@2, no dev_id): the "
                        "switch sets flags and miss_send_len and keeps its own dev_id"),
    # What earlier controllers and tools sent: QUERYALL_REQUEST as the bare header, no slot_id.
    "queryall_request_empty": ({"type": "QUERYALL_REQUEST", "xid": 19, "body": {}},
                               "QUERYALL_REQUEST without a body (no slot_id): the switch answers it as a request for "
                               "every slot (slot_id 0xFFFF)"),
}

# Well-formed messages of a feature pof-switch does not have, and the ERROR (type, code) it answers with, as the
# reference answers for a resource it announced none of (spec/pof "Groups").
UNSUPPORTED = {
    "group_mod_add": ({"type": "GROUP_MOD", "xid": 26, "body": {
        "command": 0, "group_type": 0, "group_id": 1, "counter_id": 0, "slot_id": 0, "actions": [
            {"type": "OUTPUT", "port_type": 0, "metadata_offset": 0, "metadata_len": 0, "packet_offset": 0,
             "value": 2}]}}, (6, 1)),
    "group_mod_bad_command": ({"type": "GROUP_MOD", "xid": 27, "body": {
        "command": 7, "group_type": 0, "group_id": 1, "counter_id": 0, "slot_id": 0, "actions": []}}, (6, 11)),
}

# PORT_LATENCY (0xF001, spec/pof "Port latency") in a directory of its own until every codec reads it: requests for
# one port and for all, a reply of two ports (numbers as the switch's unit test reads them under a flood), and a reply
# cut one byte short of a whole entry, refused BAD_REQUEST/BAD_LEN.
def _lat(packets: int, p50: int, p99: int, mx_ns: int) -> dict:
    return {"packets": packets, "p50_ns": p50, "p99_ns": p99, "max_ns": mx_ns}


PORT_LATENCY = {
    "multipart_request_port_latency": {"type": "MULTIPART_REQUEST", "xid": 30, "body": {
        "mp_type": 0xF001, "flags": 0, "port_no": 3}},
    "multipart_request_port_latency_all": {"type": "MULTIPART_REQUEST", "xid": 31, "body": {
        "mp_type": 0xF001, "flags": 0, "port_no": 0xFFFFFFFF}},
    "multipart_reply_port_latency": {"type": "MULTIPART_REPLY", "xid": 31, "body": {"mp_type": 0xF001, "flags": 0, "ports": [
        {"port_no": 1, "latency": _lat(600, 1279, 100000, 100000),
         "other": _lat(724, 201326591, 218400000, 218400000)},
        {"port_no": 2, "latency": _lat(0, 0, 0, 0), "other": _lat(5, 0, 0, 0)}]}},
}
_ONE_PORT = {"type": "MULTIPART_REPLY", "xid": 32, "body": {"mp_type": 0xF001, "flags": 0, "ports": [
    {"port_no": 1, "latency": _lat(1, 1, 1, 1), "other": _lat(1, 1, 1, 1)}]}}
_CUT = bytearray(pofwire.encode(_ONE_PORT)[:-1])
_CUT[2:4] = len(_CUT).to_bytes(2, "big")


def _with_defaults(msg: dict) -> dict:
    """Canonical form = what decode() returns, so files hold every field, including len defaults."""
    return pofwire.decode(pofwire.encode(msg))


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "invalid").mkdir(exist_ok=True)
    for name, msg in VALID.items():
        canon = _with_defaults(msg)
        doc = {"name": name, "message": canon, "hex": pofwire.encode(canon).hex()}
        (OUT / f"{name}.json").write_text(json.dumps(doc, indent=1) + "\n")
    for name, (raw, (etype, ecode)) in INVALID.items():
        doc = {"name": name, "hex": raw.hex(), "error": {"type": etype, "code": ecode}}
        (OUT / "invalid" / f"{name}.json").write_text(json.dumps(doc, indent=1) + "\n")
    (OUT / "refused").mkdir(exist_ok=True)
    for name, (msg, (etype, ecode)) in REFUSED.items():
        canon = _with_defaults(msg)
        doc = {"name": name, "message": canon, "hex": pofwire.encode(canon).hex(),
               "error": {"type": etype, "code": ecode}}
        (OUT / "refused" / f"{name}.json").write_text(json.dumps(doc, indent=1) + "\n")
    (OUT / "liberal").mkdir(exist_ok=True)
    for name, (msg, about) in LIBERAL.items():
        canon = _with_defaults(msg)
        doc = {"name": name, "about": about, "message": canon, "hex": pofwire.encode(canon).hex()}
        (OUT / "liberal" / f"{name}.json").write_text(json.dumps(doc, indent=1) + "\n")
    (OUT / "unsupported").mkdir(exist_ok=True)
    for name, (msg, (etype, ecode)) in UNSUPPORTED.items():
        canon = _with_defaults(msg)
        doc = {"name": name, "message": canon, "hex": pofwire.encode(canon).hex(),
               "error": {"type": etype, "code": ecode}}
        (OUT / "unsupported" / f"{name}.json").write_text(json.dumps(doc, indent=1) + "\n")
    (OUT / "port_latency").mkdir(exist_ok=True)
    for name, msg in PORT_LATENCY.items():
        canon = _with_defaults(msg)
        doc = {"name": name, "message": canon, "hex": pofwire.encode(canon).hex()}
        (OUT / "port_latency" / f"{name}.json").write_text(json.dumps(doc, indent=1) + "\n")
    doc = {"name": "multipart_reply_port_latency_short_entry", "hex": bytes(_CUT).hex(), "error": {"type": 1, "code": 6}}
    (OUT / "port_latency" / "invalid_reply_short_entry.json").write_text(json.dumps(doc, indent=1) + "\n")
    print(f"wrote {len(VALID)} valid, {len(INVALID)} invalid, {len(REFUSED)} refused, {len(LIBERAL)} liberal and "
          f"{len(UNSUPPORTED)} unsupported vectors to {OUT}")


if __name__ == "__main__":
    main()
