"""The MULTIPART bodies of the POF wire codec (pofwire.py): the WiSlice extensions PORT_STATS (OpenFlow 1.3's
multipart head and ofp_port_stats) and PORT_LATENCY (spec/pof, "Port statistics" and "Port latency")."""

from __future__ import annotations

import struct


class CodecError(ValueError):
    """A message that cannot be encoded or decoded; the text says which field."""


# MULTIPART (WiSlice extension): OpenFlow 1.3's multipart head and ofp_port_stats, PORT_STATS only.
MULTIPART_TYPES = {"PORT_STATS": 4, "PORT_LATENCY": 0xF001}
# PORT_LATENCY entry: port_no, pad, then per class (latency, other) packets u64, p50/p99/max ns u32, pad.
PORT_LATENCY_SIZE = 56
LATENCY_CLASSES = ("latency", "other")
MULTIPART_REQUEST_SIZE, MULTIPART_HEAD, PORT_STATS_SIZE, PORT_STATS_MAX = 16, 8, 112, 584
REPLY_MORE = 1
PORT_ALL = 0xFFFFFFFF
PORT_STATS_COUNTERS = ("rx_packets", "tx_packets", "rx_bytes", "tx_bytes", "rx_dropped", "tx_dropped", "rx_errors",
                       "tx_errors", "rx_frame_err", "rx_over_err", "rx_crc_err", "collisions")
PORT_STATS = struct.Struct(">I4x12QII")


def _enc_port_stats(e: dict) -> bytes:
    return PORT_STATS.pack(e["port_no"], *(e[k] for k in PORT_STATS_COUNTERS), e["duration_sec"], e["duration_nsec"])


def _dec_port_stats(b: bytes, at: int) -> dict:
    vals = PORT_STATS.unpack_from(b, at)
    return {"port_no": vals[0], **dict(zip(PORT_STATS_COUNTERS, vals[1:13])), "duration_sec": vals[13],
            "duration_nsec": vals[14]}


def _enc_port_latency(e: dict) -> bytes:
    return struct.pack(">I4x", e["port_no"]) + b"".join(
        struct.pack(">QIII4x", c["packets"], c["p50_ns"], c["p99_ns"], c["max_ns"])
        for c in (e[k] for k in LATENCY_CLASSES))


def _dec_port_latency(b: bytes, at: int) -> dict:
    out: dict = {"port_no": struct.unpack_from(">I", b, at)[0]}
    for i, k in enumerate(LATENCY_CLASSES):
        packets, p50, p99, mx = struct.unpack_from(">QIII", b, at + 8 + 24 * i)
        out[k] = {"packets": packets, "p50_ns": p50, "p99_ns": p99, "max_ns": mx}
    return out


def _enc_multipart(t: str, m: dict) -> bytes:
    head = struct.pack(">HH4x", m["mp_type"], m["flags"])
    if t == "MULTIPART_REQUEST":
        return head + struct.pack(">I4x", m["port_no"])
    if m["mp_type"] == MULTIPART_TYPES["PORT_LATENCY"]:
        return head + b"".join(_enc_port_latency(e) for e in m["ports"])
    stats = m["stats"]
    if len(stats) > PORT_STATS_MAX:
        raise CodecError(f"{len(stats)} port stats entries, at most {PORT_STATS_MAX} per reply")
    return head + b"".join(_enc_port_stats(e) for e in stats)


def _dec_multipart(t: str, b: bytes) -> dict:
    mp_type, flags = struct.unpack_from(">HH", b)
    if mp_type not in MULTIPART_TYPES.values():
        raise CodecError(f"{t}: multipart type {mp_type}, only PORT_STATS (4) or PORT_LATENCY (0xF001)")
    lat = mp_type == MULTIPART_TYPES["PORT_LATENCY"]
    size = PORT_LATENCY_SIZE if lat else PORT_STATS_SIZE
    if t == "MULTIPART_REPLY" and (len(b) - MULTIPART_HEAD) % size:
        raise CodecError(f"MULTIPART_REPLY body {len(b)} bytes: not whole {size}-byte entries")
    if t == "MULTIPART_REQUEST":
        return {"mp_type": mp_type, "flags": flags, "port_no": struct.unpack_from(">I", b, 8)[0]}
    if lat:
        return {"mp_type": mp_type, "flags": flags,
                "ports": [_dec_port_latency(b, at) for at in range(MULTIPART_HEAD, len(b), size)]}
    return {"mp_type": mp_type, "flags": flags,
            "stats": [_dec_port_stats(b, at) for at in range(MULTIPART_HEAD, len(b), PORT_STATS_SIZE)]}
