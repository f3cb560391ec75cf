"""The cgroups module on real kernels' cgroupfs, no Docker: this host's detection against statfs's view of
/sys/fs/cgroup; a group of our own on the host's hierarchy (weight, quota, throttling, usage, memory limit); and a
cgroup2 hierarchy mounted in a scratch directory, which works on hosts of either version: the core files
(cpu.stat usage, cgroup.procs, /proc/<pid>/cgroup's 0:: line) always, the cpu and memory controllers only where
v1 does not hold them. Every group, process and mount a test makes is removed, also when it fails."""

from __future__ import annotations

import contextlib
import os
import secrets
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from wislice_mec_agent import cgroups
from wislice_mec_agent.cgroups import CPU, CPU_USAGE, MAX, MEMORY, SCHEDULER_NEEDS, Cgroup, CgroupV2, CpuMax

pytestmark = pytest.mark.integration
# Waits for a line, burns some CPU (a few tens of ms), waits for another: attached to a cgroup in between.
BURNER = "read go; i=0; while [ $i -lt 40000 ]; do i=$((i+1)); done; echo burnt; read done"


def wait_for(cond: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


@contextlib.contextmanager
def burner() -> Iterator[subprocess.Popen[str]]:
    with subprocess.Popen(["sh", "-c", BURNER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True) as p:
        try:
            yield p
        finally:
            p.kill()  # (the with block then closes its pipes and reaps it)


def burn(p: subprocess.Popen[str]) -> None:
    assert p.stdin is not None and p.stdout is not None
    p.stdin.write("\n")
    p.stdin.flush()
    assert p.stdout.readline() == "burnt\n"


def remove_when_empty(fs: cgroups.CgroupFs, cg: Cgroup) -> None:
    """rmdir right after the last process was reaped can still find the group busy for a moment."""
    deadline = time.monotonic() + 5
    while not fs.remove(cg) and time.monotonic() < deadline:
        time.sleep(0.05)


def test_this_hosts_detection_matches_statfs_and_finds_our_own_cgroup() -> None:
    fs = cgroups.detect()
    fstype = subprocess.run(["stat", "-fc", "%T", str(cgroups.CGROUP_ROOT)], capture_output=True, text=True,
                            check=True).stdout.strip()
    print(f"/sys/fs/cgroup is {fstype}: {fs.describe()}")
    if fstype == "cgroup2fs":
        assert isinstance(fs, CgroupV2) and fs.hierarchy.mount == cgroups.CGROUP_ROOT
    else:
        assert fs.version in ("v1", "v2", "none")  # v1 or hybrid: v2 only if cpu lives in a cgroup2 mount
    cg = fs.of_pid(os.getpid())
    assert cg is not None, fs.describe()
    if CPU_USAGE in fs.provides:
        assert (fs.cpu_usage_ns(cg) or 0) > 0
    if MEMORY in fs.provides:
        assert (fs.memory_bytes(cg) or 0) > 0


def test_a_group_of_our_own_on_the_hosts_hierarchy() -> None:
    fs = cgroups.host()
    if fs.lacks(*SCHEDULER_NEEDS):
        pytest.skip(f"this host's cgroups cannot serve the scheduler: {fs.describe()}")
    name = f"wislice-cgtest-{secrets.token_hex(3)}"
    cg = fs.at(name, SCHEDULER_NEEDS)
    try:
        cg = fs.create(name, SCHEDULER_NEEDS)
        assert fs.set_cpu_shares(cg, 300) and fs.cpu_weight(cg) == fs.native_weight(300)
        assert fs.cpu_max(cg) == CpuMax(MAX, 100000)  # the kernel's default
        # A tenth of a core (the kernel's smallest quota, 1 ms, per 10 ms): any burst of more than a millisecond
        # is throttled, however busy the machine (at half a core a contended burner was sometimes never throttled).
        assert fs.set_cpu_max(cg, CpuMax(1000, 10000)) and fs.cpu_max(cg) == CpuMax(1000, 10000)
        with burner() as p:
            fs.attach(cg, p.pid)
            found = fs.of_pid(p.pid)  # (on v1 its memory cgroup stays ours: only cpu and cpuacct moved)
            assert found is not None and (found.cpu, found.cpuacct) == (cg.cpu, cg.cpuacct)
            burn(p)
            assert (fs.cpu_usage_ns(cg) or 0) > 1_000_000
            throttled = fs.throttling(cg)
            # The throttled time is the kernel's to account: 6.18 once read 0 after 6 throttled periods.
            assert throttled is not None and throttled.periods >= throttled.throttled >= 1
            assert throttled.throttled_ns >= 0
    finally:
        remove_when_empty(fs, cg)
    assert not any(d.exists() for d in cg.dirs())


def test_a_memory_limit_on_the_hosts_hierarchy() -> None:
    fs = cgroups.host()
    if fs.lacks(MEMORY):
        pytest.skip(f"no memory controller: {fs.describe()}")
    name = f"wislice-cgtest-{secrets.token_hex(3)}"
    cg = fs.at(name, (MEMORY,))
    try:
        cg = fs.create(name, (MEMORY,))  # no process is moved in: ours keep their memory cgroup
        assert fs.memory_max(cg) == MAX and fs.memory_bytes(cg) == 0
        assert fs.set_memory_max(cg, 64 << 20) and fs.memory_max(cg) == 64 << 20
        assert fs.set_memory_max(cg, MAX) and fs.memory_max(cg) == MAX
    finally:
        remove_when_empty(fs, cg)
    assert not any(d.exists() for d in cg.dirs())


# ---- a scratch cgroup2 mount -------------------------------------------------------------------------------------
@pytest.fixture
def scratch_v2(tmp_path: Path) -> Iterator[tuple[CgroupV2, str]]:
    """A cgroup2 mount of our own and the name of a group to make in it (it is the host's one v2 hierarchy, seen
    at another place: only that group is ours). Unmounted and removed afterwards, whatever happened."""
    if os.geteuid() != 0:
        pytest.skip("mounting cgroup2 needs root")
    mnt = tmp_path / "cgroup2"
    mnt.mkdir()
    res = subprocess.run(["mount", "-t", "cgroup2", "none", str(mnt)], capture_output=True, text=True)
    if res.returncode != 0:
        pytest.skip(f"cannot mount cgroup2 here: {res.stderr.strip()}")
    name = f"wislice-cg2test-{secrets.token_hex(3)}"
    fs = CgroupV2(cgroups.Hierarchy(mnt))
    try:
        yield fs, name
    finally:
        try:
            for sub in sorted((mnt / name).glob("*/"), reverse=True):
                remove_when_empty(fs, Cgroup(sub, sub, sub))
            if (mnt / name).is_dir():
                remove_when_empty(fs, fs.at(name))
        finally:
            if subprocess.run(["umount", str(mnt)], capture_output=True).returncode != 0:
                subprocess.run(["umount", "-l", str(mnt)], check=False)
            mnt.rmdir()


def test_scratch_cgroup2_detection_lookup_and_usage(scratch_v2: tuple[CgroupV2, str]) -> None:
    fs, name = scratch_v2
    mnt = fs.hierarchy.mount
    mine = "".join(line + "\n" for line in Path("/proc/self/mountinfo").read_text().splitlines()
                   if f" {mnt} " in line)
    found = cgroups.detect(mine, cgroup_root=mnt)  # this mount alone, as a pure v2 host would show it
    assert isinstance(found, CgroupV2) and found.controllers == fs.controllers
    print(f"scratch cgroup2: {found.describe()}")
    if "cpu" not in fs.controllers:  # v1 holds it: the scheduler would be refused, statistics still read
        assert found.lacks(*SCHEDULER_NEEDS) == [CPU] and "not available" in found.describe()
    cg = fs.create(name, (CPU_USAGE,))
    with burner() as p:
        fs.attach(cg, p.pid)
        assert fs.of_pid(p.pid) == fs.at(name)  # from the 0:: line of /proc/<pid>/cgroup
        burn(p)
        wait_for(lambda: (fs.cpu_usage_ns(cg) or 0) > 0, 5, "cpu.stat usage_usec")
    remove_when_empty(fs, cg)
    assert not (mnt / name).exists()


def test_scratch_cgroup2_weight_quota_and_memory(scratch_v2: tuple[CgroupV2, str]) -> None:
    fs, name = scratch_v2
    held = [c for c in ("cpu", "memory") if c not in fs.controllers]
    if held:
        pytest.skip(f"the {' and '.join(held)} controller(s) are not on cgroup2 here (cgroup.controllers of the "
                    f"hierarchy: {' '.join(sorted(fs.controllers)) or 'none'}): cgroup v1 holds them on this host")
    cg = fs.create(f"{name}/vnf", (CPU, CPU_USAGE, MEMORY))
    assert fs.cpu_weight(cg) == 100 and fs.cpu_max(cg) == CpuMax(MAX, 100000) and fs.memory_max(cg) == MAX
    assert fs.set_cpu_shares(cg, 2048) and fs.cpu_weight(cg) == 200
    assert fs.set_cpu_max(cg, CpuMax(1000, 10000)) and fs.cpu_max(cg) == CpuMax(1000, 10000)
    assert fs.set_memory_max(cg, 64 << 20) and fs.memory_max(cg) == 64 << 20
    with burner() as p:
        fs.attach(cg, p.pid)
        burn(p)
        throttled = fs.throttling(cg)
        assert throttled is not None and throttled.periods >= throttled.throttled >= 1
        assert (fs.memory_bytes(cg) or 0) > 0
