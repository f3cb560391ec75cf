"""A real three-node ONOS cluster over three Atomix storage nodes (runtime/onos-cluster, issue 17): it forms with
the WiSlice apps active on every node; a POF switch on node A is seen with its mastership from node B; kill -9 of
A moves mastership to a survivor once the switch has dialled the next controller of its list; A restarted rejoins;
meters are shared by every node; agents connect to any node and REST on another reaches them. The switch here is
the reference-like fake of the network-controller tests; the failover with real pofswitch-afp switches, slices and
traffic is test_cluster_failover.py (marker cluster_failover: not in make test while the product bugs it shows
last). Marker `cluster` (make -C onos-apps test-cluster, and make test's integration tier). Measured numbers are
printed (pytest -s), one line per test."""

from __future__ import annotations

import asyncio
import json
import sys
import threading
import time
from typing import Any

import pytest
from cluster_helpers import ONOS_APPS, Cluster, wait_for

sys.path.insert(0, str(ONOS_APPS / "network-controller" / "tests" / "integration"))
from fake_reference_switch import FakeReferenceSwitch  # noqa: E402

sys.path.insert(0, str(ONOS_APPS / "tests"))
from fake_agent import FakeAgent  # noqa: E402

pytestmark = pytest.mark.cluster
DEV_ID = 0x1701
DEVICE = f"pof:{DEV_ID:08x}"


def dial(controllers: list[int], deadline_s: float = 60, dev_id: int = DEV_ID) -> FakeReferenceSwitch:
    """The switch's controller list: the first address that accepts and completes the handshake."""
    deadline = time.monotonic() + deadline_s
    while True:
        for port in controllers:
            try:
                switch = FakeReferenceSwitch(port, dev_id).start()
            except OSError:
                continue
            time.sleep(0.3)
            if switch.thread is not None and switch.thread.is_alive():
                return switch
            switch.close()
        if time.monotonic() > deadline:
            raise AssertionError(f"no controller of {controllers} accepted the switch")
        time.sleep(0.2)


class AgentLoop:
    """Protocol-level agents on an event loop of their own thread: they answer the controller's pings and requests
    while the test kills and restarts nodes."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def run(self, coro: Any, timeout: float = 60) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def close(self, agents: list[FakeAgent]) -> None:
        for agent in agents:
            self.run(agent.close(), 10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()


def connect(loop: AgentLoop, agent: FakeAgent, port: int) -> None:
    """(Re)connects the agent to a node's listener and waits for the node's sync of its desired state."""
    agent.port = port
    agent.synced.clear()
    loop.run(agent.connect(retry_s=30))
    loop.run(asyncio.wait_for(agent.synced.wait(), 30))


def listed(cluster: Cluster, node: str, kind: str, key: str, value: Any) -> list[dict[str, Any]]:
    """The node's GET /onos/{wifi/vaps,nfv/vnfs} items whose ``key`` is ``value`` ([] if it does not answer)."""
    code, body = cluster.get(node, f"/onos/{kind}")
    return [x for x in body[kind.split("/")[1]] if x.get(key) == value] if code == 200 else []


