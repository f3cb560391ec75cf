"""A real three-node ONOS cluster over three Atomix storage nodes (runtime/onos-cluster, issue 17): it forms with
the WiSlice apps active on every node; a POF switch on node A is seen with its mastership from node B; kill -9 of
A moves mastership to a survivor once the switch has dialled the next controller of its list; A restarted rejoins.

The switch is the reference-like fake the network-controller tests use (a Python POF switch), driven here through
a list of controller addresses: pofswitch-afp takes a single --controller (docs/onos-cluster.md). Marker `cluster`
(make -C onos-apps test-cluster), not in make test. Measured numbers are printed (pytest -s) on one line."""

from __future__ import annotations

import asyncio
import base64
import importlib.machinery
import importlib.util
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

ONOS_APPS = Path(__file__).resolve().parents[2]
CLUSTER = ONOS_APPS / "runtime" / "onos-cluster"
RUNTIME = ONOS_APPS / "runtime" / "onos-runtime"
sys.path.insert(0, str(ONOS_APPS / "network-controller" / "tests" / "integration"))
from fake_reference_switch import FakeReferenceSwitch  # noqa: E402

sys.path.insert(0, str(ONOS_APPS / "tests"))
from fake_agent import FakeAgent  # noqa: E402

# onos-cluster itself (a script): the test restarts a node with the environment onos-cluster gives it.
_loader = importlib.machinery.SourceFileLoader("onos_cluster", str(CLUSTER))
CLUSTER_SCRIPT = importlib.util.module_from_spec(importlib.util.spec_from_loader("onos_cluster", _loader))
_loader.exec_module(CLUSTER_SCRIPT)

pytestmark = pytest.mark.cluster
DEV_ID = 0x1701
DEVICE = f"pof:{DEV_ID:08x}"


