"""Load balancing (issue 16): a radio whose guaranteed slices no longer fit its capacity has clients steered away.

Admission reserves every vAP's guarantee (its slice's reserved down + up guaranteed kbps, service.snapshot) on its
(agent, radio) against the capacity the agent reported then; that capacity can fall later (stations far away, a
lower MCS). A vAP's guarantee needs airtime only while it has associated clients, so a radio's *active guarantees*
are the sum over the orchestrator's live slices' vAPs on it that have at least one client; the radio is
*overcommitted* while they exceed its capacity (admission.radio_capacity: the reported capacity_kbps, or the
orchestrator's AP_BUDGET_KBPS for a radio that reports 0).

Samples: every telemetry poll is one sample of every radio it reports. The condition is a state (who is associated,
what capacity the agent last stated), not a fresh measurement: a steady overcommit must keep counting, which a
sample "only when something changed" never would; and the poll's Latest does not carry each agent's report time,
so "a newer report" (latency_watch.py) cannot be told here. So N samples are N polls (N x TELEMETRY_INTERVAL_S,
6 s at the defaults): with agents reporting every 5 s, 3 polls may all see one report; raise RADIO_WATCH_SAMPLES
where a radio's capacity is noisy. A poll that does not report a radio (its agent gone, wifi_stats failed) or
cannot tell which vAPs have clients is no sample of it: the run neither grows nor restarts.

Hysteresis as in latency_watch.py: *overcommitted* after N consecutive samples over (event `radio_overcommitted`,
warn), *fits* again after N consecutive samples within (event `radio_fits`). Each overcommit episode gets one round
of steering, and a round waits until `hold_s` (RADIO_WATCH_HOLD_S, 30 s) has passed since the radio's previous round,
so a station that refuses, or comes back and starts another episode, causes no steer storm. A radio that stays
overcommitted after its round gets no second one until it has fit for N samples.

A round: the vAPs with clients on the radio, largest guarantee first (then slice id), of *active* slices with a
guarantee. A vAP can move to another AP where its slice has a vAP of the same SSID (the wifi-controller steers only
within an SSID: docs/mobility.md) that is up and whose radio is reported, within its capacity, and keeps within it
with the slice's guarantee added when that vAP has no client yet: admission.check_radios over the active guarantees
(no second admission). Of those targets, the one with the most room left. Every client of the moved vAP is steered
with controllers.steer_client(mac, {"target_agent": ap}); the round stops once the moves planned bring the radio's
active guarantees within its capacity. Events: `client_steered` (the station accepted), `steer_refused` (it did not:
accepted false or status_code != 0, with its answer), `steer_failed` (the controller refused or failed: 409, 502,
agent unreachable; the round goes on with the next client), and `radio_no_move` (warn) when the moves cannot bring
it within capacity: which slices could not move and why (possibly none moved: then no steering at all).

Which vAP a client is on: the poll's Latest counts clients per slice only. When every reported radio fits even
counting each vAP of every slice that has clients (or an unknown count), and none is overcommitted, that is enough;
otherwise the watch asks once in that poll, GET /onos/wifi/clients (controllers.list_clients; failing: no sample).
It also asks every poll while a live slice has vAPs on 2+ APs: each such read is compared with the previous one for
handovers, which are re-admitted on the new AP (handover_watch.py). Steering runs in the telemetry thread: a round
of k clients may hold a poll up to k controller timeouts. State is in memory: after a restart every radio starts
"fits".
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, selectinload, sessionmaker

from .admission import Snapshot, check_radios, radio_capacity, ssid_key
from .controllers import ControllerError, Controllers
from .handover_watch import HandoverWatch
from .models import Slice, event
from .slice_qos import reserved_bandwidth
from .telemetry import LIVE, Latest
from .topology import Topology

log = logging.getLogger(__name__)

RADIO_WATCH_SAMPLES = 3
RADIO_WATCH_HOLD_S = 30.0

Radio = tuple[str, str]  # (agent_id, radio name)


@dataclass(frozen=True)
class OwnVap:
    """A live slice's vAP as the watch needs it."""

    slice_id: int
    tenant_id: int
    status: str  # the slice's
    guarantee_kbps: int  # the slice's reserved down + up guarantee, which admission holds on this vAP's radio
    vap_id: str
    agent_id: str
    radio: str
    ssid: str
    up: bool
    handover_policy: str = "best_effort"  # the slice's: what a refused re-admission on handover does

    @property
    def key(self) -> Radio:
        return (self.agent_id, self.radio)


