"""The real pofswitch's management socket (spec/switch-mgmt) against hostile local clients (issue #13): a flood of
connections held open, lines over the limit, garbage and wrongly typed arguments, slow senders, a client that
never reads. Meanwhile an agent's client (wislice_agent_proto.switch_mgmt, through Switch.mgmt_cmd) gets its
answers, the switch's state does not change, and its memory and descriptors stay bounded."""

from __future__ import annotations

import os
import random
import socket
import sys
import threading
import time
from pathlib import Path

import pytest
from conftest import Switch
from test_abuse_channel import RSS_SLACK_KIB, rss_kib, sanitized

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import abuse_tally  # noqa: E402

pytestmark = pytest.mark.integration

LINE_MAX = 510  # spec/switch-mgmt, Transport
SLOTS = 8


def connect(sw: Switch) -> socket.socket:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(5)
    s.connect(str(sw.mgmt))
    return s


def read_line(s: socket.socket) -> bytes:
    data = bytearray()
    while not data.endswith(b"\n"):
        chunk = s.recv(4096)
        if not chunk:
            break
        data += chunk
    return bytes(data)


def closed_by_switch(s: socket.socket) -> bool:
    """End of stream, or a reset (the switch closed with input unread)."""
    try:
        return s.recv(1) == b""
    except ConnectionResetError:
        return True


def open_fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


class Bounds:
    """RSS and descriptors of the switch at the start; checked against the end."""

    def __init__(self, sw: Switch) -> None:
        self.sw = sw
        self.rss0 = rss_kib(sw.proc.pid)
        self.fds0 = open_fds(sw.proc.pid)

    def check(self) -> None:
        pid = self.sw.proc.pid
        assert self.sw.proc.poll() is None, "the switch died"
        assert open_fds(pid) <= self.fds0 + SLOTS, "the switch holds more connections than its slots"
        if not sanitized(pid):
            rss = rss_kib(pid)
            print(f"switch RSS {rss} KiB (started at {self.rss0} KiB), {open_fds(pid)} descriptors")
            assert rss < self.rss0 + RSS_SLACK_KIB, f"RSS {rss} KiB after starting at {self.rss0} KiB"


def test_flood_of_held_connections(switch: Switch) -> None:
    bounds = Bounds(switch)
    held = []
    try:
        for i in range(500):
            held.append(connect(switch))
            if i % 50 == 49:
                assert switch.mgmt_cmd("stats").startswith("OK processed="), f"after {i + 1} held connections"
        assert switch.mgmt_cmd("ports").startswith("OK 1:s1:")
        bounds.check()
        # The quietest were closed with the reason; the newest are still served.
        assert read_line(held[0]) == b"ERROR too many clients\n"
        held[-1].sendall(b"on-connect\n")
        assert read_line(held[-1]) == b"OK keep\n"
    finally:
        for s in held:
            s.close()
    abuse_tally.record(len(held))


def test_lines_over_the_limit(switch: Switch) -> None:
    bounds = Bounds(switch)
    for size in (LINE_MAX + 1, 4096, 1 << 20):
        s = connect(switch)
        try:
            s.sendall(b"x" * size)
        except OSError:
            pass  # closed while a megabyte was still coming: the reply was sent first
        assert read_line(s) == b"ERROR line too long\n"
        assert closed_by_switch(s)
        s.close()
        assert switch.mgmt_cmd("stats").startswith("OK processed=")
    s = connect(switch)
    s.sendall(b"stats" + b" " * (LINE_MAX - 5) + b"\n")  # the longest line there is
    assert read_line(s).startswith(b"OK processed=")
    s.close()
    bounds.check()
    abuse_tally.record(4)


GARBAGE_LINES = 2000
WRONG = [
    (b'{"cmd": "ports"}', b"ERROR unknown command {\"cmd\":"),
    (b'["port-del", "s1"]', b"ERROR unknown command [\"port-del\","),
    (b"port-rate s1 abc", b"ERROR rate must be 0-100000000 kbit/s"),
    (b"port-rate s1 -1", b"ERROR rate must be 0-100000000 kbit/s"),
    (b"port-rate s1 1e9", b"ERROR rate must be 0-100000000 kbit/s"),
    (b"port-rate s1 99999999999999999999999999", b"ERROR rate must be 0-100000000 kbit/s"),
    (b"port-rate s1 100000001", b"ERROR rate must be 0-100000000 kbit/s"),
    (b"port-add s1", b"ERROR port s1 exists"),
    (b"port-add " + b"n" * 64, b"ERROR port name must be 1-63 characters"),
    (b"port-del 1", b"ERROR no port 1"),
    (b"latency s1 2", b"ERROR usage: latency NAME on|off"),
    (b"on-connect 1", b"ERROR usage: on-connect [keep|reset]"),
    (b"on-connect keep reset", b"ERROR usage: on-connect [keep|reset]"),
    (b"stats\x00ports", b"ERROR line contains a NUL byte"),
]


