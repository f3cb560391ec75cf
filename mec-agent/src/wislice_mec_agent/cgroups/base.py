"""What the agent does with cgroups, independent of the cgroup version: the ``CgroupFs`` interface, the values it
passes (``Cgroup``, ``CpuMax``, ``Throttling``) and the cpu.shares <-> cpu.weight conversion.

The agent reads and writes cgroup files itself rather than through Docker's API: Docker's stats endpoint takes
about a second per call, and the scheduler rewrites CPU weights every interval. Docker still sets each vNF's
CPU quota and memory limit when it creates or updates the container (runtime.py)."""

from __future__ import annotations

import errno
import logging
import os
from abc import ABC, abstractmethod
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, Literal

log = logging.getLogger(__name__)

PROC = Path("/proc")
CGROUP_ROOT = Path("/sys/fs/cgroup")
MAX: Literal["max"] = "max"  # no limit (what v2 writes in cpu.max and memory.max)
Limit = int | Literal["max"]

# What the agent needs from cgroups; a CgroupFs says which of them it provides.
CPU = "cpu"  # the cpu controller: weight, quota, throttling counters
CPU_USAGE = "cpu usage"  # CPU time used (v1: the cpuacct controller; v2: cpu.stat, present without any controller)
MEMORY = "memory"  # the memory controller: usage and limit
SCHEDULER_NEEDS = (CPU, CPU_USAGE)

SHARES_MIN, SHARES_DEFAULT, SHARES_MAX = 2, 1024, 262144  # v1 cpu.shares
WEIGHT_MIN, WEIGHT_DEFAULT, WEIGHT_MAX = 1, 100, 10000  # v2 cpu.weight


def clamp_shares(shares: int) -> int:
    return max(SHARES_MIN, min(SHARES_MAX, int(shares)))


