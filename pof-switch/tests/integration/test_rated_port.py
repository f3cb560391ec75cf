"""Guaranteed slices in the data plane (docs/guaranteed-slices.md): two-rate meters colour each slice's traffic,
and a rated output port serves green before best effort at its rate. The real switch (AF_PACKET, and DPDK with
net_af_packet ports) on veths: h1 (slice A: guarantee 8 Mbit/s, no cap) and h2 (slice B: guarantee 1 Mbit/s, no
cap) each send UDP far above the rate of the port towards h3 (20 Mbit/s). A keeps its guarantee, the port sends
its rate, and B gets the rest. Then A within its guarantee while B floods: A's packets are all green and take the
priority queue (a slice above its guarantee keeps its order instead: its green packets wait behind its own excess
in best effort)."""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import BUILD, Host, Switch, pofswitch_afp, start_switch
from pofctl import ETH_TYPE, SCRIPTED_CONTROLLER_ARGS, Controller, mx, output

pytestmark = [pytest.mark.integration, pytest.mark.rates]

MM, EM = 0, 2
EM0 = 20
IP_SRC = {"field_id": 4, "offset": 208, "length": 32}
METER_A, METER_B = 1, 2
UNCAPPED = 100_000_000  # the largest peak rate (100 Gbit/s): a guarantee without a cap
PORT_KBPS = 20_000
A_KBPS, B_KBPS = 8_000, 1_000
OFFERED_MBPS = 40  # per sender: 4x the port's rate in all
PAYLOAD = 1472
FRAME = PAYLOAD + 42  # Ethernet 14 + IPv4 20 + UDP 8: what meters and the port count
SEND_S = 7.0
WINDOW = (1.5, 6.5)  # seconds after the first packet: queues are full, buckets settled

SENDER = """
import socket, sys, time
dst, port, mbps, secs, size = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
pps, payload, sent, t0 = mbps * 1e6 / 8 / (size + 42), bytes(size), 0, time.monotonic()
while (el := time.monotonic() - t0) < secs:
    while sent < int(el * pps) + 1:
        try:
            s.sendto(payload, (dst, port))
        except OSError:
            pass
        sent += 1
    time.sleep(0.0005)
print("sent", sent, flush=True)
"""

# Frame bytes received per destination port in 0.25 s bins from the first packet; "ready" once bound.
RECEIVER = """
import json, select, socket, sys, time
secs, ports = float(sys.argv[1]), [int(p) for p in sys.argv[2:]]
socks = {}
for p in ports:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:  # SO_RCVBUFFORCE (root): past rmem_max, so a receiver the busy host holds back loses nothing meanwhile
        s.setsockopt(socket.SOL_SOCKET, 33, 4 << 20)
    except OSError:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    s.bind(("0.0.0.0", p))
    s.setblocking(False)
    socks[s] = p
print("ready", flush=True)
bins, t0, end = {p: [] for p in ports}, None, time.monotonic() + secs + 30
while time.monotonic() < end and (t0 is None or time.monotonic() - t0 < secs):
    for s in select.select(list(socks), [], [], 0.1)[0]:
        while True:
            try:
                n = len(s.recv(65536))
            except BlockingIOError:
                break
            now = time.monotonic()
            t0 = t0 if t0 is not None else now
            b = bins[socks[s]]
            k = int((now - t0) / 0.25)
            b.extend([0] * (k + 1 - len(b)))
            b[k] += n + 42
print(json.dumps(bins), flush=True)
"""


