"""The real pofswitch (AF_PACKET) against a hostile controller (issue #13, pof-switch/README.md "Hostile input"):
oversized lengths, truncated messages, garbage, messages out of handshake order, a slow sender and floods. The
test controller takes the switch's connection (it dials whoever listens on its controller address), misbehaves,
and then a well-behaved session must work: handshake, ECHO, port statistics, and pings forwarded by the flows
installed before the abuse (the switch keeps its state over sessions). The switch runs with
--controller-timeout 2, so a stalled handshake or a silent controller costs seconds, not the default 15."""

from __future__ import annotations

import random
import socket
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from conftest import Host, Switch, pofswitch_afp, start_switch
from pofctl import ETH_TYPE, Controller, mx, output
from test_interop import MM, ping, program_flood, read_to_eof

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import abuse_tally  # noqa: E402
import pofwire  # noqa: E402

pytestmark = pytest.mark.integration

TIMEOUT_S = 2  # --controller-timeout
# What the switch may grow by: its controller buffers (128 KiB in, 4 MiB out) and the management socket's eight
# client slots (~400 KiB) are the only buffers a peer can fill; the rest is allocator slack. (Measured: 19.5 MiB
# at start, 23.7 MiB after a controller that never reads filled the output buffer.)
RSS_SLACK_KIB = 8 * 1024


def header(mtype: int, length: int, xid: int = 7) -> bytes:
    return pofwire.HEADER.pack(pofwire.VERSION, mtype, length, xid)


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError(f"no VmRSS for {pid}")


def sanitized(pid: int) -> bool:
    """ASan keeps freed memory in quarantine (up to 256 MiB): its RSS says nothing about the switch's bounds."""
    return "libasan" in Path(f"/proc/{pid}/maps").read_text()


@dataclass
class Bench:
    """One switch with the flood program, its test controller and hosts, and the RSS it started with."""
    sw: Switch
    c: Controller
    hosts: list[Host]
    rss0: int

    def hostile(self) -> socket.socket:
        """Ends the current session and takes the switch's next connection; the switch's HELLO is read."""
        self.c.accept(timeout=15)
        self.c.recv("HELLO")
        assert self.c.conn is not None
        return self.c.conn

    def hostile_ready(self) -> socket.socket:
        """Takes the next connection through a complete handshake (the abuse comes after it)."""
        self.c.accept(timeout=15)
        self.c.handshake()
        assert self.c.conn is not None
        return self.c.conn

    def serving(self) -> None:
        """A well-behaved session works and packets are forwarded; the switch lives and its memory is bounded."""
        assert self.sw.proc.poll() is None, "the switch died"
        self.c.accept(timeout=15)
        ports = self.c.handshake()
        assert sorted(ports) == ["s1", "s2", "s3"]
        self.c.echo()
        _, stats = self.c.port_stats()
        assert len(stats) == 3
        h1, h2, _ = self.hosts
        assert ping(h1, h2.ip), "the switch no longer forwards"
        assert "flows=2 " in self.sw.mgmt_cmd("stats"), "the flows changed"
        self.memory_bounded()

    def memory_bounded(self) -> None:
        pid = self.sw.proc.pid
        if not sanitized(pid):
            rss = rss_kib(pid)
            print(f"switch RSS {rss} KiB (started at {self.rss0} KiB)")
            assert rss < self.rss0 + RSS_SLACK_KIB, f"RSS {rss} KiB after starting at {self.rss0} KiB"


@pytest.fixture
def bench(processes: Any, controller: Controller, hosts: list[Host], tmp_path: Path) -> Bench:
    sw = start_switch(processes, controller, hosts, tmp_path, pofswitch_afp(),
                      extra_args=("--controller-timeout", str(TIMEOUT_S)))
    program_flood(controller)
    assert ping(hosts[0], hosts[1].ip)
    return Bench(sw, controller, hosts, rss_kib(sw.proc.pid))


