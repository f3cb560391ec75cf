"""The warm pool (pool.py) on the real dockerd: containers created and started ahead, idle behind the ready gate of
vnfs/common/entry.sh; a createVnf claims one (rename, limits, params, wiring), the pool refills, deleting the vNF
leaves only the pool, draining leaves nothing. Also: claimed vNFs survive an agent kill -9 and restart, the old
pool is not leaked, the live pool is not taken for orphans by the periodic reconcile, a drain during a refill
leaves nothing, a dockerd restart (pool containers dead) neither breaks creates nor leaks, and setup from the
pool is faster than cold (medians printed: run with -s to see them)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from wislice_agent_proto import protocol

from wislice_mec_agent.pool import POOL_PREFIX, WarmPool
from wislice_mec_agent.reconcile import reconcile
from wislice_mec_agent.runtime import LABEL_POOL

from .conftest import RealNode
from .switches import TestpmdPeer
from .test_daemon import SECRET, Controller
from .test_recovery import restart_dockerd, run_agent, write_config

pytestmark = pytest.mark.integration
TIMED = 3  # creates per mode for the medians


def spec(image: str, instance: int) -> dict[str, Any]:
    if image == "dpdk-fwd":
        return {"tenant_id": 4, "instance_id": instance, "image": "dpdk-fwd", "params": {"mode": "macswap"},
                "cpu": 0.5, "memory_mib": 128, "chain_position": 0}
    return {"tenant_id": 5, "instance_id": instance, "image": "kernel-fwd", "params": {}, "cpu": 0.2,
            "memory_mib": 64, "chain_position": 0}


def pool_holdings(n: RealNode) -> dict[str, list[str]]:
    """Pool containers (by name, with their status) and pool dirs."""
    return {"containers": sorted(f"{c.name}:{c.status}" for c in n.runtime.list(n.config.agent_id)
                                 if c.name.startswith(POOL_PREFIX)),
            "dirs": sorted(p.name for p in n.config.pool_dir.iterdir()) if n.config.pool_dir.is_dir() else []}


def pool_names(pool: WarmPool) -> list[str]:
    return sorted(c.name for cs in pool.ready.values() for c in cs)


def pool_dirs(pool: WarmPool) -> list[str]:
    return sorted(Path(c.config_dir).name for cs in pool.ready.values() for c in cs)


def check_traffic(n: RealNode, peer: TestpmdPeer | None, state: dict[str, Any]) -> None:
    port = state["ports"][0]["name"]
    if state["class"] == "kernel":
        n.ns.exec(["ip", "route", "replace", f"{state['address']}/32", "dev", port])
        n.ping(state["address"], count=1)
        return
    assert peer is not None
    deadline = time.monotonic() + 20
    while peer.received(port) < 1000 and time.monotonic() < deadline:
        time.sleep(0.2)
    assert peer.received(port) >= 1000, f"the DPDK vNF {state['vnf_id']} sent nothing back"


@pytest.fixture(params=["kernel-fwd", "dpdk-fwd"])
def pool_node(request: pytest.FixtureRequest, private_dockerd: Any, netns: Any, tmp_path: Path
              ) -> Iterator[tuple[RealNode, WarmPool, TestpmdPeer | None, str]]:
    """A node whose warm pool holds 2 containers of the image; DPDK vNFs get a testpmd vhost-user peer each (the
    way test_dpdk.py proves they forward)."""
    image = request.param
    peer, cfg = None, {}
    if image == "dpdk-fwd":
        hugepages = request.getfixturevalue("hugepages")
        peer, cfg = TestpmdPeer(tmp_path), {"hugepages_dir": str(hugepages.mount)}
    n = RealNode(netns("mecw"), private_dockerd, tmp_path / "state", switch=peer, warm_pool={image: 2}, **cfg)
    pool = WarmPool(n.config, n.catalog, n.runtime)
    n.manager = n.new_manager(pool=pool)
    try:
        yield n, pool, peer, image
    finally:
        pool.drain()
        if peer is not None:
            peer.close()
        n.cleanup()
        shutil.rmtree(n.config.pool_dir, ignore_errors=True)


def test_claim_refill_delete_and_pool_faster_than_cold(pool_node: Any) -> None:
    n, pool, peer, image = pool_node
    assert pool.fill() == 2
    held = pool_holdings(n)
    assert held["containers"] == [f"{name}:running" for name in pool_names(pool)] and held["dirs"] == pool_dirs(pool)
    cold_manager = n.new_manager()  # same node, no pool
    timings: dict[str, list[float]] = {"cold": [], "pool": []}
    for i in range(TIMED):
        for mode in ("cold", "pool"):
            instance = 1 + 2 * i + (mode == "pool")
            manager = n.manager if mode == "pool" else cold_manager
            warm_ids = {c.container_id for cs in pool.ready.values() for c in cs}
            t0 = time.perf_counter()
            state = manager.create(spec(image, instance))
            timings[mode].append(time.perf_counter() - t0)
            assert state["state"] == "running"
            info = n.runtime.inspect(state["container_id"])
            assert info is not None and info.name == f"wv-{n.config.agent_id}-{state['vnf_id']}"
            assert (state["container_id"] in warm_ids) == (mode == "pool"), (mode, state["container_id"])
            if mode == "pool":
                assert info.labels.get(LABEL_POOL) == image and len(pool.ready[image]) == 1
            if i == 0 or mode == "pool":
                check_traffic(n, peer, state)
            manager.delete(state["vnf_id"])
            held = n.holdings()
            assert held["records"] == [] and held["links"] == [] and held["ports"] == [] and held["dirs"] == []
            assert held["containers"] == pool_names(pool), held  # only the pool is left
            pool.fill()  # what the daemon's refill thread does
            assert len(pool.ready[image]) == 2
            assert pool_holdings(n)["dirs"] == pool_dirs(pool)
    # The agent's periodic reconcile keeps the live pool.
    report = reconcile(n.manager)
    assert not report["removed_containers"] and not report["removed_dirs"], report
    assert len(pool_holdings(n)["containers"]) == 2
    pool.drain()
    assert pool_holdings(n) == {"containers": [], "dirs": []} and not any(n.holdings().values())
    med = {mode: statistics.median(ts) for mode, ts in timings.items()}
    print(f"\nwarm pool {image}: createVnf cold median {med['cold'] * 1000:.0f} ms, pool median "
          f"{med['pool'] * 1000:.0f} ms; cold {[round(t * 1000) for t in timings['cold']]} ms, "
          f"pool {[round(t * 1000) for t in timings['pool']]} ms")
    assert med["pool"] < med["cold"], med


def test_drain_during_a_refill_leaves_nothing(real_node: RealNode) -> None:
    """The daemon drains at SIGTERM while its refill thread may be creating a pool container."""
    real_node.config.warm_pool = {"kernel-fwd": 2}
    pool = WarmPool(real_node.config, real_node.catalog, real_node.runtime)
    filler = threading.Thread(target=pool.fill)
    filler.start()
    deadline = time.monotonic() + 30
    while not pool.making and time.monotonic() < deadline:
        time.sleep(0.005)
    assert pool.making, "the refill never started a container"
    pool.drain()
    filler.join(60)
    assert not filler.is_alive()
    try:
        assert pool_holdings(real_node) == {"containers": [], "dirs": []}
    finally:
        pool.drain()
        for c in real_node.runtime.list(real_node.config.agent_id):
            real_node.runtime.remove(c.id)
        shutil.rmtree(real_node.config.pool_dir, ignore_errors=True)


def test_dockerd_restart_with_a_warm_pool(real_node: RealNode) -> None:
    """After a dockerd restart the pool's containers are dead: reconcile rebuilds the vNF, creates still work,
    and nothing is leaked."""
    n = real_node
    n.config.warm_pool = {"kernel-fwd": 2}
    pool = WarmPool(n.config, n.catalog, n.runtime)
    n.manager = n.new_manager(pool=pool)
    try:
        pool.fill()
        first = n.manager.create(spec("kernel-fwd", 1))  # claimed
        pool.fill()
        restart_dockerd(n.dockerd)
        report = reconcile(n.manager)  # what the running daemon's periodic reconcile does
        assert report["rebuilt"] == [first["vnf_id"]] and not report["failed"], report
        check_traffic(n, None, n.manager.list_states()[0])
        pool.fill()
        assert [s.split(":")[1] for s in pool_holdings(n)["containers"]] == ["running", "running"], pool_holdings(n)
        second = n.manager.create(spec("kernel-fwd", 2))
        assert second["state"] == "running"
        check_traffic(n, None, second)
        for vnf_id in (first["vnf_id"], second["vnf_id"]):
            n.manager.delete(vnf_id)
        pool.drain()
        assert pool_holdings(n) == {"containers": [], "dirs": []} and not any(n.holdings().values()), n.holdings()
    finally:
        pool.drain()
        shutil.rmtree(n.config.pool_dir, ignore_errors=True)


def running_pool(n: RealNode) -> dict[str, str]:
    return {c.name: c.id for c in n.runtime.list(n.config.agent_id)
            if c.name.startswith(POOL_PREFIX) and c.status == "running"}


def wait_pool(n: RealNode, count: int, timeout: float = 60.0) -> dict[str, str]:
    deadline = time.monotonic() + timeout
    while len(pool := running_pool(n)) != count:
        assert time.monotonic() < deadline, f"pool never reached {count}: {pool_holdings(n)}"
        time.sleep(0.1)
    return pool


class Agents:
    """Agent daemons (python -m wislice_mec_agent) with a warm pool of 2 kernel-fwd, served by the scripted
    controller of test_daemon.py; start() them one after the other (a kill -9 and a restart)."""

    def __init__(self, n: RealNode, tmp_path: Path, **cfg: Any) -> None:
        self.n, self.tmp = n, tmp_path
        self.ctl = Controller()
        secret = tmp_path / "secret"
        secret.write_bytes(SECRET + b"\n")
        self.cfg = write_config(n, tmp_path / "agent.toml", controller=f"127.0.0.1:{self.ctl.port}",
                                secret_file=str(secret), **cfg, warm_pool={"kernel-fwd": 2})
        self.logs: list[Path] = []
        self.procs: list[subprocess.Popen[bytes]] = []
        self.seen: list[dict[str, Any]] = []

    def start(self, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
        self.logs.append(self.tmp / f"agent-{len(self.logs)}.log")
        with open(self.logs[-1], "wb") as out:
            self.procs.append(subprocess.Popen([sys.executable, "-m", "wislice_mec_agent", "--config", str(self.cfg)],
                                               stdout=out, stderr=subprocess.STDOUT, env={**os.environ, **(env or {})}))
        self.ctl.accept()
        return self.procs[-1]

    def call(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        return self.ctl.call(method, params, self.seen)

    def kill_9(self, proc: subprocess.Popen[bytes]) -> None:
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        self.ctl.drop()
        self.ctl.conn = None

    def close(self) -> None:
        for p in self.procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        self.ctl.close()
        for c in self.n.runtime.list(self.n.config.agent_id):
            self.n.runtime.remove(c.id)
        shutil.rmtree(self.n.config.pool_dir, ignore_errors=True)


@pytest.fixture
def agents(real_node: RealNode, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Agents]:
    a = Agents(real_node, tmp_path, **getattr(request, "param", {}))
    try:
        yield a
    finally:
        a.close()


@pytest.mark.parametrize("agents", [{"reconcile_interval_s": 0.5}], indirect=True)
def test_agent_restart_keeps_claimed_vnfs_and_leaks_no_pool(agents: Agents) -> None:
    n = agents.n
    first = agents.start()
    pool0 = wait_pool(n, 2)
    r = agents.call("createVnf", {"vnf": spec("kernel-fwd", 1)})
    assert r["ok"], r
    state = r["result"]["vnf"]
    info = n.runtime.inspect(state["container_id"])
    assert info is not None and info.id in pool0.values() and info.labels.get(LABEL_POOL) == "kernel-fwd"
    check_traffic(n, None, state)
    pool1 = wait_pool(n, 2)  # refilled
    time.sleep(2)  # several periodic reconciles: the live pool is no orphan
    assert running_pool(n) == pool1 and len(pool_holdings(n)["dirs"]) == 3  # 2 idle + the claimed vNF's
    agents.kill_9(first)
    second = agents.start()
    pool2 = wait_pool(n, 2)
    assert not set(pool2.values()) & set(pool1.values()), "the dead agent's pool was not replaced"
    assert len(pool_holdings(n)["dirs"]) == 3
    r = agents.call("getVnfs", {})
    assert [v["vnf_id"] for v in r["result"]["vnfs"]] == [state["vnf_id"]], r
    assert r["result"]["vnfs"][0]["state"] == "running"
    assert n.runtime.inspect(state["container_id"]).pid == info.pid  # adopted untouched
    check_traffic(n, None, state)
    second.send_signal(signal.SIGTERM)
    assert second.wait(30) == 0, agents.logs[-1].read_text()
    # The pool is drained at shutdown; the vNF stays (its record and container), nothing else.
    assert pool_holdings(n) == {"containers": [], "dirs": [Path(state_dir(n, state["vnf_id"])).name]}
    assert n.holdings()["records"] == [state["vnf_id"]]
    out = json.loads(run_agent(agents.cfg, "reconcile").stdout)
    assert out["adopted"] == [state["vnf_id"]] and not out["removed_containers"], out
    run_agent(agents.cfg, "delete-vnf", str(state["vnf_id"]))
    assert not any(n.holdings().values()) and pool_holdings(n) == {"containers": [], "dirs": []}


@pytest.mark.parametrize("agents", [{"reconcile_interval_s": 0.0}], indirect=True)
def test_kill_9_mid_create_from_the_pool(agents: Agents) -> None:
    """A vNF being built from a claimed pool container (renamed, wired, not yet ready) when the agent dies: the
    restarted agent rolls it back, the claimed container and its pool dir go, the new pool is full."""
    n = agents.n
    first = agents.start(env={"WISLICE_MEC_TEST_PAUSE_AT": "wiring"})
    pool0 = wait_pool(n, 2)
    agents.ctl.conn.sendall(protocol.encode({"type": "request", "id": 1, "method": "createVnf",
                                             "params": {"vnf": spec("kernel-fwd", 1)}}))
    deadline = time.monotonic() + 30
    while "paused at wiring" not in agents.logs[-1].read_text():
        assert time.monotonic() < deadline, agents.logs[-1].read_text()
        time.sleep(0.05)
    held = n.holdings()
    vnf_name = f"wv-{n.config.agent_id}-{5 << 16 | 1}"
    assert vnf_name in held["containers"] and len(held["links"]) == 1 and held["records"] == [5 << 16 | 1]
    assert n.runtime.inspect(vnf_name).id in pool0.values()  # claimed from the pool
    agents.kill_9(first)
    agents.start()
    wait_pool(n, 2)
    held = n.holdings()
    assert held["records"] == [] and held["links"] == [] and held["dirs"] == [], held
    assert not [c for c in held["containers"] if not c.startswith(POOL_PREFIX)], held
    assert len(pool_holdings(n)["dirs"]) == 2 and not set(running_pool(n).values()) & set(pool0.values())
    r = agents.call("createVnf", {"vnf": spec("kernel-fwd", 1)})  # the same vnf_id again, from the new pool
    assert r["ok"], r
    check_traffic(n, None, r["result"]["vnf"])
    assert agents.call("delVnf", {"vnf_id": 5 << 16 | 1})["ok"]
    agents.procs[-1].send_signal(signal.SIGTERM)
    assert agents.procs[-1].wait(30) == 0, agents.logs[-1].read_text()
    assert not any(n.holdings().values()) and pool_holdings(n) == {"containers": [], "dirs": []}


def state_dir(n: RealNode, vnf_id: int) -> str:
    from wislice_mec_agent.store import Store

    rec = Store(n.config.db_path).get(vnf_id)
    assert rec is not None
    return rec.config_dir
