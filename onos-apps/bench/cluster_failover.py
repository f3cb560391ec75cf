"""cluster-failover (issue 17): kill -9 of an ONOS node mid-traffic on the three-node cluster, repeated.

One cluster bring-up (runtime/onos-cluster). Three real pofswitch-afp switches, each bridging two namespaces of its
own, dial the nodes' POF listeners in rotated orders (A B C, B C A, C A B), so each node masters one switch; a
one-hop slice with up and down meters over each (POSTed on A, C and B: two through a node that is not the
switch's master), a 10 ms ping through each (tests/cluster/real_switches.py). Each round kills the Karaf of a node
not killed yet that masters some but not all switches (fewest first), measures, and restarts it; then a
protocol-level MEC agent on one node is driven through REST on another, and the slices are deleted.
Writes bench/results/cluster-failover.json (bench/benchlib.py). Needs root; starts ~3 GiB of JVMs.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ONOS_APPS = HERE.parent
sys.path.insert(0, str(ONOS_APPS / "tests" / "cluster"))
sys.path.insert(0, str(ONOS_APPS / "tests"))
sys.path.insert(0, str(ONOS_APPS.parent / "bench"))

from benchlib import write_result  # noqa: E402
from cluster_helpers import Cluster, running_cluster, wait_for  # noqa: E402
from fake_agent import FakeAgent  # noqa: E402
from real_switches import (  # noqa: E402
    POFSWITCH,
    Rig,
    failover_round,
    install_slice,
    masters_of,
    rejoin,
    remove_slices,
    state,
    wait_settled,
)


def pick_victim(cluster: Cluster, rig: Rig, killed: set[str]) -> str:
    """A node not killed yet that masters at least one switch but not all (so some slice keeps its master),
    the one with the fewest; any such node once every node has been killed."""
    nodes = sorted(cluster.nodes)
    by_device = wait_for("every switch's master", lambda: masters_of(cluster, nodes[0], rig.switches), 20)
    masters = [by_device[sw.device] for sw in rig.switches]
    held = {n: masters.count(n) for n in nodes}
    candidates = [n for n in nodes if 0 < held[n] < len(rig.switches)]
    fresh = [n for n in candidates if n not in killed] or candidates
    assert fresh, f"no node masters only part of the switches: {masters}"
    return min(fresh, key=lambda n: (held[n], n))


async def forwarded_rest(cluster: Cluster, agent_node: str, rest_node: str, samples: int) -> list[float]:
    """A vNF on a MEC agent connected to ``agent_node``, its statistics read through ``rest_node``: each call is
    forwarded over the cluster to the agent's node (as test_agents_on_any_node_and_calls_forwarded_to_their_node)."""
    agent = FakeAgent("mec-bench", role="mec", port=cluster.nodes[agent_node]["nfv"], secret=cluster.state["secret"])
    await agent.connect(retry_s=30)
    await asyncio.wait_for(agent.synced.wait(), 20)
    try:
        spec = {"tenant_id": 1, "instance_id": 9, "image": "firewall", "params": {}, "cpu": 1, "memory_mib": 64,
                "chain_position": 0, "node": "mec-bench"}
        code, out = await asyncio.to_thread(cluster.request, rest_node, "POST", "/onos/nfv/vnfs", spec, 30)
        assert code == 201, out
        vnf_id = out["vnf"]["vnf_id"]
        times = []
        for _ in range(samples):
            t0 = time.monotonic()
            code, body = await asyncio.to_thread(cluster.get, rest_node, f"/onos/nfv/vnfs/{vnf_id}/stats")
            times.append((time.monotonic() - t0) * 1000)
            assert code == 200 and body["vnf_id"] == vnf_id, body
        code, _ = await asyncio.to_thread(cluster.request, rest_node, "DELETE", f"/onos/nfv/vnfs/{vnf_id}")
        assert code == 204
        return times
    finally:
        await agent.close()


