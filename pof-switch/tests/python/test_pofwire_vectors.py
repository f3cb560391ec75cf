"""The Python test codec against the checked-in spec/pof vectors (the same files the C and Java codecs read)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import pofwire  # noqa: E402

VECTORS = Path(__file__).resolve().parents[3] / "spec" / "pof" / "vectors"
VALID = sorted(VECTORS.glob("*.json"))
INVALID = sorted((VECTORS / "invalid").glob("*.json"))
REFUSED = sorted((VECTORS / "refused").glob("*.json"))
LIBERAL = sorted((VECTORS / "liberal").glob("*.json"))
UNSUPPORTED = sorted((VECTORS / "unsupported").glob("*.json"))


def test_vectors_exist() -> None:
    assert len(VALID) >= 20 and len(INVALID) >= 4 and len(REFUSED) >= 2
    assert len(LIBERAL) >= 1 and len(UNSUPPORTED) >= 2


@pytest.mark.parametrize("path", LIBERAL, ids=lambda p: p.stem)
def test_liberal_vectors_decode(path: Path) -> None:
    """Forms the switch accepts though WiSlice's senders never use them; this codec also keeps their form."""
    doc = json.loads(path.read_text())
    assert pofwire.decode(bytes.fromhex(doc["hex"])) == doc["message"]
    assert pofwire.encode(doc["message"]).hex() == doc["hex"]


def test_of10_set_config_has_no_dev_id() -> None:
    doc = json.loads((VECTORS / "liberal" / "set_config_of10.json").read_text())
    assert len(bytes.fromhex(doc["hex"])) == 12 and "dev_id" not in doc["message"]["body"]


@pytest.mark.parametrize("path", UNSUPPORTED, ids=lambda p: p.stem)
def test_unsupported_vectors_are_well_formed(path: Path) -> None:
    """GROUP_MOD: carried both ways, answered GROUP_MOD_FAILED (6) / INVALID_GROUP (1) or BAD_COMMAND (11)."""
    doc = json.loads(path.read_text())
    msg = pofwire.decode(bytes.fromhex(doc["hex"]))
    assert msg == doc["message"] and pofwire.encode(msg).hex() == doc["hex"]
    assert doc["error"]["type"] == 6
    assert doc["error"]["code"] == (1 if msg["body"]["command"] <= 2 else 11)


@pytest.mark.parametrize("path", REFUSED, ids=lambda p: p.stem)
def test_refused_vectors_are_well_formed(path: Path) -> None:
    """Refused = the switch answers ERROR when applying it; the codec decodes and encodes it as any other."""
    doc = json.loads(path.read_text())
    assert pofwire.decode(bytes.fromhex(doc["hex"])) == doc["message"]
    assert pofwire.encode(doc["message"]).hex() == doc["hex"]
    body = doc["message"]["body"]
    if doc["message"]["type"] == "QUERYALL_REQUEST":  # a slot pof-switch does not have (it has slot 0)
        assert body["slot_id"] not in (0, pofwire.ALL_SLOTS)
        assert (doc["error"]["type"], doc["error"]["code"]) == (pofwire.SOFTWARE_FAILED, pofwire.INVALID_SLOT_ID)
        return
    assert doc["error"]["type"] == 12  # METER_MOD_FAILED
    # BAD_FLAGS for a flag the switch does not know, else BAD_RATE
    assert doc["error"]["code"] == (5 if body["flags"] & ~1 else 6)


def test_queryall_request_forms() -> None:
    """The reference's 8-byte body (slot_id, pad[6]); the bare header of earlier controllers; 1-7 bytes neither."""
    raw = pofwire.encode({"type": "QUERYALL_REQUEST", "xid": 5, "body": {"slot_id": pofwire.ALL_SLOTS}})
    assert raw.hex() == "0422001000000005ffff000000000000"
    assert pofwire.decode(raw)["body"] == {"slot_id": 0xFFFF}
    empty = json.loads((VECTORS / "liberal" / "queryall_request_empty.json").read_text())
    assert len(bytes.fromhex(empty["hex"])) == 8 and empty["message"]["body"] == {}
    with pytest.raises(pofwire.CodecError):
        pofwire.decode(raw[:2] + (12).to_bytes(2, "big") + raw[4:12])


def test_meter_mod_committed_rate_is_in_the_pad_bytes() -> None:
    """committed_rate at body offset 12; a reference controller's message (zeros there, or no field) is 0."""
    doc = json.loads((VECTORS / "meter_mod_two_rate.json").read_text())
    body = bytes.fromhex(doc["hex"])[8:]
    assert int.from_bytes(body[8:12], "big") == 20000 and int.from_bytes(body[12:16], "big") == 8000
    legacy = {"type": "METER_MOD", "body": {"command": 0, "slot_id": 0, "meter_id": 1, "rate": 10000}}
    assert pofwire.decode(pofwire.encode(legacy))["body"]["committed_rate"] == 0