class Cluster:
    def __init__(self, env: dict[str, str], state: dict[str, Any]) -> None:
        self.env, self.state = env, state
        self.nodes: dict[str, dict[str, Any]] = {n["id"]: n for n in state["nodes"]}

    def get(self, node: str, path: str) -> tuple[int, Any]:
        return self.request(node, "GET", path)

    def request(self, node: str, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(f"http://127.0.0.1:{self.nodes[node]['http']}{path}", data=data, method=method)
        token = base64.b64encode(f"{self.state['user']}:{self.state['password']}".encode()).decode()
        req.add_header("Authorization", f"Basic {token}")
        if data is not None:
            req.add_header("Content-Type", "application/json")  # on a GET, ONOS's REST answers 415
        try:
            with urllib.request.urlopen(req, timeout=5) as resp:
                return resp.status, json.loads(resp.read() or b"null")
        except urllib.error.HTTPError as err:
            return err.code, err.read().decode(errors="replace")
        except OSError as err:
            return 0, str(err)

    def view(self, node: str) -> dict[str, str]:
        code, body = self.get(node, "/onos/v1/cluster")
        return {n["id"]: n["status"] for n in body["nodes"]} if code == 200 else {}

    def master(self, node: str, device: str = DEVICE) -> str | None:
        code, body = self.get(node, f"/onos/v1/mastership/{device}/master")
        return body.get("nodeId") if code == 200 else None

    def available(self, node: str) -> bool:
        code, body = self.get(node, f"/onos/v1/devices/{DEVICE}")
        return code == 200 and bool(body.get("available"))

    def runtime_env(self, node: str) -> dict[str, str]:
        """The environment onos-cluster starts the node with (its ports, agent listeners, cluster.json, keys)."""
        return dict(self.env, **CLUSTER_SCRIPT.node_env(self.state, self.nodes[node]))


def wait_for(what: str, check: Callable[[], Any], timeout: float, period: float = 0.2) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {timeout:.0f} s")
        time.sleep(period)


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    if not (ONOS_APPS / "network-controller" / "target").exists():
        pytest.skip("WiSlice apps not built (make -C onos-apps build)")
    run_dir = tempfile.mkdtemp(prefix="wislice-onos-cluster-")
    env = dict(os.environ, ONOS_CLUSTER_DIR=run_dir)
    try:
        up = subprocess.run([sys.executable, str(CLUSTER), "up"], env=env, capture_output=True, text=True,
                            timeout=420)
        print(up.stdout)
        assert up.returncode == 0, f"onos-cluster up failed:\n{up.stdout}\n{up.stderr[-3000:]}"
        yield Cluster(env, json.loads((Path(run_dir) / "cluster.json").read_text()))
    finally:
        # Stops every Karaf and Atomix node by the pids the state file recorded, and removes the directory.
        subprocess.run([sys.executable, str(CLUSTER), "down"], env=env, capture_output=True, timeout=300)


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


def test_cluster_forms_fails_over_and_rejoins(cluster: Cluster) -> None:
    a, b, c = sorted(cluster.nodes)
    numbers: dict[str, Any] = {"nodes": 3, **cluster.state["timings_s"]}
    for node in (a, b, c):
        assert cluster.view(node) == {a: "READY", b: "READY", c: "READY"}, node
        apps = {x["name"]: x["state"] for x in cluster.get(node, "/onos/v1/applications")[1]["applications"]}
        assert {apps.get(n) for n in ("org.wislice.wifi", "org.wislice.nfv", "org.wislice.pof")} == {"ACTIVE"}

    # The switch dials A first; B sees the device and A as its master through the cluster's stores.
    controllers = [cluster.nodes[n]["pof"] for n in (a, b, c)]
    switch = dial(controllers)
    try:
        wait_for(f"{b} sees {DEVICE} available, mastered by {a}",
                 lambda: cluster.available(b) and cluster.master(b) == a, 30)

        pid = int((Path(cluster.nodes[a]["run_dir"]) / "karaf.pid").read_text().split()[0])
        killed = time.monotonic()
        os.killpg(pid, signal.SIGKILL)
        wait_for("the switch sees its controller gone", lambda: not switch.thread.is_alive(), 30, 0.05)
        switch.close()
        switch = dial(controllers[1:])  # A refuses: the switch goes down its list
        dialled = time.monotonic()
        survivor = wait_for(f"mastership of {DEVICE} on a survivor",
                            lambda: (m := cluster.master(b)) in (b, c) and m, 60, 0.1)
        moved = time.monotonic()
        wait_for(f"{DEVICE} available again on {b} and {c}",
                 lambda: cluster.available(b) and cluster.available(c), 60, 0.1)
        reconnected = time.monotonic()
        numbers.update(switch_redialled_s=round(dialled - killed, 2), mastership_moved_s=round(moved - killed, 2),
                       failover_s=round(reconnected - killed, 2), new_master=survivor)
        assert cluster.master(c) == survivor
        wait_for(f"{b} and {c} see {a} down", lambda: all(
            cluster.view(n).get(a) not in ("READY", "ACTIVE") for n in (b, c)), 60)

        # A restarted on the same directory and ports rejoins; it sees the device and its new master.
        t0 = time.monotonic()
        started = subprocess.run([sys.executable, str(RUNTIME), "start"], env=cluster.runtime_env(a),
                                 capture_output=True, text=True, timeout=300)
        assert started.returncode == 0, started.stdout + started.stderr
        try:
            wait_for(f"{a} READY in every view", lambda: all(
                cluster.view(n) == {a: "READY", b: "READY", c: "READY"} for n in (a, b, c)), 120)
        except AssertionError as exc:
            views = {n: cluster.view(n) for n in (a, b, c)}
            log = Path(cluster.nodes[a]["run_dir"]) / "karaf" / "data" / "log" / "karaf.log"
            tail = "\n".join(log.read_text(errors="replace").splitlines()[-40:]) if log.exists() else "(no log)"
            raise AssertionError(f"{exc}; views {views}\n{a}'s karaf.log:\n{tail}") from exc
        numbers["rejoin_s"] = round(time.monotonic() - t0, 1)
        wait_for(f"{a} sees {DEVICE} mastered by {survivor}",
                 lambda: cluster.available(a) and cluster.master(a) == survivor, 60)
    finally:
        switch.close()
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
        assert cluster.request(master, "POST", f"/onos/v1/meters/{device}", meter)[0] == 201

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
