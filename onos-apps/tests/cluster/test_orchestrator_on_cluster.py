"""Issue 17's failover with slices made THROUGH THE ORCHESTRATOR: a real `wislice serve` whose WISLICE_ONOS_URL
lists the three nodes, protocol-level agents (fake_agent.py) connected to different nodes, real pofswitch-afp
switches and 10 ms pings (real_switches.py). Marker `cluster`: issue 17's integration test in make test (make -C
onos-apps test-cluster, with test_onos_cluster.py on the same cluster); the measured numbers are printed (pytest -s)."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from cluster_helpers import ONOS_APPS, Cluster, wait_for
from orch_on_cluster import CallSampler, Tenant, check_path, listed, orchestrator_on, paths_on, slice_body
from real_switches import POFSWITCH, Rig, differences, failover_round, rejoin, state, wait_settled, wait_state
from test_onos_cluster import AgentLoop, connect
from wislice_testbed.pytest_plugin import requires_root

sys.path.insert(0, str(ONOS_APPS / "tests"))
from fake_agent import FakeAgent  # noqa: E402

pytestmark = pytest.mark.cluster
KEPT_GAP_MS = 200  # the bounds of test_cluster_failover.py, for the same reasons
ORPHAN_GAP_MS = 1000
TENANT = 17


def agent(agent_id: str, role: str, secret: str) -> FakeAgent:
    """An AP whose vAPs sit on its switch's port 1, or a MEC node whose vNFs sit on port 2: a slice's one-hop path
    over the switch is then port 1 -> 2, h_a to h_b, the ping's way."""
    if role == "ap":
        return FakeAgent(agent_id, role="ap", secret=secret, vap_pof_port=1)
    return FakeAgent(agent_id, role="mec", secret=secret, vnf_pof_port=2)


def vaps_and_vnfs_once(cluster: Cluster, nodes: list[str], slices: list[dict[str, Any]]) -> None:
    """Every node of ``nodes`` lists each slice's vAP once and its vNF once, on the slice's MEC node, within 30 s: a
    node that rejoined moments before (the session's earlier tests) may not answer its REST at once (seen: a 5 s
    read timed out); a duplicate or a missing item stays and fails."""
    def problems() -> list[str]:
        found = []
        for node in nodes:
            for sl in slices:
                vap, vnf = sl["vaps"][0], sl["vnfs"][0]
                vaps = listed(cluster, node, "wifi/vaps", "vap_id", vap["vap_id"])
                vnfs = listed(cluster, node, "nfv/vnfs", "vnf_id", vnf["vnf_id"])
                if vaps is None or vnfs is None:
                    found.append(f"{node} did not answer")
                elif len(vaps) != 1 or [v.get("node") for v in vnfs] != [sl["mec_node"]]:
                    found.append(f"{node}: vAP {vap['vap_id']} x{len(vaps)}, vNF {vnf['vnf_id']} on "
                                 f"{[v.get('node') for v in vnfs]}")
        return found

    last: list[str] = []

    def clean() -> bool:
        last[:] = problems()
        return not last

    try:
        wait_for("every node listing each vAP and vNF once", clean, 30)
    except TimeoutError as exc:
        raise AssertionError(f"{exc}: {last}") from exc


def nothing_of(cluster: Cluster, nodes: list[str], slices: list[dict[str, Any]], agents: list[FakeAgent],
               devices: list[str]) -> None:
    """No node lists a vAP or vNF of the slices or a path on the devices; no agent runs any."""
    for node in nodes:
        for sl in slices:
            assert listed(cluster, node, "wifi/vaps", "vap_id", sl["vaps"][0]["vap_id"]) == [], (node, sl)
            assert listed(cluster, node, "nfv/vnfs", "vnf_id", sl["vnfs"][0]["vnf_id"]) == [], (node, sl)
        for device in devices:
            assert paths_on(cluster, node, device) == [], (node, device)
    assert [(x.agent_id, x.vaps, x.vnfs) for x in agents if x.vaps or x.vnfs] == []


