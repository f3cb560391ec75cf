"""A small POF wire codec in Python: the test controller's half of the contract in spec/pof/.

Messages are dicts {"type": NAME, "xid": int, "body": {...}} whose body keys are the field names of
spec/pof/README.md. Layouts are written as explicit byte offsets (from the reference switch's
pof_global.h, natural alignment, big-endian), independently of the C codec, so that the two codecs
check each other through the hex vectors in spec/pof/vectors/.
"""

from __future__ import annotations

import struct
from typing import Any

# MULTIPART (WiSlice extension) lives in its own module; its names are part of this codec's.
from pofwire_multipart import (  # noqa: F401
    LATENCY_CLASSES, MULTIPART_HEAD, MULTIPART_REQUEST_SIZE, MULTIPART_TYPES, PORT_ALL, PORT_LATENCY_SIZE,
    PORT_STATS, PORT_STATS_COUNTERS, PORT_STATS_MAX, PORT_STATS_SIZE, REPLY_MORE, CodecError, _dec_multipart,
    _enc_multipart)

VERSION = 4
HEADER = struct.Struct(">BBHI")
# QUERYALL_REQUEST's body (the reference built with POF_MULTIPLE_SLOTS): slot_id u16, pad[6]; 0xFFFF = every slot.
QUERYALL_SIZE = 8
ALL_SLOTS = 0xFFFF
# ERROR SOFTWARE_FAILED / INVALID_SLOT_ID: the reference's (and pof-switch's) answer to a slot it does not have.
SOFTWARE_FAILED, INVALID_SLOT_ID = 14, 0x5006

TYPES = {
    "HELLO": 0, "ERROR": 1, "ECHO_REQUEST": 2, "ECHO_REPLY": 3, "EXPERIMENTER": 4,
    "FEATURES_REQUEST": 5, "FEATURES_REPLY": 6, "GET_CONFIG_REQUEST": 7, "GET_CONFIG_REPLY": 8,
    "SET_CONFIG": 9, "PACKET_IN": 10, "FLOW_REMOVED": 11, "PORT_STATUS": 12, "RESOURCE_REPORT": 13,
    "PACKET_OUT": 14, "FLOW_MOD": 15, "GROUP_MOD": 16, "PORT_MOD": 17, "TABLE_MOD": 18,
    "MULTIPART_REQUEST": 19, "MULTIPART_REPLY": 20, "BARRIER_REQUEST": 21, "BARRIER_REPLY": 22,
    "ROLE_REQUEST": 25, "ROLE_REPLY": 26, "METER_MOD": 30, "COUNTER_MOD": 31,
    "COUNTER_REQUEST": 32, "COUNTER_REPLY": 33, "QUERYALL_REQUEST": 34, "QUERYALL_FIN": 35,
}
TYPE_NAMES = {v: k for k, v in TYPES.items()}

INSTRUCTIONS = {
    "GOTO_TABLE": 1, "WRITE_METADATA": 2, "WRITE_ACTIONS": 3, "APPLY_ACTIONS": 4, "CLEAR_ACTIONS": 5,
    "METER": 6, "WRITE_METADATA_FROM_PACKET": 7, "GOTO_DIRECT_TABLE": 8,
}
INSTRUCTION_NAMES = {v: k for k, v in INSTRUCTIONS.items()}
ACTIONS = {
    "OUTPUT": 0, "SET_FIELD": 1, "SET_FIELD_FROM_METADATA": 2, "MODIFY_FIELD": 3, "ADD_FIELD": 4,
    "DELETE_FIELD": 5, "CALC_CHECKSUM": 6, "GROUP": 7, "DROP": 8, "PACKET_IN": 9, "COUNTER": 10,
}
ACTION_NAMES = {v: k for k, v in ACTIONS.items()}