def program(c: Controller, sw: Switch) -> None:
    """MM 0: ARP floods, IPv4 goes to EM 0 on the IPv4 source. EM 0: h1 through meter A, h2 through meter B,
    both out of s3 (the rated port)."""
    s3 = sw.ports["s3"]["port_id"]
    c.table(MM, 0, "classify", [ETH_TYPE])
    c.table(EM, 0, "slices", [IP_SRC])
    c.meter(METER_A, UNCAPPED, A_KBPS)
    c.meter(METER_B, UNCAPPED, B_KBPS)
    c.flow(MM, 0, 0, [mx(ETH_TYPE, b"\x08\x06")], [{"type": "APPLY_ACTIONS", "actions": [output(255)]}],
           priority=10)
    c.flow(MM, 0, 1, [mx(ETH_TYPE, b"\x08\x00")], [
        {"type": "GOTO_TABLE", "next_table_id": EM0, "packet_offset": 0, "matches": [IP_SRC]}], priority=10)
    for index, (ip, meter) in enumerate((("10.9.0.1", METER_A), ("10.9.0.2", METER_B))):
        c.flow(EM, 0, index, [mx(IP_SRC, socket.inet_aton(ip))],
               [{"type": "METER", "meter_id": meter}, {"type": "APPLY_ACTIONS", "actions": [output(s3)]}])
    c.echo()
    c.expect_no("ERROR", wait=0.2)


def wait_for_line(processes: Any, proc: Any, text: str, timeout: float = 10) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        log = processes.log_path(proc).read_text()
        if text in log:
            return log
        if proc.poll() is not None:
            break
        time.sleep(0.05)
    raise AssertionError(f"no {text!r} from {proc.args}: {processes.log_path(proc).read_text()[-2000:]}")