def test_oversized_length_stalls_nothing(bench: Bench) -> None:
    """A header announcing 65535 bytes of which few come: in the handshake the deadline ends it, in a session
    the switch asks for an ECHO and then drops the silent controller. A whole 65535-byte message of an unknown
    type is answered with ERROR and the session goes on."""
    conn = bench.hostile()
    conn.sendall(header(0, 8) + header(15, 0xFFFF) + bytes(100))
    start = time.monotonic()
    read_to_eof(conn, timeout=TIMEOUT_S + 3)
    assert time.monotonic() - start < TIMEOUT_S + 2
    bench.serving()

    conn = bench.hostile_ready()
    conn.sendall(header(15, 0xFFFF) + bytes(1000))
    stream = bytearray(bench.c.buf) + read_to_eof(conn, timeout=TIMEOUT_S + 3)
    said = [pofwire.decode(m)["type"] for m in pofwire.split_stream(stream)]
    assert "ECHO_REQUEST" in said, said
    bench.serving()

    bench.c.conn.sendall(header(200, 0xFFFF) + bytes(0xFFFF - 8))
    e = bench.c.recv("ERROR", where=lambda m: m["xid"] == 7)["body"]
    assert (e["type"], e["code"]) == (1, 1)  # BAD_REQUEST / BAD_TYPE
    bench.c.echo()
    abuse_tally.record(3)