MATCH_SIZE, MATCH_X_SIZE = 8, 40
ACTION_SIZE, INSTRUCTION_SIZE = 48, 304
MAX_MATCH, MAX_INS, MAX_ACT = 8, 6, 6
FLOW_MOD_SIZE, TABLE_MOD_SIZE, PORT_SIZE = 2184, 144, 128
PACKET_IN_HEAD, PACKET_OUT_HEAD, PACKET_MAX = 24, 304, 2048
GROUP_MOD_HEAD, GROUP_MAX_ACT = 16, 4





def _hex(b: bytes) -> str:
    return b.hex()


def _unhex(s: str, size: int, what: str) -> bytes:
    raw = bytes.fromhex(s)
    if len(raw) > size:
        raise CodecError(f"{what}: {len(raw)} bytes, at most {size}")
    return raw + bytes(size - len(raw))


def _cstr(b: bytes) -> str:
    return b.split(b"\0", 1)[0].decode("utf-8", "replace")


def _str_bytes(s: str, size: int, what: str) -> bytes:
    raw = s.encode()
    if len(raw) >= size:
        raise CodecError(f"{what}: longer than {size - 1} bytes")
    return raw + bytes(size - len(raw))


# --- match / match_x ------------------------------------------------------------------------------

def enc_match(m: dict) -> bytes:
    return struct.pack(">HHHxx", m["field_id"], m["offset"], m["length"])


def dec_match(b: bytes) -> dict:
    f, o, n = struct.unpack_from(">HHH", b)
    return {"field_id": f, "offset": o, "length": n}


def enc_match_x(m: dict) -> bytes:
    return enc_match(m) + _unhex(m["value"], 16, "value") + _unhex(m["mask"], 16, "mask")


def dec_match_x(b: bytes) -> dict:
    d = dec_match(b)
    d["value"] = _hex(b[8:24])
    d["mask"] = _hex(b[24:40])
    return d


def _match_or_u32(body: dict, by_field: bool, size: int = 8) -> bytes:
    return enc_match(body["field"]) if by_field else struct.pack(">I", body["value"]) + bytes(size - 4)


# --- actions (48-byte slots: type u16, len u16, data[44]) ----------------------------------------

def enc_action(a: dict) -> bytes:
    t = a["type"]
    if t == "OUTPUT":
        data = struct.pack(">BxHHH", a["port_type"], a["metadata_offset"], a["metadata_len"],
                           a["packet_offset"]) + _match_or_u32(a, a["port_type"] == 1)
    elif t == "SET_FIELD":
        data = enc_match_x(a["field"])
    elif t == "SET_FIELD_FROM_METADATA":
        data = enc_match(a["field"]) + struct.pack(">H6x", a["metadata_offset"])
    elif t == "MODIFY_FIELD":
        data = enc_match(a["field"]) + struct.pack(">i4x", a["increment"])
    elif t == "ADD_FIELD":
        data = struct.pack(">HHI", a["tag_id"], a["tag_pos"], a["tag_len"]) + _unhex(a["tag_value"], 16, "tag_value")
    elif t == "DELETE_FIELD":
        data = struct.pack(">HB5x", a["tag_pos"], a["len_type"]) + _match_or_u32(a, a["len_type"] == 1)
    elif t == "CALC_CHECKSUM":
        data = struct.pack(">BBHHHH6x", a["checksum_pos_type"], a["calc_pos_type"], a["checksum_pos"],
                           a["checksum_len"], a["calc_start"], a["calc_len"])
    elif t in ("GROUP", "DROP", "PACKET_IN", "COUNTER"):
        data = struct.pack(">I4x", a["value"])
    else:
        raise CodecError(f"unknown action {t!r}")
    length = a.get("len", 4 + len(data))
    return (struct.pack(">HH", ACTIONS[t], length) + data).ljust(ACTION_SIZE, b"\0")


