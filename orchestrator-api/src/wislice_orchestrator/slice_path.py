"""One SlicePath per slice (spec/onos-rest "Branches", docs/mobility.md): the first vAP's route is the main path,
every other vAP's route a branch cut where it joins the main path. The same cut serves the body sent to the
network controller and the check at admission, so a slice whose routes cannot join is refused before anything
is built."""

from __future__ import annotations

from typing import Any

from .topology import Route, Topology, hops_for

Hop = dict[str, Any]
MAX_BRANCHES = 8  # the network controller's limit per SlicePath


def vap_order(vap_id: str) -> int:
    """Creation order of a slice's vAP (ids are '<slice>v<k>', k counting up): the lowest is the main path's."""
    return int(vap_id.rsplit("v", 1)[1])


def cut_branch(main: list[Hop], hops: list[Hop]) -> list[Hop] | str:
    """A vAP's hops up to and including its first hop on a switch of the main path, which must leave by the main
    path's out_port there (the main path's first hop on that switch); a reason (str) when it cannot join."""
    main_out: dict[str, int] = {}
    for hop in main:
        main_out.setdefault(hop["device_id"], hop["out_port"])
    for j, hop in enumerate(hops):
        out = main_out.get(hop["device_id"])
        if out is None:
            continue
        if hop["out_port"] != out:
            return (f"its route meets the main path on {hop['device_id']} leaving by port {hop['out_port']}, "
                    f"the main path leaves there by port {out}")
        return hops[:j + 1]
    return "its route never meets the main path"


def join_reasons(topo: Topology, mec_node: str | None, routes: list[tuple[str, Route]]) -> list[str]:
    """Admission's check of a slice's planned routes [(agent_id, route)], the main path's first: every other
    route must join it. The vNF ports are not known yet; every route ends in the same MEC hop, stood in here by
    port -1 (any route that reaches the MEC switch first there joins). No MEC node: no path, nothing to join."""
    mec_device = topo.attachments.get(mec_node or "")
    if mec_device is None or not routes or any(agent not in topo.attachments for agent, _ in routes):
        return []  # no path, or admission already refused a route it could not place

    def wired(agent_id: str, route: Route) -> list[Hop]:
        return hops_for(route, topo.attachments[agent_id], 0, mec_device, [(-1, -1)], None)

    if len(routes) > MAX_BRANCHES + 1:
        return [f"a slice with vNFs has at most {MAX_BRANCHES + 1} vAPs (its path takes {MAX_BRANCHES} branches, "
                f"spec/onos-rest), {len(routes)} asked"]
    main = wired(*routes[0])
    reasons = []
    for agent_id, route in routes[1:]:
        cut = cut_branch(main, wired(agent_id, route))
        if isinstance(cut, str):
            reasons.append(f"the slice's path from AP {agent_id} cannot join the main path from AP "
                           f"{routes[0][0]}: {cut} (one slice path carries all its APs)")
    return reasons
