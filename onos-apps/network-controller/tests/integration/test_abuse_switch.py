"""The network controller in the real ONOS runtime against hostile switches on its POF port (issue #13): garbage,
oversized lengths, truncated HELLOs, messages out of handshake order, slow bytes, a flood of silent connections,
and a switch that floods requests without reading the answers. Meanwhile a well-behaved switch (the reference-like
fake, fake_reference_switch.py) stays connected, ONOS shows it available, and a slice installs its flows on it.
The Karaf JVM stays up with its threads and RSS bounded (PofSwitchServer.Limits: 64 connections in the
handshake, 10 s to complete one, 10 s for a stalled write)."""

from __future__ import annotations

import random
import socket
import struct
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from fake_reference_switch import FakeReferenceSwitch

sys.path.insert(0, str(Path(__file__).resolve().parents[4] / "pof-switch" / "tests"))
import abuse_tally  # noqa: E402
import pofwire  # noqa: E402

pytestmark = pytest.mark.integration

GOOD = 0x21
GOOD_ID = f"pof:{GOOD:08x}"
MAX_PENDING = 64       # PofSwitchServer.Limits.DEFAULT
HANDSHAKE_S = 10
WRITE_STALL_S = 10


def status(pid: int) -> dict[str, int]:
    out = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "Threads"):
            out[key] = int(value.split()[0])
    return out


def header(mtype: int, length: int, xid: int = 1) -> bytes:
    return struct.pack(">BBHI", 4, mtype, length, xid)


def closed_by_peer(s: socket.socket, timeout: float) -> bool:
    """End of stream or reset within timeout (what the controller sends first, an ERROR, is skipped)."""
    s.settimeout(timeout)
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            if not s.recv(65536):
                return True
    except socket.timeout:
        return False
    except OSError:
        return True
    return False


def good_available(onos: Any) -> bool:
    code, dev = onos.request("GET", f"/onos/v1/devices/{GOOD_ID}")
    return code == 200 and dev.get("available") is True and onos.switch_connected(GOOD_ID)


@pytest.fixture
def good(onos: Any) -> Any:
    with FakeReferenceSwitch(onos.pof_port, GOOD) as sw:
        onos.wait_for(f"{GOOD_ID} available", lambda: good_available(onos))
        yield sw


def connect(onos: Any) -> socket.socket:
    return socket.create_connection(("127.0.0.1", onos.pof_port), timeout=10)


