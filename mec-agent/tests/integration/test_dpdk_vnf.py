"""Our own DPDK vNF (vnfs/dpdk-vnf) deployed by the agent as a chain of two through the real DPDK pofswitch:
packets pass both, each reports itself in stats.json (mode, cost, bursts), and once traffic stops they sleep.

The switch (bench/common.py's SteeredPofSwitch: src = net_null, sink = tx-only net_null, flows steered by input
port) sends src -> vNF1 (fwd) -> vNF2 (cost, 2000 cycles a packet) -> sink, then src -> sink directly: both vNFs
are idle and their CPU time over IDLE_S seconds must stay under IDLE_CPU_PCT of one core each."""

from __future__ import annotations

import itertools
import json
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from wislice_mec_agent.cgroups import host
from wislice_mec_agent.stats import StatsCollector
from wislice_mec_agent.switch import NoSwitch

from .conftest import RealNode
from .switches import ROOT

pytestmark = pytest.mark.integration
sys.path.insert(0, str(ROOT / "mec-agent" / "bench"))

TRAFFIC_S = 2.0
IDLE_S = 5.0
# Idle, a vNF wakes for its stats every 500 ms (rx-interrupt mode) or at most every 1 ms (backoff: 1000 short
# wakeups a second, ~1% of a core here); 5% leaves room for a loaded shared machine, while a busy-polling vNF
# (testpmd) burns whatever CPU it gets: 30-100% of a core even when two share one.
IDLE_CPU_PCT = 5.0
COST_CYCLES = 2000


def cpu_ns(cgroups: Any, groups: list[Any]) -> list[int]:
    return [cgroups.cpu_usage_ns(g) or 0 for g in groups]


def stats_of(node: RealNode, vnf_id: int) -> dict:
    return json.loads((node.manager.vnf_dir(vnf_id) / "stats.json").read_text())


def wait_stats(node: RealNode, vnf_id: int, timeout: float = 15.0) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        try:
            return stats_of(node, vnf_id)
        except (OSError, ValueError):
            assert time.monotonic() < deadline, f"vNF {vnf_id} wrote no stats.json in {timeout} s"
            time.sleep(0.1)


def test_chain_of_our_dpdk_vnf_forwards_then_sleeps(private_dockerd: Any, netns: Any, hugepages: Any,
                                                     tmp_path: Path) -> None:
    from common import SteeredPofSwitch

    ns = netns("mecv")
    # both vNFs on the other CPU, the switch's lcore alone
    node = RealNode.beside_dpdk_switch(ns, private_dockerd, hugepages, tmp_path)
    # forwarding and sleeping, measured without the head dropping for backpressure (test_dpdk_backpressure.py)
    node.config.dataplane_backpressure = False
    ports = [("src", "net_null0,size=1500"), ("sink", "net_null1,no-rx=1")]
    cleaned = False
    try:
        with SteeredPofSwitch(ns, str(hugepages.mount), tmp_path, ports, tag="dv") as sw:
            node.switch = node.manager.switch = sw.switch
            try:
                ids = chain_forwards_then_sleeps(node, sw)
                for vnf_id in ids:
                    node.manager.delete(vnf_id)
                assert not any(node.holdings().values()), node.holdings()
            finally:  # containers and switch ports go while the switch is still there
                node.cleanup()
                cleaned = True
    finally:
        if not cleaned:
            node.switch = NoSwitch()
            node.cleanup()


