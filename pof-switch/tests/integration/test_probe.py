"""In-band latency probes (issue 15) through the real switch (AF_PACKET) on veths: a flow table that forwards port
s1 <-> s2 by in_port, as a slice's flows on a host port do; h2 beyond s2 answers ping as any host does. Probes
started on s1 come back with RTTs and no loss, h2 resolved the probe's address by ARP (answered by the switch),
and the replies never left s1; a flow removed mid-session shows as losses; a session with DST_MAC auto finds h2's
MAC by ARP through the same path and measures as well. The AF_PACKET build, then the DPDK
build with net_af_packet ports on the same veths."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import BUILD, Host, Switch, pofswitch_afp, start_switch
from pofctl import SCRIPTED_CONTROLLER_ARGS, Controller, mx, output

from wislice_agent_proto.switch_mgmt import parse_counters

pytestmark = pytest.mark.integration

MM = 0
IN_PORT = {"field_id": 0xFFFF, "offset": 16, "length": 8}  # metadata bits 16-23, as the slice table's
PROBE_MAC, PROBE_IP = "02:00:00:00:00:65", "10.9.0.101"  # no host has them: the probe's own address
COUNT, INTERVAL_US = 200, 5000


def program(c: Controller, sw: Switch) -> tuple[int, int]:
    s1, s2 = sw.ports["s1"]["port_id"], sw.ports["s2"]["port_id"]
    c.table(MM, 0, "slice", [IN_PORT])
    for index, (src, dst) in enumerate(((s1, s2), (s2, s1))):
        c.flow(MM, 0, index, [mx(IN_PORT, bytes([src]))], [{"type": "APPLY_ACTIONS", "actions": [output(dst)]}],
               priority=100)
    c.echo()
    c.expect_no("ERROR", wait=0.2)
    return s1, s2


def probe_stats(sw: Switch, pid: int) -> dict[str, int]:
    reply = sw.mgmt_cmd(f"probe-stats s1 {pid}")
    assert reply.startswith("OK "), reply
    return parse_counters(reply[3:])


def wait_sent(sw: Switch, pid: int, sent: int, timeout: float) -> dict[str, int]:
    deadline = time.monotonic() + timeout
    while (st := probe_stats(sw, pid))["sent"] < sent and time.monotonic() < deadline:
        time.sleep(0.1)
    return st


def tx_packets(sw: Switch, name: str) -> int:
    reply = sw.mgmt_cmd("ports")
    item = next(i for i in reply.split()[1:] if i.split(":")[1] == name)
    return int(item.split(":")[4])


def probes_measure_the_path_and_see_a_flow_go(controller: Controller, sw: Switch, h2: Host) -> None:
    program(controller, sw)
    s1_tx = tx_packets(sw, "s1")
    start = f"probe-start s1 {{}} {PROBE_MAC} {h2.mac.hex(':')} {PROBE_IP} {h2.ip}"
    assert sw.mgmt_cmd(start.format(1) + f" size=256 interval_us={INTERVAL_US} count={COUNT}") == "OK"
    st = wait_sent(sw, 1, COUNT, timeout=COUNT * INTERVAL_US / 1e6 + 5)
    time.sleep(0.3)  # the last replies
    st = probe_stats(sw, 1)
    print(f"probe 1: {st}")
    assert st["sent"] == COUNT and st["received"] == COUNT and st["lost"] == 0, st
    assert st["samples"] == COUNT and 0 < st["p50_us"] <= st["p90_us"] <= st["p99_us"] <= st["max_us"], st
    assert st["p50_us"] < 50_000, st  # veths and one switch: far below a timeout
    assert st["arp_replies"] >= 1, st
    neigh = h2.ns.exec(["ip", "neigh", "show", PROBE_IP], capture_output=True, text=True).stdout
    assert PROBE_MAC in neigh, neigh  # h2 resolved the probe's address through the switch's answer
    # the replies were taken before s1 sent them: s1 carried at most h2's own chatter (IPv6 ND and the like)
    assert tx_packets(sw, "s1") - s1_tx < COUNT // 4
    assert sw.mgmt_cmd("probe-start s1 1 02:00:00:00:00:65 0a:00:00:00:00:02 10.9.0.101 10.9.0.2") == \
        "ERROR probe s1 1 exists"

    # A continuous session; the s1 -> s2 flow is deleted for a while, then added back.
    assert sw.mgmt_cmd(start.format(2) + f" interval_us={INTERVAL_US}") == "OK"
    wait_sent(sw, 2, 60, timeout=5)
    before = probe_stats(sw, 2)["sent"]
    controller.flow(MM, 0, 0, [], [], command=3)
    controller.echo()
    gone_at = probe_stats(sw, 2)["sent"]
    time.sleep(0.5)
    back_at = probe_stats(sw, 2)["sent"]
    s1, s2 = sw.ports["s1"]["port_id"], sw.ports["s2"]["port_id"]
    controller.flow(MM, 0, 0, [mx(IN_PORT, bytes([s1]))], [{"type": "APPLY_ACTIONS", "actions": [output(s2)]}],
                    priority=100)
    controller.echo()
    after = probe_stats(sw, 2)["sent"]
    time.sleep(1.3)  # the requests sent while the flow was gone time out after a second
    st = probe_stats(sw, 2)
    print(f"probe 2: {st}, flow surely gone from request {gone_at} to {back_at}, maybe from {before} to {after}")
    assert back_at - gone_at >= 40, (gone_at, back_at)
    # lost: every request sent while the flow was surely gone, and none sent while it surely was there
    assert back_at - gone_at - 2 <= st["lost"] <= after - before + 2, st
    assert st["sent"] - st["received"] - st["lost"] <= 5, st  # the rest came back (a few may be in flight)
    assert st["received"] >= 100, st
    assert sw.mgmt_cmd("probe-stop s1 2") == "OK" and sw.mgmt_cmd("probe-stats s1 2") == "ERROR no probe s1 2"

    # DST_MAC auto: the switch asks for h2's MAC itself (h2 answers as any host), then measures as with it given
    auto = f"probe-start s1 3 {PROBE_MAC} auto {PROBE_IP} {h2.ip} interval_us={INTERVAL_US} count=50"
    assert sw.mgmt_cmd(auto) == "OK"
    st = wait_sent(sw, 3, 50, timeout=5)
    time.sleep(0.3)
    st = probe_stats(sw, 3)
    print(f"probe 3 (auto): {st}")
    assert st["resolved"] == 1 and 1 <= st["arp_requests"] <= 2, st
    assert st["sent"] == 50 and st["received"] == 50 and st["lost"] == 0 and 0 < st["p50_us"] < 50_000, st
    # the session goes with its port
    assert sw.mgmt_cmd("port-del s1") == "OK" and sw.mgmt_cmd("probe-stats s1 1") == "ERROR no probe s1 1"


def test_probes_on_the_af_packet_switch(processes: Any, controller: Controller, hosts: list[Host],
                                        tmp_path: Path) -> None:
    sw = start_switch(processes, controller, hosts[:2], tmp_path, pofswitch_afp())
    probes_measure_the_path_and_see_a_flow_go(controller, sw, hosts[1])
    assert sw.proc.poll() is None


def test_probes_on_the_dpdk_switch(request: Any, processes: Any, controller: Controller, hosts: list[Host],
                                   hugepages: Any, tmp_path: Path) -> None:
    """The same through the DPDK build (net_af_packet ports): the probes live in the shell both backends share."""
    binary = BUILD / "pofswitch"
    if not binary.exists():
        pytest.skip("pofswitch (DPDK) not built")
    prefix = f"poftest{os.getpid()}"
    request.addfinalizer(lambda: shutil.rmtree(Path("/var/run/dpdk") / prefix, ignore_errors=True))
    argv = [str(binary), "-l", "1", "--in-memory", "--huge-dir", str(hugepages.mount), "--no-pci",
            "--file-prefix", prefix, "--no-telemetry", "--", "--controller", f"127.0.0.1:{controller.port}",
            "--mgmt", str(tmp_path / "mgmt.sock"), *SCRIPTED_CONTROLLER_ARGS]
    for i, h in enumerate(hosts[:2], 1):
        argv += ["--port", f"s{i}=net_af_packet{i},iface={h.switch_if}"]
    proc = processes.start(argv, log_name="pofswitch-dpdk")
    controller.accept(timeout=20)
    ports = controller.handshake()
    for p in ports.values():
        controller.enable_port(p)
    sw = Switch(proc, tmp_path / "mgmt.sock", ports)
    probes_measure_the_path_and_see_a_flow_go(controller, sw, hosts[1])
    assert processes.stop(proc) == 0  # a clean exit: sessions, ports and EAL torn down