def dec_action(b: bytes) -> dict:
    code, length = struct.unpack_from(">HH", b)
    if code not in ACTION_NAMES:
        raise CodecError(f"unknown action type {code}")
    t = ACTION_NAMES[code]
    d = b[4:]
    a: dict[str, Any] = {"type": t, "len": length}
    if t == "OUTPUT":
        a["port_type"], a["metadata_offset"], a["metadata_len"], a["packet_offset"] = struct.unpack_from(">BxHHH", d)
        if a["port_type"] == 1:
            a["field"] = dec_match(d[8:])
        else:
            a["value"] = struct.unpack_from(">I", d, 8)[0]
    elif t == "SET_FIELD":
        a["field"] = dec_match_x(d)
    elif t == "SET_FIELD_FROM_METADATA":
        a["field"] = dec_match(d)
        a["metadata_offset"] = struct.unpack_from(">H", d, 8)[0]
    elif t == "MODIFY_FIELD":
        a["field"] = dec_match(d)
        a["increment"] = struct.unpack_from(">i", d, 8)[0]
    elif t == "ADD_FIELD":
        a["tag_id"], a["tag_pos"], a["tag_len"] = struct.unpack_from(">HHI", d)
        a["tag_value"] = _hex(d[8:24])
    elif t == "DELETE_FIELD":
        a["tag_pos"], a["len_type"] = struct.unpack_from(">HB", d)
        if a["len_type"] == 1:
            a["field"] = dec_match(d[8:])
        else:
            a["value"] = struct.unpack_from(">I", d, 8)[0]
    elif t == "CALC_CHECKSUM":
        (a["checksum_pos_type"], a["calc_pos_type"], a["checksum_pos"], a["checksum_len"], a["calc_start"],
         a["calc_len"]) = struct.unpack_from(">BBHHHH", d)
    else:
        a["value"] = struct.unpack_from(">I", d)[0]
    return a


def _enc_actions(actions: list[dict]) -> bytes:
    if len(actions) > MAX_ACT:
        raise CodecError(f"{len(actions)} actions, at most {MAX_ACT}")
    return b"".join(enc_action(a) for a in actions).ljust(MAX_ACT * ACTION_SIZE, b"\0")


# --- instructions (304-byte slots: type u16, len u16, pad4, data[296]) ---------------------------

def enc_instruction(i: dict) -> bytes:
    t = i["type"]
    if t == "GOTO_TABLE":
        ms = i.get("matches", [])
        data = struct.pack(">BBH4x", i["next_table_id"], len(ms), i["packet_offset"])
        data += b"".join(enc_match(m) for m in ms).ljust(MAX_MATCH * MATCH_SIZE, b"\0")
    elif t == "WRITE_METADATA":
        data = struct.pack(">HH", i["metadata_offset"], i["length"]) + _unhex(i["value"], 16, "value") + bytes(4)
    elif t == "WRITE_METADATA_FROM_PACKET":
        data = struct.pack(">HHH2x", i["metadata_offset"], i["packet_offset"], i["length"])
    elif t == "APPLY_ACTIONS":
        data = struct.pack(">B7x", len(i["actions"])) + _enc_actions(i["actions"])
    elif t == "METER":
        data = struct.pack(">I4x", i["meter_id"])
    elif t == "GOTO_DIRECT_TABLE":
        data = struct.pack(">BBH4x", i["next_table_id"], i["index_type"], i["packet_offset"])
        data += _match_or_u32(i, i["index_type"] == 1)
    elif t == "CLEAR_ACTIONS":
        data = b""
    else:
        raise CodecError(f"unknown instruction {t!r}")
    length = i.get("len", 8 + len(data))
    return (struct.pack(">HH4x", INSTRUCTIONS[t], length) + data).ljust(INSTRUCTION_SIZE, b"\0")


