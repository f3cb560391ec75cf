"""The agent's cgroup callers on either version, over recorded trees: the scheduler writes its weights (v1
cpu.shares, v2 the equivalent cpu.weight) into each vNF's cgroup found from its pid, the stats read CPU and
memory, and the daemon refuses the scheduler, saying why, where the cgroups cannot serve it."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from wislice_mec_agent.__main__ import start_scheduler
from wislice_mec_agent.cgroups import CgroupFs, NoCgroupFs, detect
from wislice_mec_agent.scheduler import SchedulerLoop
from wislice_mec_agent.stats import StatsCollector

from .cgroup_trees import Tree, v1_group, v1_proc_cgroup, v1_tree, v2_group, v2_tree
from .conftest import Node, spec


def detected(tree: Tree) -> CgroupFs:
    return detect(tree.mountinfo, cgroup_root=tree.root, proc=tree.proc)


class NodeCgroups:
    """A fake node's vNFs, each given a cgroup in a recorded tree of one version (as Docker's systemd driver
    names them) and a /proc/<pid>/cgroup that points there."""

    def __init__(self, node: Node, tmp: Path, version: str) -> None:
        self.version = version
        self.tree: Tree = v1_tree(tmp, hybrid=True) if version == "v1" else v2_tree(tmp)
        self.fs = detected(self.tree)
        self.node = node

    def add(self, vnf_id: int, usage_ns: int = 0, memory: int = 0) -> str:
        rec = self.node.manager.store.get(vnf_id)
        path = f"/system.slice/docker-{rec.container_id}.scope"
        pid = self.node.runtime.inspect(rec.container_id).pid
        if self.version == "v1":
            v1_group(self.tree, path, shares=2, usage_ns=usage_ns, memory=memory)
            self.tree.process(pid, v1_proc_cgroup(path, hybrid_v2_path="/"))
        else:
            v2_group(self.tree.root, path, weight=1, usage_usec=usage_ns // 1000, memory=memory)
            self.tree.process(pid, f"0::{path}\n")
        return path

    def weight_file(self, path: str) -> str:
        if self.version == "v1":
            return (self.tree.root / "cpu,cpuacct" / path.lstrip("/") / "cpu.shares").read_text()
        return (self.tree.root / path.lstrip("/") / "cpu.weight").read_text()

    def set_usage(self, path: str, usage_ns: int) -> None:
        if self.version == "v1":
            (self.tree.root / "cpu,cpuacct" / path.lstrip("/") / "cpuacct.usage").write_text(f"{usage_ns}\n")
        else:
            (self.tree.root / path.lstrip("/") / "cpu.stat").write_text(f"usage_usec {usage_ns // 1000}\n")


@pytest.fixture(params=["v1", "v2"])
def cgroup_node(tmp_path: Path, request: pytest.FixtureRequest) -> NodeCgroups:
    return NodeCgroups(Node(tmp_path / "node"), tmp_path / "cg", request.param)


def test_scheduler_writes_weights_through_the_detected_version(cgroup_node: NodeCgroups) -> None:
    manager = cgroup_node.node.manager
    paths = [cgroup_node.add(manager.create(spec(instance=i, chain_position=i))["vnf_id"]) for i in (1, 2)]
    loop = SchedulerLoop(manager, 1.0, socket_queue=lambda pid: 0, cgroup_fs=cgroup_node.fs)
    shares = loop.step()
    assert sorted(shares.values()) == [1024, 1024]  # nothing measured yet: the default, in cpu.shares units
    expected = "1024" if cgroup_node.version == "v1" else "100"  # v2: the kernel's equivalent weight
    assert [cgroup_node.weight_file(p) for p in paths] == [expected, expected]


def test_stats_read_cpu_and_memory_through_the_detected_version(cgroup_node: NodeCgroups) -> None:
    vnf_id = cgroup_node.node.manager.create(spec())["vnf_id"]
    path = cgroup_node.add(vnf_id, usage_ns=10**9, memory=48 << 20)
    stats = StatsCollector(cgroup_node.node.manager, cgroup_fs=cgroup_node.fs)
    first = stats.collect(vnf_id)["vnfs"][0]
    assert first["memory_mib"] == 48.0 and first["cpu_pct"] == 0.0  # one sample: no rate yet
    cgroup_node.set_usage(path, 10**9 + 2 * 10**9)  # 2 s of CPU: over any test's run time, > 100 % of a core
    assert stats.collect(vnf_id)["vnfs"][0]["cpu_pct"] > 100.0


def test_a_vnf_without_a_cgroup_reports_zero(tmp_path: Path) -> None:
    node = Node(tmp_path)
    vnf_id = node.manager.create(spec())["vnf_id"]
    vs = StatsCollector(node.manager, cgroup_fs=NoCgroupFs("test", tmp_path / "proc")).collect(vnf_id)["vnfs"][0]
    assert vs["cpu_pct"] == 0.0 and vs["memory_mib"] == 0.0


@pytest.mark.parametrize(("found", "missing"), [
    ("nothing mounted", "no cpu and no cpu usage"),
    ("v2 without the cpu controller", "no cpu ("),
])
def test_the_scheduler_is_refused_with_the_reason_and_the_node_runs_on(
        tmp_path: Path, caplog: pytest.LogCaptureFixture, found: str, missing: str) -> None:
    node = Node(tmp_path / "node", scheduler_interval_s=1.0)
    if found == "nothing mounted":
        fs: CgroupFs = NoCgroupFs("neither a cgroup (v1) nor a cgroup2 filesystem is mounted")
    else:
        fs = detected(v2_tree(tmp_path / "cg", controllers=("memory", "pids")))
    with caplog.at_level(logging.ERROR, logger="wislice_mec_agent"):
        assert start_scheduler(node.config, node.manager, fs) is None
    [record] = caplog.records
    assert record.getMessage().startswith("scheduler not started: the node's cgroups give ")
    assert missing in record.getMessage() and fs.describe() in record.getMessage()
    assert node.manager.create(spec())["state"] == "running"  # vNFs still run


def test_the_scheduler_starts_where_the_cgroups_serve_it(tmp_path: Path) -> None:
    node = Node(tmp_path / "node", scheduler_interval_s=1.0)
    loop = start_scheduler(node.config, node.manager, detected(v2_tree(tmp_path / "cg")))
    try:
        assert isinstance(loop, SchedulerLoop) and loop.thread.is_alive()
    finally:
        if loop is not None:
            loop.stop()
