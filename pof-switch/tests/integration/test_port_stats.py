"""Port statistics (MULTIPART PORT_STATS, a WiSlice extension of POF) on the real pofswitch: frames of known
sizes sent through veths must show up exactly, packets and bytes, rx and tx, in the switch's answer and in the
management socket's ``ports``; a disabled port counts what it discards; bad requests get the spec's ERRORs."""

from __future__ import annotations

import struct
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import ASAN_BUILD, BUILD, Host, Switch, pofswitch_afp, start_switch
from pofctl import ETH_TYPE, Controller, mx, output, parse_ports

pytestmark = pytest.mark.integration

MM = 0
EXPERIMENTAL = 0x88B5  # IEEE local experimental ethertype: no host stack answers it
SIZES = [60, 64, 99, 128, 300, 511, 1000, 1400, 1514, 77, 60, 1514]  # whole frames, no FCS
COUNTERS = ("rx_packets", "tx_packets", "rx_bytes", "tx_bytes", "rx_dropped", "tx_dropped")

SENDER = """
import socket, sys
ifname, dst, src = sys.argv[1], bytes.fromhex(sys.argv[2]), bytes.fromhex(sys.argv[3])
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((ifname, 0))
for n in map(int, sys.argv[4:]):
    s.send(dst + src + bytes.fromhex("88b5") + bytes(n - 14))
"""


def quiet(h: Host) -> None:
    """No IPv6 (router solicitations, MLD, DAD) on either end: only our frames reach the switch."""
    h.ns.exec(["sysctl", "-qw", f"net.ipv6.conf.{h.ifname}.disable_ipv6=1"])
    subprocess.run(["sysctl", "-qw", f"net.ipv6.conf.{h.switch_if}.disable_ipv6=1"], check=True)


def send_frames(src: Host, dst: Host, sizes: list[int]) -> None:
    src.ns.exec(["python3", "-c", SENDER, src.ifname, dst.mac.hex(), src.mac.hex(), *map(str, sizes)])


def by_port(entries: list[dict]) -> dict[int, dict]:
    return {e["port_no"]: e for e in entries}


def delta(after: dict, before: dict) -> dict[str, int]:
    return {k: after[k] - before[k] for k in COUNTERS}


def wait_stats(c: Controller, port_no: int, key: str, value: int, timeout: float = 5) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        _, entries = c.port_stats(port_no)
        if entries[0][key] >= value or time.monotonic() > deadline:
            return entries[0]
        time.sleep(0.05)


def check_port_stats(c: Controller, sw: Switch, hosts: list[Host]) -> None:
    ids = [sw.ports[f"s{i}"]["port_id"] for i in (1, 2, 3)]
    for h in hosts:
        quiet(h)
    # MM 0 on the ethertype: the experimental type leaves through s2, anything else misses (and is dropped).
    c.table(MM, 0, "stats", [ETH_TYPE])
    c.flow(MM, 0, 0, [mx(ETH_TYPE, EXPERIMENTAL.to_bytes(2, "big"))],
           [{"type": "APPLY_ACTIONS", "actions": [output(ids[1])]}])
    c.echo()
    c.expect_no("ERROR", wait=0.2)
    time.sleep(0.5)  # anything the hosts sent before quiet() has been counted by now

    # Every port, in id order, one reply (REPLY_MORE clear), with the request's xid.
    xid, entries = c.port_stats()
    assert [e["port_no"] for e in entries] == sorted(ids)
    assert all(e[k] == 0 for e in entries for k in ("rx_errors", "tx_errors", "rx_frame_err", "rx_over_err",
                                                       "rx_crc_err", "collisions"))
    assert all(0 <= e["duration_nsec"] < 10**9 and e["duration_sec"] < 600 for e in entries)
    before = by_port(entries)

    send_frames(hosts[0], hosts[1], SIZES)
    wait_stats(c, ids[1], "tx_packets", before[ids[1]]["tx_packets"] + len(SIZES))
    xid2, entries = c.port_stats()
    assert xid2 != xid
    after = by_port(entries)
    n, total = len(SIZES), sum(SIZES)
    assert delta(after[ids[0]], before[ids[0]]) == {"rx_packets": n, "tx_packets": 0, "rx_bytes": total,
                                                    "tx_bytes": 0, "rx_dropped": 0, "tx_dropped": 0}
    assert delta(after[ids[1]], before[ids[1]]) == {"rx_packets": 0, "tx_packets": n, "rx_bytes": 0,
                                                    "tx_bytes": total, "rx_dropped": 0, "tx_dropped": 0}
    assert delta(after[ids[2]], before[ids[2]]) == dict.fromkeys(COUNTERS, 0)
    t0 = before[ids[0]]["duration_sec"] * 10**9 + before[ids[0]]["duration_nsec"]
    t1 = after[ids[0]]["duration_sec"] * 10**9 + after[ids[0]]["duration_nsec"]
    assert t1 > t0

    # A frame the pipeline drops (table miss) still counts as received; it is no rx_dropped.
    hosts[2].ns.exec(["python3", "-c", SENDER.replace('"88b5"', '"0800"'), hosts[2].ifname, hosts[0].mac.hex(),
                      hosts[2].mac.hex(), "100", "200"])
    s3 = wait_stats(c, ids[2], "rx_packets", after[ids[2]]["rx_packets"] + 2)
    assert delta(s3, after[ids[2]]) == {"rx_packets": 2, "tx_packets": 0, "rx_bytes": 300, "tx_bytes": 0,
                                        "rx_dropped": 0, "tx_dropped": 0}

    # A disabled port: what arrives is received and dropped, nothing is forwarded; PORT_MOD resets nothing.
    c.send({"type": "PORT_MOD", "body": {"reason": 2, "port": {**sw.ports["s1"], "of_enable": 0}}})
    c.echo()
    send_frames(hosts[0], hosts[1], [200, 300, 400])
    s1 = wait_stats(c, ids[0], "rx_dropped", after[ids[0]]["rx_dropped"] + 3)
    assert delta(s1, after[ids[0]]) == {"rx_packets": 3, "tx_packets": 0, "rx_bytes": 900, "tx_bytes": 0,
                                        "rx_dropped": 3, "tx_dropped": 0}
    _, (s2_now,) = c.port_stats(ids[1])
    assert delta(s2_now, after[ids[1]]) == dict.fromkeys(COUNTERS, 0)
    c.enable_port(sw.ports["s1"])
    c.echo()

    # The management socket's `ports` carries the same counters.
    _, entries = c.port_stats()
    mgmt = parse_ports(sw.mgmt_cmd("ports"))
    for e in entries:
        name = next(n for n, p in sw.ports.items() if p["port_id"] == e["port_no"])
        assert mgmt[name]["id"] == e["port_no"] and mgmt[name]["enabled"]
        assert {k: mgmt[name][k] for k in ("rx_packets", "tx_packets", "rx_bytes", "tx_bytes")} == \
            {k: e[k] for k in ("rx_packets", "tx_packets", "rx_bytes", "tx_bytes")}


