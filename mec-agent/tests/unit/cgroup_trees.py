"""Recorded cgroupfs trees for the cgroups module's unit tests: directories under tmp_path holding the files a
kernel shows, in its formats (Documentation/admin-guide/cgroup-v1/{cgroups,cpuacct,memory}.rst,
scheduler/sched-bwc.rst, admin-guide/cgroup-v2.rst), plus the /proc/self/mountinfo lines that mount them and
/proc/<pid>/cgroup files. Mount lines are those of real hosts (Debian 10's hybrid systemd, Debian 12's pure v2)
with the mount points moved under tmp_path."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

CONTAINER = "4f3c2a1be07d" * 5 + "beef"  # a 64-hex Docker container id
V1_UNLIMITED = 9223372036854771712  # memory.limit_in_bytes of an unlimited v1 group on 4 KiB pages
ALL_V2 = ("cpuset", "cpu", "io", "memory", "hugetlb", "pids", "rdma", "misc")


@dataclass
class Tree:
    root: Path  # stands for /sys/fs/cgroup
    proc: Path  # stands for /proc
    mounts: list[str] = field(default_factory=list)

    @property
    def mountinfo(self) -> str:
        return "".join(line + "\n" for line in self.mounts)

    def mount(self, point: Path, fstype: str, super_options: str, root: str = "/") -> None:
        n = 26 + len(self.mounts)
        self.mounts.append(f"{n} 25 0:{n - 3} {root} {point} rw,nosuid,nodev,noexec,relatime shared:{n - 20} - "
                           f"{fstype} {fstype} {super_options}")

    def process(self, pid: int, proc_cgroup: str) -> int:
        d = self.proc / str(pid)
        d.mkdir(parents=True, exist_ok=True)
        (d / "cgroup").write_text(proc_cgroup)
        return pid


def new_tree(tmp: Path) -> Tree:
    root, proc = tmp / "sys" / "fs" / "cgroup", tmp / "proc"
    root.mkdir(parents=True)
    proc.mkdir()
    tree = Tree(root, proc)
    tree.mounts.append(f"25 19 0:22 / {root} ro,nosuid,nodev,noexec shared:4 - tmpfs tmpfs ro,mode=755")
    return tree


def write(d: Path, files: dict[str, str]) -> None:
    d.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (d / name).write_text(text)


# ---- v1 ----------------------------------------------------------------------------------------------------------
def v1_tree(tmp: Path, hybrid: bool = False, controllers: tuple[str, ...] = ("cpu,cpuacct", "memory")) -> Tree:
    """systemd's layout: cpu and cpuacct mounted together at cpu,cpuacct; with ``hybrid`` the controller-less
    cgroup2 at unified/ as well."""
    tree = new_tree(tmp)
    if hybrid:
        tree.mount(tree.root / "unified", "cgroup2", "rw,nsdelegate")
        write(tree.root / "unified", {"cgroup.controllers": "\n", "cgroup.subtree_control": "\n"})
    tree.mount(tree.root / "systemd", "cgroup", "rw,xattr,name=systemd")
    for ctrls in controllers:
        tree.mount(tree.root / ctrls, "cgroup", f"rw,{ctrls}")
        v1_group(tree, "/", hierarchies=(ctrls,))
    return tree


def v1_group(tree: Tree, path: str, hierarchies: tuple[str, ...] = ("cpu,cpuacct", "memory"), shares: int = 1024,
             quota_us: int = -1, period_us: int = 100000, usage_ns: int = 0, memory: int = 0,
             limit: int = V1_UNLIMITED, throttled: tuple[int, int, int] = (0, 0, 0)) -> None:
    for ctrls in hierarchies:
        d = tree.root / ctrls / path.strip("/")
        files = {"cgroup.procs": "", "tasks": "", "notify_on_release": "0\n"}
        if "cpu" in ctrls.split(","):
            periods, n, ns = throttled
            files.update({"cpu.shares": f"{shares}\n", "cpu.cfs_quota_us": f"{quota_us}\n",
                          "cpu.cfs_period_us": f"{period_us}\n",
                          "cpu.stat": f"nr_periods {periods}\nnr_throttled {n}\nthrottled_time {ns}\n"})
        if "cpuacct" in ctrls.split(","):
            files.update({"cpuacct.usage": f"{usage_ns}\n", "cpuacct.stat": "user 10\nsystem 2\n"})
        if "memory" in ctrls.split(","):
            files.update({"memory.usage_in_bytes": f"{memory}\n", "memory.limit_in_bytes": f"{limit}\n",
                          "memory.max_usage_in_bytes": f"{memory}\n"})
        write(d, files)


def v1_proc_cgroup(path: str, hybrid_v2_path: str | None = None) -> str:
    """/proc/<pid>/cgroup of a process at ``path`` in every v1 hierarchy (numbered as a kernel numbers them)."""
    lines = [f"12:memory:{path}", "11:pids:" + path, "4:cpu,cpuacct:" + path, "1:name=systemd:" + path]
    if hybrid_v2_path is not None:
        lines.append(f"0::{hybrid_v2_path}")
    return "\n".join(lines) + "\n"


# ---- v2 ----------------------------------------------------------------------------------------------------------
def v2_tree(tmp: Path, controllers: tuple[str, ...] = ALL_V2, enabled: tuple[str, ...] = ("cpu", "memory", "pids"),
            point: str = "") -> Tree:
    """Debian 12's pure v2: cgroup2 at /sys/fs/cgroup (``point``: a sub-directory of it instead)."""
    tree = new_tree(tmp)
    mount = tree.root / point if point else tree.root
    tree.mount(mount, "cgroup2", "rw,nsdelegate,memory_recursiveprot")
    write(mount, {"cgroup.controllers": " ".join(controllers) + "\n",
                  "cgroup.subtree_control": " ".join(c for c in enabled if c in controllers) + "\n",
                  "cgroup.procs": "", "cpu.stat": "usage_usec 0\nuser_usec 0\nsystem_usec 0\n"})
    return tree


