"""Seed corpora for the fuzz targets, from the spec/pof vectors. Run once; the output is checked in."""

from __future__ import annotations

import json
import socket
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
VECTORS = HERE.parents[2] / "spec" / "pof" / "vectors"
sys.path.insert(0, str(HERE.parent))
import pofwire  # noqa: E402


def lpm_script() -> bytes:
    """MM 0 sends everything to LPM 0 on the IPv4 destination: routes /0 to /32, one mask that is no prefix,
    a modify and a delete, then packets."""
    def body(t: str, b: dict) -> bytes:
        return pofwire.encode({"type": t, "body": b})[8:]

    def match_x(field: dict, value: bytes, mask: bytes) -> dict:
        return dict(field, value=value.hex().ljust(32, "0"), mask=mask.hex().ljust(32, "0"))

    def output(port: int) -> dict:
        return {"type": "APPLY_ACTIONS", "actions": [{"type": "OUTPUT", "port_type": 0, "metadata_offset": 0,
                                                      "metadata_len": 0, "packet_offset": 0, "value": port}]}

    def flow(command: int, ttype: int, index: int, prio: int, matches: list, ins: list) -> bytes:
        return b"F" + body("FLOW_MOD", {"command": command, "counter_id": 0, "cookie": 0, "cookie_mask": 0,
                                        "table_id": 0, "table_type": ttype, "idle_timeout": 0, "hard_timeout": 0,
                                        "priority": prio, "index": index, "slot_id": 0, "matches": matches,
                                        "instructions": ins})

    first = {"field_id": 0, "offset": 0, "length": 8}
    dst = {"field_id": 5, "offset": 240, "length": 32}
    out = b""
    for ttype, m in ((0, first), (1, dst)):
        out += b"T" + body("TABLE_MOD", {"command": 0, "table_id": 0, "table_type": ttype, "size": 63,
                                         "slot_id": 0, "name": "lpm", "matches": [m]})
    out += flow(0, 0, 0, 0, [match_x(first, b"", b"")],
                [{"type": "GOTO_TABLE", "next_table_id": 10, "packet_offset": 0, "matches": []}])
    routes = [(b"", b"", 2), (b"\x0a", b"\xff", 3), (b"\x0a\x00\x00", b"\xff\xff\xff", 4),
              (b"\x0a\x00\x00\x02", b"\xff" * 4, 5), (b"\x0a\x01", b"\xff\xff", 6),
              (b"\x0a\x00\x00\x01", b"\xff\x00\xff\xff", 7)]
    for i, (v, mk, port) in enumerate(routes):
        out += flow(0, 1, i, i % 2, [match_x(dst, v, mk)], [output(port)])
    out += flow(1, 1, 1, 0, [match_x(dst, b"\x0a", b"\xff\xff")], [output(8)])   # modify /8 into /16
    out += flow(3, 1, 3, 0, [match_x(dst, b"", b"")], [])                          # delete the /32
    return out