def scenario(cluster: Cluster, rig: Rig, rounds: int) -> dict:
    nodes = sorted(cluster.nodes)
    a, b, c = nodes
    pof = [cluster.nodes[n]["pof"] for n in nodes]
    for k in range(3):
        sw = rig.add_switch(0x1721 + k, pof[k:] + pof[:k])
        wait_for(f"{sw.device} available, mastered by {nodes[k]}", lambda sw=sw, k=k: all(
            cluster.available(n, sw.device) and cluster.master(n, sw.device) == nodes[k] for n in nodes), 60)
    empty = wait_for("every view of the switches without flows", lambda: (
        st := state(cluster, nodes, rig.switches)) and not st["errors"] and st, 60)
    for sw, node in zip(rig.switches, (a, c, b)):
        install_slice(cluster, node, sw)
    before = wait_settled(cluster, nodes, rig.switches, 90)
    rig.start_streams()
    wait_for("every stream answered", lambda: all(len(sw.stream.replies()) >= 50 for sw in rig.switches), 30)
    runs, killed = [], set()
    for i in range(rounds):
        victim = pick_victim(cluster, rig, killed)
        killed.add(victim)
        out = failover_round(cluster, rig, victim, before)
        out.update({f"after_{k}": v for k, v in rejoin(cluster, rig, victim, before, timeout=30).items()})
        print(f"[cluster-failover] round {i + 1}: {out}", flush=True)
        runs.append(out)
    rig.stop_streams()
    rest_ms = asyncio.run(forwarded_rest(cluster, a, c, 20))
    leaked, what = remove_slices(cluster, b, rig, empty)
    print(f"[cluster-failover] rest {sorted(rest_ms)}; left after the slices were deleted: {leaked} {what}", flush=True)
    return {"runs": runs, "rest_ms": rest_ms, "leaked_at_end": leaked, "leaked_what": what}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    if os.geteuid() != 0:
        sys.exit("cluster-failover needs root (namespaces, veths)")
    if not POFSWITCH.exists():
        sys.exit(f"{POFSWITCH} not built (make -C pof-switch build)")
    load_start = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="wislice-failover-") as work, running_cluster() as cluster:
        rig = Rig(Path(work))
        try:
            out = scenario(cluster, rig, args.rounds)
        finally:
            rig.close()
    load_end = os.getloadavg()[0]
    runs = out["runs"]
    lost = sum(r["lost_or_leaked"] + r["after_lost_or_leaked"] for r in runs) + out["leaked_at_end"]
    med = lambda key: round(statistics.median(r[key] for r in runs), 2)  # noqa: E731
    metrics = {"nodes": 3, "failover_s": med("failover_s"), "slice_gap_ms": med("kept_gap_ms"),
               "orphan_gap_ms": med("orphan_gap_ms"), "redial_s": med("redial_s"),
               "mastership_s": med("mastership_s"), "rejoin_s": med("after_rejoin_s"),
               "rest_forward_p50_ms": round(statistics.median(out["rest_ms"]), 1), "lost_or_leaked": lost,
               "pings_lost": sum(r["pings_lost"] for r in runs), "kills": len(runs),
               "stale_flow_views": sum(len(r["stale_views"]) + len(r["after_stale_views"]) for r in runs),
               "loadavg_start": round(load_start, 2), "loadavg_end": round(load_end, 2)}
    units = {"nodes": "nodes", "failover_s": "s", "slice_gap_ms": "ms", "orphan_gap_ms": "ms", "redial_s": "s",
             "mastership_s": "s", "rejoin_s": "s", "rest_forward_p50_ms": "ms", "lost_or_leaked": "items",
             "pings_lost": "pings", "kills": "kills", "stale_flow_views": "views", "loadavg_start": "1-min load", "loadavg_end": "1-min load"}
    per_round = "; ".join(
        f"kill {r['victim']}: orphans {r['orphans']} -> {r['new_masters']}, redial {r['redial_s']} s, mastership "
        f"{r['mastership_s']} s, failover {r['failover_s']} s, gaps kept {r['kept_gap_ms']} ms / orphan "
        f"{r['orphan_gap_ms']} ms, the orphans' datapath sampled every 50 ms {r['orphan_datapath']}, rejoin "
        f"{r['after_rejoin_s']} s, differences {r['differences'] + r['after_differences']}, stale flow views "
        f"{r['stale_views'] + r['after_stale_views']}" for r in runs)
    notes = (
        "Three ONOS 2.5.6 nodes over three Atomix 3.1.9 nodes on this machine (runtime/onos-cluster), three real "
        "pofswitch-afp switches dialling the nodes' POF listeners in rotated orders (one master each), a one-hop "
        "slice with up and down meters (20 Mbit/s) over each, a 10 ms ping through each "
        "(onos-apps/tests/cluster/real_switches.py). Each kill: kill -9 of a node's Karaf (a node not killed "
        "before, mastering some but not all switches). failover_s = kill -> every orphaned switch available and "
        "mastered by a survivor in both survivors' views AND every switch's pof flows in its master's view, "
        "every survivor's view of its meters (ids, states, bands) and each switch's own flow and table counts "
        "(management socket `stats`) exactly as before the kill (a non-master node's view of the flows goes through "
        "ONOS's flow store to the master and may be stale: stale_flow_views counts those seen at the end of each "
        "failover and rejoin, docs/onos-cluster.md). redial_s = kill -> the switch logged its handshake with a survivor; "
        "mastership_s = kill -> both survivors name the new master. slice_gap_ms = the largest interval between "
        "consecutive ping replies (10 ms when nothing is lost) from the kill to 1 s after failover, for the "
        "slices whose master survived; orphan_gap_ms the same for the killed node's switches; pings_lost = "
        "sequence numbers never answered over all streams and kills. lost_or_leaked = flows and meters missing, "
        "extra or in another state in the master's (flows) or a survivor's (meters) view, or flows/tables more or "
        "fewer on a switch, after each "
        "failover and after each rejoin (every node's view), plus what was left on any node or switch once the "
        "slices were deleted; vAPs and vNFs are not part of this scenario (no agents are killed over). "
        "rejoin_s = the killed node restarted (same directory and ports) -> READY in every view. "
        "rest_forward_p50_ms = the p50 of 20 GET /onos/nfv/vnfs/{id}/stats on node C for a vNF on a "
        "protocol-level MEC agent (onos-apps/tests/fake_agent.py) connected to node A: the call goes to A over "
        "the cluster, as in test_agents_on_any_node_and_calls_forwarded_to_their_node. The switches keep their "
        "state across controller sessions (on-connect keep, the default). orchestrator_takeover_ok is not "
        f"measured here. Rounds: {per_round}.")
    write_result("cluster-failover", metrics, units, notes=notes)
    print(f"[cluster-failover] {metrics}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