def test_cluster_forms_fails_over_and_rejoins(cluster: Cluster) -> None:
    """The cluster forms; the node a switch and two agents (an AP and a MEC node) are connected to is killed: the
    switch and the agents go to the next node of their lists, which takes the switch's mastership and syncs the
    agents' desired vAP and vNF (kept, not recreated: none lost, none twice); the killed node rejoins."""
    a, b, c = sorted(cluster.nodes)
    numbers: dict[str, Any] = {"nodes": 3, **cluster.state["timings_s"]}
    for node in (a, b, c):
        assert cluster.view(node) == {a: "READY", b: "READY", c: "READY"}, node
        apps = {x["name"]: x["state"] for x in cluster.get(node, "/onos/v1/applications")[1]["applications"]}
        assert {apps.get(n) for n in ("org.wislice.wifi", "org.wislice.nfv", "org.wislice.pof")} == {"ACTIVE"}

    # The switch dials A first; B sees the device and A as its master through the cluster's stores.
    controllers = [cluster.nodes[n]["pof"] for n in (a, b, c)]
    switch = dial(controllers)
    loop = AgentLoop()
    secret = cluster.state["secret"]
    ap, mec = FakeAgent("ap-fo", role="ap", secret=secret), FakeAgent("mec-fo", role="mec", secret=secret)
    try:
        connect(loop, ap, cluster.nodes[a]["wifi"])
        connect(loop, mec, cluster.nodes[a]["nfv"])
        # Created through the other nodes' REST (forwarded to A, where the agents are).
        vap = {"vap_id": "fo-v1", "radio": "phy0", "ssid": "fo", "security": {"mode": "open"}, "tenant_id": 1,
               "slice_id": "s-fo", "rate_limit": {"down_kbps": 10000, "up_kbps": 2000}}
        code, out = cluster.request(b, "POST", "/onos/wifi/agents/ap-fo/vaps", vap, timeout=30)
        assert code == 201, out
        vnf = {"tenant_id": 1, "instance_id": 7, "image": "firewall", "params": {}, "cpu": 1, "memory_mib": 64,
               "chain_position": 0, "node": "mec-fo"}
        code, out = cluster.request(c, "POST", "/onos/nfv/vnfs", vnf, timeout=30)
        assert code == 201, out
        vnf_id = out["vnf"]["vnf_id"]
        assert list(ap.vaps) == ["fo-v1"] and list(mec.vnfs) == [vnf_id]
        wait_for(f"{b} sees {DEVICE} available, mastered by {a}",
                 lambda: cluster.available(b, DEVICE) and cluster.master(b, DEVICE) == a, 30)
        killed = cluster.kill(a)
        wait_for("the switch sees its controller gone", lambda: not switch.thread.is_alive(), 30, 0.05)
        switch.close()
        switch = dial(controllers[1:])  # A refuses: the switch goes down its list
        dialled = time.monotonic()
        survivor = wait_for(f"mastership of {DEVICE} on a survivor",
                            lambda: (m := cluster.master(b, DEVICE)) in (b, c) and m, 60, 0.1)
        moved = time.monotonic()
        wait_for(f"{DEVICE} available again on {b} and {c}",
                 lambda: cluster.available(b, DEVICE) and cluster.available(c, DEVICE), 60, 0.1)
        reconnected = time.monotonic()
        numbers.update(switch_redialled_s=round(dialled - killed, 2), mastership_moved_s=round(moved - killed, 2),
                       failover_s=round(reconnected - killed, 2), new_master=survivor)
        assert cluster.master(c, DEVICE) == survivor
        wait_for(f"{b} and {c} see {a} down", lambda: all(
            cluster.view(n).get(a) not in ("READY", "ACTIVE") for n in (b, c)), 60)

        # The agents lost A; they dial B (next in their lists): B syncs what they are meant to run, which they
        # still run: kept, nothing created or removed, and every survivor lists each once.
        wait_for("the agents see their node gone", lambda: ap.closed_reason and mec.closed_reason, 60, 0.1)
        agents_killed = time.monotonic()
        connect(loop, ap, cluster.nodes[b]["wifi"])
        connect(loop, mec, cluster.nodes[b]["nfv"])
        numbers["agents_resynced_s"] = round(time.monotonic() - agents_killed, 2)
        assert ap.last_sync == {"created": [], "removed": [], "kept": ["fo-v1"], "failed": []}, ap.last_sync
        assert mec.last_sync == {"created": [], "removed": [], "kept": [vnf_id], "failed": []}, mec.last_sync
        assert list(ap.vaps) == ["fo-v1"] and list(mec.vnfs) == [vnf_id]
        for n in (b, c):
            assert len(listed(cluster, n, "wifi/vaps", "vap_id", "fo-v1")) == 1, n
            assert [v.get("node") for v in listed(cluster, n, "nfv/vnfs", "vnf_id", vnf_id)] == ["mec-fo"], n

        # A restarted on the same directory and ports rejoins; it sees the device and its new master.
        numbers["rejoin_s"] = round(cluster.restart(a), 1)
        wait_for(f"{a} sees {DEVICE} mastered by {survivor}",
                 lambda: cluster.available(a, DEVICE) and cluster.master(a, DEVICE) == survivor, 60)
        # Its apps read the stores once they are active again, a moment after the node's READY (seen: an empty list
        # at once in one CI run): each item once within 30 s; a duplicate or a loss stays and fails.
        rejoined = wait_for(f"{a} listing the vAP and the vNF", lambda: (
            got := (listed(cluster, a, "wifi/vaps", "vap_id", "fo-v1"), listed(cluster, a, "nfv/vnfs", "vnf_id",
                                                                                 vnf_id))) and all(got) and got, 30)
        assert [len(items) for items in rejoined] == [1, 1], rejoined
    finally:
        switch.close()
        loop.close([ap, mec])
    print("cluster numbers: " + json.dumps(numbers))


