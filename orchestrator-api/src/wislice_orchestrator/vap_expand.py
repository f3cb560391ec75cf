"""A slice's SSID on "all APs with room" (issue 16): a vAP request with agent_id "*" becomes, at creation, one vAP
per connected AP that can take it, as if the tenant had listed them. Admission decides what "room" is: each AP is
tried with admission.admit on the request as it stands (the vAPs already taken plus this one), so a vAP slot, the
radio's guaranteed capacity, the SSID, the wired route to the MEC node and the join into the slice's one path are
checked exactly as for an explicit list. APs are taken in agent_id order; an AP's radios most room first (guaranteed
capacity left, then free vAP slots). APs added later are not added to the slice."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .admission import AdmissionError, Snapshot, admit, radio_capacity, radio_free_slots
from .slice_path import join_reasons

ALL_APS = "*"


def request_errors(vaps: list[dict[str, Any]]) -> str | None:
    """Why a create's vAP list cannot use "*" (a 400), None when it can: one "*" at most, and none next to an
    explicit entry, whose AP "*" would also cover (two vAPs of the slice on one AP)."""
    stars = sum(1 for v in vaps if v["agent_id"] == ALL_APS)
    if stars > 1:
        return f"vaps: agent_id '*' (every AP with room) may appear once, {stars} entries have it"
    if stars and len(vaps) > 1:
        named = ", ".join(sorted({v["agent_id"] for v in vaps if v["agent_id"] != ALL_APS}))
        return (f"vaps: agent_id '*' already covers every AP, AP {named} included: give '*' alone or list the APs "
                "one by one")
    return None


def _radios_by_room(snapshot: Snapshot, agent: dict[str, Any]) -> list[str]:
    """The agent's radio names, the one with most room first: guaranteed capacity left, then free vAP slots."""
    free = radio_free_slots(snapshot)

    def room(radio: dict[str, Any]) -> tuple[int, int, str]:
        key = (agent["agent_id"], radio["name"])
        left = radio_capacity(snapshot, radio)[0] - snapshot.radio_reserved_kbps.get(key, 0)
        return (-left, -free.get(key, 0), radio["name"])

    return [r["name"] for r in sorted(agent.get("radios", []), key=room)]


def _fits(snapshot: Snapshot, body: dict[str, Any], vaps: list[dict[str, Any]]) -> list[str]:
    """Why `body` with these vAPs does not fit (admission, then the join into one path); [] when it does."""
    try:
        plan = admit(snapshot, {**body, "vaps": vaps})
    except AdmissionError as exc:
        return exc.reasons
    return join_reasons(snapshot.topology, plan.mec_node,
                        [(v["agent_id"], r) for v, r in zip(vaps, plan.vap_links, strict=True)])


def expand_all_aps(take_snapshot: Callable[[], Snapshot], body: dict[str, Any]) -> str:
    """Replace the "*" entry of body["vaps"] (in place, at its position) by one vAP per AP with room. Returns what
    the creation's event adds about the APs left out ("" when none, or without "*"); raises AdmissionError naming
    every AP's reason when no AP can take it. The snapshot is only taken when there is a "*"."""
    vaps = body["vaps"]
    at = next((i for i, v in enumerate(vaps) if v["agent_id"] == ALL_APS), None)
    if at is None:
        return ""
    star, before, after = vaps[at], vaps[:at], vaps[at + 1:]
    snapshot = take_snapshot()
    taken: list[dict[str, Any]] = []
    skipped: list[str] = []
    agents = sorted((a for a in snapshot.agents if a.get("connected", False)), key=lambda a: a["agent_id"])
    for agent in agents:
        reasons: list[str] = []
        for radio in _radios_by_room(snapshot, agent):
            vap = {**star, "agent_id": agent["agent_id"], "radio": radio}
            why = _fits(snapshot, body, before + taken + [vap] + after)
            if not why:
                taken.append(vap)
                break
            reasons += why
        else:
            skipped.append(f"AP {agent['agent_id']} ({'; '.join(reasons) or 'no radio'})")
    if not taken:
        raise AdmissionError(["agent_id '*': no connected AP has room for the slice's vAP"]
                             + [f"skipped {s}" for s in skipped])
    vaps[:] = before + taken + after
    return f"; agent_id '*' skipped APs without room: {', '.join(skipped)}" if skipped else ""
