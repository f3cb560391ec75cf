"""getStatistics: node CPU and memory, per-vNF CPU (deltas of its cgroup's CPU usage), memory and port counters.
Port counters are from the vNF's side: a kernel vNF's rx is its host veth's tx; a DPDK vNF's come from the
switch's port (the management socket's ``ports``), where the switch's tx is the vNF's rx.

A vNF that measures itself (dpdk-vnf's stats.json: the p99 of the time a packet spent in it over its last report,
500 ms) adds proc_p99_us: its latency cost under the node's current load (issue 15).

A collection of the whole node (the stats event's) is kept as ``latest``, with what /metrics labels it by and the
stats do not carry (each vNF's tenant, image and live state, the node's allocation): metrics.py exports it."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wislice_agent_proto.errors import AgentError

from .cgroups import CgroupFs, host
from .ids import check_vnf_id
from .manager import VnfManager, live_state
from .vnf_classes import vnf_class


def node_cpu_times() -> tuple[int, int]:
    fields = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = fields[3] + fields[4]
    return sum(fields), idle


def node_memory_used_mib() -> float:
    info = {}
    for line in Path("/proc/meminfo").read_text().splitlines():
        key, value = line.split(":", 1)
        info[key] = int(value.split()[0])
    return round((info["MemTotal"] - info["MemAvailable"]) / 1024, 1)


@dataclass(frozen=True)
class VnfAbout:
    tenant_id: int
    image: str
    state: str  # the record's, as its container shows it now (manager.live_state)


@dataclass(frozen=True)
class Collected:
    """One collection of the whole node."""
    t: float  # monotonic
    node: dict[str, Any]  # NodeStats
    vnfs: list[dict[str, Any]]  # VnfStats, with the scheduler's view
    about: dict[int, VnfAbout]
    allocated: tuple[float, int]  # cpu and memory_mib of the vNFs' specs (getStatus' used)


class StatsCollector:
    def __init__(self, manager: VnfManager, scheduler: Any = None, cgroup_fs: CgroupFs | None = None) -> None:
        """``scheduler``: the node's SchedulerLoop, when it runs: VnfStats then carry its backpressure view.
        ``cgroup_fs``: where vNF CPU and memory are read (default: the node's detected cgroups)."""
        self.m = manager
        self.cgroups = cgroup_fs if cgroup_fs is not None else host()
        self.scheduler = scheduler
        self.last_node = node_cpu_times()
        self.last_vnf: dict[int, tuple[float, int]] = {}  # vnf_id -> (monotonic time, cpu ns)
        self.latest: Collected | None = None

    def node(self) -> dict[str, Any]:
        total, idle = node_cpu_times()
        dt, di = total - self.last_node[0], idle - self.last_node[1]
        self.last_node = (total, idle)
        busy = 100.0 * (dt - di) / dt if dt > 0 else 0.0
        return {"cpu_pct": round(max(0.0, busy), 2), "memory_used_mib": node_memory_used_mib()}

    def vnf(self, vnf_id: int) -> dict[str, Any]:
        return self._vnf(vnf_id)[0]

    def _vnf(self, vnf_id: int) -> tuple[dict[str, Any], VnfAbout]:
        rec = self.m.store.get(vnf_id)
        if rec is None:
            raise AgentError("not_found", f"no vNF {vnf_id} on this node")
        info = self.m.runtime.inspect(rec.container_id) if rec.container_id else None
        about = VnfAbout(rec.spec.tenant_id, rec.spec.image, live_state(rec, info.status if info else None))
        pid = info.pid if info and info.status == "running" else 0
        cpu_pct, mem_mib = 0.0, 0.0
        cg = self.cgroups.of_pid(pid) if pid else None
        if cg is not None:
            now, used = time.monotonic(), self.cgroups.cpu_usage_ns(cg)
            prev = self.last_vnf.get(vnf_id)
            if used is not None:
                if prev is not None and now > prev[0]:
                    cpu_pct = max(0.0, 100.0 * (used - prev[1]) / 1e9 / (now - prev[0]))
                self.last_vnf[vnf_id] = (now, used)
            mem = self.cgroups.memory_bytes(cg)
            mem_mib = round(mem / 1048576, 2) if mem else 0.0
        stats = {"vnf_id": vnf_id, "cpu_pct": round(cpu_pct, 2), "memory_mib": mem_mib, "ports": self._ports(rec)}
        p99 = proc_p99_us(Path(rec.config_dir)) if pid else None
        if p99 is not None:
            stats["proc_p99_us"] = p99
        return stats, about

    def _ports(self, rec: Any) -> list[dict[str, Any]]:
        return vnf_class(rec.vnf_class).port_stats(self.m, rec)

    def collect(self, vnf_id: object = None) -> dict[str, Any]:
        with self.m.lock:
            ids = [check_vnf_id(vnf_id)] if vnf_id is not None else [r.vnf_id for r in self.m.store.all()]
            node = self.node()
            rows = [self._vnf(i) for i in ids]
            allocated = self.m.used()
        out = {"node": node, "vnfs": [stats for stats, _ in rows]}
        if self.scheduler is not None:  # outside the manager's lock: a scheduler step takes its own, then that one
            add_backpressure(out["vnfs"], self.scheduler.report())
        if vnf_id is None:
            self.latest = Collected(time.monotonic(), node, out["vnfs"],
                                    {stats["vnf_id"]: about for stats, about in rows}, allocated)
        return out


def proc_p99_us(cdir: Path) -> float | None:
    """The p99 processing time (us) the vNF wrote in its stats.json (dpdk-vnf: proc_p99_ns over the last report);
    None without the file, the field, or any packet in that report (nothing measured is no cost of 0)."""
    try:
        stats = json.loads((cdir / "stats.json").read_text())
        ns, packets = stats["proc_p99_ns"], stats["proc_packets"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not isinstance(ns, int) or isinstance(ns, bool) or ns < 0 or not isinstance(packets, int) or packets <= 0:
        return None
    return round(ns / 1000, 3)


def add_backpressure(vnfs: list[dict[str, Any]], report: dict[Any, dict[str, Any]]) -> None:
    """The scheduler's per-chain view onto the VnfStats it concerns: queue_bytes on vNFs downstream of a chain
    head, throttled and backpressure_drops on heads."""
    by_id = {v["vnf_id"]: v for v in vnfs}
    for chain in report.values():
        for vnf_id, queued in chain["queues"].items():
            if vnf_id in by_id:
                by_id[vnf_id]["queue_bytes"] = int(queued)
        head = by_id.get(chain["head"])
        if head is not None:
            head["throttled"] = bool(chain["throttled"])
            head["backpressure_drops"] = int(chain["drops"])