def dec_instruction(b: bytes) -> dict:
    code, length = struct.unpack_from(">HH", b)
    if code not in INSTRUCTION_NAMES:
        raise CodecError(f"unknown instruction type {code}")
    t = INSTRUCTION_NAMES[code]
    d = b[8:]
    i: dict[str, Any] = {"type": t, "len": length}
    if t == "GOTO_TABLE":
        i["next_table_id"], n, i["packet_offset"] = struct.unpack_from(">BBH", d)
        if n > MAX_MATCH:
            raise CodecError(f"GOTO_TABLE with {n} matches")
        i["matches"] = [dec_match(d[8 + k * 8:]) for k in range(n)]
    elif t == "WRITE_METADATA":
        i["metadata_offset"], i["length"] = struct.unpack_from(">HH", d)
        i["value"] = _hex(d[4:20])
    elif t == "WRITE_METADATA_FROM_PACKET":
        i["metadata_offset"], i["packet_offset"], i["length"] = struct.unpack_from(">HHH", d)
    elif t == "APPLY_ACTIONS":
        n = d[0]
        if n > MAX_ACT:
            raise CodecError(f"APPLY_ACTIONS with {n} actions")
        i["actions"] = [dec_action(d[8 + k * ACTION_SIZE:]) for k in range(n)]
    elif t == "METER":
        i["meter_id"] = struct.unpack_from(">I", d)[0]
    elif t == "GOTO_DIRECT_TABLE":
        i["next_table_id"], i["index_type"], i["packet_offset"] = struct.unpack_from(">BBH", d)
        if i["index_type"] == 1:
            i["field"] = dec_match(d[8:])
        else:
            i["value"] = struct.unpack_from(">I", d, 8)[0]
    return i


# --- message bodies -------------------------------------------------------------------------------

def _port(p: dict) -> bytes:
    return (struct.pack(">HHI", p["slot_id"], p["port_id"], p["dev_id"]) + _unhex(p["hw_addr"], 6, "hw_addr")
            + bytes(2) + _str_bytes(p["name"], 64, "name")
            + struct.pack(">IIIIIIIIB7x", p["config"], p["state"], p["curr"], p["advertised"], p["supported"],
                          p["peer"], p["curr_speed"], p["max_speed"], p["of_enable"]))


def _dec_port(b: bytes) -> dict:
    slot, pid, dev = struct.unpack_from(">HHI", b)
    vals = struct.unpack_from(">IIIIIIIIB", b, 80)
    keys = ("config", "state", "curr", "advertised", "supported", "peer", "curr_speed", "max_speed", "of_enable")
    p = {"slot_id": slot, "port_id": pid, "dev_id": dev, "hw_addr": _hex(b[8:14]), "name": _cstr(b[16:80])}
    p.update(zip(keys, vals))
    return p


