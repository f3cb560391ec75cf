"""The cgroups module against recorded cgroupfs trees (cgroup_trees.py): version detection, a container's cgroup
from /proc/<pid>/cgroup for each layout and Docker cgroup driver, every operation's file and format."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from wislice_mec_agent import cgroups
from wislice_mec_agent.cgroups import (
    CPU,
    CPU_USAGE,
    MAX,
    MEMORY,
    SCHEDULER_NEEDS,
    Cgroup,
    CgroupV1,
    CgroupV2,
    CpuMax,
    Hierarchy,
    NoCgroupFs,
    Throttling,
    detect,
    parse_mountinfo,
    shares_to_weight,
    weight_to_shares,
)

from .cgroup_trees import (
    CONTAINER,
    V1_UNLIMITED,
    Tree,
    kernel_mkdir,
    v1_group,
    v1_proc_cgroup,
    v1_tree,
    v2_group,
    v2_tree,
)


def detected(tree: Tree) -> cgroups.CgroupFs:
    return detect(tree.mountinfo, cgroup_root=tree.root, proc=tree.proc)


# ---- shares <-> weight -------------------------------------------------------------------------------------------
def test_weight_is_the_kernels_equivalent_of_shares() -> None:
    assert shares_to_weight(1024) == 100  # the defaults match (runc's old linear formula gave 39)
    assert [shares_to_weight(s) for s in (2, 512, 2048, 300, 262144)] == [1, 50, 200, 29, 10000]
    assert shares_to_weight(0) == 1 and shares_to_weight(10**9) == 10000  # out of range: clamped
    assert [weight_to_shares(w) for w in (1, 100, 10000)] == [10, 1024, 102400]
    for s in range(50, 60000, 7):  # the scheduler's range: a round trip is off by at most half a weight step
        assert abs(weight_to_shares(shares_to_weight(s)) - s) <= 1024 / 200 + 1


# ---- detection ---------------------------------------------------------------------------------------------------
def test_mountinfo_fields_escapes_and_junk() -> None:
    text = ("30 25 0:27 / /sys/fs/cgroup/cpu,cpuacct rw,nosuid shared:10 - cgroup cgroup rw,cpu,cpuacct\n"
            "31 25 0:28 /docker/abc /mnt/my\\040cg rw master:3 - cgroup2 cgroup2 rw,nsdelegate\n"
            "not a mountinfo line\n")
    cpu, bound = parse_mountinfo(text)
    assert cpu.point == Path("/sys/fs/cgroup/cpu,cpuacct") and cpu.fstype == "cgroup"
    assert {"cpu", "cpuacct"} <= cpu.super_options
    assert bound.point == Path("/mnt/my cg") and bound.root == "/docker/abc" and bound.fstype == "cgroup2"


def test_pure_v1_is_v1_with_every_need(tmp_path: Path) -> None:
    fs = detected(v1_tree(tmp_path))
    assert isinstance(fs, CgroupV1) and fs.lacks(CPU, CPU_USAGE, MEMORY) == []
    assert fs.hierarchies["cpu"].mount == fs.hierarchies["cpuacct"].mount == tmp_path / "sys/fs/cgroup/cpu,cpuacct"
    assert "cgroup v1" in fs.describe() and "hybrid" not in fs.describe()


def test_hybrid_is_v1_where_the_controllers_are(tmp_path: Path) -> None:
    fs = detected(v1_tree(tmp_path, hybrid=True))
    assert isinstance(fs, CgroupV1) and not fs.lacks(*SCHEDULER_NEEDS)
    assert "hybrid: the cgroup2 at" in fs.describe() and "no controllers" in fs.describe()


def test_pure_v2_is_v2(tmp_path: Path) -> None:
    fs = detected(v2_tree(tmp_path))
    assert isinstance(fs, CgroupV2) and fs.lacks(CPU, CPU_USAGE, MEMORY) == []
    assert fs.hierarchy == Hierarchy(tmp_path / "sys/fs/cgroup") and "cpu" in fs.controllers
    assert fs.describe().startswith("cgroup v2 at")


def test_v2_is_chosen_when_cpu_moved_there_from_a_hybrid(tmp_path: Path) -> None:
    # Hybrid in layout, but the cpu controller is the cgroup2's: only memory stayed on v1.
    tree = v1_tree(tmp_path, hybrid=True, controllers=("memory",))
    (tree.root / "unified" / "cgroup.controllers").write_text("cpu io pids\n")
    fs = detected(tree)
    assert isinstance(fs, CgroupV2) and fs.hierarchy.mount == tree.root / "unified"
    assert fs.lacks(MEMORY) == [MEMORY]  # one implementation: memory on v1 is not read then


def test_v2_at_sys_fs_cgroup_wins_over_another_cgroup2_mount(tmp_path: Path) -> None:
    tree = v2_tree(tmp_path)
    other = tmp_path / "elsewhere"
    tree.mounts.insert(1, f"40 25 0:40 / {other} rw - cgroup2 cgroup2 rw")
    assert detected(tree).hierarchy.mount == tree.root


def test_a_whole_v1_hierarchy_wins_over_a_bind_mounted_subtree(tmp_path: Path) -> None:
    tree = v1_tree(tmp_path)
    tree.mounts.insert(1, f"41 25 0:27 /docker {tmp_path / 'bound'} rw - cgroup cgroup rw,cpu,cpuacct")
    fs = detected(tree)
    assert fs.hierarchies["cpu"] == Hierarchy(tree.root / "cpu,cpuacct", "/")


def test_no_cpu_controller_anywhere_keeps_statistics_and_refuses_the_scheduler(tmp_path: Path) -> None:
    v2 = detected(v2_tree(tmp_path / "a", controllers=("memory", "pids")))
    assert isinstance(v2, CgroupV2) and v2.lacks(*SCHEDULER_NEEDS) == [CPU] and not v2.lacks(CPU_USAGE, MEMORY)
    assert "not available" in v2.describe()
    v1 = detected(v1_tree(tmp_path / "b", controllers=("memory",)))
    assert isinstance(v1, CgroupV1) and v1.lacks(*SCHEDULER_NEEDS) == [CPU, CPU_USAGE]
    assert "cpu not mounted" in v1.describe() and "no cpu controller" in v1.describe()


def test_no_cgroup_filesystem_at_all(tmp_path: Path) -> None:
    tree = Tree(tmp_path / "sys/fs/cgroup", tmp_path / "proc")
    tree.mounts.append("22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw")
    fs = detected(tree)
    assert isinstance(fs, NoCgroupFs) and fs.lacks(CPU, CPU_USAGE, MEMORY) == [CPU, CPU_USAGE, MEMORY]
    assert "neither a cgroup (v1) nor a cgroup2" in fs.describe()
    others = detected(v1_tree(tmp_path / "v1", controllers=("pids", "devices")))
    assert isinstance(others, NoCgroupFs)
    assert "cgroup v1 is mounted without the cpu, cpuacct, memory controllers" in others.describe()
    unreadable = detect(None, proc=tmp_path / "no-proc")
    assert isinstance(unreadable, NoCgroupFs) and "mountinfo" in unreadable.describe()


def test_no_cgroup_fs_reads_nothing_and_writes_nothing(tmp_path: Path) -> None:
    fs = NoCgroupFs("none here", tmp_path)
    cg = fs.at("x")
    assert fs.of_pid(1) is None and cg.dirs() == []
    assert not fs.set_cpu_shares(cg, 1024) and not fs.set_cpu_max(cg, CpuMax(MAX, 100000))
    assert not fs.set_memory_max(cg, 1 << 20)
    assert [fs.cpu_weight(cg), fs.cpu_max(cg), fs.memory_max(cg), fs.cpu_usage_ns(cg), fs.memory_bytes(cg),
            fs.throttling(cg)] == [None] * 6
    with pytest.raises(OSError, match="none here"):
        fs.create("x")


# ---- a container's cgroup from /proc/<pid>/cgroup ----------------------------------------------------------------
@pytest.mark.parametrize("path", [
    f"/docker/{CONTAINER}",  # cgroupfs driver
    f"/system.slice/docker-{CONTAINER}.scope",  # systemd driver
    f"/wislice/dk-1a2b/{CONTAINER}",  # --cgroup-parent, as the tests' private dockerd
])
def test_v1_container_cgroup_for_each_driver(tmp_path: Path, path: str) -> None:
    tree = v1_tree(tmp_path, hybrid=True)
    fs = detected(tree)
    pid = tree.process(4242, v1_proc_cgroup(path, hybrid_v2_path="/system.slice/containerd.service"))
    cg = fs.of_pid(pid)
    inside = path.lstrip("/")
    assert cg == Cgroup(tree.root / "cpu,cpuacct" / inside, tree.root / "cpu,cpuacct" / inside,
                        tree.root / "memory" / inside)
    assert cg.dirs() == [tree.root / "cpu,cpuacct" / inside, tree.root / "memory" / inside]


def test_v1_hierarchies_can_place_a_process_differently(tmp_path: Path) -> None:
    tree = v1_tree(tmp_path, controllers=("cpu", "cpuacct", "memory"))
    fs = detected(tree)
    pid = tree.process(7, "5:memory:/process_api/f02\n3:cpuacct:/\n2:cpu:/\n0::/\n")
    assert fs.of_pid(pid) == Cgroup(tree.root / "cpu", tree.root / "cpuacct", tree.root / "memory/process_api/f02")


@pytest.mark.parametrize("path", [
    f"/system.slice/docker-{CONTAINER}.scope",  # systemd driver (Docker's default on v2)
    f"/docker/{CONTAINER}",  # cgroupfs driver
    f"/wislice/dk-1a2b/{CONTAINER}",
])
def test_v2_container_cgroup_for_each_driver(tmp_path: Path, path: str) -> None:
    tree = v2_tree(tmp_path)
    fs = detected(tree)
    d = tree.root / path.lstrip("/")
    assert fs.of_pid(tree.process(99, f"0::{path}\n")) == Cgroup(d, d, d)


def test_container_lookup_misses(tmp_path: Path) -> None:
    tree = v2_tree(tmp_path)
    fs = detected(tree)
    assert fs.of_pid(12345) is None  # no such process
    assert fs.of_pid(tree.process(1, f"0::/../../docker/{CONTAINER}\n")) is None  # outside our cgroup namespace
    assert fs.of_pid(tree.process(2, "4:cpu,cpuacct:/docker/x\n")) is None  # no v2 line
    v1 = detected(v1_tree(tmp_path / "v1"))
    assert v1.locate("0::/system.slice/x.scope\n1:name=systemd:/x\n") is None  # no v1 controller line of ours


def test_a_mount_of_a_subtree_shows_only_what_is_under_it(tmp_path: Path) -> None:
    h = Hierarchy(tmp_path, "/docker")
    assert h.dir_for(f"/docker/{CONTAINER}") == tmp_path / CONTAINER and h.dir_for("/docker") == tmp_path
    assert h.dir_for("/system.slice/x.scope") is None and h.dir_for("/dockerx/y") is None


# ---- operations, v1 ----------------------------------------------------------------------------------------------
@pytest.fixture
def v1(tmp_path: Path) -> tuple[CgroupV1, Cgroup, Path]:
    tree = v1_tree(tmp_path)
    path = f"/docker/{CONTAINER}"
    v1_group(tree, path, quota_us=20000, usage_ns=123_456_789, memory=5 << 20, limit=64 << 20,
             throttled=(50, 3, 7_000_000))
    fs = detected(tree)
    cg = fs.of_pid(tree.process(10, v1_proc_cgroup(path)))
    assert isinstance(fs, CgroupV1) and cg is not None
    return fs, cg, tree.root


def test_v1_reads(v1: tuple[CgroupV1, Cgroup, Path]) -> None:
    fs, cg, _ = v1
    assert fs.cpu_weight(cg) == 1024 and fs.cpu_max(cg) == CpuMax(20000, 100000)
    assert fs.cpu_usage_ns(cg) == 123_456_789 and fs.memory_bytes(cg) == 5 << 20 and fs.memory_max(cg) == 64 << 20
    assert fs.throttling(cg) == Throttling(periods=50, throttled=3, throttled_ns=7_000_000)


def test_v1_writes(v1: tuple[CgroupV1, Cgroup, Path]) -> None:
    fs, cg, _ = v1
    assert cg.cpu is not None and cg.memory is not None
    assert fs.set_cpu_shares(cg, 300) and (cg.cpu / "cpu.shares").read_text() == "300"
    assert fs.set_cpu_shares(cg, 1) and fs.cpu_weight(cg) == 2 and fs.native_weight(10**6) == 262144  # clamped
    assert fs.set_cpu_max(cg, CpuMax(50000, 200000)) and fs.cpu_max(cg) == CpuMax(50000, 200000)
    assert fs.set_cpu_max(cg, CpuMax(MAX, 100000)) and (cg.cpu / "cpu.cfs_quota_us").read_text() == "-1"
    assert fs.cpu_max(cg) == CpuMax(MAX, 100000)
    assert fs.set_memory_max(cg, 128 << 20) and fs.memory_max(cg) == 128 << 20
    assert fs.set_memory_max(cg, MAX) and (cg.memory / "memory.limit_in_bytes").read_text() == "-1"
    (cg.memory / "memory.limit_in_bytes").write_text(f"{V1_UNLIMITED}\n")  # what the kernel reads back
    assert fs.memory_max(cg) == MAX


def test_v1_create_attach_remove(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tree = v1_tree(tmp_path)
    kernel_mkdir(monkeypatch, tree)
    fs, root = detected(tree), tree.root
    cg = fs.create("bench-1/s0")  # cpu + cpu usage: one directory, cpu and cpuacct are mounted together
    assert cg.dirs() == [root / "cpu,cpuacct/bench-1/s0"] and cg.memory is None
    assert fs.set_cpu_shares(cg, 512) and fs.cpu_usage_ns(cg) == 0
    fs.attach(cg, 4321)
    assert (root / "cpu,cpuacct/bench-1/s0/cgroup.procs").read_text() == "4321"
    assert not (root / "memory/bench-1").exists()  # not asked for: the process keeps its memory cgroup
    for d in (root / "cpu,cpuacct/bench-1/s0", root / "cpu,cpuacct/bench-1"):  # (rmdir takes a cgroup's files)
        for f in d.iterdir():
            if f.is_file():
                f.unlink()
    assert fs.remove(cg) and fs.remove(fs.at("bench-1")) and not (root / "cpu,cpuacct/bench-1").exists()
    with pytest.raises(ValueError):
        fs.at("../escape")


# ---- operations, v2 ----------------------------------------------------------------------------------------------
@pytest.fixture
def v2(tmp_path: Path) -> tuple[CgroupV2, Cgroup, Path]:
    tree = v2_tree(tmp_path)
    path = f"/system.slice/docker-{CONTAINER}.scope"
    v2_group(tree.root, path, usage_usec=123_456, cpu_max="20000 100000", memory=5 << 20, memory_max=str(64 << 20),
             throttled=(50, 3, 7000))
    fs = detected(tree)
    cg = fs.of_pid(tree.process(10, f"0::{path}\n"))
    assert isinstance(fs, CgroupV2) and cg is not None
    return fs, cg, tree.root


def test_v2_reads(v2: tuple[CgroupV2, Cgroup, Path]) -> None:
    fs, cg, _ = v2
    assert fs.cpu_weight(cg) == 100 and fs.cpu_max(cg) == CpuMax(20000, 100000)
    assert fs.cpu_usage_ns(cg) == 123_456_000 and fs.memory_bytes(cg) == 5 << 20 and fs.memory_max(cg) == 64 << 20
    assert fs.throttling(cg) == Throttling(periods=50, throttled=3, throttled_ns=7_000_000)


def test_v2_writes(v2: tuple[CgroupV2, Cgroup, Path]) -> None:
    fs, cg, _ = v2
    assert cg.cpu is not None and cg.memory is not None
    assert fs.set_cpu_shares(cg, 1024) and (cg.cpu / "cpu.weight").read_text() == "100"
    assert fs.set_cpu_shares(cg, 4096) and fs.cpu_weight(cg) == 400 == fs.native_weight(4096)
    assert fs.set_cpu_max(cg, CpuMax(50000, 200000)) and (cg.cpu / "cpu.max").read_text() == "50000 200000"
    assert fs.set_cpu_max(cg, CpuMax(MAX, 100000)) and (cg.cpu / "cpu.max").read_text() == "max 100000"
    assert fs.cpu_max(cg) == CpuMax(MAX, 100000)
    assert fs.set_memory_max(cg, 128 << 20) and fs.memory_max(cg) == 128 << 20
    assert fs.set_memory_max(cg, MAX) and (cg.memory / "memory.max").read_text() == "max"
    assert fs.memory_max(cg) == MAX


def test_v2_without_the_cpu_controller_in_the_cgroup(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    tree = v2_tree(tmp_path)
    v2_group(tree.root, "/docker/c1", controllers=("memory", "pids"), usage_usec=99)
    fs = detected(tree)
    cg = fs.of_pid(tree.process(5, "0::/docker/c1\n"))
    assert cg is not None
    assert fs.cpu_usage_ns(cg) == 99_000  # cpu.stat's usage is there without the controller
    assert fs.throttling(cg) is None and fs.cpu_weight(cg) is None and fs.cpu_max(cg) is None
    with caplog.at_level(logging.WARNING, logger="wislice_mec_agent.cgroups.base"):
        assert not fs.set_cpu_shares(cg, 2048) and not fs.set_cpu_shares(cg, 512)
    assert [r.getMessage() for r in caplog.records] == [
        f"cgroup: {tree.root / 'docker/c1/cpu.weight'} does not exist: its controller is not enabled for this cgroup"]


def test_a_gone_cgroup_reads_none_and_writes_false_quietly(v2: tuple[CgroupV2, Cgroup, Path],
                                                           caplog: pytest.LogCaptureFixture) -> None:
    fs, _, root = v2
    gone = fs.at("/system.slice/docker-gone.scope")
    with caplog.at_level(logging.DEBUG, logger="wislice_mec_agent.cgroups"):
        assert not fs.set_cpu_shares(gone, 1024) and not fs.set_memory_max(gone, 1 << 20)
        assert fs.cpu_usage_ns(gone) is None and fs.memory_bytes(gone) is None and fs.throttling(gone) is None
    assert caplog.records == []


def test_v2_create_enables_controllers_down_the_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tree = v2_tree(tmp_path, enabled=("memory", "pids"))  # cpu not handed down from the root yet
    kernel_mkdir(monkeypatch, tree)
    fs, root = detected(tree), tree.root
    cg = fs.create("bench-1/s0")
    assert cg.dirs() == [root / "bench-1/s0"] and cg.memory is None
    # (a recorded file keeps the last write; the kernel would show "cpu memory pids" and "cpu")
    assert (root / "cgroup.subtree_control").read_text() == "+cpu"
    assert (root / "bench-1/cgroup.subtree_control").read_text() == "+cpu"
    assert fs.set_cpu_shares(cg, 2048) and fs.cpu_weight(cg) == 200
    fs.attach(cg, 4321)
    assert (root / "bench-1/s0/cgroup.procs").read_text() == "4321"
    (root / "bench-1/cgroup.subtree_control").write_text("cpu\n")  # as the kernel shows it after "+cpu"
    (root / "cgroup.subtree_control").write_text("cpu memory pids\n")
    s1 = fs.create("bench-1/s1", (CPU, CPU_USAGE, MEMORY))
    assert (root / "cgroup.subtree_control").read_text() == "cpu memory pids\n"  # nothing missing: not written
    assert (root / "bench-1/cgroup.subtree_control").read_text() == "+memory"  # cpu was already on
    assert fs.set_memory_max(s1, 1 << 30) and fs.memory_max(s1) == 1 << 30