def test_orchestrator_slices_survive_a_node_kill(cluster: Cluster, tmp_path: Path) -> None:
    """Switch 1 dials A, B, C; switch 2 B, C, A (two masters); switch 3 (the spare, for the slice made after the
    kill) C, B, A. Each switch has an AP agent (vAPs on port 1) and a MEC agent (vNFs on port 2), on different
    nodes: switch 1's AP on A and MEC on B, switch 2's AP on C and MEC on A, switch 3's AP on B and MEC on C. The
    operator declares each switch as both agents' attachment (no links); a tenant creates one slice per switch
    through the orchestrator; each path is port 1 -> 2 with an up and a down meter; a 10 ms ping runs over
    switches 1 and 2. kill -9 of A: switch 2's stream goes on, switch 1's resumes, nothing is lost or left over;
    the orchestrator answers throughout; the agents on A go to a survivor, which syncs them (kept); a third slice
    made through the orchestrator while A is down carries traffic over switch 3 and is deleted without a trace; A
    rejoins; the slices deleted through the orchestrator leave nothing on any node, agent or switch."""
    requires_root("real switches need root (namespaces, veths)")
    if not POFSWITCH.exists():
        pytest.skip(f"{POFSWITCH} not built (make -C pof-switch build)")
    a, b, c = nodes = sorted(cluster.nodes)
    pof = {n: cluster.nodes[n]["pof"] for n in nodes}
    secret = cluster.state["secret"]
    numbers: dict[str, Any] = {}
    (tmp_path / "spare").mkdir()
    rig, spare = Rig(tmp_path), Rig(tmp_path / "spare")  # the spare's switch stays out of the failover's state
    loop = AgentLoop()
    agents = {f"{role}-s{i}": agent(f"{role}-s{i}", role, secret) for i in (1, 2, 3) for role in ("ap", "mec")}
    try:
        sw1 = rig.add_switch(0x1721, [pof[a], pof[b], pof[c]])
        sw2 = rig.add_switch(0x1722, [pof[b], pof[c], pof[a]])
        sw3 = spare.add_switch(0x1723, [pof[c], pof[b], pof[a]])
        for sw, master in ((sw1, a), (sw2, b), (sw3, c)):
            wait_for(f"{sw.device} available in every view, mastered by {master}", lambda sw=sw, master=master: all(
                cluster.available(n, sw.device) and cluster.master(n, sw.device) == master for n in nodes), 60)
        empty = wait_for("every view of the switches without flows", lambda: (
            st := state(cluster, nodes, rig.switches)) and not st["errors"] and st, 60)
        spare_empty = wait_for("every view of the spare switch without flows", lambda: (
            st := state(cluster, nodes, spare.switches)) and not st["errors"] and st, 60)
        for agent_id, node in (("ap-s1", a), ("mec-s1", b), ("ap-s2", c), ("mec-s2", a), ("ap-s3", b),
                               ("mec-s3", c)):
            connect(loop, agents[agent_id], cluster.nodes[node]["wifi" if agent_id.startswith("ap") else "nfv"])

        with orchestrator_on(cluster, tmp_path / "orch") as orch:
            switch_of = {f"{role}-s{i}": sw.device for i, sw in ((1, sw1), (2, sw2), (3, sw3)) for role in ("ap", "mec")}
            orch.call("PUT", "/api/v1/topology", body={"attachments": switch_of, "links": [], "egress": {}})
            tenant = Tenant(orch, TENANT)
            slices = []
            for i, sw in ((1, sw1), (2, sw2)):
                sl, took = tenant.create(slice_body(f"orch{i}", f"ap-s{i}"))
                numbers[f"create_s{i}_s"] = round(took, 2)
                assert sl["status"] == "active" and sl["mec_node"] == f"mec-s{i}", sl
                assert sl["vnfs"][0]["node"] == f"mec-s{i}" and sl["vaps"][0]["pof_port"] == 1, sl
                slices.append(sl)
                check_path(cluster, b, sw.device)  # B is switch 1's master's peer and switch 2's master
            before = wait_settled(cluster, nodes, rig.switches, 60)
            vaps_and_vnfs_once(cluster, nodes, slices)
            rig.start_streams()
            wait_for("both streams answered", lambda: all(len(sw.stream.replies()) >= 50 for sw in rig.switches), 30)

            sampler = CallSampler(orch, tenant)
            try:
                out = failover_round(cluster, rig, a, before)
                # The agents A served (switch 1's AP, switch 2's MEC node) go to a survivor, which syncs them.
                wait_for("the agents on A see it gone", lambda: all(
                    agents[x].closed_reason for x in ("ap-s1", "mec-s2")), 60, 0.1)
                t0 = time.monotonic()
                connect(loop, agents["ap-s1"], cluster.nodes[b]["wifi"])
                connect(loop, agents["mec-s2"], cluster.nodes[c]["nfv"])
                numbers["agents_resynced_s"] = round(time.monotonic() - t0, 2)
            finally:
                calls = sampler.summary()
            print("failover numbers: " + json.dumps({k: v for k, v in out.items() if k != "differences"}))
            print("orchestrator calls during the failover: " + json.dumps(calls))
            assert out["orphans"] == [sw1.device], out
            assert out["lost_or_leaked"] == 0, out["differences"]
            assert out["kept_gap_ms"] <= KEPT_GAP_MS, out
            assert out["orphan_gap_ms"] <= ORPHAN_GAP_MS, out
            assert out["failover_s"] <= 30, out
            assert all(not x["not_200"] for x in calls.values()), calls
            sl1, sl2 = slices
            assert agents["ap-s1"].last_sync == {"created": [], "removed": [], "kept": [sl1["vaps"][0]["vap_id"]],
                                                 "failed": []}, agents["ap-s1"].last_sync
            assert agents["mec-s2"].last_sync == {"created": [], "removed": [], "kept": [sl2["vnfs"][0]["vnf_id"]],
                                                  "failed": []}, agents["mec-s2"].last_sync
            assert tenant.statuses() == {sl1["slice_id"]: "active", sl2["slice_id"]: "active"}
            vaps_and_vnfs_once(cluster, [b, c], slices)

            # A third slice while A is down: the orchestrator's REST client is on a survivor.
            sl3, took = tenant.create(slice_body("orch3", "ap-s3"))
            numbers["create_s3_after_kill_s"] = round(took, 2)
            assert sl3["status"] == "active" and sl3["mec_node"] == "mec-s3", sl3
            check_path(cluster, b, sw3.device)
            vaps_and_vnfs_once(cluster, [b, c], [sl3])
            spare.start_streams()
            wait_for("switch 3's stream answered", lambda: len(sw3.stream.replies()) >= 50, 30)
            spare.stop_streams()
            numbers["s3_stream"] = sw3.stream.gaps()
            numbers["delete_s3_after_kill_s"] = round(tenant.delete(sl3["slice_id"]), 2)
            after3 = wait_state(cluster, [b, c], spare.switches, spare_empty, 30)
            left, what = differences(spare_empty, after3, [b, c])
            assert left == 0, what
            nothing_of(cluster, [b, c], [sl3], [agents["ap-s3"], agents["mec-s3"]], [sw3.device])

            back = rejoin(cluster, rig, a, before, timeout=30)
            print("rejoin numbers: " + json.dumps(back))
            assert back["lost_or_leaked"] == 0, back["differences"]
            # A's own device store knows the switches again (right after rejoin() its flows REST may answer 400
            # "Device not found": its stale_views).
            t0 = time.monotonic()
            wait_for(f"{a} sees every switch available with its master", lambda: all(
                cluster.available(a, sw.device) and cluster.master(a, sw.device) == cluster.master(b, sw.device)
                for sw in (sw1, sw2, sw3)), 60, 0.2)
            numbers["rejoined_sees_switches_s"] = round(time.monotonic() - t0, 2)
            vaps_and_vnfs_once(cluster, nodes, slices)
            rig.stop_streams()
            for sl in slices:
                numbers[f"delete_s{sl['name'][-1]}_s"] = round(tenant.delete(sl["slice_id"]), 2)
            after = wait_state(cluster, nodes, rig.switches, empty, 30)
            left, what = differences(empty, after, nodes)
            assert left == 0, what
            nothing_of(cluster, nodes, [*slices, sl3], list(agents.values()), [sw1.device, sw2.device, sw3.device])
            assert set(tenant.statuses().values()) <= {"deleted"}, tenant.statuses()
            # The orchestrator's REST client moved once, at the kill, to the next node of its list, and stayed there.
            moves = [line for line in orch.processes.log_path(orch.proc).read_text().splitlines()
                     if "calls go to ONOS node" in line]
            assert len(moves) == 1 and moves[0].endswith(
                f"calls go to ONOS node http://127.0.0.1:{cluster.nodes[b]['http']} from now on"), moves
            numbers["orchestrator_moved"] = moves[0].split(":", 2)[2]
    finally:
        loop.close(list(agents.values()))
        rig.close()
        spare.close()
        print("orchestrator numbers: " + json.dumps(numbers))
