"""Placement of DPDK vNFs on the node's cores (issue 14).

Every DPDK vNF runs on ONE core: its container's cpuset (Docker's cpuset_cpus) is that core and its EAL lcore is
pinned to the first CPU the container may use (vnfs/*/run.sh read Cpus_allowed_list), so the cpuset and the EAL
core list are the same single core. One core, not a set, because an EAL lcore is pinned: a vNF given "1-3" would
run on 1 anyway and the kernel could not spread it.

- The switch's own cores (config switch_cpus, its lcores) are never given while the node has another core.
- A vNF gets a core of its own (exclusive) while a core is left that is neither the switch's nor another DPDK
  vNF's. Otherwise it shares: it goes to the non-switch core with the fewest DPDK vNFs (ties: the lowest number),
  and the vNFs of a core split it by their CPU weights (cpu.weight / cpu.shares, the scheduler).
- A node whose only cores are the switch's puts its vNFs there, with a warning: they take CPU from the switch.
- A latency slice's vNF (VnfSpec latency_class ultra_low or low, or params latency=true; issue 15) takes a free
  core first like any other, and other vNFs keep off its core while the node has another vNF core: it keeps its
  exclusive core. It runs in latency mode (burst 1) and busy-polls only while its core is its own: the agent keeps
  a file in its config dir (SHARED_CORE_FILE, /run/vnf/shared-core inside) while another vNF is on its core, and
  dpdk-vnf then sleeps on rx interrupts when idle, since two busy pollers on one core take turns by scheduler
  slices (milliseconds; mec-agent/bench/slice_latency.py) and a busy poller at the highest weight starves its
  neighbours. Placements change after a vNF started (a later vNF shares its core, or leaves it), hence a file and
  not a start parameter. The scheduler gives it the highest CPU weight.
Kernel vNFs are not placed (no cpuset): their forwarding is softirq work on whatever core the packet arrives on.
"""

from __future__ import annotations

import logging
import os
import threading
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

log = logging.getLogger(__name__)
EXCLUSIVE, SHARED, SWITCH = "exclusive", "shared", "switch"
LATENCY_SLICES = ("ultra_low", "low")  # VnfSpec latency classes whose vNFs run in latency mode
MAX_CPU = 4095
SHARED_CORE_FILE = "shared-core"  # in a latency vNF's config dir while its core is shared (see above)


def parse_cpus(text: str) -> list[int]:
    """The kernel's CPU list format ("0-2,5", "" = none) as sorted CPU numbers; ValueError when malformed."""
    cpus: set[int] = set()
    for part in text.replace(" ", "").split(","):
        if not part:
            continue
        lo, sep, hi = part.partition("-")
        if not lo.isdigit() or (sep and not hi.isdigit()):
            raise ValueError(f"bad CPU list {text!r}: expected e.g. 0-2,5")
        first, last = int(lo), int(hi) if sep else int(lo)
        if first > last or last > MAX_CPU:
            raise ValueError(f"bad CPU range {part!r} in {text!r}")
        cpus.update(range(first, last + 1))
    return sorted(cpus)


def node_cpus(configured: str) -> list[int]:
    """The CPUs vNFs may use: the configured list, else the agent's own affinity (its cpuset)."""
    return parse_cpus(configured) if configured else sorted(os.sched_getaffinity(0))


@dataclass(frozen=True)
class Placement:
    cpus: str  # the container's cpuset, kernel CPU list format ("1")
    mode: str  # EXCLUSIVE | SHARED | SWITCH

    def to_json(self) -> dict[str, str]:
        return {"cpus": self.cpus, "cpu_mode": self.mode}