def check_errors(c: Controller) -> None:
    def error_for(raw: bytes) -> tuple[int, int]:
        xid = struct.unpack(">I", raw[4:8])[0]
        c.send_raw(raw)
        e = c.recv("ERROR", where=lambda m: m["xid"] == xid)["body"]
        return e["type"], e["code"]

    def request(mp_type: int, port_no: int, xid: int) -> bytes:
        return struct.pack(">BBHIHH4xI4x", 4, 19, 24, xid, mp_type, 0, port_no)

    assert error_for(request(4, 99, 0x301)) == (1, 11)                # no port 99
    assert error_for(request(4, 0, 0x302)) == (1, 11)                 # port 0 is no port
    assert error_for(request(4, (1 << 16) | 1, 0x303)) == (1, 11)     # slot 1: ours are in slot 0
    assert error_for(request(0, 1, 0x304)) == (1, 2)                  # mp_type 0: BAD_MULTIPART
    assert error_for(struct.pack(">BBHIHH4x", 4, 19, 16, 0x305, 4, 0)) == (1, 6)  # no port_no: BAD_LEN
    # The switch answers replies it is sent with BAD_TYPE (it only receives requests) and goes on.
    reply = struct.pack(">BBHIHH4x", 4, 20, 16, 0x306, 4, 0)
    assert error_for(reply) == (1, 1)
    _, entries = c.port_stats(1)
    assert [e["port_no"] for e in entries] == [1]


@pytest.mark.rates
@pytest.mark.parametrize("build", ["release", "asan"])
def test_port_stats_count_what_was_sent(build: str, processes: Any, controller: Controller, hosts: list[Host],
                                        tmp_path: Path) -> None:
    binary = pofswitch_afp(BUILD if build == "release" else ASAN_BUILD)
    sw = start_switch(processes, controller, hosts, tmp_path, binary, f"pofswitch-{build}")
    check_port_stats(controller, sw, hosts)
    check_errors(controller)
    # A port added at run time starts from zero; removed, it is no port for statistics any more.
    assert sw.mgmt_cmd("port-del s3") == "OK"
    controller.recv("PORT_STATUS", where=lambda m: m["body"]["reason"] == 1)
    _, entries = controller.port_stats()
    assert [e["port_no"] for e in entries] == sorted(p["port_id"] for n, p in sw.ports.items() if n != "s3")
    xid = controller.send({"type": "MULTIPART_REQUEST", "body": {"mp_type": 4, "flags": 0,
                                                                 "port_no": sw.ports["s3"]["port_id"]}})
    e = controller.recv("ERROR", where=lambda m: m["xid"] == xid)["body"]
    assert (e["type"], e["code"]) == (1, 11)
    assert sw.mgmt_cmd(f"port-add s3 {hosts[2].switch_if}") == f"OK {sw.ports['s3']['port_id']}"
    _, (s3,) = controller.port_stats(sw.ports["s3"]["port_id"])
    assert all(s3[k] == 0 for k in COUNTERS) and s3["duration_sec"] == 0
    assert processes.stop(sw.proc) == 0
    log = processes.log_path(sw.proc).read_text()
    assert "Sanitizer" not in log and "runtime error" not in log, log[-3000:]
