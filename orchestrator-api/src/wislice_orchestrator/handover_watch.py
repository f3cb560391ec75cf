"""Re-admission on handover (issue 16): a slice's client that moved to another of the slice's APs has its guarantee
re-admitted there, or the slice's handover_policy decides.

The radio watch (radio_watch.py) reads GET /onos/wifi/clients every telemetry poll while a live slice has vAPs on
2+ APs. A station seen on slice S's vAP at AP X in the previous read and on S's vAP at AP Y != X now has handed
over: event `client_handover` (slice, mac, from, to). Detection is as fine as the poll (TELEMETRY_INTERVAL_S): a
station that went and came back between two reads is not seen, one absent from a read (disassociated) is a new
association, not a handover; a read that fails keeps the previous one; a station listed on two vAPs in one read
(mid-move in the controller's view) keeps its previous place until a read tells. The wired path moved already
(ONOS' mobility app on association): this decides only whether the guarantee holds.

Re-admitted: S has no guarantee; or S's vAP at Y already had clients in the previous read (its guarantee was
already active on Y's radio: nothing changes); or Y's radio holds its active guarantees (those of the live slices'
vAPs with clients, as the radio watch counts them) including S's: admission.check_radios with S's guarantee added
to the others', no second admission rule. Otherwise event `handover_refused` (warn: capacity, active guarantees,
the shortfall) and S's handover_policy:
- best_effort (the default): the station stays on Y; its guarantee is not held there (the event says so);
- steer_back: the station is steered back to X when S is active and X's radio holds it (RadioWatch._room, as the
  load balancing checks a target); the steer, its events (client_steered / steer_refused / steer_failed) and its
  errors are the radio watch's. When X cannot take it, no steer: the event says why and the station stays.
A station steered back is seen at X in the next read: a handover Y -> X, re-admitted as any other. State (the
previous read) is in memory: the first read after a restart sees no handover. After each read, `follow` (the vNF
follow, vnf_follow.py) gets where every station is and the slices that saw a handover.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from .admission import Snapshot, check_radios

if TYPE_CHECKING:
    from .radio_watch import OwnVap, Radio, RadioWatch


class HandoverWatch:
    """Part of the radio watch: compares each clients read with the previous one and re-admits handovers."""

    def __init__(self, watch: RadioWatch) -> None:
        self.watch = watch
        self.seen: dict[str, str] = {}  # mac -> the vap_id it was on in the previous read
        # The vNF follow (app.py connects it): (this read: mac -> vap_id, the vAPs, slice -> its latest handover's AP).
        self.follow: Callable[[dict[str, str], list[OwnVap], dict[int, str]], None] | None = None

    def forget(self) -> None:
        """No read this poll because no slice spans two APs: the next read starts afresh."""
        self.seen = {}

    def observe(self, clients: dict[str, list[str]], vaps: list[OwnVap], active: dict[Radio, int],
                capacity: dict[Radio, int], snap: Snapshot) -> None:
        """`clients`: this read (vap_id -> MACs); `active`: the active guarantees per radio it gives."""
        now: dict[str, str] = {}
        twice: set[str] = set()
        for vap_id, macs in clients.items():
            for mac in macs:
                if mac in now:
                    twice.add(mac)
                now[mac] = vap_id
        for mac in twice:  # on two vAPs at once: the controller's view is mid-move; the next read tells
            del now[mac]
            if mac in self.seen:
                now[mac] = self.seen[mac]
        before, self.seen = self.seen, now
        had_clients = set(before.values())
        by_id = {v.vap_id: v for v in vaps}
        # Steering back changes where the guarantees are active: planned on copies, as the radio watch's round does.
        planned_clients = {k: list(v) for k, v in clients.items()}
        planned_active = dict(active)
        moved: dict[int, str] = {}
        for mac in sorted(now):
            old, new = by_id.get(before.get(mac, "")), by_id.get(now[mac])
            if old is None or new is None or old.slice_id != new.slice_id or old.agent_id == new.agent_id:
                continue
            moved[new.slice_id] = new.agent_id
            self._handover(mac, old, new, new.vap_id in had_clients, planned_clients, planned_active, capacity,
                           snap)
        if self.follow is not None:
            self.follow(now, vaps, moved)

    def _handover(self, mac: str, x: OwnVap, y: OwnVap, had_clients: bool, clients: dict[str, list[str]],
                  active: dict[Radio, int], capacity: dict[Radio, int], snap: Snapshot) -> None:
        watch, g = self.watch, y.guarantee_kbps
        cap, used = capacity.get(y.key), active.get(y.key, 0)  # `used` counts S's guarantee: its vAP has `mac`
        facts: dict[str, Any] = {"slice_id": y.slice_id, "mac": mac, "from_agent": x.agent_id, "to_agent": y.agent_id,
                                 "from_vap": x.vap_id, "to_vap": y.vap_id}
        moved = (f"client {mac} of slice {y.slice_id} moved from AP {x.agent_id} (vAP {x.vap_id}) to AP {y.agent_id} "
                 f"(vAP {y.vap_id})")
        reasons: list[str] = []
        if g <= 0:
            how = "re-admitted: the slice has no guarantee to hold"
        elif had_clients:
            how = f"re-admitted: its vAP there already had clients, its guarantee ({g} kbps) is already held"
        else:
            reasons = check_radios(replace(snap, radio_reserved_kbps={**active, y.key: used - g}), {y.key: g})
            how = (f"not re-admitted: {'; '.join(reasons)}" if reasons else f"re-admitted: AP {y.agent_id} radio "
                   f"{y.radio} holds its {used} kbps of active guarantees with it (capacity {cap} kbps)")
        watch._event("client_handover", f"{moved}; {how}", {**facts, "admitted": not reasons}, y.tenant_id)
        if not reasons:
            return
        short = g if cap is None else used - cap
        numbers = (f"capacity {cap} kbps, {used} kbps of active guarantees with its {g} kbps, {short} kbps short"
                   if cap is not None else "; ".join(reasons))  # its radio not reported this poll: no room known
        refused = (f"handover of client {mac} of slice {y.slice_id} from AP {x.agent_id} refused on AP {y.agent_id} "
                   f"radio {y.radio}: {numbers}")
        kept = f"it stays on AP {y.agent_id} with best effort: its guarantee is not held there"
        back = None
        if y.handover_policy != "steer_back":
            tail = f"policy best_effort: {kept}"
        elif y.status != "active":
            tail = f"policy steer_back, but its slice is {y.status}: no steering; {kept}"
        else:
            room, why = watch._room(x, g, clients, active, snap)
            if room is None:
                tail = f"policy steer_back, but AP {x.agent_id} cannot take it back ({why}): no steering; {kept}"
            else:
                back, tail = x, f"policy steer_back: steering it back to AP {x.agent_id} (vAP {x.vap_id})"
        facts.update(agent_id=y.agent_id, radio=y.radio, capacity_kbps=cap, active_kbps=used, guarantee_kbps=g,
                     shortfall_kbps=short, policy=y.handover_policy, steer_back=back is not None)
        watch._event("handover_refused", f"{refused}; {tail}", facts, y.tenant_id, "warn")
        if back is not None:
            if not clients.get(back.vap_id):  # its guarantee becomes active there (planned)
                active[back.key] = active.get(back.key, 0) + g
            clients.setdefault(back.vap_id, []).append(mac)
            watch._steer(mac, y, back, cap, used)
