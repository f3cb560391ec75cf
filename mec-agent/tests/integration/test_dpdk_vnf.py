"""Our own DPDK vNF (vnfs/dpdk-vnf) deployed by the agent as a chain of two through the real DPDK pofswitch:
packets pass both, each reports itself in stats.json (mode, cost, bursts), and once traffic stops they sleep.

The switch (bench/common.py's SteeredPofSwitch: src = net_null, sink = tx-only net_null, flows steered by input
port) sends src -> vNF1 (fwd) -> vNF2 (cost, 2000 cycles a packet) -> sink, then src -> sink directly: both vNFs
are idle and their CPU time over IDLE_S seconds must stay under IDLE_CPU_PCT of one core each.

The same program as a two-port bump in the wire (catalog dpdk-bridge, issue 14): src -> 'in', 'out' -> sink, then
the reverse (src -> 'out', 'in' -> sink); the sink gets what entered the bridge, stats.json counts it per port."""

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


def stats_of(node: RealNode, vnf_id: int, fresh: bool = False) -> dict:
    """The vNF's stats.json; FRESH: one written after this call (the vNF rewrites it every 500 ms, so a plain read
    can miss the last half second, which a busy 2-core machine stretches further)."""
    path = node.manager.vnf_dir(vnf_id) / "stats.json"
    if fresh:
        asked, deadline = time.time_ns(), time.monotonic() + 10
        while path.stat().st_mtime_ns <= asked:
            assert time.monotonic() < deadline, f"vNF {vnf_id} wrote no stats.json for 10 s"
            time.sleep(0.05)
    return json.loads(path.read_text())


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
    ns = netns("mecv")
    # both vNFs on the other CPU, the switch's lcore alone
    node = RealNode.beside_dpdk_switch(ns, private_dockerd, hugepages, tmp_path)
    # forwarding and sleeping, measured without the head dropping for backpressure (test_dpdk_backpressure.py)
    node.config.dataplane_backpressure = False
    ports = [("src", "net_null0,size=1500"), ("sink", "net_null1,no-rx=1")]
    with node.on_steered_switch(hugepages, tmp_path, ports, "dv") as sw:
        ids = chain_forwards_then_sleeps(node, sw)
        for vnf_id in ids:
            node.manager.delete(vnf_id)
        assert not any(node.holdings().values()), node.holdings()


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


def test_dpdk_bridge_passes_traffic_both_ways_between_its_ports(private_dockerd: Any, netns: Any, hugepages: Any,
                                                                 tmp_path: Path) -> None:
    ns = netns("mecb")
    node = RealNode.beside_dpdk_switch(ns, private_dockerd, hugepages, tmp_path)
    node.config.dataplane_backpressure = False
    ports = [("src", "net_null0,size=1500"), ("sink", "net_null1,no-rx=1")]
    with node.on_steered_switch(hugepages, tmp_path, ports, "db") as sw:
        vnf_id = bridge_both_ways(node, sw)
        node.manager.delete(vnf_id)
        assert not any(node.holdings().values()), node.holdings()  # no switch port of ours is left


def through(sw: Any, entry: str, what: str) -> int:
    """Packets that entered the bridge on port ENTRY over TRAFFIC_S s (the switch's tx to it: a full ring drops
    uncounted), checked against what reached the sink."""
    deadline = time.monotonic() + 20
    start = sw.counters()["sink"].tx_packets
    while sw.counters()["sink"].tx_packets <= start:
        assert time.monotonic() < deadline, f"{what}: nothing passed the bridge: {sw.counters()}\n{sw.tails()}"
        time.sleep(0.2)
    before = sw.counters()
    time.sleep(TRAFFIC_S)
    after = sw.counters()
    entered = after[entry].tx_packets - before[entry].tx_packets
    delivered = after["sink"].tx_packets - before["sink"].tx_packets
    assert entered >= 10_000, f"{what}: only {entered} packets into the bridge in {TRAFFIC_S} s"
    assert delivered >= 0.9 * entered, f"{what}: {entered} entered, {delivered} reached the sink"
    print(f"{what}: {entered} entered, {delivered} delivered in {TRAFFIC_S} s")
    return entered


def bridge_both_ways(node: RealNode, sw: Any) -> int:
    state = node.manager.create({"tenant_id": 6, "instance_id": 3, "image": "dpdk-bridge", "chain_position": 0,
                                 "cpu": 0.5, "memory_mib": 128, "params": {"mode": "cost", "cost_cycles": 500}})
    vnf_id = state["vnf_id"]
    p_in, p_out = state["ports"]
    assert p_out["name"] == p_in["name"] + "1", state["ports"]  # named as a kernel vNF's second veth
    first = wait_stats(node, vnf_id)
    assert len(first["ports"]) == 2 and first["mode"] == "cost", first
    src, sink = sw.port_ids["src"], sw.port_ids["sink"]
    ctl, pofctl = sw.ctl, sw.pofctl

    def route(index: int, in_port: int, out_port: int) -> None:  # modify flow INDEX of steer's table
        ctl.flow(0, 0, index, [pofctl.mx({"field_id": 0xFFFF, "offset": 16, "length": 8}, bytes([in_port]))],
                 [{"type": "APPLY_ACTIONS", "actions": [pofctl.output(out_port)]}], priority=10, command=1)

    sw.steer([(src, p_in["pof_port"]), (p_out["pof_port"], sink)])
    forward = through(sw, p_in["name"], "in -> out")
    fwd = stats_of(node, vnf_id, fresh=True)  # counted after the window: it holds all that entered in it
    assert fwd["ports"][0]["rx_packets"] >= 0.9 * forward, fwd  # taken from 'in'
    assert fwd["ports"][1]["tx_packets"] >= 0.9 * fwd["ports"][0]["rx_packets"], fwd  # ... left by 'out'
    assert fwd["ports"][1]["rx_packets"] == 0 and fwd["ports"][0]["tx_packets"] == 0, fwd
    assert fwd["cost_cycles_spent"] >= 500 * fwd["ports"][1]["tx_packets"], fwd

    route(0, src, p_out["pof_port"])  # the reverse: src -> 'out', 'in' -> sink
    route(1, p_in["pof_port"], sink)
    ctl.echo()
    backward = through(sw, p_out["name"], "out -> in")
    rev = stats_of(node, vnf_id, fresh=True)
    assert rev["ports"][1]["rx_packets"] >= 0.9 * backward, rev
    assert rev["ports"][0]["tx_packets"] >= 0.9 * rev["ports"][1]["rx_packets"], rev
    assert rev["rx_packets"] == rev["ports"][0]["rx_packets"] + rev["ports"][1]["rx_packets"], rev
    assert rev["tx_packets"] == rev["ports"][0]["tx_packets"] + rev["ports"][1]["tx_packets"], rev
    reported = StatsCollector(node.manager).collect(vnf_id)["vnfs"][0]["ports"]
    assert [p["name"] for p in reported] == [p_in["name"], p_out["name"]], reported

    route(0, src, sink)  # traffic off: the bridge sleeps on both rings
    ctl.echo()
    time.sleep(1.0)
    quiet = stats_of(node, vnf_id)
    time.sleep(1.5)
    idle = stats_of(node, vnf_id)
    assert idle["rx_packets"] == quiet["rx_packets"] and idle["idle_sleeps"] > quiet["idle_sleeps"], (quiet, idle)
    print(f"bridge idle: wake {idle['wake']}, {idle['intr_wakeups'] - quiet['intr_wakeups']} rx-interrupt wakeups")
    return vnf_id
