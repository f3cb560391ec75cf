"""Admission control and placement: does a slice request fit, and where does it go.

Pure functions over a snapshot (what the controllers report + what the orchestrator has reserved), so they are
unit-tested without a database or controllers. Every reason a request does not fit is reported, not just the first.

Rules (docs/guaranteed-slices.md "Admission"):
- radio: every vAP of a slice carries the slice's guarantees, so on each (agent, radio) the sum over its vAPs of
  (down guarantee + up guarantee) stays within the radio's `capacity_kbps` as its agent reports it; the
  orchestrator's ap_budget_kbps stands in for a radio that reports none (absent, null or 0).
- wired link: each vAP's path has its own meters, so per link and per direction the sum of the guarantees of the
  paths crossing it stays within the link's capacity (full duplex: the capacity holds in each direction). A path
  runs AP -> MEC: its forward direction carries up, the reverse down.
- latency: a slice with a latency budget goes only to a MEC node whose path from each of its APs, switches, links
  and the vNF chain summed (latency_budget.py), fits the budget; refused with the numbers otherwise.
A resource a request asks nothing of (a guarantee of 0) is not checked, so best-effort slices always fit there.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field
from typing import Any

from .bandwidth import Bandwidth
from .latency_budget import LatencyCosts, over_budget, path_costs
from .topology import Route, Topology, reserve, route_keys

# Latency class -> most wired links between the AP's switch and the MEC node's switch.
MAX_LINKS = {"ultra_low": 2, "low": 4, "best_effort": 64}


class AdmissionError(Exception):
    def __init__(self, reasons: list[str]) -> None:
        super().__init__("; ".join(reasons))
        self.reasons = reasons


@dataclass
class Snapshot:
    """What is in use now. Reserved numbers count the orchestrator's own live slices (creating/active/deleting)."""

    agents: list[dict[str, Any]]
    nodes: list[dict[str, Any]]
    controller_vaps: list[dict[str, Any]]
    controller_vnfs: list[dict[str, Any]]
    topology: Topology
    ap_budget_kbps: int
    own_vaps: list[dict[str, Any]] = field(default_factory=list)  # {vap_id, agent_id, radio, ssid}
    own_vnfs: list[dict[str, Any]] = field(default_factory=list)  # {vnf_id, node, cpu, memory_mib}
    # (agent_id, radio) -> sum over its vAPs of guaranteed down + up
    radio_reserved_kbps: dict[tuple[str, str], int] = field(default_factory=dict)
    # Link.directed_key -> guaranteed kbps in that direction
    link_reserved_kbps: dict[str, int] = field(default_factory=dict)
    # Default per-element latencies for latency admission (the topology may set its own per switch and link).
    latency_costs: LatencyCosts = field(default_factory=LatencyCosts)


@dataclass
class TenantUsage:
    slices: int = 0
    vaps: int = 0
    bandwidth_kbps: int = 0
    cpu: float = 0.0
    memory_mib: int = 0


@dataclass
class Plan:
    mec_node: str | None
    # Per requested vAP, in request order: the links from its AP's switch to the MEC switch.
    vap_links: list[Route]

    def link_keys(self) -> list[str]:
        """Direction-free keys of every link the slice uses (Slice.path_links)."""
        return sorted({link.key for links in self.vap_links for link, _ in links})

    def route_keys(self, i: int) -> list[str]:
        """The i-th vAP's path as forward directed keys (SliceVap.path_links)."""
        return route_keys(self.vap_links[i])


def check_quota(tenant: Any, usage: TenantUsage, request: dict[str, Any]) -> list[str]:
    want_bw = Bandwidth.coerce(request["bandwidth"]).total_guaranteed_kbps
    want_cpu = sum(v["cpu"] for v in request["vnfs"])
    want_mem = sum(v["memory_mib"] for v in request["vnfs"])
    checks = [
        ("slices", usage.slices + 1, tenant.quota_slices),
        ("vAPs", usage.vaps + len(request["vaps"]), tenant.quota_vaps),
        ("guaranteed bandwidth (kbps)", usage.bandwidth_kbps + want_bw, tenant.quota_bandwidth_kbps),
        ("vNF CPU (cores)", round(usage.cpu + want_cpu, 3), tenant.quota_cpu),
        ("vNF memory (MiB)", usage.memory_mib + want_mem, tenant.quota_memory_mib),
    ]
    return [f"tenant quota exceeded: {name} would be {would} of {limit}" for name, would, limit in checks
            if would > limit]