def test_truncated_messages_then_close(bench: Bench) -> None:
    conn = bench.hostile()
    conn.sendall(header(0, 8) + header(5, 8)[:5])  # HELLO, then 5 bytes of FEATURES_REQUEST
    conn.close()
    bench.serving()
    conn = bench.hostile_ready()
    flow = pofwire.encode({"type": "FLOW_MOD", "xid": 9, "body": {
        "command": 0, "counter_id": 0, "cookie": 0, "cookie_mask": 0, "table_id": 0, "table_type": MM,
        "idle_timeout": 0, "hard_timeout": 0, "priority": 0, "index": 7, "slot_id": 0,
        "matches": [mx(ETH_TYPE, b"\x86\xdd")], "instructions": [
            {"type": "APPLY_ACTIONS", "actions": [output(255)]}]}})
    conn.sendall(flow[: len(flow) // 2])
    conn.close()
    bench.serving()  # and the half FLOW_MOD was not applied: still 2 flows
    abuse_tally.record(2)


def structured_garbage(rng: random.Random, n: int) -> list[bytes]:
    """Messages with sane framing and random types and bodies: each is decoded and refused (or answered), never
    a reason to close. PORT_MOD and PACKET_OUT are left out: one could, by chance, disable a port or send a
    frame, which would be the controller's right, not abuse."""
    types = [t for t in range(256) if t not in (14, 17)]
    out = []
    for i in range(n):
        body = rng.randbytes(rng.choice((0, 4, 16, 24, 128, 272, 2176, rng.randrange(0, 3000))))
        out.append(header(rng.choice(types), 8 + len(body), xid=0x10000 + i) + body)
    return out


def test_garbage(bench: Bench) -> None:
    rng = random.Random(13)
    conn = bench.hostile()
    conn.sendall(header(0, 8) + rng.randbytes(64 * 1024))
    time.sleep(0.3)
    conn.close()
    bench.serving()

    conn = bench.hostile_ready()
    messages = structured_garbage(rng, 3000)
    conn.sendall(b"".join(messages))
    bench.c.echo()  # the same session still answers, after every one of them
    bench.c.pending.clear()
    assert bench.sw.proc.poll() is None
    conn.sendall(rng.randbytes(64 * 1024))  # and raw bytes in a session
    time.sleep(0.3)
    bench.serving()
    abuse_tally.record(2 + len(messages))


def test_out_of_handshake_order(bench: Bench) -> None:
    """A FLOW_MOD between HELLO and FEATURES_REQUEST closes the connection (as the reference does) and is not
    applied."""
    conn = bench.hostile()
    flow = pofwire.encode({"type": "FLOW_MOD", "xid": 9, "body": {
        "command": 0, "counter_id": 0, "cookie": 0, "cookie_mask": 0, "table_id": 0, "table_type": MM,
        "idle_timeout": 0, "hard_timeout": 0, "priority": 0, "index": 7, "slot_id": 0,
        "matches": [mx(ETH_TYPE, b"\x86\xdd")], "instructions": [
            {"type": "APPLY_ACTIONS", "actions": [output(255)]}]}})
    conn.sendall(header(0, 8) + flow)
    start = time.monotonic()
    read_to_eof(conn, timeout=3)
    assert time.monotonic() - start < 1.5
    bench.serving()  # checks that there are still exactly 2 flows
    abuse_tally.record(1)


def slowly(conn: socket.socket, data: bytes, gap: float = 0.05) -> None:
    for b in data:
        conn.sendall(bytes([b]))
        time.sleep(gap)


def test_slow_sender(bench: Bench) -> None:
    """One byte per 50 ms: a HELLO, and an ECHO_REQUEST in the session, while the switch forwards."""
    bench.c.accept(timeout=15)
    bench.c.recv("HELLO")
    conn = bench.c.conn
    assert conn is not None
    slowly(conn, header(0, 8))
    bench.c.send({"type": "FEATURES_REQUEST"})
    feats = bench.c.recv("FEATURES_REPLY")["body"]
    bench.c.send({"type": "SET_CONFIG", "body": {"dev_id": feats["dev_id"], "flags": 0, "miss_send_len": 128}})
    bench.c.send({"type": "GET_CONFIG_REQUEST"})
    bench.c.recv("GET_CONFIG_REPLY")
    echo = pofwire.encode({"type": "ECHO_REQUEST", "xid": 4242, "body": {"data": "0123456789abcdef"}})
    sender = threading.Thread(target=slowly, args=(conn, echo))
    sender.start()
    h1, h2, _ = bench.hosts
    assert ping(h1, h2.ip)  # forwarding goes on meanwhile
    sender.join()
    assert bench.c.recv("ECHO_REPLY", where=lambda m: m["xid"] == 4242)["body"]["data"] == "0123456789abcdef"
    bench.serving()
    abuse_tally.record(2)


def flood(conn: socket.socket, message: bytes, seconds: float, sent: list[int]) -> None:
    """Sends message back to back for seconds, or until the switch closes; counts the messages sent."""
    batch = message * 64
    deadline = time.monotonic() + seconds
    conn.settimeout(seconds + 5)
    try:
        while time.monotonic() < deadline:
            conn.sendall(batch)
            sent[0] += 64
    except OSError:
        pass


def test_floods(bench: Bench) -> None:
    """Valid but useless messages as fast as TCP takes them (ECHO_REPLYs nobody asked for): the switch keeps
    forwarding meanwhile and the session still answers. Then ECHO_REQUESTs from a controller that never reads
    the replies: the switch's output buffer is bounded, so it closes the session instead of growing."""
    conn = bench.hostile_ready()
    useless = pofwire.encode({"type": "ECHO_REPLY", "xid": 1, "body": {"data": "00" * 1016}})
    sent = [0]
    sender = threading.Thread(target=flood, args=(conn, useless, 4.0, sent))
    sender.start()
    time.sleep(0.5)
    h1, h2, _ = bench.hosts
    forwarded = ping(h1, h2.ip, count=5)
    sender.join()
    assert forwarded, f"no forwarding during a flood of {sent[0]} messages"
    assert sent[0] > 1000, sent
    bench.c.echo()
    bench.memory_bounded()

    conn = bench.hostile_ready()
    asks = [0]
    asking = pofwire.encode({"type": "ECHO_REQUEST", "xid": 2, "body": {"data": "00" * 1016}})
    flood(conn, asking, 15.0, asks)
    conn.settimeout(5)
    with pytest.raises(OSError):  # the switch gave up on it: reset (it closed with unread input)
        for _ in range(100):
            conn.sendall(asking * 64)
            time.sleep(0.01)
    bench.memory_bounded()
    bench.serving()
    abuse_tally.record(sent[0] + asks[0])