@dataclass
class RadioState:
    overcommitted: bool = False
    run: int = 0  # consecutive samples against the current state
    since: float | None = None  # poll time the current state began (None: from the start)
    round_done: bool = False  # this episode's round has run
    last_round: float | None = None  # poll time of the radio's last round


class RadioWatch:
    """A telemetry observer: per reported radio, its active guarantees against its capacity, and the steering."""

    def __init__(self, session_factory: sessionmaker[Session], controllers: Controllers, ap_budget_kbps: int,
                 samples: int = RADIO_WATCH_SAMPLES, hold_s: float = RADIO_WATCH_HOLD_S,
                 on_event: Callable[[str, dict[str, Any]], None] | None = None) -> None:
        if samples < 1 or hold_s < 0:
            raise ValueError("RADIO_WATCH_SAMPLES must be >= 1 and RADIO_WATCH_HOLD_S >= 0")
        self.session_factory = session_factory
        self.controllers = controllers
        self.ap_budget_kbps = ap_budget_kbps
        self.samples = samples
        self.hold_s = hold_s
        self.on_event = on_event  # tests and metrics: (kind, facts) after each event is written
        self.states: dict[Radio, RadioState] = {}
        self._clients_failing = False
        self.handovers = HandoverWatch(self)

    def state(self, agent_id: str, radio: str) -> dict[str, Any] | None:
        """{overcommitted, since} of a watched radio, None for one never reported."""
        s = self.states.get((agent_id, radio))
        return None if s is None else {"overcommitted": s.overcommitted, "since": s.since}

    # --- one poll ----------------------------------------------------------------------------------------------
    def observe(self, latest: Latest) -> None:
        if not latest.radios:
            return
        snap = self._snapshot(latest)
        capacity = {key: radio_capacity(snap, {"capacity_kbps": cap})[0] for key, cap in latest.radios.items()}
        vaps = self._load()
        got = self._clients(latest, vaps, capacity)
        if got is None:
            return  # which vAPs have clients is unknown: no sample
        clients, read = got
        active: dict[Radio, int] = {}
        for v in vaps:
            if clients.get(v.vap_id):
                active[v.key] = active.get(v.key, 0) + v.guarantee_kbps
        if read:
            self.handovers.observe(clients, vaps, active, capacity, snap)
        else:
            self.handovers.forget()  # no slice spans two APs: no handover to tell
        for key in sorted(capacity):
            self._sample(key, capacity[key], active, vaps, clients, snap, latest.ts)

    def _snapshot(self, latest: Latest) -> Snapshot:
        """The reported radios in admission's form, so its capacity and fit rules apply unchanged."""
        agents: dict[str, dict[str, Any]] = {}
        for (agent_id, name), cap in latest.radios.items():
            agent = agents.setdefault(agent_id, {"agent_id": agent_id, "connected": True, "radios": []})
            agent["radios"].append({"name": name, "capacity_kbps": cap})
        return Snapshot(agents=list(agents.values()), nodes=[], controller_vaps=[], controller_vnfs=[],
                        topology=Topology(attachments={}, links=[], egress={}), ap_budget_kbps=self.ap_budget_kbps)

    def _load(self) -> list[OwnVap]:
        with self.session_factory() as db:
            rows = db.scalars(select(Slice).where(Slice.status.in_(LIVE)).order_by(Slice.id)
                              .options(selectinload(Slice.vaps)))
            out = []
            for s in rows:
                guarantee = reserved_bandwidth(s).total_guaranteed_kbps
                out += [OwnVap(s.id, s.tenant_id, s.status, guarantee, v.vap_id, v.agent_id, v.radio, v.ssid,
                               v.state == "up", s.handover_policy) for v in s.vaps]
            return out

    def _clients(self, latest: Latest, vaps: list[OwnVap],
                 capacity: dict[Radio, int]) -> tuple[dict[str, list[str]], bool] | None:
        """(vap_id -> the MACs associated to it, whether they were read); ({}, False) without a controller call when
        no slice spans two APs and even counting every vAP of a slice that has clients (or an unknown count) each
        radio fits; None when the clients cannot be read."""
        bound: dict[Radio, int] = {}
        spans: dict[int, set[str]] = {}
        for v in vaps:
            spans.setdefault(v.slice_id, set()).add(v.agent_id)
            if latest.slices.get(v.slice_id, {}).get("clients") != 0:
                bound[v.key] = bound.get(v.key, 0) + v.guarantee_kbps
        calm = all(bound.get(key, 0) <= cap for key, cap in capacity.items())
        roaming = any(len(agents) > 1 for agents in spans.values())  # a handover to look for
        if calm and not roaming and not any(self.states[key].overcommitted for key in capacity if key in self.states):
            return {}, False  # every radio fits whoever has clients; an over radio's samples within need exact numbers
        try:
            listed = self.controllers.list_clients()
        except Exception as exc:  # ControllerError or a reply of the wrong shape: no sample this poll
            if not self._clients_failing:
                log.warning("radio watch: list_clients failed: %s", exc)
            self._clients_failing = True
            return None
        self._clients_failing = False
        where = {v.vap_id: v.agent_id for v in vaps}
        out: dict[str, list[str]] = {}
        for c in listed if isinstance(listed, list) else []:
            if not isinstance(c, dict) or not c.get("mac"):
                continue
            vap_id = str(c.get("vap_id"))
            if where.get(vap_id) == c.get("agent_id"):
                out.setdefault(vap_id, []).append(str(c["mac"]).lower())
        return {k: sorted(v) for k, v in out.items()}, True

    def _sample(self, key: Radio, cap: int, active: dict[Radio, int], vaps: list[OwnVap],
                clients: dict[str, list[str]], snap: Snapshot, ts: float) -> None:
        state = self.states.setdefault(key, RadioState())
        used = active.get(key, 0)
        over = used > cap
        state.run = state.run + 1 if over != state.overcommitted else 0
        if state.run >= self.samples:
            state.overcommitted, state.run, state.since = over, 0, ts
            if over:
                state.round_done = False
                on_radio = [f"slice {v.slice_id} vAP {v.vap_id}: {v.guarantee_kbps} kbps, "
                            f"{len(clients.get(v.vap_id, []))} client(s)" for v in vaps
                            if v.key == key and clients.get(v.vap_id)]
                self._event("radio_overcommitted", f"AP {key[0]} radio {key[1]}: the guarantees of the vAPs with "
                            f"clients on it, {used} kbps, exceed its capacity {cap} kbps for {self.samples} samples "
                            f"in a row ({'; '.join(on_radio)})", {"agent_id": key[0], "radio": key[1],
                            "capacity_kbps": cap, "active_kbps": used}, level="warn")
            else:
                self._event("radio_fits", f"AP {key[0]} radio {key[1]}: the guarantees of the vAPs with clients on "
                            f"it, {used} kbps, fit its capacity {cap} kbps again for {self.samples} samples in a row",
                            {"agent_id": key[0], "radio": key[1], "capacity_kbps": cap, "active_kbps": used})
        held = state.last_round is not None and ts - state.last_round < self.hold_s
        if state.overcommitted and over and not state.round_done and not held:
            state.round_done, state.last_round = True, ts
            self._round(key, cap, dict(active), vaps, clients, snap)

    # --- a round of steering -----------------------------------------------------------------------------------
    def _round(self, key: Radio, cap: int, active: dict[Radio, int], vaps: list[OwnVap],
               clients: dict[str, list[str]], snap: Snapshot) -> None:
        """Moves vAPs' clients off `key`, largest guarantee first, until the planned active guarantees fit."""
        on_radio = sorted((v for v in vaps if v.key == key and clients.get(v.vap_id)),
                          key=lambda v: (-v.guarantee_kbps, v.slice_id, v.vap_id))
        total = active.get(key, 0)
        moved: list[str] = []
        stuck: list[str] = []
        for v in on_radio:
            if total <= cap:
                break
            target, why = self._target(v, vaps, clients, active, snap)
            if target is None:
                stuck.append(f"slice {v.slice_id} vAP {v.vap_id} ({v.guarantee_kbps} kbps): {why}")
                continue
            for mac in clients[v.vap_id]:
                self._steer(mac, v, target, cap, total)
            if not clients.get(target.vap_id):  # its guarantee becomes active there (planned)
                active[target.key] = active.get(target.key, 0) + v.guarantee_kbps
            total -= v.guarantee_kbps
            moved.append(f"slice {v.slice_id} to AP {target.agent_id}")
        if total > cap:
            what = f"moved {', '.join(moved)}, " if moved else "no slice can move, no steering; "
            self._event("radio_no_move", f"AP {key[0]} radio {key[1]} stays overcommitted ({total} kbps of guarantees "
                        f"with clients, capacity {cap} kbps): {what}the rest cannot move: "
                        f"{'; '.join(stuck) or 'no other vAP with clients and a guarantee'}",
                        {"agent_id": key[0], "radio": key[1], "capacity_kbps": cap, "active_kbps": total,
                         "moved": len(moved), "stuck": len(stuck)}, level="warn")

    def _target(self, v: OwnVap, vaps: list[OwnVap], clients: dict[str, list[str]], active: dict[Radio, int],
                snap: Snapshot) -> tuple[OwnVap | None, str]:
        """Where `v`'s clients can go (the candidate with most room left), or None and why not."""
        if v.status != "active":
            return None, f"its slice is {v.status}"
        if v.guarantee_kbps <= 0:
            return None, "no guarantee: moving it frees nothing"
        same = [o for o in vaps if o.slice_id == v.slice_id and o.agent_id != v.agent_id
                and ssid_key(o.ssid) == ssid_key(v.ssid)]
        if not same:
            return None, f"its slice has no vAP of SSID {v.ssid!r} on another AP"
        reasons: list[str] = []
        fits: list[tuple[int, str, OwnVap]] = []
        for o in same:
            room, why = self._room(o, v.guarantee_kbps, clients, active, snap)
            if room is None:
                reasons.append(why)
            else:
                fits.append((room, o.agent_id, o))
        if not fits:
            return None, "; ".join(reasons)
        fits.sort(key=lambda f: (-f[0], f[1]))
        return fits[0][2], ""

    @staticmethod
    def _room(o: OwnVap, guarantee: int, clients: dict[str, list[str]], active: dict[Radio, int],
              snap: Snapshot) -> tuple[int | None, str]:
        """The kbps `o`'s radio has left once it takes a station of `guarantee` kbps (which adds to its active
        guarantees only when `o` has no client yet: admission.check_radios), or None and why it cannot."""
        if not o.up:
            return None, f"its vAP {o.vap_id} on AP {o.agent_id} is not up"
        cap = next((radio_capacity(snap, r)[0] for a in snap.agents if a["agent_id"] == o.agent_id
                    for r in a["radios"] if r["name"] == o.radio), None)
        if cap is None:
            return None, f"AP {o.agent_id} radio {o.radio} reports no capacity this poll"
        used = active.get(o.key, 0)
        added = 0 if clients.get(o.vap_id) else guarantee
        if used > cap:
            return None, f"AP {o.agent_id} radio {o.radio} is itself over: {used} kbps of {cap}"
        over = check_radios(replace(snap, radio_reserved_kbps=active), {o.key: added})
        if over:
            return None, "; ".join(over)
        return cap - used - added, ""

    def _steer(self, mac: str, v: OwnVap, target: OwnVap, cap: int, active: int) -> None:
        facts = {"agent_id": v.agent_id, "radio": v.radio, "capacity_kbps": cap, "active_kbps": active,
                 "slice_id": v.slice_id, "guarantee_kbps": v.guarantee_kbps, "mac": mac,
                 "target_agent": target.agent_id}
        what = (f"client {mac} of slice {v.slice_id} ({v.guarantee_kbps} kbps guaranteed) from AP {v.agent_id} "
                f"radio {v.radio} (capacity {cap} kbps, {active} kbps of guarantees with clients) to AP "
                f"{target.agent_id}")
        try:
            reply = self.controllers.steer_client(mac, {"target_agent": target.agent_id})
        except ControllerError as exc:
            facts.update(status=exc.status, code=exc.code)
            self._event("steer_failed", f"steering {what} failed: {exc.status} {exc}", facts, v.tenant_id, "warn")
            return
        except Exception as exc:  # a reply of the wrong shape or a bug: one event, the round goes on
            facts.update(status=None, code=type(exc).__name__)
            self._event("steer_failed", f"steering {what} failed: {exc!r}", facts, v.tenant_id, "warn")
            return
        reply = reply if isinstance(reply, dict) else {}
        code = reply.get("status_code")
        accepted = reply.get("accepted") is True and code in (0, None)
        facts.update(accepted=accepted, status_code=code, target_vap=reply.get("target_vap_id"),
                     reason=reply.get("reason"))
        if accepted:
            self._event("client_steered", f"steered {what} (vAP {reply.get('target_vap_id')}): the station "
                        f"accepted (status {code})", facts, v.tenant_id)
        else:
            self._event("steer_refused", f"steering {what}: the station refused (status {code}: "
                        f"{reply.get('reason', '')}); it stays", facts, v.tenant_id, "warn")

    def _event(self, kind: str, message: str, facts: dict[str, Any], tenant_id: int | None = None,
               level: str = "info") -> None:
        try:
            with self.session_factory() as db:
                event(db, kind, message, tenant_id, level)
                db.commit()
        except Exception:  # the event is lost, not the round
            log.exception("radio watch: cannot write event %s", kind)
        log.info("%s", message)
        if self.on_event is not None:
            self.on_event(kind, facts)