def test_meter_mod_latency_flag_is_pad_byte_1() -> None:
    """The latency flag is body byte 1 (the reference's pad after command); no flags field at all is 0."""
    doc = json.loads((VECTORS / "meter_mod_latency.json").read_text())
    body = bytes.fromhex(doc["hex"])[8:]
    assert body[1] == 1 and doc["message"]["body"]["flags"] == 1
    assert int.from_bytes(body[8:12], "big") == doc["message"]["body"]["rate"] == 2000
    legacy = {"type": "METER_MOD", "body": {"command": 0, "slot_id": 0, "meter_id": 1, "rate": 10000}}
    assert pofwire.decode(pofwire.encode(legacy))["body"]["flags"] == 0


@pytest.mark.parametrize("path", VALID, ids=lambda p: p.stem)
def test_decode_gives_the_listed_fields(path: Path) -> None:
    doc = json.loads(path.read_text())
    assert pofwire.decode(bytes.fromhex(doc["hex"])) == doc["message"]


@pytest.mark.parametrize("path", VALID, ids=lambda p: p.stem)
def test_encode_gives_the_listed_bytes(path: Path) -> None:
    doc = json.loads(path.read_text())
    assert pofwire.encode(doc["message"]).hex() == doc["hex"]


def test_fixed_sizes_match_the_reference() -> None:
    sizes = {"flow_mod_goto": 8 + 2184, "table_mod_mm": 8 + 144, "port_status_add": 8 + 128,
             "features_reply": 8 + 208, "resource_report": 8 + 80, "error_bad_type": 8 + 272,
             "meter_mod_add": 8 + 16, "meter_mod_two_rate": 8 + 16, "meter_mod_latency": 8 + 16, "counter_reply": 8 + 24, "hello": 8,
             "multipart_request_port_stats": 8 + 16, "multipart_reply_port_stats": 8 + 8 + 2 * 112}
    for name, size in sizes.items():
        assert len(json.loads((VECTORS / f"{name}.json").read_text())["hex"]) // 2 == size, name


def test_malformed_input_raises_codec_error() -> None:
    with pytest.raises(pofwire.CodecError):
        pofwire.decode(bytes.fromhex("040f0010000000630000000000000000"))
    with pytest.raises(pofwire.CodecError):
        pofwire.decode(b"\x04\x00")
    with pytest.raises(pofwire.CodecError):
        pofwire.encode({"type": "NOPE"})


def test_split_stream_frames_by_length() -> None:
    hello = pofwire.encode({"type": "HELLO"})
    buf = bytearray(hello + hello[:5])
    assert pofwire.split_stream(buf) == [hello]
    assert bytes(buf) == hello[:5]


@pytest.mark.parametrize("name", ["multipart_bad_type", "multipart_short_body"])
def test_malformed_multipart_vectors_raise(name: str) -> None:
    doc = json.loads((VECTORS / "invalid" / f"{name}.json").read_text())
    with pytest.raises(pofwire.CodecError):
        pofwire.decode(bytes.fromhex(doc["hex"]))


def _entry(port_no: int) -> dict:
    return {"port_no": port_no, **dict.fromkeys(pofwire.PORT_STATS_COUNTERS, 2**64 - 1),
            "duration_sec": 2**32 - 1, "duration_nsec": 999999999}


def test_port_stats_reply_holds_at_most_584_entries() -> None:
    full = {"type": "MULTIPART_REPLY", "xid": 1,
            "body": {"mp_type": 4, "flags": pofwire.REPLY_MORE, "stats": [_entry(i) for i in range(584)]}}
    raw = pofwire.encode(full)
    assert len(raw) == 8 + 8 + 584 * 112 <= 0xFFFF
    assert pofwire.decode(raw)["body"] == full["body"]
    with pytest.raises(pofwire.CodecError):
        pofwire.encode({**full, "body": {**full["body"], "stats": [_entry(i) for i in range(585)]}})
    with pytest.raises(pofwire.CodecError):  # a partial entry
        pofwire.decode(raw[:2] + (len(raw) - 1).to_bytes(2, "big") + raw[4:-1])


PORT_LATENCY = sorted((VECTORS / "port_latency").glob("multipart_*.json"))


@pytest.mark.parametrize("path", PORT_LATENCY, ids=lambda p: p.stem)
def test_port_latency_vectors(path: Path) -> None:
    """PORT_LATENCY (0xF001, WiSlice): decodes to its message and encodes to its hex; a cut entry is refused."""
    doc = json.loads(path.read_text())
    assert pofwire.decode(bytes.fromhex(doc["hex"])) == doc["message"]
    assert pofwire.encode(doc["message"]).hex() == doc["hex"]


def test_port_latency_short_entry_is_refused() -> None:
    doc = json.loads((VECTORS / "port_latency" / "invalid_reply_short_entry.json").read_text())
    with pytest.raises(pofwire.CodecError):
        pofwire.decode(bytes.fromhex(doc["hex"]))
    assert len(PORT_LATENCY) == 3
