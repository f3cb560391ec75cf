"""cgroup v2: one hierarchy, every controller in the same directory (Documentation/admin-guide/cgroup-v2.rst):
cpu.weight (1..10000, default 100), cpu.max ("$MAX $PERIOD", "max 100000" = unlimited), cpu.stat (usage_usec
always, as core accounting; nr_periods, nr_throttled, throttled_usec with the cpu controller), memory.current,
memory.max ("max" = unlimited). A controller's files exist in a cgroup only when its parent enables it in
cgroup.subtree_control."""

from __future__ import annotations

from collections.abc import Iterable
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
    file_in,
    read_flat_keyed,
    read_int,
    read_text,
    relative,
    shares_to_weight,
    write_file,
)

CONTROLLER_OF = {CPU: "cpu", MEMORY: "memory"}  # CPU_USAGE needs none: cpu.stat's usage_usec is always there


class CgroupV2(CgroupFs):
    version = "v2"

    def __init__(self, hierarchy: Hierarchy, proc: Path = PROC, note: str = "") -> None:
        self.hierarchy = hierarchy
        # The controllers this mount's root can hand down (on a hybrid host, those v1 does not hold).
        self.controllers = frozenset((read_text(hierarchy.mount / "cgroup.controllers") or "").split())
        provides = [CPU_USAGE] + [need for need, c in CONTROLLER_OF.items() if c in self.controllers]
        super().__init__(provides, proc, note)

    def describe(self) -> str:
        ctrls = " ".join(sorted(self.controllers)) or "none"
        return f"cgroup v2 at {self.hierarchy.mount} (controllers: {ctrls})" + (f" ({self.note})" if self.note else "")

    def locate(self, proc_cgroup: str) -> Cgroup | None:
        for line in proc_cgroup.splitlines():
            if line.startswith("0::"):  # the v2 line; "N:controllers:path" lines are v1 hierarchies
                d = self.hierarchy.dir_for(line[3:].strip())
                return Cgroup(d, d, d) if d is not None else None
        return None

    def at(self, path: str, needs: Iterable[str] = (CPU, CPU_USAGE, MEMORY)) -> Cgroup:
        d = self.hierarchy.mount.joinpath(*relative(path))
        wanted = set(needs)
        return Cgroup(d if CPU in wanted else None, d if CPU_USAGE in wanted else None,
                      d if MEMORY in wanted else None)

    def create(self, path: str, needs: Iterable[str] = (CPU, CPU_USAGE)) -> Cgroup:
        """mkdir each missing level, enabling the controllers ``needs`` take in every parent on the way down
        (a cgroup gets a controller's files only from its parent's cgroup.subtree_control)."""
        wanted = set(needs)
        enable = [c for need, c in CONTROLLER_OF.items() if need in wanted and c in self.controllers]
        d = self.hierarchy.mount
        for part in relative(path):
            if enable:
                self._enable(d, enable)
            d = d / part
            d.mkdir(exist_ok=True)
        return self.at(path, needs)

    @staticmethod
    def _enable(d: Path, controllers: list[str]) -> None:
        on = set((read_text(d / "cgroup.subtree_control") or "").split())
        missing = [c for c in controllers if c not in on]
        if missing:
            write_file(d / "cgroup.subtree_control", " ".join(f"+{c}" for c in missing))

    def set_cpu_shares(self, cg: Cgroup, shares: int) -> bool:
        return self._write(file_in(cg.cpu, "cpu.weight"), str(self.native_weight(shares)))

    def cpu_weight(self, cg: Cgroup) -> int | None:
        return read_int(file_in(cg.cpu, "cpu.weight"))

    def native_weight(self, shares: int) -> int:
        return shares_to_weight(shares)

    def set_cpu_max(self, cg: Cgroup, limit: CpuMax) -> bool:
        return self._write(file_in(cg.cpu, "cpu.max"), f"{limit.quota_us} {limit.period_us}")

    def cpu_max(self, cg: Cgroup) -> CpuMax | None:
        fields = (read_text(file_in(cg.cpu, "cpu.max")) or "").split()
        try:
            return CpuMax(MAX if fields[0] == MAX else int(fields[0]), int(fields[1]))
        except (IndexError, ValueError):
            return None

    def set_memory_max(self, cg: Cgroup, limit: Limit) -> bool:
        return self._write(file_in(cg.memory, "memory.max"), str(limit))

    def memory_max(self, cg: Cgroup) -> Limit | None:
        text = (read_text(file_in(cg.memory, "memory.max")) or "").strip()
        if text == MAX:
            return MAX
        try:
            return int(text)
        except ValueError:
            return None

    def cpu_usage_ns(self, cg: Cgroup) -> int | None:
        stat = read_flat_keyed(file_in(cg.cpuacct, "cpu.stat"))
        return stat["usage_usec"] * 1000 if stat and "usage_usec" in stat else None

    def memory_bytes(self, cg: Cgroup) -> int | None:
        return read_int(file_in(cg.memory, "memory.current"))

    def throttling(self, cg: Cgroup) -> Throttling | None:
        stat = read_flat_keyed(file_in(cg.cpu, "cpu.stat"))
        if not stat or "nr_periods" not in stat:  # without the cpu controller cpu.stat has usage only
            return None
        return Throttling(stat["nr_periods"], stat.get("nr_throttled", 0), stat.get("throttled_usec", 0) * 1000)