def port_stats(sw: Switch, name: str) -> dict[str, int]:
    reply = sw.mgmt_cmd(f"port-stats {name}")
    assert reply.startswith("OK "), reply
    return {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", reply)}


def measure(processes: Any, hosts: list[Host], sw: Switch, offered_a: float = OFFERED_MBPS) -> dict[str, float]:
    """h1 at offered_a and h2 at OFFERED_MBPS for SEND_S; the Mbit/s (frames) h3 receives of each over WINDOW."""
    h1, h2, h3 = hosts
    for h in (h1, h2):  # no ARP needed: the switch floods it, but a static entry keeps the start clean
        h.ns.exec(["ip", "neigh", "replace", h3.ip, "lladdr", h3.mac.hex(":"), "dev", h.ifname])
    rx = processes.start(["python3", "-c", RECEIVER, str(WINDOW[1] + 0.5), "5001", "5002"], netns=h3.ns,
                         log_name="receiver")
    wait_for_line(processes, rx, "ready")
    senders = [processes.start(["python3", "-c", SENDER, h3.ip, str(port), str(rate), str(SEND_S),
                                str(PAYLOAD)], netns=h.ns, log_name=f"sender-{port}")
               for h, port, rate in ((h1, 5001, offered_a), (h2, 5002, OFFERED_MBPS))]
    for p in [*senders, rx]:
        p.wait(timeout=SEND_S + 20)
    bins = json.loads(processes.log_path(rx).read_text().splitlines()[-1])
    lo, hi = int(WINDOW[0] / 0.25), int(WINDOW[1] / 0.25)
    mbps = {name: sum(bins[port][lo:hi]) * 8 / (WINDOW[1] - WINDOW[0]) / 1e6
            for name, port in (("A", "5001"), ("B", "5002"))}
    mbps["total"] = mbps["A"] + mbps["B"]
    return mbps


def check_shares(mbps: dict[str, float], stats: dict[str, int]) -> None:
    port = PORT_KBPS / 1000
    report = f"{mbps} Mbit/s; port-stats {stats}"
    assert mbps["A"] >= 0.95 * A_KBPS / 1000, "slice A below its guarantee: " + report
    assert 0.90 * port <= mbps["total"] <= 1.05 * port, "the port is not at its rate: " + report
    assert mbps["B"] >= 0.95 * B_KBPS / 1000, "slice B below its guarantee: " + report
    assert mbps["B"] >= port - mbps["A"] - 2, "slice B does not get the rest: " + report
    # Both slices are above their guarantees all along, so their green packets kept their order behind their own
    # excess in best effort: the port sent its rate through best effort; the queue overflowed (4x the rate offered).
    sent_mbps = (stats["green_bytes"] + stats["be_bytes"]) * 8 / SEND_S / 1e6
    assert 0.8 * port <= sent_mbps <= 1.05 * port, report
    assert stats["green_bytes"] * 8 / SEND_S / 1e6 < 1.0, report
    assert stats["green_drops"] == 0 and stats["be_drops"] > 0 and stats["rate"] == PORT_KBPS, report


def test_guarantees_hold_on_a_rated_port(processes: Any, controller: Controller, hosts: list[Host],
                                         tmp_path: Path) -> None:
    # Rated at start (5 Mbit/s by --port ARGS), then at run time (20 Mbit/s by the management socket).
    sw = start_switch(processes, controller, hosts, tmp_path, pofswitch_afp(), port_extra={"s3": ",rate=5000"})
    assert port_stats(sw, "s3")["rate"] == 5000
    assert sw.mgmt_cmd(f"port-rate s3 {PORT_KBPS}") == "OK"
    program(controller, sw)
    mbps = measure(processes, hosts, sw)
    stats = port_stats(sw, "s3")
    print(f"AF_PACKET: {mbps}, {stats}")
    check_shares(mbps, stats)
    # A within its guarantee (6 of 8 Mbit/s) while B floods: all of A is green, served first, none of it lost.
    before = port_stats(sw, "s3")
    mbps = measure(processes, hosts, sw, offered_a=6.0)
    after = port_stats(sw, "s3")
    report = f"{mbps} Mbit/s; port-stats {after}"
    green_mbps = (after["green_bytes"] - before["green_bytes"]) * 8 / SEND_S / 1e6
    assert 0.85 * 6 <= green_mbps <= 1.1 * 6 and after["green_drops"] == 0, report
    assert 0.95 * 6 <= mbps["A"] <= 1.05 * 6 and mbps["B"] >= PORT_KBPS / 1000 - 6 - 2, report
    assert sw.mgmt_cmd("port-rate s3 0") == "OK" and port_stats(sw, "s3")["rate"] == 0
    assert sw.proc.poll() is None


def test_guarantees_hold_on_a_rated_dpdk_port(request: Any, processes: Any, controller: Controller,
                                              hosts: list[Host], hugepages: Any, tmp_path: Path) -> None:
    """The same with the DPDK backend: rate=KBPS is taken out of the devargs before the ethdev is probed."""
    binary = Path(os.environ.get("POFSWITCH_BUILD", BUILD)) / "pofswitch"
    if not binary.exists():
        pytest.skip("pofswitch (DPDK) not built")
    mgmt = tmp_path / "mgmt.sock"
    prefix = f"poftestrate{os.getpid()}"
    request.addfinalizer(lambda: shutil.rmtree(Path("/var/run/dpdk") / prefix, ignore_errors=True))
    argv = [str(binary), "-l", "1", "--in-memory", "--huge-dir", str(hugepages.mount), "--no-pci",
            "--file-prefix", prefix, "--no-telemetry", "--",
            "--controller", f"127.0.0.1:{controller.port}", "--mgmt", str(mgmt), *SCRIPTED_CONTROLLER_ARGS]
    for i, h in enumerate(hosts, 1):
        rate = f",rate={PORT_KBPS}" if i == 3 else ""
        argv += ["--port", f"s{i}=net_af_packet{i},iface={h.switch_if}{rate}"]
    proc = processes.start(argv, log_name="pofswitch-dpdk")
    controller.accept(timeout=20)
    sw = Switch(proc, mgmt, controller.handshake())
    for p in sw.ports.values():
        controller.enable_port(p)
    program(controller, sw)
    mbps = measure(processes, hosts, sw)
    stats = port_stats(sw, "s3")
    print(f"DPDK: {mbps}, {stats}")
    check_shares(mbps, stats)
    assert processes.stop(proc) == 0
