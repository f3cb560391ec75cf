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


def test_vectors_exist() -> None:
    assert len(VALID) >= 20 and len(INVALID) >= 4


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
             "meter_mod_add": 8 + 16, "counter_reply": 8 + 24, "hello": 8}
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