class CorePlanner:
    """The node's cores and which DPDK vNF runs on which (vnf_id -> core). In memory: rebuilt from the running
    containers' cpusets by reconcile after an agent restart. Thread-safe (the scheduler and stats read it)."""

    def __init__(self, cpus: Iterable[int], switch_cpus: Iterable[int]) -> None:
        self.cpus = sorted(set(cpus))
        if not self.cpus:
            raise ValueError("the node has no CPU to place vNFs on")
        self.switch = set(switch_cpus) & set(self.cpus)
        self.vnf_cores = [c for c in self.cpus if c not in self.switch]
        self.assigned: dict[int, int] = {}
        self.latency: set[int] = set()  # latency slices' vNFs: other vNFs keep off their cores
        self.lock = threading.Lock()
        if not self.vnf_cores:
            log.warning("placement: the node's only cores (%s) are the pof-switch's: DPDK vNFs will share them with"
                        " the switch and slow it down", ",".join(map(str, self.cpus)))

    @property
    def switch_only(self) -> bool:
        """The node has no core but the switch's: vNFs placed here compete with the switch."""
        return not self.vnf_cores

    def place(self, vnf_id: int, latency: bool = False) -> Placement:
        """A core for the vNF (its own when one is free); the same one again if it has one already. Every vNF keeps
        off the cores of latency vNFs while it has another core to go to (a second latency vNF too: the first one
        busy-polls there)."""
        with self.lock:
            if vnf_id not in self.assigned:
                cores = self.vnf_cores or self.cpus
                load = Counter(self.assigned.values())
                held = {self.assigned[v] for v in self.latency if v in self.assigned}
                core = min(cores, key=lambda c: (c in held, load[c], c))
                if latency:
                    self.latency.add(vnf_id)
                self.assigned[vnf_id] = core
                if core in self.switch:
                    log.warning("placement: vNF %d runs on CPU %d, the pof-switch's (the node has no other core)",
                                vnf_id, core)
            return self._placement(vnf_id)

    def adopt(self, vnf_id: int, cpuset: str, latency: bool = False) -> bool:
        """Record a running vNF's core from its container's cpuset (after an agent restart); False when that is
        not one core of this node (a container from before placement, or a node whose CPUs changed): the vNF then
        stays unplaced and takes no core."""
        try:
            cpus = parse_cpus(cpuset)
        except ValueError:
            cpus = []
        with self.lock:
            if len(cpus) != 1 or cpus[0] not in self.cpus:
                self.assigned.pop(vnf_id, None)
                return False
            self.assigned[vnf_id] = cpus[0]
            if latency:
                self.latency.add(vnf_id)
            return True

    def release(self, vnf_id: int) -> None:
        with self.lock:
            self.assigned.pop(vnf_id, None)
            self.latency.discard(vnf_id)

    def latency_sharing(self) -> dict[int, bool]:
        """Each placed latency vNF: True when its core is not its own (shared, or the switch's)."""
        with self.lock:
            return {v: self._placement(v).mode != EXCLUSIVE for v in self.latency if v in self.assigned}

    def placement(self, vnf_id: int) -> Placement | None:
        with self.lock:
            return self._placement(vnf_id) if vnf_id in self.assigned else None

    def _placement(self, vnf_id: int) -> Placement:
        core = self.assigned[vnf_id]
        if core in self.switch:
            mode = SWITCH
        elif sum(1 for c in self.assigned.values() if c == core) > 1:
            mode = SHARED
        else:
            mode = EXCLUSIVE
        return Placement(str(core), mode)


def wants_latency(spec: Any) -> bool:
    """A latency slice's vNF: its VnfSpec's latency_class is ultra_low or low, or its params ask for latency mode
    (dpdk-vnf's catalog param ``latency``, for a controller that does not send the class)."""
    return spec.latency_class in LATENCY_SLICES or spec.params.get("latency") is True


def run_params(spec: Any, accepted: Iterable[str]) -> dict[str, Any]:
    """The params a vNF starts with (``accepted``: the params its image takes). A latency slice's vNF runs in
    latency mode (latency=true: burst 1; it busy-polls while its core is its own, SHARED_CORE_FILE says when not);
    an image without that param but with a burst gets burst 1. Other vNFs, and images without those params, start
    with their params as sent."""
    out = dict(spec.params)
    if not wants_latency(spec):
        return out
    accepted = set(accepted)
    if "latency" in accepted:
        out["latency"] = True
        out.pop("burst", None)  # latency mode is burst 1; another burst beside it is refused
    elif "burst" in accepted:
        out["burst"] = 1
    return out
