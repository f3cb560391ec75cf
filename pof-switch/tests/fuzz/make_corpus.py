"""Seed corpora for the fuzz targets, from the spec/pof vectors. Run once; the output is checked in."""

from __future__ import annotations

import json
import socket
from pathlib import Path

HERE = Path(__file__).resolve().parent
VECTORS = HERE.parents[2] / "spec" / "pof" / "vectors"


def main() -> None:
    dec = HERE / "corpus" / "fuzz_decode"
    pipe = HERE / "corpus" / "fuzz_pipeline"
    dec.mkdir(parents=True, exist_ok=True)
    pipe.mkdir(parents=True, exist_ok=True)
    raw = {}
    for p in sorted(VECTORS.glob("*.json")) + sorted((VECTORS / "invalid").glob("*.json")):
        raw[p.stem] = bytes.fromhex(json.loads(p.read_text())["hex"])
        (dec / p.stem).write_bytes(raw[p.stem])
    frame = (bytes.fromhex("020000000002020000000001080045000032000100004011") + bytes(2)
             + socket.inet_aton("10.0.0.1") + socket.inet_aton("10.0.0.2") + bytes(22))
    script = (b"T" + raw["table_mod_mm"][8:] + b"T" + raw["table_mod_em"][8:] + b"M" + raw["meter_mod_add"][8:]
              + b"F" + raw["flow_mod_goto"][8:] + b"F" + raw["flow_mod_meter_output"][8:]
              + b"F" + raw["flow_mod_fields"][8:])
    for room in (0, 64):
        pkt = b"P" + bytes([room]) + len(frame).to_bytes(2, "big") + frame
        (pipe / f"two_tables_room{room}").write_bytes(script + pkt + pkt[:20])
    print(f"wrote {len(raw)} decode seeds and 2 pipeline seeds")


if __name__ == "__main__":
    main()