def test_hostile_switches_leave_the_server_and_a_good_switch_working(onos: Any, good: Any) -> None:
    pid = onos.java_pid()
    assert pid, "no Karaf JVM"
    before = status(pid)
    rng = random.Random(21)
    sent = 0
    hostile: list[socket.socket] = []
    try:
        # Garbage, and a length below the header's: ERROR and close, at once.
        for _ in range(10):
            s = connect(onos)
            s.sendall(b"\x07" + rng.randbytes(64 * 1024))  # not version 4: no framing to wait for
            assert closed_by_peer(s, 5)
            s.close()
        s = connect(onos)
        s.sendall(header(0, 4))
        assert closed_by_peer(s, 5)
        s.close()
        sent += 11
        # Truncated HELLOs, then close.
        for _ in range(20):
            s = connect(onos)
            s.sendall(header(0, 8)[:5])
            s.close()
        sent += 20
        # Out of handshake order: a FEATURES_REPLY or a PORT_STATUS before the HELLO, a second HELLO after it.
        for first in (header(6, 216), header(12, 136), header(0, 8) + header(0, 8)):
            s = connect(onos)
            s.sendall(first + bytes(max(0, struct.unpack(">H", first[2:4])[0] - 8)))
            assert closed_by_peer(s, 5), first[:8].hex()
            s.close()
        sent += 3
        # Held open, to be closed by the deadline: an oversized length (65535 announced, 100 sent) and a
        # trickle of one byte per 0.2 s.
        oversized = connect(onos)
        oversized.sendall(header(0, 0xFFFF) + bytes(100))
        trickle = connect(onos)
        trickle_stop = threading.Event()

        def trickling() -> None:
            for b in header(0, 0xFFFF) + bytes(200):
                if trickle_stop.wait(0.2):
                    return
                try:
                    trickle.send(bytes([b]))
                except OSError:
                    return

        trickler = threading.Thread(target=trickling)
        trickler.start()
        held_since = time.monotonic()
        # A slow but valid HELLO (a byte per 50 ms), then the rest of the handshake: that switch gets in.
        slow = FakeReferenceSwitch(onos.pof_port, 0x22)
        slow.sock = connect(onos)
        for b in header(0, 8):
            slow.sock.sendall(bytes([b]))
            time.sleep(0.05)
        slow_handshake(slow)
        onos.wait_for("the slow switch available", lambda: onos.switch_connected("pof:00000022"))
        slow.close()
        # A flood of silent connections: the oldest in the handshake are closed to make room.
        flood = [connect(onos) for _ in range(4 * MAX_PENDING)]
        hostile += flood
        sent += len(flood) + 3
        during = status(pid)  # a thread per session: at most MAX_PENDING in the handshake, and a few ready ones
        assert during["Threads"] <= before["Threads"] + MAX_PENDING + 16, (before, during)
        assert closed_by_peer(flood[0], 5), "the oldest silent connection was not closed to make room"
        # A switch that completes its handshake and then floods ECHO_REQUESTs without reading the replies.
        deaf = FakeReferenceSwitch(onos.pof_port, 0x23).handshake_only()
        hostile.append(deaf)
        flood_msg = pofwire.encode({"type": "ECHO_REQUEST", "xid": 5, "body": {"data": "00" * 1016}}) * 64
        deaf.settimeout(WRITE_STALL_S + 10)
        deaf_start = time.monotonic()
        asks = 0
        try:
            while time.monotonic() - deaf_start < WRITE_STALL_S + 10:
                deaf.sendall(flood_msg)
                asks += 64
        except OSError:
            pass  # the controller closed it
        deaf_took = time.monotonic() - deaf_start
        sent += asks
        assert deaf_took < WRITE_STALL_S + 8, f"a switch that does not read held its session {deaf_took:.0f} s"
        # Everything held is closed by the handshake deadline.
        for s in (oversized, trickle):
            assert closed_by_peer(s, max(1.0, HANDSHAKE_S + 4 - (time.monotonic() - held_since)))
        trickle_stop.set()
        trickler.join()
        assert good_available(onos), "the good switch lost its session"
        assert good.error is None, good.error
    finally:
        for s in hostile:
            s.close()

    # The good switch is driven as before: a slice installs flows on it.
    code, sl = onos.request("POST", "/onos/pof/slices", {
        "slice_id": "abuse-good", "tenant_id": 5, "require_enforcement": False,
        "hops": [{"device_id": GOOD_ID, "in_port": 1, "out_port": 2}]})
    assert code == 201, sl
    try:
        onos.wait_for("FLOW_MOD at the good switch", lambda: good.of_type("FLOW_MOD"), timeout=15)
    finally:
        onos.request("DELETE", "/onos/pof/slices/abuse-good")
    after = status(onos.java_pid() or -1)
    assert after, "the Karaf JVM is gone"
    # Every hostile session's thread has ended; the slack is ONOS's own pools, which grow on first use (REST, flows).
    assert after["Threads"] <= before["Threads"] + 32, (before, after)
    # The POF server holds at most 64 sessions in the handshake (a thread and a 64 KiB frame each) and one blocked
    # write per session; the slack is the JVM's heap, which the GC sizes as it likes below -Xmx.
    assert after["VmRSS"] < before["VmRSS"] + 128 * 1024, (before, after)
    print(f"Karaf JVM: {before} before, {during} during the flood, {after} after; {sent} hostile inputs")
    abuse_tally.record(sent)


def slow_handshake(sw: FakeReferenceSwitch) -> None:
    """The rest of the reference handshake, with no ports, after a HELLO already sent (slowly) by the caller."""
    sw._expect("HELLO")
    fr = sw._expect("FEATURES_REQUEST")
    sw._send("FEATURES_REPLY", fr["xid"], {
        "dev_id": sw.dev_id, "slot_id": 0, "port_num": 0, "table_num": 45, "capabilities": 0x0F,
        "vendor_id": "slow", "dev_fw_id": "1", "dev_lkup_id": "1"})
    sw._expect("SET_CONFIG")
    gc = sw._expect("GET_CONFIG_REQUEST")
    sw._send("GET_CONFIG_REPLY", gc["xid"], {"dev_id": sw.dev_id, "flags": 0, "miss_send_len": 128})
    tables = [{"dev_id": sw.dev_id, "type": t, "tbl_num": 4, "key_len": 160, "total_size": 1000} for t in range(4)]
    sw._send("RESOURCE_REPORT", gc["xid"], {"resource_type": 0, "slot_id": 0, "counter_num": 16, "meter_num": 16,
                                            "group_num": 0, "tables": tables})
