"""cgroup v1 files of a container, found from its init pid (/proc/<pid>/cgroup), so CPU and memory are read and
cpu.shares written without a Docker API round trip (docker's stats endpoint takes a second per call)."""

from __future__ import annotations

from pathlib import Path

CGROUP_ROOT = Path("/sys/fs/cgroup")


def cgroup_dir(pid: int, controller: str) -> Path | None:
    try:
        text = Path(f"/proc/{pid}/cgroup").read_text()
    except OSError:
        return None
    for line in text.splitlines():
        _, controllers, path = line.split(":", 2)
        if controller in controllers.split(","):
            for mount in (CGROUP_ROOT / controller, CGROUP_ROOT / controllers):
                d = mount / path.lstrip("/")
                if d.is_dir():
                    return d
    return None


def read_int(path: Path) -> int | None:
    try:
        return int(path.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def cpu_usage_ns(pid: int) -> int | None:
    d = cgroup_dir(pid, "cpuacct")
    return read_int(d / "cpuacct.usage") if d else None


def memory_bytes(pid: int) -> int | None:
    d = cgroup_dir(pid, "memory")
    return read_int(d / "memory.usage_in_bytes") if d else None


def set_cpu_shares(pid: int, shares: int) -> bool:
    d = cgroup_dir(pid, "cpu")
    if d is None:
        return False
    (d / "cpu.shares").write_text(str(max(2, min(262144, shares))))
    return True


def get_cpu_shares(pid: int) -> int | None:
    d = cgroup_dir(pid, "cpu")
    return read_int(d / "cpu.shares") if d else None