def _enc_body(t: str, m: dict) -> bytes:
    if t == "QUERYALL_REQUEST" and "slot_id" in m:
        return struct.pack(">H6x", m["slot_id"])
    if t in ("HELLO", "FEATURES_REQUEST", "GET_CONFIG_REQUEST", "QUERYALL_REQUEST", "QUERYALL_FIN",
             "BARRIER_REQUEST"):  # QUERYALL_REQUEST without slot_id: the bare header (spec/pof "Liberal acceptance")
        return b""
    if t in ("ECHO_REQUEST", "ECHO_REPLY"):
        return bytes.fromhex(m.get("data", ""))
    if t == "ERROR":
        return (struct.pack(">HHIH6x", m["type"], m["code"], m["dev_id"], m["slot_id"])
                + _str_bytes(m["string"], 256, "string"))
    if t == "FEATURES_REPLY":
        return (struct.pack(">IHHH2xI", m["dev_id"], m["slot_id"], m["port_num"], m["table_num"], m["capabilities"])
                + _str_bytes(m["vendor_id"], 64, "vendor_id") + _str_bytes(m["dev_fw_id"], 64, "dev_fw_id")
                + _str_bytes(m["dev_lkup_id"], 64, "dev_lkup_id"))
    if t == "SET_CONFIG" and "dev_id" not in m:  # OpenFlow 1.0's layout (spec/pof "Liberal acceptance")
        return struct.pack(">HH", m["flags"], m["miss_send_len"])
    if t in ("SET_CONFIG", "GET_CONFIG_REPLY"):
        return struct.pack(">IHH", m["dev_id"], m["flags"], m["miss_send_len"])
    if t == "GROUP_MOD":
        acts = m["actions"]
        if len(acts) > GROUP_MAX_ACT:
            raise CodecError(f"{len(acts)} group actions, at most {GROUP_MAX_ACT}")
        head = struct.pack(">BBBxIIH2x", m["command"], m["group_type"], len(acts), m["group_id"], m["counter_id"],
                           m["slot_id"])
        return head + b"".join(enc_action(a) for a in acts).ljust(GROUP_MAX_ACT * ACTION_SIZE, b"\0")
    if t == "RESOURCE_REPORT":
        out = struct.pack(">BxHIII", m["resource_type"], m["slot_id"], m["counter_num"], m["meter_num"],
                          m["group_num"])
        for d in m["tables"]:
            out += struct.pack(">IBBHI4x", d["dev_id"], d["type"], d["tbl_num"], d["key_len"], d["total_size"])
        return out
    if t in ("PORT_STATUS", "PORT_MOD"):
        return struct.pack(">B7x", m["reason"]) + _port(m["port"])
    if t == "PACKET_IN":
        data = bytes.fromhex(m["data"])
        return struct.pack(">IHBBQIHH", m["buffer_id"], len(data), m["reason"], m["table_id"], m["cookie"],
                           m["dev_id"], m["slot_id"], m["port_id"]) + data
    if t == "TABLE_MOD":
        ms = m["matches"]
        if len(ms) > MAX_MATCH:
            raise CodecError(f"{len(ms)} matches, at most {MAX_MATCH}")
        return (struct.pack(">BBBBIHH4x", m["command"], m["table_id"], m["table_type"], len(ms), m["size"],
                            m.get("key_len", sum(x["length"] for x in ms)), m["slot_id"])
                + _str_bytes(m["name"], 64, "name") + b"".join(enc_match(x) for x in ms).ljust(64, b"\0"))
    if t == "FLOW_MOD":
        ms, ins = m["matches"], m["instructions"]
        if len(ms) > MAX_MATCH or len(ins) > MAX_INS:
            raise CodecError("too many matches or instructions")
        return (struct.pack(">BBBxIQQBBHHHIH2x", m["command"], len(ms), len(ins), m["counter_id"], m["cookie"],
                            m["cookie_mask"], m["table_id"], m["table_type"], m["idle_timeout"], m["hard_timeout"],
                            m["priority"], m["index"], m["slot_id"])
                + b"".join(enc_match_x(x) for x in ms).ljust(MAX_MATCH * MATCH_X_SIZE, b"\0")
                + b"".join(enc_instruction(x) for x in ins).ljust(MAX_INS * INSTRUCTION_SIZE, b"\0"))
    if t == "METER_MOD":
        # WiSlice fields in the reference's pad bytes: flags (byte 1; LATENCY 1) and committed_rate (bytes 12-15);
        # absent = 0: a single-rate meter of no class
        return struct.pack(">BBHIII", m["command"], m.get("flags", 0), m["slot_id"], m["meter_id"], m["rate"],
                           m.get("committed_rate", 0))
    if t in ("COUNTER_MOD", "COUNTER_REQUEST", "COUNTER_REPLY"):
        return struct.pack(">BxHIQQ", m["command"], m["slot_id"], m["counter_id"], m["packets"], m["bytes"])
    if t == "PACKET_OUT":
        data = bytes.fromhex(m["data"])
        if len(data) > PACKET_MAX:
            raise CodecError("PACKET_OUT data longer than 2048")
        return (struct.pack(">IIB3xI", m["buffer_id"], m["in_port"], len(m["actions"]), len(data))
                + _enc_actions(m["actions"]) + data)
    if t in ("MULTIPART_REQUEST", "MULTIPART_REPLY"):
        return _enc_multipart(t, m)
    raise CodecError(f"no body codec for {t}")