def v2_group(mount: Path, path: str, controllers: tuple[str, ...] = ("cpu", "memory", "pids"),
             usage_usec: int = 0, weight: int = 100, cpu_max: str = "max 100000", memory: int = 0,
             memory_max: str = "max", throttled: tuple[int, int, int] = (0, 0, 0)) -> Path:
    """A cgroup whose parent enabled ``controllers``; cpu.stat has the throttling keys only with cpu."""
    d = mount / path.strip("/")
    stat = f"usage_usec {usage_usec}\nuser_usec {usage_usec * 3 // 4}\nsystem_usec {usage_usec // 4}\n"
    files = {"cgroup.controllers": " ".join(controllers) + "\n", "cgroup.subtree_control": "\n",
             "cgroup.procs": "", "cgroup.type": "domain\n"}
    if "cpu" in controllers:
        periods, n, usec = throttled
        stat += f"nr_periods {periods}\nnr_throttled {n}\nthrottled_usec {usec}\nnr_bursts 0\nburst_usec 0\n"
        files.update({"cpu.weight": f"{weight}\n", "cpu.weight.nice": "0\n", "cpu.max": f"{cpu_max}\n",
                      "cpu.max.burst": "0\n"})
    if "memory" in controllers:
        files.update({"memory.current": f"{memory}\n", "memory.max": f"{memory_max}\n", "memory.min": "0\n",
                      "memory.stat": "anon 0\nfile 0\n"})
    files["cpu.stat"] = stat
    write(d, files)
    return d


# ---- mkdir as cgroupfs does it -----------------------------------------------------------------------------------
def kernel_mkdir(monkeypatch: pytest.MonkeyPatch, tree: Tree) -> None:
    """A directory made under ``tree.root`` comes with its cgroup's files, as on cgroupfs: a v1 hierarchy's
    controller files; on v2 those of the controllers its parent's cgroup.subtree_control enables (its last write,
    "+cpu +memory", in a recorded tree)."""
    real_mkdir = Path.mkdir

    def mkdir(self: Path, *args: Any, **kwargs: Any) -> None:
        existed = self.is_dir()
        real_mkdir(self, *args, **kwargs)
        if existed or not self.is_relative_to(tree.root):
            return
        parts = self.relative_to(tree.root).parts
        if "cgroup.controllers" in {p.name for p in tree.root.iterdir()}:  # v2 mounted at the root
            enabled = (self.parent / "cgroup.subtree_control").read_text().replace("+", "").split()
            v2_group(tree.root, "/".join(parts), controllers=tuple(enabled))
        else:
            v1_group(tree, "/".join(parts[1:]), hierarchies=(parts[0],))

    monkeypatch.setattr(Path, "mkdir", mkdir)
