"""A latency slice's budget against its measured latency (issue 15): events when it is broken and restored.

The telemetry collector gives, per poll, each probed slice's worst p99 over its vAPs (telemetry.slice_latency).
A *sample* is a poll at which some vAP of the slice reports newer numbers than at the previous sample (its agent's
stats event is newer): an agent reports every few seconds and the collector polls faster, so the same numbers are
never counted twice. Hysteresis, so a noisy p99 near the budget makes no event storm: the budget is *broken* after
N consecutive samples whose worst p99 exceeds it (event `latency_budget_broken`, level warn), and *restored* after
N consecutive samples within it (event `latency_budget_restored`); N = BREAK_SAMPLES = 3. Both events carry the
numbers (worst p99, p50, budget, the vAP). A slice starts within its budget; a slice that goes (deleted, or no
longer probed) is forgotten. State is in memory: after a restart the watch starts again from "within".
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy.orm import Session, sessionmaker

from .models import Slice, event
from .telemetry import Latest

log = logging.getLogger(__name__)

BREAK_SAMPLES = 3


@dataclass
class BudgetState:
    broken: bool = False
    run: int = 0  # consecutive samples against the current state (over the budget while within, within while broken)
    last_updated: float | None = None  # the newest vAP `updated` of the last sample
    since: float | None = None  # poll time the current state began (None: from the start)


class LatencyWatch:
    """A telemetry observer: per probed slice, the budget state and its events."""

    def __init__(self, session_factory: sessionmaker[Session], samples: int = BREAK_SAMPLES,
                 on_event: Callable[[int, str], None] | None = None) -> None:
        self.session_factory = session_factory
        self.samples = samples
        self.on_event = on_event  # tests and metrics: (slice_id, kind) after each event is written
        self.states: dict[int, BudgetState] = {}

    def state(self, slice_id: int) -> dict[str, Any] | None:
        """{budget_broken, since} of a watched slice, None for one not watched."""
        s = self.states.get(slice_id)
        return None if s is None else {"budget_broken": s.broken, "since": s.since}

    def observe(self, latest: Latest) -> None:
        for slice_id in [k for k in self.states if k not in latest.latency]:
            del self.states[slice_id]
        for slice_id, measured in latest.latency.items():
            self._sample(slice_id, measured, latest.ts)

    def _sample(self, slice_id: int, measured: dict[str, Any], ts: float) -> None:
        state = self.states.setdefault(slice_id, BudgetState())
        with_samples = [v for v in measured["vaps"] if v.get("samples")]
        newest = max((v["updated"] for v in with_samples), default=None)
        if newest is None or (state.last_updated is not None and newest <= state.last_updated):
            return  # nothing measured yet, or the same numbers as at the last sample
        state.last_updated = newest
        over = measured["worst_p99_us"] > measured["budget_us"]
        state.run = state.run + 1 if over != state.broken else 0
        if state.run < self.samples:
            return
        state.broken, state.run, state.since = over, 0, ts
        worst = max(with_samples, key=lambda v: v["p99_us"])
        kind = "latency_budget_broken" if over else "latency_budget_restored"
        verb = "exceeds" if over else "is within"
        message = (f"slice {slice_id}: measured p99 {measured['worst_p99_us']} us {verb} its latency budget "
                   f"{measured['budget_us']} us for {self.samples} samples in a row (worst vAP {worst['vap_id']} "
                   f"on {worst['agent_id']}: p50 {worst['p50_us']} us, p99 {worst['p99_us']} us, lost "
                   f"{worst['lost']}, samples {worst['samples']})")
        with self.session_factory() as db:
            row = db.get(Slice, slice_id)
            event(db, kind, message, row.tenant_id if row is not None else None, "warn" if over else "info")
            db.commit()
        log.info("%s", message)
        if self.on_event is not None:
            self.on_event(slice_id, kind)