def _dec_body(t: str, b: bytes) -> dict:
    def need(n: int) -> None:
        if len(b) < n:
            raise CodecError(f"{t}: body {len(b)} bytes, needs {n}")

    if t == "QUERYALL_REQUEST" and b:  # no body: every slot, as earlier controllers sent it ("Liberal acceptance")
        need(QUERYALL_SIZE)
        return {"slot_id": struct.unpack_from(">H", b)[0]}
    if t in ("HELLO", "FEATURES_REQUEST", "GET_CONFIG_REQUEST", "QUERYALL_REQUEST", "QUERYALL_FIN",
             "BARRIER_REQUEST"):
        return {}
    if t in ("ECHO_REQUEST", "ECHO_REPLY"):
        return {"data": _hex(b)}
    if t == "ERROR":
        need(272)
        ty, code, dev, slot = struct.unpack_from(">HHIH", b)
        return {"type": ty, "code": code, "dev_id": dev, "slot_id": slot, "string": _cstr(b[16:272])}
    if t == "FEATURES_REPLY":
        need(208)
        dev, slot, pn, tn, cap = struct.unpack_from(">IHHH2xI", b)
        return {"dev_id": dev, "slot_id": slot, "port_num": pn, "table_num": tn, "capabilities": cap,
                "vendor_id": _cstr(b[16:80]), "dev_fw_id": _cstr(b[80:144]), "dev_lkup_id": _cstr(b[144:208])}
    if t == "SET_CONFIG" and len(b) == 4:  # OpenFlow 1.0's layout, no dev_id (spec/pof "Liberal acceptance")
        flags, miss = struct.unpack_from(">HH", b)
        return {"flags": flags, "miss_send_len": miss}
    if t in ("SET_CONFIG", "GET_CONFIG_REPLY"):
        need(8)
        dev, flags, miss = struct.unpack_from(">IHH", b)
        return {"dev_id": dev, "flags": flags, "miss_send_len": miss}
    if t == "GROUP_MOD":
        need(GROUP_MOD_HEAD + GROUP_MAX_ACT * ACTION_SIZE)
        cmd, gtype, n, gid, counter, slot = struct.unpack_from(">BBBxIIH", b)
        if n > GROUP_MAX_ACT:
            raise CodecError(f"GROUP_MOD with {n} actions")
        return {"command": cmd, "group_type": gtype, "group_id": gid, "counter_id": counter, "slot_id": slot,
                "actions": [dec_action(b[GROUP_MOD_HEAD + ACTION_SIZE * k:]) for k in range(n)]}
    if t == "RESOURCE_REPORT":
        need(80)
        rt, slot, c, me, g = struct.unpack_from(">BxHIII", b)
        tables = []
        for k in range(4):
            dev, ty, n, kl, sz = struct.unpack_from(">IBBHI", b, 16 + 16 * k)
            tables.append({"dev_id": dev, "type": ty, "tbl_num": n, "key_len": kl, "total_size": sz})
        return {"resource_type": rt, "slot_id": slot, "counter_num": c, "meter_num": me, "group_num": g,
                "tables": tables}
    if t in ("PORT_STATUS", "PORT_MOD"):
        need(PORT_SIZE)
        return {"reason": b[0], "port": _dec_port(b[8:])}
    if t == "PACKET_IN":
        need(PACKET_IN_HEAD)
        buf, total, reason, tid, cookie, dev, slot, port = struct.unpack_from(">IHBBQIHH", b)
        need(PACKET_IN_HEAD + total)
        return {"buffer_id": buf, "reason": reason, "table_id": tid, "cookie": cookie, "dev_id": dev,
                "slot_id": slot, "port_id": port, "data": _hex(b[24:24 + total])}
    if t == "TABLE_MOD":
        need(TABLE_MOD_SIZE)
        cmd, tid, ty, n, size, kl, slot = struct.unpack_from(">BBBBIHH", b)
        if n > MAX_MATCH:
            raise CodecError(f"TABLE_MOD with {n} matches")
        return {"command": cmd, "table_id": tid, "table_type": ty, "size": size, "key_len": kl, "slot_id": slot,
                "name": _cstr(b[16:80]), "matches": [dec_match(b[80 + 8 * k:]) for k in range(n)]}
    if t == "FLOW_MOD":
        need(FLOW_MOD_SIZE)
        (cmd, nm, ni, counter, cookie, cmask, tid, ttype, idle, hard, prio, index,
         slot) = struct.unpack_from(">BBBxIQQBBHHHIH", b)
        if nm > MAX_MATCH or ni > MAX_INS:
            raise CodecError("FLOW_MOD with too many matches or instructions")
        return {"command": cmd, "counter_id": counter, "cookie": cookie, "cookie_mask": cmask, "table_id": tid,
                "table_type": ttype, "idle_timeout": idle, "hard_timeout": hard, "priority": prio,
                "index": index, "slot_id": slot,
                "matches": [dec_match_x(b[40 + 40 * k:]) for k in range(nm)],
                "instructions": [dec_instruction(b[360 + INSTRUCTION_SIZE * k:]) for k in range(ni)]}
    if t == "METER_MOD":
        need(16)
        cmd, flags, slot, mid, rate, committed = struct.unpack_from(">BBHIII", b)
        return {"command": cmd, "flags": flags, "slot_id": slot, "meter_id": mid, "rate": rate,
                "committed_rate": committed}
    if t in ("COUNTER_MOD", "COUNTER_REQUEST", "COUNTER_REPLY"):
        need(24)
        cmd, slot, cid, pk, by = struct.unpack_from(">BxHIQQ", b)
        return {"command": cmd, "slot_id": slot, "counter_id": cid, "packets": pk, "bytes": by}
    if t == "PACKET_OUT":
        need(PACKET_OUT_HEAD)
        buf, port, n, plen = struct.unpack_from(">IIB3xI", b)
        if n > MAX_ACT or plen > PACKET_MAX:
            raise CodecError("PACKET_OUT with too many actions or too much data")
        need(PACKET_OUT_HEAD + plen)
        return {"buffer_id": buf, "in_port": port,
                "actions": [dec_action(b[16 + ACTION_SIZE * k:]) for k in range(n)],
                "data": _hex(b[PACKET_OUT_HEAD:PACKET_OUT_HEAD + plen])}
    if t in ("MULTIPART_REQUEST", "MULTIPART_REPLY"):
        need(MULTIPART_REQUEST_SIZE if t == "MULTIPART_REQUEST" else MULTIPART_HEAD)
        return _dec_multipart(t, b)
    return {"raw": _hex(b)}


