"""cgroup v1: one hierarchy per controller (or per group of controllers mounted together, e.g. cpu,cpuacct).
Files (Documentation/admin-guide/cgroup-v1/ and scheduler/sched-bwc.rst): cpu.shares, cpu.cfs_quota_us (-1 =
unlimited) and cpu.cfs_period_us, cpu.stat (nr_periods, nr_throttled, throttled_time in ns), cpuacct.usage (ns),
memory.usage_in_bytes, memory.limit_in_bytes (-1 writes unlimited)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from .base import (
    CPU,
    CPU_USAGE,
    MAX,
    MEMORY,
    PROC,
    Cgroup,
    CgroupFs,
    CpuMax,
    Hierarchy,
    Limit,
    Throttling,
    clamp_shares,
    file_in,
    read_flat_keyed,
    read_int,
    relative,
)

CONTROLLER_OF = {CPU: "cpu", CPU_USAGE: "cpuacct", MEMORY: "memory"}  # the v1 controller serving each need
CONTROLLERS = tuple(CONTROLLER_OF.values())
# "No limit" reads back as the largest page-aligned long (9223372036854771712 with 4 KiB pages, less with larger
# pages): anything from 2^62 on is no real limit.
UNLIMITED_FROM = 1 << 62


class CgroupV1(CgroupFs):
    version = "v1"

    def __init__(self, hierarchies: Mapping[str, Hierarchy], proc: Path = PROC, note: str = "") -> None:
        """``hierarchies``: where the cpu, cpuacct and memory controllers are mounted (those that are)."""
        self.hierarchies = {c: h for c, h in hierarchies.items() if c in CONTROLLERS}
        super().__init__([need for need, c in CONTROLLER_OF.items() if c in self.hierarchies], proc, note)

    def describe(self) -> str:
        where = [f"{c} at {self.hierarchies[c].mount}" if c in self.hierarchies else f"{c} not mounted"
                 for c in CONTROLLERS]
        return "cgroup v1: " + ", ".join(where) + (f" ({self.note})" if self.note else "")

    def locate(self, proc_cgroup: str) -> Cgroup | None:
        paths: dict[str, str] = {}
        for line in proc_cgroup.splitlines():
            parts = line.split(":", 2)
            if len(parts) != 3 or not parts[1]:  # "0::/path" is the v2 line a hybrid host adds
                continue
            for controller in parts[1].split(","):
                paths.setdefault(controller, parts[2])
        dirs = {c: self.hierarchies[c].dir_for(paths[c]) if c in self.hierarchies and c in paths else None
                for c in CONTROLLERS}
        if not any(dirs.values()):
            return None
        return Cgroup(dirs["cpu"], dirs["cpuacct"], dirs["memory"])

    def at(self, path: str, needs: Iterable[str] = (CPU, CPU_USAGE, MEMORY)) -> Cgroup:
        parts = relative(path)
        wanted = {CONTROLLER_OF[n] for n in needs}
        dirs = {c: self.hierarchies[c].mount.joinpath(*parts) if c in wanted and c in self.hierarchies else None
                for c in CONTROLLERS}
        return Cgroup(dirs["cpu"], dirs["cpuacct"], dirs["memory"])

    def create(self, path: str, needs: Iterable[str] = (CPU, CPU_USAGE)) -> Cgroup:
        cg = self.at(path, needs)
        for d in cg.dirs():
            d.mkdir(parents=True, exist_ok=True)
        return cg

    def set_cpu_shares(self, cg: Cgroup, shares: int) -> bool:
        return self._write(file_in(cg.cpu, "cpu.shares"), str(self.native_weight(shares)))

    def cpu_weight(self, cg: Cgroup) -> int | None:
        return read_int(file_in(cg.cpu, "cpu.shares"))

    def native_weight(self, shares: int) -> int:
        return clamp_shares(shares)

    def set_cpu_max(self, cg: Cgroup, limit: CpuMax) -> bool:
        # The period first: the kernel checks the quota against it.
        return (self._write(file_in(cg.cpu, "cpu.cfs_period_us"), str(limit.period_us))
                and self._write(file_in(cg.cpu, "cpu.cfs_quota_us"),
                                "-1" if limit.quota_us == MAX else str(limit.quota_us)))

    def cpu_max(self, cg: Cgroup) -> CpuMax | None:
        quota, period = read_int(file_in(cg.cpu, "cpu.cfs_quota_us")), read_int(file_in(cg.cpu, "cpu.cfs_period_us"))
        if quota is None or period is None:
            return None
        return CpuMax(MAX if quota < 0 else quota, period)

    def set_memory_max(self, cg: Cgroup, limit: Limit) -> bool:
        # Raising it above memory.memsw.limit_in_bytes (Docker sets that too) is refused by the kernel: False.
        return self._write(file_in(cg.memory, "memory.limit_in_bytes"), "-1" if limit == MAX else str(limit))

    def memory_max(self, cg: Cgroup) -> Limit | None:
        value = read_int(file_in(cg.memory, "memory.limit_in_bytes"))
        if value is None:
            return None
        return MAX if value >= UNLIMITED_FROM else value

    def cpu_usage_ns(self, cg: Cgroup) -> int | None:
        return read_int(file_in(cg.cpuacct, "cpuacct.usage"))

    def memory_bytes(self, cg: Cgroup) -> int | None:
        return read_int(file_in(cg.memory, "memory.usage_in_bytes"))

    def throttling(self, cg: Cgroup) -> Throttling | None:
        stat = read_flat_keyed(file_in(cg.cpu, "cpu.stat"))
        if not stat or "nr_periods" not in stat:
            return None
        return Throttling(stat["nr_periods"], stat.get("nr_throttled", 0), stat.get("throttled_time", 0))