def shares_to_weight(shares: int) -> int:
    """The cpu.weight that schedules like ``shares`` cpu.shares: the kernel's own equivalence (kernel/sched: a
    group of weight w gets w * 1024 / 100 shares, and its cpu.weight reads shares * 100 / 1024 rounded to the
    closest), clamped to 1..10000; systemd converts CPUShares= the same way. Not runc's older
    1 + (shares - 2) * 9999 / 262142, which maps the default 1024 to 39: vNFs at the scheduler's average would
    then weigh 2.5 times less than their default-weight neighbours (the switch, the agent)."""
    return max(WEIGHT_MIN, min(WEIGHT_MAX, (clamp_shares(shares) * WEIGHT_DEFAULT + SHARES_DEFAULT // 2)
                               // SHARES_DEFAULT))


def weight_to_shares(weight: int) -> int:
    """The inverse: how many cpu.shares a cpu.weight schedules as (weight 100 -> 1024)."""
    return clamp_shares((int(weight) * SHARES_DEFAULT + WEIGHT_DEFAULT // 2) // WEIGHT_DEFAULT)


@dataclass(frozen=True)
class Hierarchy:
    """A mounted cgroup hierarchy: its mount point, and the cgroup the mount shows at that point (mountinfo's
    root field: "/" unless a subtree was bind-mounted or mounted from inside a cgroup namespace)."""
    mount: Path
    root: str = "/"

    def dir_for(self, path: str) -> Path | None:
        """The directory of the cgroup ``path`` (as /proc/<pid>/cgroup writes it); None when this mount does not
        show it (outside the mounted subtree, or "/.." paths: outside the reader's cgroup namespace)."""
        parts = [p for p in path.split("/") if p]
        root = [p for p in self.root.split("/") if p]
        if ".." in parts or parts[: len(root)] != root:
            return None
        return self.mount.joinpath(*parts[len(root):])


@dataclass(frozen=True)
class Cgroup:
    """Where one cgroup's files are. On v1 every controller has its own hierarchy, and a process can sit at
    different paths in each; on v2 the three are the same directory. None: not available there."""
    cpu: Path | None
    cpuacct: Path | None
    memory: Path | None

    def dirs(self) -> list[Path]:
        """Each distinct directory once (v1 often mounts cpu and cpuacct together)."""
        return list(dict.fromkeys(d for d in (self.cpu, self.cpuacct, self.memory) if d is not None))


@dataclass(frozen=True)
class CpuMax:
    """CFS bandwidth: ``quota_us`` of CPU time per ``period_us`` (MAX: unlimited)."""
    quota_us: Limit
    period_us: int


@dataclass(frozen=True)
class Throttling:
    """CFS bandwidth enforcement so far: periods with runnable tasks, periods in which the group hit its quota,
    and the total time its tasks were held back (ns)."""
    periods: int
    throttled: int
    throttled_ns: int


def parse_flat_keyed(text: str) -> dict[str, int]:
    """``key value`` lines (v1 and v2 cpu.stat, v2 memory.stat) as a dict; lines that are not are skipped."""
    out: dict[str, int] = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 2:
            try:
                out[parts[0]] = int(parts[1])
            except ValueError:
                continue
    return out


def file_in(d: Path | None, name: str) -> Path | None:
    return d / name if d is not None else None


def relative(path: str) -> list[str]:
    """The components of a cgroup path given relative to a hierarchy's root; refuses ".." (it would leave it)."""
    parts = [p for p in path.split("/") if p]
    if ".." in parts:
        raise ValueError(f"cgroup path {path!r} leaves its hierarchy")
    return parts


def write_file(path: Path, value: str) -> None:
    """Write a cgroup file, never creating it: cgroupfs cannot create files (an O_CREAT open of a missing one
    fails with EACCES), so a missing file must stay ENOENT, which says the controller is off there. O_TRUNC as a
    shell's ``>`` does: the kernel ignores it, a recorded tree in the tests needs it."""
    fd = os.open(path, os.O_WRONLY | os.O_TRUNC | os.O_CLOEXEC)
    try:
        os.write(fd, value.encode())
    finally:
        os.close(fd)


def read_text(path: Path | None) -> str | None:
    if path is None:
        return None
    try:
        return path.read_text()
    except OSError:  # the cgroup went away with its container, or its controller is off there
        return None


def read_int(path: Path | None) -> int | None:
    text = read_text(path)
    try:
        return int(text.split()[0]) if text else None
    except (ValueError, IndexError):
        return None


def read_flat_keyed(path: Path | None) -> dict[str, int] | None:
    text = read_text(path)
    return parse_flat_keyed(text) if text is not None else None


class CgroupFs(ABC):
    """The agent's only way to cgroups. One implementation per cgroup version, chosen once at start by
    ``detect()``. Reads return None when the file cannot be read (the cgroup is gone, or the controller is not
    there); writes return False when they did not happen, and log why unless the cgroup is simply gone."""

    version: ClassVar[str]

    def __init__(self, provides: Iterable[str], proc: Path = PROC, note: str = "") -> None:
        self.provides = frozenset(provides)
        self.proc = proc
        self.note = note  # what detection saw besides the chosen hierarchy, for the start log
        self._warned: set[Path] = set()

    def lacks(self, *needs: str) -> list[str]:
        return [n for n in needs if n not in self.provides]

    @abstractmethod
    def describe(self) -> str:
        """One line for the start log: the version and where its files are."""

    # ---- finding cgroups ------------------------------------------------------------------------------------
    def of_pid(self, pid: int) -> Cgroup | None:
        """The cgroup of a process (a container's init pid), from /proc/<pid>/cgroup: whatever Docker's cgroup
        driver or cgroup parent made, nothing guessed. The paths there are relative to the reader's cgroup
        namespace, so the agent must run in the host's (it does, as a host daemon)."""
        text = read_text(self.proc / str(pid) / "cgroup")
        return self.locate(text) if text is not None else None

    @abstractmethod
    def locate(self, proc_cgroup: str) -> Cgroup | None:
        """The cgroup that the text of a /proc/<pid>/cgroup names, on this hierarchy."""

    @abstractmethod
    def at(self, path: str, needs: Iterable[str] = (CPU, CPU_USAGE, MEMORY)) -> Cgroup:
        """The cgroup at ``path`` (relative to the hierarchy's root), for the ``needs`` given."""

    @abstractmethod
    def create(self, path: str, needs: Iterable[str] = (CPU, CPU_USAGE)) -> Cgroup:
        """mkdir the cgroup (and its parents) where ``needs`` are served; raises OSError."""

    def attach(self, cg: Cgroup, pid: int) -> None:
        """Move a process into the cgroup (every hierarchy it has a directory in); raises OSError."""
        for d in cg.dirs():
            write_file(d / "cgroup.procs", str(pid))

    def remove(self, cg: Cgroup) -> bool:
        """rmdir the cgroup's directories (they must hold no process); False if one stays."""
        ok = True
        for d in cg.dirs():
            try:
                d.rmdir()
            except FileNotFoundError:
                continue
            except OSError as exc:
                log.warning("cgroup: cannot remove %s: %s", d, exc)
                ok = False
        return ok

    # ---- CPU weight -----------------------------------------------------------------------------------------
    @abstractmethod
    def set_cpu_shares(self, cg: Cgroup, shares: int) -> bool:
        """Relative CPU weight in cpu.shares units (2..262144, 1024 = the default), as the scheduler computes it;
        v2 writes the equivalent cpu.weight (``shares_to_weight``)."""

    @abstractmethod
    def cpu_weight(self, cg: Cgroup) -> int | None:
        """The weight file's value as the kernel shows it (v1 cpu.shares, v2 cpu.weight)."""

    @abstractmethod
    def native_weight(self, shares: int) -> int:
        """What ``set_cpu_shares(cg, shares)`` writes into the weight file."""

    # ---- CPU quota, memory limit ----------------------------------------------------------------------------
    @abstractmethod
    def set_cpu_max(self, cg: Cgroup, limit: CpuMax) -> bool: ...

    @abstractmethod
    def cpu_max(self, cg: Cgroup) -> CpuMax | None: ...

    @abstractmethod
    def set_memory_max(self, cg: Cgroup, limit: Limit) -> bool: ...

    @abstractmethod
    def memory_max(self, cg: Cgroup) -> Limit | None: ...

    # ---- statistics -----------------------------------------------------------------------------------------
    @abstractmethod
    def cpu_usage_ns(self, cg: Cgroup) -> int | None:
        """CPU time used by the cgroup's tasks since it was made."""

    @abstractmethod
    def memory_bytes(self, cg: Cgroup) -> int | None:
        """Memory charged to the cgroup, page cache included (v1 memory.usage_in_bytes, v2 memory.current)."""

    @abstractmethod
    def throttling(self, cg: Cgroup) -> Throttling | None: ...

    # ---- helpers for the implementations --------------------------------------------------------------------
    def _write(self, path: Path | None, value: str) -> bool:
        if path is None:
            return False
        try:
            write_file(path, value)
            return True
        except FileNotFoundError:
            if path.parent.is_dir() and path not in self._warned:  # the cgroup is there, its file is not
                self._warned.add(path)
                log.warning("cgroup: %s does not exist: its controller is not enabled for this cgroup", path)
            return False
        except OSError as exc:
            if exc.errno == errno.ENODEV:  # the cgroup was removed between the lookup and the write
                return False
            log.warning("cgroup: cannot write %r to %s: %s", value, path, exc)
            return False


class NoCgroupFs(CgroupFs):
    """No usable cgroup hierarchy: every read is None and every write False; ``describe`` says why."""

    version = "none"

    def __init__(self, reason: str, proc: Path = PROC) -> None:
        super().__init__((), proc)
        self.reason = reason

    def describe(self) -> str:
        return f"no usable cgroups: {self.reason}"

    def locate(self, proc_cgroup: str) -> Cgroup | None:
        return None

    def at(self, path: str, needs: Iterable[str] = (CPU, CPU_USAGE, MEMORY)) -> Cgroup:
        return Cgroup(None, None, None)

    def create(self, path: str, needs: Iterable[str] = (CPU, CPU_USAGE)) -> Cgroup:
        raise OSError(errno.ENOTSUP, f"cannot create cgroup {path}: {self.reason}")

    def set_cpu_shares(self, cg: Cgroup, shares: int) -> bool:
        return False

    def cpu_weight(self, cg: Cgroup) -> int | None:
        return None

    def native_weight(self, shares: int) -> int:
        return clamp_shares(shares)

    def set_cpu_max(self, cg: Cgroup, limit: CpuMax) -> bool:
        return False

    def cpu_max(self, cg: Cgroup) -> CpuMax | None:
        return None

    def set_memory_max(self, cg: Cgroup, limit: Limit) -> bool:
        return False

    def memory_max(self, cg: Cgroup) -> Limit | None:
        return None

    def cpu_usage_ns(self, cg: Cgroup) -> int | None:
        return None

    def memory_bytes(self, cg: Cgroup) -> int | None:
        return None

    def throttling(self, cg: Cgroup) -> Throttling | None:
        return None