def test_meters_are_shared_by_every_node(cluster: Cluster) -> None:
    """The compat bundle's ClusterMeterStore: a meter added on a switch's master is listed ADDED by every node, and
    a node that does not master the switch adds one too (the device's meter-id range is shared): it gets another
    id, reaches the switch through its master and is ADDED everywhere; deleting it on a third node removes it from
    every node's list."""
    device = "pof:00001702"
    nodes = sorted(cluster.nodes)
    switch = dial([cluster.nodes[n]["pof"] for n in nodes], dev_id=0x1702)
    try:
        master = wait_for(f"a master of {device}", lambda: cluster.master(nodes[1], device), 30)
        others = [n for n in nodes if n != master]
        meter = {"deviceId": device, "unit": "KB_PER_SEC", "burst": False,
                 "bands": [{"type": "DROP", "rate": 1000, "burstSize": 0}]}
        code, body = cluster.request(master, "POST", f"/onos/v1/meters/{device}", meter)
        assert code == 201, body

        def meters(node: str) -> dict[str, str]:
            code, body = cluster.get(node, f"/onos/v1/meters/{device}")
            assert code == 200, body
            return {m["id"]: m["state"] for m in body["meters"]}

        wait_for("the meter ADDED on every node", lambda: all(
            list(meters(n).values()) == ["ADDED"] for n in nodes), 20)
        wait_for("the METER_MOD at the switch", lambda: switch.of_type("METER_MOD"), 10)
        assert cluster.request(others[0], "POST", f"/onos/v1/meters/{device}", meter)[0] == 201
        wait_for("both meters ADDED on every node", lambda: all(
            sorted(meters(n).values()) == ["ADDED", "ADDED"] for n in nodes), 20)
        ids = sorted(meters(master))
        assert len(set(ids)) == 2, ids  # two ids: the allocator is shared
        wait_for("the second METER_MOD at the switch", lambda: len(switch.of_type("METER_MOD")) >= 2, 10)
        code, body = cluster.request(others[1], "DELETE", f"/onos/v1/meters/{device}/{ids[1]}")
        assert code in (200, 204), (code, body)
        wait_for("the deleted meter gone from every node", lambda: all(
            sorted(meters(n)) == ids[:1] for n in nodes), 20)
    finally:
        switch.close()


def test_agents_on_any_node_and_calls_forwarded_to_their_node(cluster: Cluster) -> None:
    """Every node listens for agents on its own port (WISLICE_MEC_AGENT_PORT); a MEC agent connected to node A is
    driven through REST on nodes B and C: createVnf, its statistics and delVnf are forwarded to A over the cluster
    (ClusterCommunicationService) and answered as A would."""
    a, b, c = sorted(cluster.nodes)

    async def scenario() -> dict[str, float]:
        agents = []
        for node, agent_id in ((a, "mec-on-a"), (b, "mec-on-b")):  # each node's own listener takes an agent
            agent = FakeAgent(agent_id, role="mec", port=cluster.nodes[node]["nfv"], secret=cluster.state["secret"])
            await agent.connect(retry_s=30)
            await asyncio.wait_for(agent.synced.wait(), 20)
            agents.append(agent)
        on_a = agents[0]
        code, nodes = await asyncio.to_thread(cluster.get, c, "/onos/nfv/nodes")
        assert code == 200 and {n["agent_id"] for n in nodes["nodes"] if n["connected"]} >= {"mec-on-a", "mec-on-b"}
        spec = {"tenant_id": 1, "instance_id": 9, "image": "firewall", "params": {}, "cpu": 1, "memory_mib": 64,
                "chain_position": 0, "node": "mec-on-a"}
        started = time.monotonic()
        code, out = await asyncio.to_thread(cluster.request, b, "POST", "/onos/nfv/vnfs", spec)
        create_ms = (time.monotonic() - started) * 1000
        assert code == 201, out
        vnf_id = out["vnf"]["vnf_id"]
        assert out["node"] == "mec-on-a" and vnf_id in on_a.vnfs  # created by the agent on A, asked on B
        stats_ms = []
        for _ in range(5):
            started = time.monotonic()
            code, stats = await asyncio.to_thread(cluster.get, c, f"/onos/nfv/vnfs/{vnf_id}/stats")
            stats_ms.append((time.monotonic() - started) * 1000)
            assert code == 200 and stats["vnf_id"] == vnf_id, stats
        code, _ = await asyncio.to_thread(cluster.request, c, "DELETE", f"/onos/nfv/vnfs/{vnf_id}")
        assert code == 204 and vnf_id not in on_a.vnfs
        for agent in agents:
            await agent.close()
        return {"rest_forward_create_ms": round(create_ms, 1),
                "rest_forward_p50_ms": round(sorted(stats_ms)[len(stats_ms) // 2], 1)}

    print("forwarding:", json.dumps(asyncio.run(scenario())))
