"""A slice whose chain is one DPDK vNF (catalog dpdk-vnf), end to end on the testbed with the DPDK MEC switch (the
testbed's default):

    run(tb, log, tokens=None) -> dict of results (counters, checks)

The tenant POSTs the slice to the orchestrator (vAP, caps, one dpdk-vnf); the mec-agent gives the vNF a vhost-user
port on the DPDK pofswitch, the network controller paths the vAP to it. dpdk-vnf has one port and sends every
packet back out of it with the MACs swapped (macswap), and a one-port vNF can only end a path (network-controller
README), so the slice's traffic goes station -> air -> AP switch -> core switch -> MEC switch -> vNF and back the
same way to the station: there is no server past it. The station pings with a static neighbour entry for its
gateway (the vNF answers no ARP); the echo requests come back to the station (addressed to the server, so the
station's IP drops them after they arrived: ping reports 100 % loss, which is expected). Counted: what the vNF
received and sent (its stats.json), what the switch sent its port, what came back to the station's interface.
Deleting the slice must leave no container and no vhost port on the switch.

Then a second tenant's slice with the demo's kernel-fwd vNF on the same DPDK switch (its veth a net_af_packet vdev
there), routed to the server namespace as in e2e_slice: the station's pings reach the server and come back.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

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
DPDK_VNF = {"image": "dpdk-vnf", "cpu": 0.5, "memory_mib": 128, "params": {"mode": "fwd"}}


def vnf_mac(vnf_id: int) -> str:
    """The vNF's MAC as the mec-agent gives it (02:00 + the vnf_id's 32 bits)."""
    return "02:00:" + ":".join(f"{b:02x}" for b in vnf_id.to_bytes(4, "big"))


def vnf_stats(tb: Any, vnf_id: int) -> dict[str, Any]:
    """dpdk-vnf's own counters: /run/vnf/stats.json, which is the agent's per-vNF directory on the node."""
    return json.loads((tb.mec.state_dir / "state" / "vnfs" / str(vnf_id) / "stats.json").read_text())


def switch_ports(tb: Any) -> dict[str, Any]:
    from wislice_agent_proto.switch_mgmt import SwitchMgmt

    return SwitchMgmt(str(tb.mec.mgmt)).ports()


def station_rx(s: SliceRun) -> int:
    return int(s.station.exec(f"cat /sys/class/net/{s.station.ifname}/statistics/rx_packets").out.strip())


def cpu_s(pid: int) -> float:
    """User + system CPU seconds of a process so far (/proc/<pid>/stat utime, stime)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run(tb: Any, log: StepLog, tokens: dict[int, str] | None = None) -> dict[str, Any]:
    """``tokens``: tenants 1 and 2 already set up by the operator (a shared testbed); None: set them up here."""
    s = SliceRun(1, "dpdk", DOWN_CAP_KBPS, tb.ap.stations[0], token=(tokens or {}).get(1, ""))
    k = SliceRun(2, "kern", DOWN_CAP_KBPS, tb.ap.stations[-1], token=(tokens or {}).get(2, ""))
    results: dict[str, Any] = {"checks": {}, "counts": {}}
    checks, counts = results["checks"], results["counts"]
    if tokens is None:
        operator_setup(tb, log, [s, k])
    with log.step("slice_create", "tenant creates a slice whose chain is one dpdk-vnf (vhost-user port)"):
        sl = create_slice(tb, log, s, {**slice_body(s, tb.ap.agent_id), "vnfs": [DPDK_VNF]})
    checks["slice_active"] = sl["status"] == "active"
    port = f"{VETH_PREFIX}{s.vnf_id:08x}"
    checks["vhost_port_on_switch"] = port in switch_ports(tb)
    wait_for("dpdk-vnf stats.json", lambda: vnf_stats(tb, s.vnf_id), timeout=30, period=0.5)
    idle_from = (time.monotonic(), cpu_s(tb.mec.switch.pid))
    with log.step("associate", "station associates to the slice's SSID (WPA2-PSK)"):
        associate(tb, log, s)
    # The DPDK switch's CPU while the slice carries nothing (the station associating): adaptive polling's sleep.
    counts["switch_idle_cpu_pct"] = round(100 * (cpu_s(tb.mec.switch.pid) - idle_from[1])
                                          / (time.monotonic() - idle_from[0]), 1)
    # The vNF answers no ARP: the gateway's neighbour entry is static (the vNF's MAC; macswap does not care).
    s.station.exec(f"ip neigh replace {s.gw_addr} lladdr {vnf_mac(s.vnf_id)} dev {s.station.ifname}")
    before_vnf, before_port, before_rx = vnf_stats(tb, s.vnf_id), switch_ports(tb)[port], station_rx(s)
    with log.step("ping", f"{PINGS} pings station -> POF path -> dpdk-vnf (macswap) -> back to the station"):
        s.station.exec(f"ping -q -c {PINGS} -i {PING_INTERVAL_S} -W 1 {s.server_addr}", timeout=60, check=False)
        time.sleep(1.0)  # the vNF writes stats.json every 500 ms
    after_vnf, after_port, after_rx = vnf_stats(tb, s.vnf_id), switch_ports(tb)[port], station_rx(s)
    counts.update({
        "pings": PINGS,
        "vnf_rx": after_vnf["rx_packets"] - before_vnf["rx_packets"],
        "vnf_tx": after_vnf["tx_packets"] - before_vnf["tx_packets"],
        "switch_to_vnf": after_port.tx_packets - before_port.tx_packets,
        "switch_from_vnf": after_port.rx_packets - before_port.rx_packets,
        "station_rx": after_rx - before_rx,
        "vnf_wake": after_vnf.get("wake")})
    log.say("counts: " + ", ".join(f"{k}={v}" for k, v in counts.items()))
    with log.step("slice_delete", "tenant deletes the slice"):
        gone = delete_slice(tb, log, s)
    checks.update(gone)
    checks["vhost_port_gone"] = not [p for p in switch_ports(tb) if p.startswith(VETH_PREFIX)]
    with log.step("kernel_slice", "tenant 2: a kernel-fwd slice on the DPDK switch, station -> vNF -> server"):
        create_slice(tb, log, k)
        checks["kernel_port_on_switch"] = f"{VETH_PREFIX}{k.vnf_id:08x}" in switch_ports(tb)
        wire_server_side(tb, k)
        associate(tb, log, k)
        ok, summary = wait_for("ping through the kernel-fwd slice", lambda: (lambda r: r if r[0] else None)(
            ping(tb, k)), timeout=30, period=1)
        log.say(f"kernel-fwd slice ping: {summary}")
        checks["kernel_slice_ping"] = ok
        checks.update({f"kernel_{key}": v for key, v in delete_slice(tb, log, k).items()})
    checks["kernel_port_gone"] = not [p for p in switch_ports(tb) if p.startswith(VETH_PREFIX)]
    results["tokens"] = {r.tenant_id: r.token for r in (s, k)}
    return results