def chain_forwards_then_sleeps(node: RealNode, sw: Any) -> list[int]:
    specs = [{"tenant_id": 6, "instance_id": 1, "image": "dpdk-vnf", "chain_position": 0, "cpu": 0.5,
              "memory_mib": 128, "params": {"mode": "fwd"}},
             {"tenant_id": 6, "instance_id": 2, "image": "dpdk-vnf", "chain_position": 1, "cpu": 0.5,
              "memory_mib": 128, "params": {"mode": "cost", "cost_cycles": COST_CYCLES, "burst": 64}}]
    states = [node.manager.create(s) for s in specs]
    ids = [s["vnf_id"] for s in states]
    names = [s["ports"][0]["name"] for s in states]
    for vnf_id in ids:
        wait_stats(node, vnf_id)
    path = [sw.port_ids["src"], *(s["ports"][0]["pof_port"] for s in states), sw.port_ids["sink"]]
    sw.steer(list(itertools.pairwise(path)))

    # Traffic: the sink gets what passed both vNFs, and each vNF's port carried it both ways.
    deadline = time.monotonic() + 20
    while sw.counters()["sink"].tx_packets == 0:
        assert time.monotonic() < deadline, f"nothing passed the chain: {sw.counters()}\n{sw.tails()}"
        time.sleep(0.2)
    before = sw.counters()
    time.sleep(TRAFFIC_S)
    after = sw.counters()
    # While it flows: the cost vNF's p99 processing time is at least its cost, through the agent's stats too.
    costly = stats_of(node, ids[1])
    assert costly["proc_packets"] > 0 and costly["proc_p99_ns"] >= costly["cost_ns"], costly
    reported = StatsCollector(node.manager).collect(ids[1])["vnfs"][0]
    assert reported["proc_p99_us"] >= costly["cost_ns"] / 1000, reported
    delivered = after["sink"].tx_packets - before["sink"].tx_packets
    assert delivered >= 10_000, f"only {delivered} packets in {TRAFFIC_S} s through the chain"
    for name in names:
        moved = (after[name].tx_packets - before[name].tx_packets,
                 after[name].rx_packets - before[name].rx_packets)
        assert min(moved) >= 0.9 * delivered, (name, moved, delivered)

    # Stop the chain's traffic: src straight to the sink (flow 0 of steer's table, modified).
    ctl, pofctl = sw.ctl, sw.pofctl
    ctl.flow(0, 0, 0, [pofctl.mx({"field_id": 0xFFFF, "offset": 16, "length": 8},
                                 bytes([sw.port_ids["src"]]))],
             [{"type": "APPLY_ACTIONS", "actions": [pofctl.output(sw.port_ids["sink"])]}], priority=10,
             command=1)
    ctl.echo()
    time.sleep(1.0)  # the last packets drain, the stats file catches up
    busy = [stats_of(node, v) for v in ids]
    assert busy[0]["mode"] == "fwd" and busy[1]["mode"] == "cost" and busy[1]["cost_cycles"] == COST_CYCLES
    assert busy[1]["burst"] == 64 and busy[0]["burst"] == 32
    for s in busy:
        assert s["rx_packets"] >= delivered and s["tx_packets"] >= 0.9 * s["rx_packets"], s
        assert s["mean_burst"] >= 1 and sum(s["burst_hist"]) > 0, s
    assert busy[1]["cost_cycles_spent"] >= COST_CYCLES * busy[1]["tx_packets"], busy[1]

    cgroups = host()
    groups = [cgroups.of_pid(node.runtime.inspect(node.manager.store.get(v).container_id).pid) for v in ids]
    assert all(g is not None for g in groups)
    used0, t0 = cpu_ns(cgroups, groups), time.monotonic()
    time.sleep(IDLE_S)
    used1, t1 = cpu_ns(cgroups, groups), time.monotonic()
    idle = [stats_of(node, v) for v in ids]
    pct = [(b - a) / 1e9 / (t1 - t0) * 100 for a, b in zip(used0, used1, strict=True)]
    assert all(u1 > 0 for u1 in used1), "the cgroups report no CPU usage: the check would prove nothing"
    for s0, s1, p in zip(busy, idle, pct, strict=True):
        assert s1["rx_packets"] == s0["rx_packets"], "traffic still reached an idle vNF"
        assert s1["idle_sleeps"] > s0["idle_sleeps"], (s0, s1)
        assert p < IDLE_CPU_PCT, f"an idle vNF used {p:.1f}% of a core over {IDLE_S} s ({s1['wake']})"
    print(f"idle CPU per vNF: {[round(p, 2) for p in pct]} % ({idle[0]['wake']})")

    return ids
