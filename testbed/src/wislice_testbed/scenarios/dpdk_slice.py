"""A slice whose chain holds a DPDK vNF, end to end on the testbed, whose MEC switch is the DPDK pofswitch:

    run(tb, log, tokens=None) -> dict of results (counters, checks)

The tenant POSTs the slice to the orchestrator: a vAP, caps, and the chain [dpdk-bridge, kernel-fwd]. dpdk-bridge
is our DPDK vNF with two ports (mec-agent/vnfs/dpdk-vnf, --ports 2): the mec-agent gives it two vhost-user ports
on the switch, 'in' and 'out', and it passes what arrives on one out of the other unchanged; the kernel-fwd behind
it routes the slice's subnet to the server namespace, as in the demo. So the station's pings cross the air, the AP
and core switches, the MEC switch into the bridge's 'in', out of its 'out' back into the switch, into kernel-fwd,
to the server, and the replies the same way back. Counted: the replies, what the bridge received and sent on each
port (its stats.json), what the switch sent each of its ports. Deleting the slice must leave no container and no
switch port of either vNF.
"""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path
from typing import Any

from wislice_mec_agent.ids import host_ifnames

from wislice_testbed.scenarios.e2e_slice import (
    SliceRun,
    associate,
    create_slice,
    delete_slice,
    operator_setup,
    ping,
    slice_body,
    wire_server_side,
)
from wislice_testbed.topology.common import StepLog, wait_for
from wislice_testbed.topology.mecnode import VETH_PREFIX

PINGS = 200
PING_INTERVAL_S = 0.02
DOWN_CAP_KBPS = 4_000  # its guarantee (half, and a tenth up) fits the calibrated radio of the shared testbed
BRIDGE = {"image": "dpdk-bridge", "cpu": 0.5, "memory_mib": 128, "params": {"mode": "fwd"}}
FORWARDER = {"image": "kernel-fwd", "cpu": 0.1, "memory_mib": 32}


def vnf_stats(tb: Any, vnf_id: int) -> dict[str, Any]:
    """dpdk-vnf's own counters: /run/vnf/stats.json, which is the agent's per-vNF directory on the node."""
    return json.loads((tb.mec.state_dir / "state" / "vnfs" / str(vnf_id) / "stats.json").read_text())


def switch_ports(tb: Any) -> dict[str, Any]:
    from wislice_agent_proto.switch_mgmt import SwitchMgmt

    return SwitchMgmt(str(tb.mec.mgmt)).ports()


def cpu_s(pid: int) -> float:
    """User + system CPU seconds of a process so far (/proc/<pid>/stat utime, stime)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def replies(output: str) -> int:
    """Echo replies ping counted ("200 packets transmitted, 198 received")."""
    match = re.search(r"(\d+) (?:packets )?received", output)
    return int(match.group(1)) if match else 0


def run(tb: Any, log: StepLog, tokens: dict[int, str] | None = None) -> dict[str, Any]:
    """``tokens``: tenant 1 already set up by the operator (a shared testbed); None: set it up here."""
    s = SliceRun(1, "dpdk", DOWN_CAP_KBPS, tb.ap.stations[0], token=(tokens or {}).get(1, ""))
    results: dict[str, Any] = {"checks": {}, "counts": {}}
    checks, counts = results["checks"], results["counts"]
    if tokens is None:
        operator_setup(tb, log, [s])
    with log.step("slice_create", "tenant creates a slice whose chain is dpdk-bridge (two vhost-user ports), "
                                  "kernel-fwd"):
        sl = create_slice(tb, log, s, {**slice_body(s, tb.ap.agent_id), "vnfs": [BRIDGE, FORWARDER]})
    checks["slice_active"] = sl["status"] == "active"
    by_image = {v["image"]: v["vnf_id"] for v in sl["vnfs"]}
    bridge, s.vnf_id = by_image["dpdk-bridge"], by_image["kernel-fwd"]  # the forwarder routes to the server
    ports = host_ifnames(VETH_PREFIX, bridge, 2)  # its switch ports, 'in' and 'out', as the mec-agent names them
    checks["bridge_ports_on_switch"] = all(p in switch_ports(tb) for p in ports)
    wait_for("dpdk-bridge stats.json", lambda: vnf_stats(tb, bridge), timeout=30, period=0.5)
    wire_server_side(tb, s)
    idle_from = (time.monotonic(), cpu_s(tb.mec.switch.pid))
    with log.step("associate", "station associates to the slice's SSID (WPA2-PSK)"):
        associate(tb, log, s)
    # The DPDK switch's CPU while the slice carries nothing (the station associating): adaptive polling's sleep.
    counts["switch_idle_cpu_pct"] = round(100 * (cpu_s(tb.mec.switch.pid) - idle_from[1])
                                          / (time.monotonic() - idle_from[0]), 1)
    wait_for("a first echo through the chain", lambda: ping(tb, s)[0], timeout=30, period=1)
    before_vnf, before_sw = vnf_stats(tb, bridge), switch_ports(tb)
    with log.step("ping", f"{PINGS} pings station -> POF path -> dpdk-bridge -> kernel-fwd -> server and back"):
        out = s.station.exec(f"ping -q -c {PINGS} -i {PING_INTERVAL_S} -W 1 {s.server_addr}", timeout=60,
                             check=False).out
        time.sleep(1.0)  # the vNF writes stats.json every 500 ms
    after_vnf, after_sw = vnf_stats(tb, bridge), switch_ports(tb)
    per_port = [{k: a[k] - b[k] for k in ("rx_packets", "tx_packets")}
                for a, b in zip(after_vnf["ports"], before_vnf["ports"], strict=True)]
    counts.update({
        "pings": PINGS, "replies": replies(out),
        "bridge_in_rx": per_port[0]["rx_packets"], "bridge_out_tx": per_port[1]["tx_packets"],
        "bridge_out_rx": per_port[1]["rx_packets"], "bridge_in_tx": per_port[0]["tx_packets"],
        "switch_to_bridge_in": after_sw[ports[0]].tx_packets - before_sw[ports[0]].tx_packets,
        "switch_from_bridge_out": after_sw[ports[1]].rx_packets - before_sw[ports[1]].rx_packets,
        "switch_to_bridge_out": after_sw[ports[1]].tx_packets - before_sw[ports[1]].tx_packets,
        "switch_from_bridge_in": after_sw[ports[0]].rx_packets - before_sw[ports[0]].rx_packets,
        "bridge_wake": after_vnf.get("wake")})
    log.say("counts: " + ", ".join(f"{k}={v}" for k, v in counts.items()))
    with log.step("slice_delete", "tenant deletes the slice"):
        gone = delete_slice(tb, log, s)
    checks.update(gone)
    checks["bridge_gone"] = tb.mec.vnf_container(bridge) is None
    checks["switch_ports_gone"] = not [p for p in switch_ports(tb) if p.startswith(VETH_PREFIX)]
    results["tokens"] = {s.tenant_id: s.token}
    return results
