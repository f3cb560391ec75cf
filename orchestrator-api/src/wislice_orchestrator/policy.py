"""Closed-loop slice assurance: the policies a slice declares, evaluated after every telemetry poll.

A slice carries `policies` (schemas.PolicySchema, one dict each) and the engine's `policy_state` of each, in the
same order, both on the slice's row (so the API and the dashboard show them and a restarted orchestrator resumes).
Each policy type has a pure `decide(policy, state, observation, now) -> Decision` (unit-tested on recorded
telemetry) and the engine applies what it decides through the SliceService: the same admission, placement and
saga as a tenant's own request. Every action and every outcome is an event (kind "policy") with its reason.

transcode_on_overload (ADE²WiNFV's Scenario 3): the slice's down demand is its associated clients times the
policy's per-client rate (the rate of the service each client receives, e.g. a video's bitrate). When the demand
exceeds the slice's down guarantee for `hold_s`, a transcoding vNF (catalog `transcoder`, its bitrate and params
from the policy) is added at the head of the slice's chain, on the MEC node placement chooses; when the demand is
back within the guarantee for `release_s`, it is removed. States:

    idle -> overloaded (demand above guarantee since `since`) -> deploying (add_vnf operation) -> active
    active -> releasing (demand within guarantee since `since`) -> removing (remove_vnf operation) -> idle

A refused or failed deployment is an event and the policy waits `release_s` before it tries again.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from .models import Operation, Slice
from .policy_state import ACTIVE, DEPLOYING, IDLE, OVERLOADED, RELEASING, REMOVING, initial_state
from .service import Conflict, Rejected, SliceService, event


@dataclass(frozen=True)
class Observation:
    """What the last telemetry poll saw of a slice: client count (None = not known this poll), down rate (bit/s,
    None = not known), the down guarantee (kbps) and the slice's running vNF ids."""

    clients: int | None
    down_bps: float | None
    guaranteed_down_kbps: int
    vnf_ids: frozenset[int]


@dataclass(frozen=True)
class Decision:
    state: dict[str, Any]
    action: str | None = None  # "deploy" | "remove" | None
    reason: str = ""


def demand_kbps(policy: dict[str, Any], obs: Observation) -> int | None:
    return None if obs.clients is None else obs.clients * int(policy["per_client_down_kbps"])


def _demand_text(policy: dict[str, Any], obs: Observation, demand: int) -> str:
    rate = "" if obs.down_bps is None else f", measured {obs.down_bps / 1000:.0f} kbps down"
    return (f"demand {demand} kbps ({obs.clients} clients x {policy['per_client_down_kbps']} kbps{rate}) against a "
            f"down guarantee of {obs.guaranteed_down_kbps} kbps")


def decide_transcode(policy: dict[str, Any], state: dict[str, Any], obs: Observation, now: float) -> Decision:
    """The transcode_on_overload state machine for one poll (states in the module docstring). Operation outcomes
    (deploying/removing) are not decided here: the engine reads them from the operation."""
    st = {**initial_state(), **state}
    demand = demand_kbps(policy, obs)
    phase = st["state"]
    if phase in (DEPLOYING, REMOVING) or demand is None:
        return Decision(st)  # waiting on an operation, or nothing known this poll: no change
    over = demand > obs.guaranteed_down_kbps
    why = _demand_text(policy, obs, demand)
    if phase == ACTIVE and st["vnf_id"] not in obs.vnf_ids:
        return Decision({**initial_state(), "reason": f"transcoder vNF {st['vnf_id']} is gone"})
    if phase == IDLE:
        if over and (st["retry_at"] is None or now >= st["retry_at"]):
            st.update(state=OVERLOADED, since=now, reason=why)
            phase = OVERLOADED
        else:
            return Decision(st)
    if phase == OVERLOADED:
        if not over:
            return Decision({**initial_state(), "reason": f"{why}: back within before acting"})
        if now - st["since"] >= float(policy["hold_s"]):
            st.update(state=DEPLOYING, reason=why)
            return Decision(st, "deploy", f"{why} for {now - st['since']:.1f} s")
        return Decision(st)
    if phase == ACTIVE:
        if not over:
            st.update(state=RELEASING, since=now, reason=why)
            phase = RELEASING
        else:
            return Decision(st)
    if phase == RELEASING:
        if over:
            st.update(state=ACTIVE, since=None, reason=why)
            return Decision(st)
        if now - st["since"] >= float(policy["release_s"]):
            st.update(state=REMOVING, reason=why)
            return Decision(st, "remove", f"{why} for {now - st['since']:.1f} s")
    return Decision(st)


DECIDE: dict[str, Callable[[dict[str, Any], dict[str, Any], Observation, float], Decision]] = {
    "transcode_on_overload": decide_transcode,
}


def transcoder_body(policy: dict[str, Any]) -> dict[str, Any]:
    """The vNF request (schemas.VnfRequestSchema) the policy deploys."""
    t = policy["transcoder"]
    return {"image": "transcoder", "params": {**t.get("params", {}), "bitrate_kbps": t["bitrate_kbps"]},
            "cpu": t["cpu"], "memory_mib": t["memory_mib"]}


