"""Soak (issue #13): a full slice (vAP with WPA2, vNF, metered wired path) created and deleted again and again on
the testbed, every process's memory (VmRSS) and open files and the orchestrator's database size sampled after each
cycle. What a leak per slice would show: a level that keeps rising from the early cycles to the late ones."""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wislice_testbed.topology.common import StepLog

from . import e2e_slice as e2e

# Cycles before the levels are taken as the reference: caches, JIT and pools fill up first.
WARMUP_FRACTION = 0.1


@dataclass
class Sample:
    cycle: int
    rss_kib: dict[str, int] = field(default_factory=dict)
    fds: dict[str, int] = field(default_factory=dict)
    db_bytes: int = 0


def host_process(pid: int) -> tuple[int, int]:
    """(VmRSS in KiB, open file descriptors) of a host process."""
    rss = next(int(line.split()[1]) for line in Path(f"/proc/{pid}/status").read_text().splitlines()
               if line.startswith("VmRSS:"))
    return rss, len(list(Path(f"/proc/{pid}/fd").iterdir()))


def guest_processes(vm: Any, pids: dict[str, int]) -> dict[str, tuple[int, int]]:
    """The same for processes in the AP VM, in one command."""
    script = "; ".join(f"echo {name} $(grep VmRSS /proc/{pid}/status | tr -s ' ' | cut -d' ' -f2) "
                       f"$(ls /proc/{pid}/fd | wc -l)" for name, pid in pids.items())
    out = {}
    for line in vm.run(script).out.splitlines():
        name, rss, fds = line.split()
        out[name] = (int(rss), int(fds))
    return out


def sample(tb: Any, cycle: int, db_path: Path) -> Sample:
    host = {"orchestrator": tb.orch.proc.pid, "onos": tb.onos.java_pid(), "mec-agent": tb.mec.agent.pid,
            "core-switch": tb.core_switch.pid, "mec-switch": tb.mec.switch.pid, "dockerd": tb.mec.dockerd.proc.pid}
    levels = {name: host_process(pid) for name, pid in host.items() if pid}
    levels.update(guest_processes(tb.ap.vm, {"ap-agent": tb.ap.agent_pid, "ap-switch": tb.ap.switch_pid,
                                             "hostapd": tb.ap.hostapd_pid()}))
    return Sample(cycle, {k: v[0] for k, v in levels.items()}, {k: v[1] for k, v in levels.items()},
                  db_path.stat().st_size)


def cycle(tb: Any, log: StepLog, s: e2e.SliceRun) -> None:
    """One slice created (and checked active) and deleted (and checked gone from the orchestrator)."""
    e2e.create_slice(tb, log, s)
    _, _, headers = tb.orch.call("DELETE", f"/api/v1/tenants/{s.tenant_id}/slices/{s.slice_id}", s.token)
    op = e2e.wait_operation(tb, s.token, headers["Location"])
    if op["status"] != "succeeded":
        raise RuntimeError(f"slice {s.slice_id} deletion {op['status']}: {op}")


def growth_pct(levels: list[float]) -> float:
    """How much higher the late cycles' level is than the early ones' (after the warm-up), in percent: medians
    of the first and last fifth of the cycles after it."""
    start = int(len(levels) * WARMUP_FRACTION)
    window = max(3, (len(levels) - start) // 5)
    early = statistics.median(levels[start:start + window])
    late = statistics.median(levels[-window:])
    return round(100 * (late - early) / early, 1) if early else 0.0


def run(tb: Any, log: StepLog, cycles: int) -> list[Sample]:
    s = e2e.SliceRun(1, "soak", 1000, tb.ap.stations[0])
    e2e.operator_setup(tb, log, [s])
    db_path = tb.orch.db_path
    samples = [sample(tb, 0, db_path)]
    for n in range(1, cycles + 1):
        cycle(tb, log, s)
        samples.append(sample(tb, n, db_path))
    return samples


def summary(samples: list[Sample]) -> dict[str, Any]:
    """The metrics of a soak: its cycles, the largest memory growth of any process (and which), the largest growth
    of open files (descriptors, absolute) and the database's growth (over the whole run and its second half)."""
    names = sorted(samples[0].rss_kib)
    rss = {n: growth_pct([s.rss_kib[n] for s in samples]) for n in names}
    fds = {n: samples[-1].fds[n] - samples[int(len(samples) * WARMUP_FRACTION)].fds[n] for n in names}
    worst = max(rss, key=lambda n: rss[n])
    db = [float(s.db_bytes) for s in samples]
    return {"soak_cycles": len(samples) - 1, "soak_rss_growth_pct": rss[worst], "worst": worst, "rss_growth": rss,
            "fd_growth": fds, "soak_db_growth_pct": growth_pct(db),
            # A database fills to its history retention and SQLite then settles its pages, which takes longer than
            # the warm-up: whether it still grows is judged on the second half of the run.
            "soak_db_late_growth_pct": growth_pct(db[len(db) // 2:])}


def plot(samples: list[Sample], path: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (mem, files) = plt.subplots(2, 1, figsize=(8, 6), dpi=110, sharex=True)
    cycles = [s.cycle for s in samples]
    for name in sorted(samples[0].rss_kib):
        first = samples[0].rss_kib[name] or 1
        mem.plot(cycles, [100 * s.rss_kib[name] / first for s in samples], linewidth=1.2, label=name)
        files.plot(cycles, [s.fds[name] for s in samples], linewidth=1.2, label=name)
    mem.set_ylabel("RSS (% of cycle 0)")
    files.set_ylabel("open files")
    files.set_xlabel("slice create + delete cycles")
    mem.set_title("Soak: every process after each full slice cycle", fontsize=10)
    for ax in (mem, files):
        ax.grid(alpha=0.3)
    mem.legend(fontsize=7, loc="upper left", ncol=3)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
    return path