def test_garbage_and_wrong_types(switch: Switch) -> None:
    """Every line gets exactly one reply, an ERROR, and changes nothing."""
    bounds = Bounds(switch)
    before = switch.mgmt_cmd("ports").split()
    with connect(switch) as s:
        send_garbage(s)
    # Port names are pure ASCII here: a random line cannot be a command that changes a port.
    after = switch.mgmt_cmd("ports").split()
    assert [p.split(":")[:3] for p in after] == [p.split(":")[:3] for p in before]
    assert switch.mgmt_cmd("on-connect") == "OK keep"
    bounds.check()
    abuse_tally.record(len(WRONG) + GARBAGE_LINES)


def send_garbage(s: socket.socket) -> None:
    """WRONG line by line, then random lines (no newline inside, at most the limit), 20 per write."""
    for line, reply in WRONG:
        s.sendall(line + b"\n")
        assert read_line(s).startswith(reply), line
    rng = random.Random(7)
    garbage = [bytes(b for b in rng.randbytes(rng.randrange(1, LINE_MAX)) if b != 10) for _ in range(GARBAGE_LINES)]
    sent = 0
    buf = bytearray()
    for i in range(0, len(garbage), 20):  # 20 lines a write: several lines per read on the switch's side
        chunk = garbage[i:i + 20]
        s.sendall(b"".join(g + b"\n" for g in chunk))
        sent += len(chunk)
        while buf.count(b"\n") < sent:
            data = s.recv(65536)
            assert data, f"closed after {sent} lines"
            buf += data
    replies = bytes(buf).split(b"\n")[:-1]
    assert len(replies) == len(garbage)
    assert all(r.startswith(b"ERROR ") for r in replies), [r for r in replies if not r.startswith(b"ERROR ")][:3]


def slow_client(sw: Switch, line: bytes, replies: list[bytes], gap: float = 0.05) -> None:
    with connect(sw) as s:
        for b in line:
            s.sendall(bytes([b]))
            time.sleep(gap)
        replies.append(read_line(s))


def test_slow_senders_and_a_deaf_client(switch: Switch) -> None:
    """Slow senders (a byte per 50 ms) in fewer than all slots are all answered, and an agent meanwhile; 20
    slow-loris connections (a byte now and then, never a newline) do not lock the agent out; a client that
    sends thousands of commands and reads nothing costs one reply's room."""
    bounds = Bounds(switch)
    replies: list[bytes] = []
    slow = [threading.Thread(target=slow_client, args=(switch, b"stats\n", replies)) for _ in range(SLOTS - 2)]
    for t in slow:
        t.start()
    for _ in range(5):
        assert switch.mgmt_cmd("stats").startswith("OK processed=")
    for t in slow:
        t.join()
    assert len(replies) == SLOTS - 2 and all(r.startswith(b"OK processed=") for r in replies), replies

    loris = [connect(switch) for _ in range(20)]
    deaf = connect(switch)
    try:
        deaf.setblocking(False)
        asked = 0
        try:
            for _ in range(200):
                deaf.send(b"ports\n" * 50)
                asked += 50
        except BlockingIOError:
            pass  # the switch stopped reading it: its replies wait, its commands stay in the kernel
        for i in range(10):
            for s in loris:
                try:
                    s.send(b"x")
                except OSError:
                    pass  # evicted
            assert switch.mgmt_cmd("stats").startswith("OK processed="), f"round {i}"
            time.sleep(0.05)
        bounds.check()
    finally:
        for s in [*loris, deaf]:
            s.close()
    assert switch.mgmt_cmd("ports").startswith("OK 1:s1:")
    abuse_tally.record(len(slow) + len(loris) + asked)