def main() -> None:
    dec = HERE / "corpus" / "fuzz_decode"
    pipe = HERE / "corpus" / "fuzz_pipeline"
    dec.mkdir(parents=True, exist_ok=True)
    pipe.mkdir(parents=True, exist_ok=True)
    raw = {}
    for p in (sorted(VECTORS.glob("*.json")) + sorted((VECTORS / "invalid").glob("*.json"))
              + sorted((VECTORS / "refused").glob("*.json")) + sorted((VECTORS / "liberal").glob("*.json"))
              + sorted((VECTORS / "unsupported").glob("*.json"))
              + sorted((VECTORS / "port_latency").glob("*.json"))):
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
    # The same pipeline through a two-rate meter (meter 1: committed 8 of 20 Mbit/s), packets enough to colour
    # green, yellow and red.
    two_rate = raw["meter_mod_two_rate"][8:]
    two_rate = two_rate[:4] + (1).to_bytes(4, "big") + two_rate[8:]
    script2 = script.replace(b"M" + raw["meter_mod_add"][8:], b"M" + two_rate)
    pkt = b"P" + bytes([0]) + len(frame).to_bytes(2, "big") + frame
    (pipe / "two_rate_meter").write_bytes(script2 + pkt * 8)
    # The same through a latency-class meter (meter 1, cap 2 Mbit/s): latency colour, then red beyond the cap.
    latency = raw["meter_mod_latency"][8:]
    latency = latency[:4] + (1).to_bytes(4, "big") + latency[8:]
    script3 = script.replace(b"M" + raw["meter_mod_add"][8:], b"M" + latency)
    (pipe / "latency_meter").write_bytes(script3 + pkt * 80)
    pkts = b""
    for dst in ("10.0.0.2", "10.0.0.1", "10.0.1.1", "10.1.2.3", "11.0.0.1"):
        f = frame[:30] + socket.inet_aton(dst) + frame[34:]
        pkts += b"P" + bytes([0]) + len(f).to_bytes(2, "big") + f
    (pipe / "lpm_routes").write_bytes(lpm_script() + pkts + b"P\0\0\x21" + frame[:33])
    # A controller session resetting the core (--reset-on-connect) between two runs of the same program.
    (pipe / "reset_between_sessions").write_bytes(script + pkt + b"R" + pkt + script + pkt)
    print(f"wrote {len(raw)} decode seeds and 6 pipeline seeds")
    print(f"wrote {mgmt_seeds(HERE / 'corpus' / 'fuzz_mgmt')} management seeds")


def mgmt_seeds(out: Path) -> int:
    """fuzz_mgmt: each spec/switch-mgmt vector's lines as one script, and a probe session on port a whose request
    (sent out of b) is answered by a reply received on b, with an ARP request for the probe's address, and one with
    DST_MAC auto whose ARP request is answered the same way."""
    out.mkdir(parents=True, exist_ok=True)
    for p in sorted((HERE.parents[2] / "spec" / "switch-mgmt" / "vectors").glob("*.json")):
        (out / p.stem).write_bytes(b"".join(s["send"].encode() + b"\n" for s in json.loads(p.read_text())["steps"]))
    probe_mac, far_mac = bytes.fromhex("020000000065"), bytes.fromhex("0a0000000002")
    probe_ip, far_ip = socket.inet_aton("10.9.0.101"), socket.inet_aton("10.9.0.2")
    icmp = bytes([0, 0, 0, 0, 0, 7, 0, 0]) + bytes(64)  # echo reply, id 7, sequence 0 (checksums are not read)
    ip = bytes([0x45, 0]) + (20 + len(icmp)).to_bytes(2, "big") + bytes([0, 0, 0x40, 0, 64, 1, 0, 0]) + far_ip + probe_ip
    reply = probe_mac + far_mac + b"\x08\x00" + ip + icmp
    arp = (b"\xff" * 6 + far_mac + b"\x08\x06" + bytes([0, 1, 8, 0, 6, 4, 0, 1]) + far_mac + far_ip + bytes(6)
           + probe_ip + bytes(18))

    def frame(f: bytes) -> bytes:
        return b"\x01" + len(f).to_bytes(2, "big") + f

    start = b"probe-start a 7 02:00:00:00:00:65 0a:00:00:00:00:02 10.9.0.101 10.9.0.2 size=64 count=3\n"
    (out / "probe_round_trip").write_bytes(start + frame(reply) + frame(arp) + b"probe-stats a 7\n" + frame(reply)
                                           + b"probe-stop a 7\nprobe-stats a 7\n" + start + b"port-del a\n")
    answer = (probe_mac + far_mac + b"\x08\x06" + bytes([0, 1, 8, 0, 6, 4, 0, 2]) + far_mac + far_ip + probe_mac
              + probe_ip + bytes(18))
    auto = b"probe-start a 7 02:00:00:00:00:65 auto 10.9.0.101 10.9.0.2 count=3\n"
    (out / "probe_auto").write_bytes(auto + b"probe-stats a 7\n" + frame(answer) + frame(reply) + frame(answer)
                                     + b"probe-stats a 7\nport-del a\n")
    return len(list(out.iterdir()))


if __name__ == "__main__":
    main()