def _radios(snapshot: Snapshot) -> dict[tuple[str, str], dict[str, Any]]:
    """The radios of connected agents by (agent_id, radio name)."""
    return {(agent["agent_id"], radio["name"]): radio for agent in snapshot.agents if agent.get("connected", False)
            for radio in agent.get("radios", [])}


def radio_capacity(snapshot: Snapshot, radio: dict[str, Any]) -> tuple[int, str]:
    """A radio's capacity for guarantees and where the number comes from."""
    reported = radio.get("capacity_kbps")
    if isinstance(reported, int) and not isinstance(reported, bool) and reported > 0:
        return reported, radio.get("capacity_source") or "agent"
    return snapshot.ap_budget_kbps, "orchestrator ap_budget_kbps, the agent reports none"


def check_radios(snapshot: Snapshot, wanted: dict[tuple[str, str], int]) -> list[str]:
    """Guaranteed kbps wanted per (agent, radio) against what its capacity leaves."""
    reasons = []
    radios = _radios(snapshot)
    for (agent_id, name), want in sorted(wanted.items()):
        radio = radios.get((agent_id, name))
        if want <= 0:
            continue
        if radio is None:
            reasons.append(f"AP {agent_id} radio {name} is unknown or not connected")
            continue
        capacity, source = radio_capacity(snapshot, radio)
        used = snapshot.radio_reserved_kbps.get((agent_id, name), 0)
        if used + want > capacity:
            reasons.append(f"AP {agent_id} radio {name}: capacity {capacity} kbps ({source}), {used} kbps "
                           f"guaranteed, {want} wanted")
    return reasons


def check_links(snapshot: Snapshot, routes: list[Route], up_kbps: int, down_kbps: int) -> list[str]:
    """Per link direction: what these paths' guarantees add against what the link's capacity leaves."""
    wanted: dict[str, int] = {}
    for route in routes:
        reserve(wanted, route, up_kbps, down_kbps)
    capacity = {link.directed_key(end): link.capacity_kbps for route in routes for link, _ in route
                for end in (link.a, link.b)}
    reasons = []
    for key, want in sorted(wanted.items()):
        used = snapshot.link_reserved_kbps.get(key, 0)
        if used + want > capacity[key]:
            here, there = key.split(">")
            reasons.append(f"wired link {here} -> {there}: capacity {capacity[key]} kbps, {used} kbps guaranteed, "
                           f"{want} wanted")
    return reasons


def radio_free_slots(snapshot: Snapshot) -> dict[tuple[str, str], int]:
    """Free vAP slots per (agent, radio): the agent's max_vaps minus foreign vAPs it reports minus our own."""
    own_ids = {v["vap_id"] for v in snapshot.own_vaps}
    free: dict[tuple[str, str], int] = {}
    for key, radio in _radios(snapshot).items():
        foreign = sum(1 for v in snapshot.controller_vaps if v.get("agent_id") == key[0]
                      and v.get("radio") == key[1] and v.get("vap_id") not in own_ids)
        own = sum(1 for v in snapshot.own_vaps if (v["agent_id"], v["radio"]) == key)
        free[key] = int(radio.get("max_vaps", 0)) - foreign - own
    return free


def ssid_key(ssid: str) -> str:
    """What an SSID looks like to a person choosing a network: compatibility forms folded (NFKC: a fullwidth or
    ligature letter is its plain letter), case folded, spaces collapsed and trimmed. Two SSIDs with the same key
    would look like the same network on a phone, so on one AP they count as the same."""
    return " ".join(unicodedata.normalize("NFKC", ssid).casefold().split())