class PolicyEngine:
    """Applies the policies of every active slice after each telemetry poll (TelemetryCollector observer)."""

    def __init__(self, session_factory: sessionmaker[Session], service: SliceService,
                 clock: Callable[[], float] = time.time) -> None:
        self.session_factory = session_factory
        self.service = service
        self.clock = clock

    def observe(self, latest: Any) -> None:
        """One round over the active slices with policies, given the poll's `Latest` (telemetry.py)."""
        now = latest.ts or self.clock()
        with self.session_factory() as db:
            rows = db.scalars(select(Slice).where(Slice.status == "active").order_by(Slice.id))
            for slice_ in [s for s in rows if s.policies]:
                seen = latest.slices.get(slice_.id) or {}
                obs = Observation(seen.get("clients"), seen.get("down_bps"), slice_.bandwidth.down.guaranteed_kbps,
                                  frozenset(v.vnf_id for v in slice_.vnfs if v.state == "running"))
                states = list(slice_.policy_state or [])
                states += [initial_state() for _ in range(len(slice_.policies) - len(states))]
                new = [self._step(db, slice_, p, st, obs, now) for p, st in zip(slice_.policies, states, strict=False)]
                if new != slice_.policy_state:
                    slice_.policy_state = new
                    db.commit()

    def _step(self, db: Session, slice_: Slice, policy: dict[str, Any], state: dict[str, Any], obs: Observation,
              now: float) -> dict[str, Any]:
        state = self._outcome(db, slice_, state, now, float(policy["release_s"]))
        decision = DECIDE[policy["type"]](policy, state, obs, now)
        if decision.action == "deploy":
            return self._deploy(db, slice_, policy, decision, now)
        if decision.action == "remove":
            return self._remove(db, slice_, decision, now)
        return decision.state

    def _outcome(self, db: Session, slice_: Slice, state: dict[str, Any], now: float,
                 retry_s: float) -> dict[str, Any]:
        """A deploying/removing policy whose operation has ended moves on; an event says how it went."""
        if state.get("state") not in (DEPLOYING, REMOVING) or state.get("operation_id") is None:
            return state
        op = db.get(Operation, state["operation_id"])
        if op is None or op.status not in ("succeeded", "failed"):
            return state
        st = dict(state)
        name = f"slice {slice_.id} {slice_.name!r}"
        if st["state"] == DEPLOYING and op.status == "succeeded":
            vnf = next((v for v in slice_.vnfs if any(s["kind"] == "create_vnf" and s["ref"]["row"] == v.id
                                                      for s in op.steps)), None)
            st.update(state=ACTIVE, vnf_id=vnf.vnf_id if vnf else None, operation_id=None, since=None,
                      reaction_s=round(now - st["since"], 1) if st.get("since") else None)
            event(db, "policy", f"{name}: transcoder vNF {st['vnf_id']} running on {vnf.node if vnf else '?'}, "
                                f"{st['reaction_s']} s after the demand exceeded the guarantee", slice_.tenant_id)
        elif st["state"] == DEPLOYING:
            st.update(initial_state(), retry_at=now + retry_s, reason=f"deployment failed: {op.error}"[:300])
            event(db, "policy", f"{name}: transcoder deployment failed ({op.error}); retrying in {retry_s:g} s",
                  slice_.tenant_id, "error")
        elif op.status == "succeeded":
            event(db, "policy", f"{name}: transcoder vNF {st['vnf_id']} removed", slice_.tenant_id)
            st = {**initial_state(), "reason": "transcoder removed"}
        else:
            st.update(state=ACTIVE, operation_id=None, since=None, reason=f"removal failed: {op.error}"[:300])
            event(db, "policy", f"{name}: transcoder removal failed ({op.error}); it stays", slice_.tenant_id,
                  "error")
        return st

    def _deploy(self, db: Session, slice_: Slice, policy: dict[str, Any], decision: Decision,
                now: float) -> dict[str, Any]:
        st = dict(decision.state)
        name = f"slice {slice_.id} {slice_.name!r}"
        try:
            op, _ = self.service.add_vnf(db, slice_, transcoder_body(policy), position=0)
        except Conflict as exc:  # another operation on the slice: try again at the next poll
            st["state"] = OVERLOADED
            st["reason"] = f"waiting: {exc}"[:300]
            return st
        except Rejected as exc:
            retry = float(policy["release_s"])
            event(db, "policy", f"{name}: {decision.reason}; the transcoder does not fit: {'; '.join(exc.reasons)}; "
                                f"retrying in {retry:g} s", slice_.tenant_id, "warn")
            db.commit()
            return {**initial_state(), "retry_at": now + retry, "reason": "; ".join(exc.reasons)[:300]}
        st["operation_id"] = op.id
        event(db, "policy", f"{name}: {decision.reason}; deploying a transcoder at "
                            f"{policy['transcoder']['bitrate_kbps']} kbps per stream (operation {op.id})",
              slice_.tenant_id)
        db.commit()
        return st

    def _remove(self, db: Session, slice_: Slice, decision: Decision, now: float) -> dict[str, Any]:
        st = dict(decision.state)
        vnf = next((v for v in slice_.vnfs if v.vnf_id == st["vnf_id"]), None)
        if vnf is None:
            return {**initial_state(), "reason": f"transcoder vNF {st['vnf_id']} is gone"}
        try:
            op = self.service.remove_vnf(db, slice_, vnf)
        except Conflict as exc:
            st.update(state=RELEASING, reason=f"waiting: {exc}"[:300])
            return st
        st["operation_id"] = op.id
        event(db, "policy", f"slice {slice_.id} {slice_.name!r}: {decision.reason}; removing transcoder vNF "
                            f"{vnf.vnf_id} (operation {op.id})", slice_.tenant_id)
        db.commit()
        return st
