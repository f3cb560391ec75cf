"""NFVnice-style CPU sharing among the vNFs of a node (Kulkarni et al., IEEE/ACM ToN 2020).

- Rate-cost shares: every vNF gets cgroup cpu.shares proportional to load_i = arrival rate_i x cost per packet_i
  (cost = CPU ns spent per packet received, measured from cpuacct and port counters, smoothed), so a vNF that
  needs more CPU per packet at the same rate gets more of the shared core instead of an equal split.
- Per-chain backpressure with hysteresis: when a downstream vNF's queue passes the high watermark the chain head
  is throttled (drops at the head, so no upstream work is wasted on packets that would die downstream), and
  released only when every downstream queue is back under the low watermark.
The pure logic (``compute_shares``, ``Backpressure``) is separate from the loop that measures and applies it.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from . import cgroups

log = logging.getLogger(__name__)
TOTAL_SHARES = 1024
MIN_SHARES = 2
EWMA = 0.3


def compute_shares(loads: dict[int, float], total: int = TOTAL_SHARES, floor: int = MIN_SHARES) -> dict[int, int]:
    """cpu.shares proportional to load (rate x cost), averaging ``total`` per vNF; every vNF keeps at least
    ``floor``; an idle node gets the default ``total`` each."""
    if not loads:
        return {}
    positive = {k: max(0.0, v) for k, v in loads.items()}
    whole = sum(positive.values())
    if whole <= 0:
        return dict.fromkeys(loads, total)
    return {k: max(floor, round(total * len(loads) * v / whole)) for k, v in positive.items()}


class Backpressure:
    """Hysteresis per chain: throttle when any downstream queue > high, release when all are < low."""

    def __init__(self, high: int, low: int) -> None:
        if not 0 <= low < high:
            raise ValueError("watermarks need 0 <= low < high")
        self.high, self.low = high, low
        self.throttled: set[Any] = set()

    def update(self, chain: Any, downstream_queues: list[int]) -> bool:
        """Returns whether the chain's head must drop now."""
        if chain in self.throttled:
            if all(q < self.low for q in downstream_queues):
                self.throttled.discard(chain)
        elif any(q > self.high for q in downstream_queues):
            self.throttled.add(chain)
        return chain in self.throttled


@dataclass
class Sample:
    t: float
    cpu_ns: int
    rx_packets: int  # arrivals (what reached the vNF's input)
    processed: int | None = None  # packets the vNF finished, when it reports them; else arrivals stand in


class CostEstimator:
    """Arrival rate and CPU ns per packet for one vNF from successive samples. The rate must be the ARRIVAL
    rate: weighting by the processed rate would feed back (more CPU -> more processed -> more CPU)."""

    def __init__(self) -> None:
        self.last: Sample | None = None
        self.rate = 0.0
        self.cost_ns = 0.0

    def add(self, s: Sample) -> None:
        if self.last is not None and s.t > self.last.t:
            da = s.rx_packets - self.last.rx_packets
            dp = da if s.processed is None or self.last.processed is None else s.processed - self.last.processed
            dc = s.cpu_ns - self.last.cpu_ns
            rate = max(0.0, da / (s.t - self.last.t))
            self.rate = rate if self.rate == 0 else (1 - EWMA) * self.rate + EWMA * rate
            if dp > 0 and dc >= 0:
                cost = dc / dp
                self.cost_ns = cost if self.cost_ns == 0 else (1 - EWMA) * self.cost_ns + EWMA * cost
        self.last = s

    @property
    def load(self) -> float:
        return self.rate * self.cost_ns


class SchedulerLoop:
    """Every interval: measure each running vNF (cgroup cpuacct + port rx counters), recompute and write
    cpu.shares. Backpressure needs the vNF's queue depth, which only the vNF knows: a vNF that reports it writes
    /run/vnf/queue (an integer); the head of a throttled chain finds /run/vnf/throttle (and drops while it
    exists)."""

    def __init__(self, manager: Any, interval_s: float, high: int = 512, low: int = 128,
                 apply: Callable[[int, int], bool] = cgroups.set_cpu_shares) -> None:
        self.m = manager
        self.interval_s = interval_s
        self.estimators: dict[int, CostEstimator] = {}
        self.backpressure = Backpressure(high, low)
        self.apply = apply
        self.halt = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.last_shares: dict[int, int] = {}

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self.halt.set()

    def run(self) -> None:
        while not self.halt.wait(self.interval_s):
            try:
                self.step()
            except Exception as exc:
                log.warning("scheduler step: %s", exc)

    def step(self) -> dict[int, int]:
        from pathlib import Path

        pids: dict[int, int] = {}
        chains: dict[int, list[Any]] = {}
        for rec in self.m.store.all():
            info = self.m.runtime.inspect(rec.container_id) if rec.container_id else None
            if rec.state != "running" or info is None or not info.pid:
                continue
            pids[rec.vnf_id] = info.pid
            cpu = cgroups.cpu_usage_ns(info.pid) or 0
            stats = self.m.wiring.stats(rec.host_ifname) if rec.host_ifname else None
            rx = stats.tx_packets if stats else 0
            self.estimators.setdefault(rec.vnf_id, CostEstimator()).add(Sample(time.monotonic(), cpu, rx))
            chains.setdefault(rec.spec.tenant_id, []).append(rec)
        shares = compute_shares({v: self.estimators[v].load for v in pids})
        for vnf_id, value in shares.items():
            if self.last_shares.get(vnf_id) != value and self.apply(pids[vnf_id], value):
                self.last_shares[vnf_id] = value
        for tenant, recs in chains.items():
            recs.sort(key=lambda r: r.spec.chain_position)
            queues = [_read_queue(Path(r.config_dir)) for r in recs[1:]]
            throttle = Path(recs[0].config_dir) / "throttle"
            if self.backpressure.update(tenant, queues):
                throttle.touch()
            elif throttle.exists():
                throttle.unlink()
        return shares


def _read_queue(cdir: Any) -> int:
    try:
        return int((cdir / "queue").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 0