def check_ssids(snapshot: Snapshot, vaps: list[dict[str, Any]]) -> list[str]:
    """Each requested vAP's SSID against every network on its AP: the orchestrator's own vAPs (live slices, those
    being built included), whatever else the AP's agent reports, and the request's other vAPs. The same SSID on
    other APs is allowed (one network over several APs). A reason names the AP and SSID, not who has it."""
    taken = {(v.get("agent_id"), ssid_key(v["ssid"])) for v in snapshot.own_vaps + snapshot.controller_vaps
             if isinstance(v.get("ssid"), str)}
    reasons = []
    for vap in vaps:
        if "ssid" not in vap:
            continue
        key = (vap["agent_id"], ssid_key(vap["ssid"]))
        if key in taken:
            reasons.append(f"AP {vap['agent_id']} already has a network with SSID {vap['ssid']!r} (or one that "
                           "looks the same): an SSID names one network per AP")
        taken.add(key)
    return reasons


def _node_free(snapshot: Snapshot, node: dict[str, Any]) -> tuple[float, int]:
    """Free CPU and memory on a node: capacity - reported use - our vNFs not yet reported."""
    reported = {v.get("vnf_id") for v in snapshot.controller_vnfs if v.get("node") == node["agent_id"]}
    pending = [v for v in snapshot.own_vnfs if v["node"] == node["agent_id"] and v["vnf_id"] not in reported]
    cpu = node["capacity"]["cpu"] - node["used"]["cpu"] - sum(v["cpu"] for v in pending)
    mem = node["capacity"]["memory_mib"] - node["used"]["memory_mib"] - sum(v["memory_mib"] for v in pending)
    return cpu, mem


def admit(snapshot: Snapshot, request: dict[str, Any]) -> Plan:
    """Check every resource the request needs and pick a MEC node and paths; raise AdmissionError if it does not fit."""
    reasons: list[str] = []
    bw = Bandwidth.coerce(request["bandwidth"])
    down, up = bw.down.guaranteed_kbps, bw.up.guaranteed_kbps

    # 1. vAP slots per radio, as the agents report them.
    free = radio_free_slots(snapshot)
    wanted: dict[tuple[str, str], int] = {}
    for vap in request["vaps"]:
        key = (vap["agent_id"], vap["radio"])
        wanted[key] = wanted.get(key, 0) + 1
    for (agent_id, radio), count in sorted(wanted.items()):
        if (agent_id, radio) not in free:
            reasons.append(f"AP {agent_id} radio {radio} is unknown or not connected")
        elif free[(agent_id, radio)] < count:
            left = max(free[(agent_id, radio)], 0)
            reasons.append(f"AP {agent_id} radio {radio}: {count} vAP(s) wanted, {left} free")

    # 2. Guarantees per radio (every vAP carries the slice's down + up guarantee on its radio's air).
    reasons += check_radios(snapshot, {key: count * bw.total_guaranteed_kbps for key, count in wanted.items()
                                       if key in free})
    # 3. One network per SSID on an AP.
    reasons += check_ssids(snapshot, request["vaps"])
    if reasons:
        raise AdmissionError(reasons)

    if not request["vnfs"]:
        return Plan(mec_node=None, vap_links=[[] for _ in request["vaps"]])

    # 4. MEC node with the CPU, memory and images, and 5. wired capacity from every AP to it.
    images = {v["image"] for v in request["vnfs"]}
    cpu_need = sum(v["cpu"] for v in request["vnfs"])
    mem_need = sum(v["memory_mib"] for v in request["vnfs"])
    max_links = MAX_LINKS[request.get("latency_class", "best_effort")]
    candidates: list[tuple[int, float, str, list[Route]]] = []
    node_reasons: list[str] = []
    pinned = request.get("mec_node")
    for node in snapshot.nodes:
        name = node["agent_id"]
        if pinned and name != pinned:
            continue
        if not node.get("connected", False):
            node_reasons.append(f"MEC node {name} is not connected")
            continue
        missing = sorted(images - set(node.get("catalog", [])))
        if missing:
            node_reasons.append(f"MEC node {name} lacks image(s) {', '.join(missing)}")
            continue
        cpu, mem = _node_free(snapshot, node)
        if cpu < cpu_need or mem < mem_need:
            node_reasons.append(f"MEC node {name}: {cpu_need} CPU / {mem_need} MiB wanted, {max(cpu, 0):g} CPU / "
                                f"{max(mem, 0)} MiB free")
            continue
        node_dev = snapshot.topology.attachments.get(name)
        if node_dev is None:
            node_reasons.append(f"MEC node {name} has no wired attachment in the topology")
            continue
        routes: list[Route] = []
        reserved = dict(snapshot.link_reserved_kbps)
        for vap in request["vaps"]:
            ap_dev = snapshot.topology.attachments.get(vap["agent_id"])
            route = None if ap_dev is None else snapshot.topology.shortest_path(
                ap_dev, node_dev, max_links, reserved, up_kbps=up, down_kbps=down)
            if route is None:
                node_reasons.append(f"no wired path with {up} kbps up and {down} kbps down free and at most "
                                    f"{max_links} links from AP {vap['agent_id']} to MEC node {name}")
                break
            too_slow = over_budget(f"AP {vap['agent_id']} to MEC node {name}", path_costs(
                snapshot.topology, ap_dev, route, [v["image"] for v in request["vnfs"]], snapshot.latency_costs, name),
                request.get("latency_budget_us"))
            if too_slow:
                node_reasons.append(too_slow)
                break
            routes.append(route)
            # Each vAP's path has its own meters: its guarantees add to what the next vAP's path can use.
            reserve(reserved, route, up, down)
        else:
            load = node["used"]["cpu"] / node["capacity"]["cpu"] if node["capacity"]["cpu"] else 1.0
            candidates.append((max((len(r) for r in routes), default=0), load, name, routes))
    if pinned and not any(n["agent_id"] == pinned for n in snapshot.nodes):
        node_reasons.append(f"MEC node {pinned} is unknown")
    if not candidates:
        raise AdmissionError(node_reasons or ["no MEC node available"])
    candidates.sort(key=lambda c: (c[0], c[1], c[2]))
    _, _, name, routes = candidates[0]
    return Plan(mec_node=name, vap_links=routes)


