"""The real pofswitch (AF_PACKET) against what controllers written for the reference switch do (spec/pof: "Liberal
acceptance", "Groups", "Controller sessions", "Closing"): OpenFlow 1.0's 12-byte SET_CONFIG, GROUP_MOD, a
controller that goes away and comes back (the state kept by default, cleared with --reset-on-connect), and a raw
TCP client that breaks the framing."""

from __future__ import annotations

import socket
import struct
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import Host, Switch, pofswitch_afp, start_switch
from pofctl import ETH_TYPE, Controller, mx, output

import pofwire

pytestmark = pytest.mark.integration

MM = 0
FLOOD = 255


def program_flood(c: Controller) -> None:
    """MM 0 on the ethertype: ARP and IPv4 flood. Applied (and no ERROR) once the echo comes back."""
    c.table(MM, 0, "classify", [ETH_TYPE])
    for index, ethertype in enumerate((b"\x08\x06", b"\x08\x00")):
        c.flow(MM, 0, index, [mx(ETH_TYPE, ethertype)], [{"type": "APPLY_ACTIONS", "actions": [output(FLOOD)]}])
    c.echo()
    c.expect_no("ERROR", wait=0.2)


def ping(h: Host, ip: str, count: int = 2) -> bool:
    r = h.ns.exec(["ping", "-c", str(count), "-i", "0.2", "-W", "1", ip], check=False, capture_output=True)
    return r.returncode == 0


def reconnect(c: Controller) -> dict[str, dict]:
    """The controller goes away and comes back: the switch dials again after its backoff."""
    assert c.conn is not None
    c.conn.close()
    c.conn = None
    c.accept(timeout=10)
    return c.handshake()


def queryall(c: Controller) -> list[str]:
    xid = c.send({"type": "QUERYALL_REQUEST"})
    c.recv("QUERYALL_FIN", where=lambda m: m["xid"] == xid)
    dump = [m["type"] for m in c.pending if m["xid"] == xid]
    c.pending = [m for m in c.pending if m["xid"] != xid]
    return dump


def test_reference_controller_handshake_and_group_mod(processes: Any, controller: Controller, hosts: list[Host],
                                                      tmp_path: Path) -> None:
    sw = start_switch(processes, controller, hosts, tmp_path, pofswitch_afp(), of10_config=True)
    assert controller.config["flags"] == 0 and controller.config["miss_send_len"] == 128
    assert controller.resources["group_num"] == 0
    program_flood(controller)
    assert ping(hosts[0], hosts[1].ip)
    group = {"command": 0, "group_type": 0, "group_id": 1, "counter_id": 0, "slot_id": 0, "actions": [output(2)]}
    xid = controller.send({"type": "GROUP_MOD", "body": group})
    e = controller.recv("ERROR", where=lambda m: m["xid"] == xid)["body"]
    assert (e["type"], e["code"]) == (6, 1)  # GROUP_MOD_FAILED / INVALID_GROUP: no groups, as announced
    xid = controller.send({"type": "GROUP_MOD", "body": {**group, "command": 5}})
    e = controller.recv("ERROR", where=lambda m: m["xid"] == xid)["body"]
    assert (e["type"], e["code"]) == (6, 11)  # BAD_COMMAND
    controller.echo()
    assert sw.proc.poll() is None


def test_state_and_traffic_survive_a_controller_restart(switch: Switch, controller: Controller,
                                                        hosts: list[Host]) -> None:
    """The default (keep): while no controller is connected the slice's traffic flows; the new session finds the
    state, and a controller that assumes an empty switch is told what exists."""
    assert switch.mgmt_cmd("on-connect") == "OK keep"
    program_flood(controller)
    h1, h2, _ = hosts
    assert ping(h1, h2.ip)
    assert controller.conn is not None
    controller.conn.close()
    controller.conn = None
    assert ping(h1, h2.ip, count=3)  # no controller
    controller.accept(timeout=10)
    ports = controller.handshake()
    assert all(p["of_enable"] == 1 for p in ports.values())
    assert queryall(controller).count("FLOW_MOD") == 2
    xid = controller.send({"type": "TABLE_MOD", "body": {"command": 0, "table_id": 0, "table_type": MM, "size": 256,
                                                          "slot_id": 0, "name": "classify", "matches": [ETH_TYPE]}})
    e = controller.recv("ERROR", where=lambda m: m["xid"] == xid)["body"]
    assert (e["type"], e["code"]) == (8, 4)  # TABLE_MOD_FAILED / TABLE_EXIST
    assert ping(h1, h2.ip)


def test_reset_on_connect_gives_a_new_session_an_empty_switch(processes: Any, controller: Controller,
                                                              hosts: list[Host], tmp_path: Path) -> None:
    """--reset-on-connect (the reference's behaviour): the HELLO of a new session clears tables, flows, meters and
    counters and disables the ports; the same program then installs without an ERROR."""
    sw = start_switch(processes, controller, hosts, tmp_path, pofswitch_afp(), extra_args=("--reset-on-connect",))
    assert sw.mgmt_cmd("on-connect") == "OK reset"
    program_flood(controller)
    controller.meter(1, 10000)
    controller.echo()
    h1, h2, _ = hosts
    assert ping(h1, h2.ip)
    ports = reconnect(controller)
    assert all(p["of_enable"] == 0 for p in ports.values())
    assert queryall(controller) == ["RESOURCE_REPORT"] + ["PORT_STATUS"] * 3
    assert "tables=0 flows=0" in sw.mgmt_cmd("stats")
    assert not ping(h1, h2.ip, count=1)
    program_flood(controller)
    controller.meter(1, 10000)  # no METER_EXISTS either
    for p in ports.values():
        controller.enable_port(p)
    controller.echo()
    controller.expect_no("ERROR", wait=0.2)
    assert ping(h1, h2.ip)
    # Back to keep through the management socket: the next session finds the state.
    assert sw.mgmt_cmd("on-connect keep") == "OK"
    reconnect(controller)
    assert queryall(controller).count("TABLE_MOD") == 1
    assert sw.proc.poll() is None


def read_to_eof(conn: socket.socket, timeout: float) -> bytes:
    """Everything the peer sends until it closes; fails if it does not close within timeout."""
    conn.settimeout(timeout)
    data = bytearray()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        chunk = conn.recv(65536)
        if not chunk:
            return bytes(data)
        data += chunk
    raise AssertionError(f"no EOF within {timeout} s; got {len(data)} bytes")


def test_bad_framing_error_arrives_before_eof(switch: Switch, controller: Controller) -> None:
    """A raw TCP client sends a header whose length (4) is below the header's: the switch answers ERROR
    BAD_REQUEST/BAD_LEN, and the client reads it before the end of the stream. Then the switch dials again."""
    assert controller.conn is not None
    controller.conn.sendall(struct.pack(">BBHI", 4, 2, 4, 42))
    start = time.monotonic()
    stream = bytearray(controller.buf) + read_to_eof(controller.conn, timeout=5)
    assert time.monotonic() - start < 3
    msgs = [pofwire.decode(m) for m in pofwire.split_stream(stream)]
    assert not stream  # whole messages only
    errors = [m for m in msgs if m["type"] == "ERROR"]
    assert errors and (errors[-1]["body"]["type"], errors[-1]["body"]["code"]) == (1, 6) and errors[-1]["xid"] == 0
    assert msgs[-1] is errors[-1]  # the ERROR is the last thing said
    controller.accept(timeout=10)
    ports = controller.handshake()
    assert list(ports) == ["s1", "s2", "s3"]
    controller.echo()
    assert switch.proc.poll() is None
