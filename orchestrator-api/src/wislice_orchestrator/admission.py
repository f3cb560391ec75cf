"""Admission control and placement: does a slice request fit, and where does it go.

Pure functions over a snapshot (what the controllers report + what the orchestrator has reserved), so they are
unit-tested without a database or controllers. Every reason a request does not fit is reported, not just the first.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .topology import Link, Topology

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
    own_vaps: list[dict[str, Any]] = field(default_factory=list)  # {vap_id, agent_id, radio}
    own_vnfs: list[dict[str, Any]] = field(default_factory=list)  # {vnf_id, node, cpu, memory_mib}
    ap_reserved_kbps: dict[str, int] = field(default_factory=dict)  # agent_id -> guaranteed down+up
    link_reserved_kbps: dict[str, int] = field(default_factory=dict)  # link key -> guaranteed


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
    vap_links: list[list[tuple[Link, str]]]

    def link_keys(self) -> list[str]:
        return sorted({link.key for links in self.vap_links for link, _ in links})


def check_quota(tenant: Any, usage: TenantUsage, request: dict[str, Any]) -> list[str]:
    bw = request["bandwidth"]
    want_bw = bw["down_guaranteed_kbps"] + bw["up_guaranteed_kbps"]
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


def _radio_free_slots(snapshot: Snapshot) -> dict[tuple[str, str], int]:
    """Free vAP slots per (agent, radio): the agent's max_vaps minus foreign vAPs it reports minus our own."""
    own_ids = {v["vap_id"] for v in snapshot.own_vaps}
    free: dict[tuple[str, str], int] = {}
    for agent in snapshot.agents:
        if not agent.get("connected", False):
            continue
        for radio in agent.get("radios", []):
            key = (agent["agent_id"], radio["name"])
            foreign = sum(1 for v in snapshot.controller_vaps if v.get("agent_id") == agent["agent_id"]
                          and v.get("radio") == radio["name"] and v.get("vap_id") not in own_ids)
            own = sum(1 for v in snapshot.own_vaps if (v["agent_id"], v["radio"]) == key)
            free[key] = int(radio.get("max_vaps", 0)) - foreign - own
    return free


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
    bw = request["bandwidth"]
    per_ap_need = bw["down_guaranteed_kbps"] + bw["up_guaranteed_kbps"]
    link_need = max(bw["down_guaranteed_kbps"], bw["up_guaranteed_kbps"])

    # 1. vAP slots per radio, as the agents report them.
    free = _radio_free_slots(snapshot)
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

    # 2. Airtime/bandwidth budget per AP (each AP of the slice must carry the slice's guarantee).
    for agent_id in sorted({v["agent_id"] for v in request["vaps"]}):
        used = snapshot.ap_reserved_kbps.get(agent_id, 0)
        if used + per_ap_need > snapshot.ap_budget_kbps:
            reasons.append(f"AP {agent_id}: bandwidth budget {snapshot.ap_budget_kbps} kbps, {used} reserved, "
                           f"{per_ap_need} wanted")
    if reasons:
        raise AdmissionError(reasons)

    if not request["vnfs"]:
        return Plan(mec_node=None, vap_links=[[] for _ in request["vaps"]])

    # 3. MEC node with the CPU, memory and images, and 4. wired capacity from every AP to it.
    images = {v["image"] for v in request["vnfs"]}
    cpu_need = sum(v["cpu"] for v in request["vnfs"])
    mem_need = sum(v["memory_mib"] for v in request["vnfs"])
    max_links = MAX_LINKS[request.get("latency_class", "best_effort")]
    candidates: list[tuple[int, float, str, list[list[tuple[Link, str]]]]] = []
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
        routes: list[list[tuple[Link, str]]] = []
        reserved = dict(snapshot.link_reserved_kbps)
        for vap in request["vaps"]:
            ap_dev = snapshot.topology.attachments.get(vap["agent_id"])
            route = None if ap_dev is None else snapshot.topology.shortest_path(ap_dev, node_dev, link_need,
                                                                              reserved, max_links)
            if route is None:
                node_reasons.append(f"no wired path with {link_need} kbps free and at most {max_links} links from AP "
                                    f"{vap['agent_id']} to MEC node {name}")
                break
            routes.append(route)
            # Two vAPs of the slice sharing a link share its reservation (one slice meter per link).
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