def check_change(snapshot: Snapshot, vaps: list[dict[str, Any]], routes: list[Route | None],
                 old: Bandwidth | dict[str, int], new: Bandwidth | dict[str, int],
                 latency_class: str | None, budget_us: int | None = None, images: list[str] | None = None,
                 node: str | None = None) -> list[str]:
    """Re-admission of a live slice's new guarantees (and new latency class, None when unchanged) on its current
    vAPs and paths: `old` and `new` are its bandwidth before and after (or their API form); routes[i] is vaps[i]'s
    path, None when it is no longer in the topology; `snapshot` must leave the slice's own reservations out. Only
    what grows is checked: lowering a guarantee always fits there. The paths stay as they are (no re-routing), so a
    latency class needs every current path within its link count, and a budget (`budget_us`, given when it is new
    or lower) every current path with the slice's vNF `images` (on MEC node `node`) within it."""
    reasons: list[str] = []
    old, new = Bandwidth.coerce(old), Bandwidth.coerce(new)
    if new.total_guaranteed_kbps > old.total_guaranteed_kbps:
        wanted: dict[tuple[str, str], int] = {}
        for vap in vaps:
            key = (vap["agent_id"], vap["radio"])
            wanted[key] = wanted.get(key, 0) + new.total_guaranteed_kbps
        reasons += check_radios(snapshot, wanted)
    # A direction whose guarantee grows is checked with its whole new guarantee (the snapshot holds none of it).
    down, up = new.down.guaranteed_kbps, new.up.guaranteed_kbps
    grow_up = up if up > old.up.guaranteed_kbps else 0
    grow_down = down if down > old.down.guaranteed_kbps else 0
    if latency_class is not None or grow_up or grow_down:
        max_links = MAX_LINKS[latency_class] if latency_class is not None else None
        for vap, route in zip(vaps, routes, strict=True):
            if route is None:
                reasons.append(f"vAP {vap['vap_id']}: its reserved wired path is no longer in the topology")
            elif max_links is not None and len(route) > max_links:
                reasons.append(f"vAP {vap['vap_id']}: its wired path has {len(route)} links, latency class "
                               f"{latency_class} allows at most {max_links} (re-routing is not supported)")
    if budget_us is not None:
        for vap, route in zip(vaps, routes, strict=True):
            src = snapshot.topology.attachments.get(vap["agent_id"])
            if route is not None and src is not None:
                reasons += filter(None, [over_budget(f"vAP {vap['vap_id']}", path_costs(
                    snapshot.topology, src, route, images or [], snapshot.latency_costs, node), budget_us)])
    if grow_up or grow_down:
        reasons += check_links(snapshot, [r for r in routes if r], grow_up, grow_down)
    return reasons