def encode(msg: dict) -> bytes:
    """Encode {"type", "xid", "body"} into one wire message (header + body)."""
    t = msg["type"]
    if t not in TYPES:
        raise CodecError(f"unknown message type {t!r}")
    body = _enc_body(t, msg.get("body", {}))
    return HEADER.pack(VERSION, TYPES[t], HEADER.size + len(body), msg.get("xid", 0)) + body


def decode(raw: bytes) -> dict:
    """Decode one whole wire message; raises CodecError with the reason if it is malformed."""
    if len(raw) < HEADER.size:
        raise CodecError("shorter than the 8-byte header")
    version, code, length, xid = HEADER.unpack_from(raw)
    if length != len(raw):
        raise CodecError(f"header length {length} but {len(raw)} bytes")
    t = TYPE_NAMES.get(code, f"TYPE_{code}")
    return {"type": t, "xid": xid, "version": version, "body": _dec_body(t, raw[HEADER.size:])}


def split_stream(buf: bytearray) -> list[bytes]:
    """Pop every complete message from a receive buffer (TCP framing by the header's length)."""
    out = []
    while len(buf) >= HEADER.size:
        length = struct.unpack_from(">H", buf, 2)[0]
        if length < HEADER.size:
            raise CodecError(f"bad length {length} in stream")
        if len(buf) < length:
            break
        out.append(bytes(buf[:length]))
        del buf[:length]
    return out
