"""Saga steps: what one step does on the controllers and how it is undone.

A step is a journal entry {"kind", "ref", "state", "result"}; `ref` names the resource (all ids are chosen by the
orchestrator before the call, so a step that crashed mid-call can still be undone by id). Undo treats "not found" as
already undone. Dispatch is by table, keyed by kind.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from .at_rest import open_passphrase
from .controllers import ControllerError, Controllers
from .models import Setting, Slice, SliceVap, SliceVnf, event
from .schemas.base import PRIORITY_CLASSES
from .slice_path import cut_branch, vap_order
from .slice_qos import path_rates, rate_limit
from .topology import Route, Topology, hops_for

Step = dict[str, Any]


def load_topology(db: Session) -> Topology:
    row = db.get(Setting, "topology")
    return Topology.from_json(row.value if row else None)


def vap_spec(db: Session, slice_: Slice, vap: SliceVap) -> dict[str, Any]:
    """What the wifi controller gets to create the vAP; the one place its passphrase is opened. A wpa2-psk slice
    with vAPs on several APs offers 802.11r FT-PSK (beside WPA-PSK), so its stations can move between them fast
    (vAPs created while the slice was on one AP keep plain WPA2 until they are created again)."""
    security: dict[str, Any] = {"mode": vap.security_mode}
    passphrase = open_passphrase(db, vap.sealed_passphrase, vap.vap_id)
    if passphrase:
        security["passphrase"] = passphrase
    if vap.security_mode == "wpa2-psk" and len({v.agent_id for v in slice_.vaps}) > 1:
        security["fast_transition"] = True
    spec: dict[str, Any] = {"vap_id": vap.vap_id, "radio": vap.radio, "ssid": vap.ssid, "security": security,
                            "hidden": vap.hidden, "tenant_id": slice_.tenant_id, "slice_id": slice_.controller_id,
                            "rate_limit": rate_limit(slice_.bandwidth)}
    if vap.max_clients:
        spec["max_clients"] = vap.max_clients
    if slice_.latency_class in PRIORITY_CLASSES:
        spec |= {k: v for k, v in vap_class(slice_, slice_.latency_class).items() if v is not None}
    return spec


def vap_class(slice_: Slice, latency_class: str) -> dict[str, Any]:
    """What a vAP of slice_ carries for a latency class: a latency slice's downlink goes in WMM's voice queue and,
    if the slice asked for probes, the AP probes its path from the vAP's port (its measured latency); best effort
    is be without probe (None)."""
    latency = latency_class in PRIORITY_CLASSES
    return {"wmm_ac": "vo" if latency else "be", "probe": dict(slice_.probe) if latency and slice_.probe else None}


def vnf_spec(vnf: SliceVnf) -> dict[str, Any]:
    """The VnfSpec; chain_id = the slice, so the MEC node's backpressure keeps each slice's chain to itself (a
    tenant's other slices are other chains); latency_class = the slice's, so the node runs a latency slice's vNF
    in latency mode where it can give it a core (spec/agent PROTOCOL.md)."""
    return {"tenant_id": vnf.tenant_id, "instance_id": vnf.instance_id, "image": vnf.image, "params": vnf.params,
            "cpu": vnf.cpu, "memory_mib": vnf.memory_mib, "chain_position": vnf.chain_position,
            "chain_id": vnf.slice_id, "latency_class": vnf.slice.latency_class}


def path_id(slice_: Slice, vap: SliceVap) -> str:
    return f"{slice_.controller_id}-{vap.vap_id}"


def path_vaps(slice_: Slice, skip_vap: str | None = None) -> list[SliceVap]:
    """The vAPs the slice's one path carries, the main path's first (creation order), without `skip_vap`."""
    return sorted((v for v in slice_.vaps if v.vap_id != skip_vap), key=lambda v: vap_order(v.vap_id))


def slice_path_id(slice_: Slice, skip_vap: str | None = None) -> str | None:
    """The slice's path id: named after its main vAP, so a one-vAP slice keeps the id it always had."""
    vaps = path_vaps(slice_, skip_vap)
    return path_id(slice_, vaps[0]) if vaps else None


def vap_route(topo: Topology, slice_: Slice, vap: SliceVap, to: dict[str, Any] | None = None) -> Route | None:
    """The wired route of a vAP's path, AP switch -> MEC switch: the one placement reserved for it (SliceVap
    .path_links), or for vAPs recorded before those were kept, re-derived over the slice's reserved links.
    None when it is no longer in the topology. `to` (a vNF follow): {"node", "routes": {vap_id: keys}}, the
    route to another MEC node in place of the slice's."""
    src = topo.attachments.get(vap.agent_id)
    dst = topo.attachments.get((to["node"] if to else slice_.mec_node) or "")
    if src is None or dst is None:
        return None
    keys = to["routes"].get(vap.vap_id) if to else vap.path_links
    if keys is not None:
        route = topo.resolve(src, list(keys))
        if route is None:
            return None
        end = route[-1][0].other(route[-1][1]) if route else src
        return route if end == dst else None
    allowed = set(slice_.path_links or [])
    sub = Topology(topo.attachments, [x for x in topo.links if x.key in allowed], topo.egress)
    return sub.shortest_path(src, dst, 64)


def _vap_hops(topo: Topology, slice_: Slice, vap: SliceVap, chain: list[tuple[int, int]],
              to: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """One vAP's whole forward route: its AP switch -> planned links -> MEC switch -> vNF chain -> egress."""
    links = vap_route(topo, slice_, vap, to)
    src = topo.attachments.get(vap.agent_id)
    dst = topo.attachments.get((to["node"] if to else slice_.mec_node) or "")
    if links is None or src is None or dst is None:
        raise ControllerError(409, "no_path", f"reserved links no longer connect {src} to {dst}")
    if vap.pof_port is None:
        raise ControllerError(409, "no_port", f"vAP {vap.vap_id} has no pof-switch port")
    return hops_for(links, src, vap.pof_port, dst, chain, topo.egress.get(dst))


def path_body(db: Session, slice_: Slice, exclude_vnf_row: int | None = None,
              skip_vap: str | None = None, to: dict[str, Any] | None = None) -> dict[str, Any]:
    """The slice's one SlicePath: its main vAP's route as `hops` (main_branch_id = that vAP), every other vAP's
    route a branch (branch_id = its vap_id) cut where it joins the main path (slice_path.py). Its chain: the slice's
    vNFs but a left-behind one; with `to` (a vNF follow: {"node", "routes", "rows"}), the vNF rows `rows` on MEC
    node `node` over `routes` instead."""
    topo = load_topology(db)
    vaps = path_vaps(slice_, skip_vap)
    if not vaps:
        raise ControllerError(409, "no_path", f"slice {slice_.id} has no vAP to carry a path")
    chain = []
    for vnf in sorted(slice_.vnfs, key=lambda v: v.chain_position):
        if vnf.id == exclude_vnf_row or (vnf.id not in to["rows"] if to else vnf.state == "left_behind"):
            continue
        ports = [p["pof_port"] for p in vnf.ports or [] if p.get("pof_port") is not None]
        if not ports:
            raise ControllerError(409, "no_port", f"vNF {vnf.vnf_id} has no pof-switch port")
        chain.append((ports[0], ports[-1]))
    main = vaps[0]
    hops = _vap_hops(topo, slice_, main, chain, to)
    body: dict[str, Any] = {"slice_id": path_id(slice_, main), "tenant_id": slice_.tenant_id,
                            **path_rates(slice_.bandwidth), "latency_class": slice_.latency_class, "hops": hops}
    if slice_.tag is not None:
        body["tag"] = slice_.tag
    body["main_branch_id"] = main.vap_id
    branches = []
    for vap in vaps[1:]:
        cut = cut_branch(hops, _vap_hops(topo, slice_, vap, chain, to))
        if isinstance(cut, str):
            raise ControllerError(409, "no_join", f"vAP {vap.vap_id}: {cut}")
        branches.append({"branch_id": vap.vap_id, "hops": cut})
    if branches:
        body["branches"] = branches
    return body


def _vap(db: Session, ref: dict[str, Any]) -> SliceVap:
    vap = db.scalar(select(SliceVap).where(SliceVap.vap_id == ref["vap_id"]))
    if vap is None:
        raise ControllerError(409, "gone", f"vAP {ref['vap_id']} is no longer recorded")
    return vap


def _vnf(db: Session, ref: dict[str, Any]) -> SliceVnf:
    vnf = db.get(SliceVnf, ref["row"])
    if vnf is None:
        raise ControllerError(409, "gone", f"vNF row {ref['row']} is no longer recorded")
    return vnf


# --- do ---------------------------------------------------------------------------------------------------------
# create_vap and create_vnf come in two halves: the controller call, prepared from the database, and applying its
# reply to the database. The saga sends a run of these steps to the controllers at once (a slice's vAPs and its
# vNFs need nothing from each other), keeping every database read and write on its own thread.
def call_create_vap(ctl: Controllers, db: Session, ref: dict[str, Any]) -> Callable[[], Any]:
    vap = _vap(db, ref)
    agent_id, spec = vap.agent_id, vap_spec(db, vap.slice, vap)
    return lambda: ctl.create_vap(agent_id, spec)


def apply_create_vap(db: Session, ref: dict[str, Any], state: dict[str, Any]) -> dict[str, Any]:
    vap = _vap(db, ref)
    vap.state = "up" if state.get("state", "up") == "up" else state.get("state", "up")
    vap.pof_port = state.get("pof_port")
    vap.sealed_passphrase = None  # the agent has it now; not even the sealed secret stays here
    return {"bssid": state.get("bssid"), "ifname": state.get("ifname"), "pof_port": vap.pof_port}


def call_create_vnf(ctl: Controllers, db: Session, ref: dict[str, Any]) -> Callable[[], Any]:
    vnf = _vnf(db, ref)
    near = vnf.slice.vaps[0].agent_id if vnf.slice.vaps else None
    spec, node = vnf_spec(vnf), ref.get("node") or vnf.slice.mec_node  # a vNF follow pins the new chain's node
    return lambda: ctl.create_vnf(spec, node=node, near_ap=near)


def apply_create_vnf(db: Session, ref: dict[str, Any], reply: tuple[dict[str, Any], str]) -> dict[str, Any]:
    vnf = _vnf(db, ref)
    state, node = reply
    vnf.node = node
    vnf.state = state.get("state", "running")
    vnf.ports = state.get("ports", [])
    return {"node": node, "address": state.get("address"), "container_id": state.get("container_id")}


def do_create_vap(ctl: Controllers, db: Session, ref: dict[str, Any]) -> dict[str, Any]:
    return apply_create_vap(db, ref, call_create_vap(ctl, db, ref)())


def do_create_vnf(ctl: Controllers, db: Session, ref: dict[str, Any]) -> dict[str, Any]:
    return apply_create_vnf(db, ref, call_create_vnf(ctl, db, ref)())


def do_create_path(ctl: Controllers, db: Session, ref: dict[str, Any]) -> dict[str, Any]:
    slice_ = db.get(Slice, ref["slice"])
    assert slice_ is not None
    body = path_body(db, slice_, exclude_vnf_row=ref.get("without_row"), skip_vap=ref.get("without_vap"),
                     to=ref.get("to"))
    reply, placed, unplaced = install_path(ctl, body)
    if slice_.tag is None and reply.get("tag") is not None:
        slice_.tag = int(reply["tag"])  # the controller assigns the slice tag once; later paths reuse it
    result: dict[str, Any] = {"tag": reply.get("tag"), "hops": len(reply.get("hops", []))}
    # A latency-class path's switches without a priority queue (their meter is plain): journalled, and told.
    queueless = [str(h.get("device_id")) for h in reply.get("hops", []) if h.get("latency_queue") is False]
    if queueless:
        result["no_latency_queue"] = queueless
        event(db, "slice", f"slice {slice_.id} path {ref.get('path_id')}: no latency queue on {', '.join(queueless)} "
                           f"(latency class {slice_.latency_class} is best effort there)", slice_.tenant_id, "warn")
    if placed:
        result["clients_placed"] = placed
    if unplaced:
        result["clients_unplaced"] = unplaced
        event(db, "slice", f"slice {slice_.id} path {body['slice_id']}: downlink of {'; '.join(unplaced)} not "
                           "placed on its AP's branch (it follows the main path until the station moves again)",
              slice_.tenant_id, "warn")
    return result


def install_path(ctl: Controllers, body: dict[str, Any]) -> tuple[Any, list[str], list[str]]:
    """create_path, then the stations already on its branches placed there (place_clients): every install of a
    slice path, also an undo putting an old one back. Returns (the controller's reply, placed, unplaced)."""
    reply = ctl.create_path(body)
    return (reply, *place_clients(ctl, body))


def place_clients(ctl: Controllers, path: dict[str, Any]) -> tuple[list[str], list[str]]:
    """A new path starts with every client's downlink on its main path; stations already associated to one of its
    branches' vAPs (a path re-installed under them: a chain change, a vNF follow) are placed on their branch here,
    as the mobility app places them when they associate (docs/mobility.md). Read after the install, so a station
    that moved meanwhile is placed where it is now. Returns (placed, unplaced with why)."""
    branches = {b["branch_id"] for b in path.get("branches", [])}
    if not branches:
        return [], []
    placed, unplaced = [], []
    for client in ctl.list_clients():
        if client.get("vap_id") not in branches:
            continue
        try:
            ctl.place_client(path["slice_id"], client["mac"], client["vap_id"])
            placed.append(f"{client['mac']}@{client['vap_id']}")
        except ControllerError as exc:
            unplaced.append(f"{client['mac']} ({exc})")
    return placed, unplaced


def do_replace_path(ctl: Controllers, db: Session, ref: dict[str, Any]) -> dict[str, Any]:
    """Re-install the slice's path after its vNF chain or its vAPs changed, or (a vNF follow, vnf_follow.py: the
    path to the new MEC node through the new chain, ref["to"]: node, routes, rows) its MEC node: there is no path
    or branch PATCH, so delete the old path (`old_path_id` when the main vAP changes with it), add the new one."""
    try:
        ctl.delete_path(ref.get("old_path_id") or ref["path_id"])
    except ControllerError as exc:
        if not exc.not_found:
            raise
    return do_create_path(ctl, db, ref)


def do_retire_vnf(ctl: Controllers, db: Session, ref: dict[str, Any]) -> dict[str, Any]:
    """A vNF of the chain a follow left: removed from its old node. It no longer carries the slice's traffic, so
    a failure does not undo the move: it is left behind (its result says why; the row stays, out of the path)."""
    try:
        _ignore_missing(lambda: ctl.delete_vnf(ref["vnf_id"]))
    except ControllerError as exc:
        return {"left_behind": f"{exc.status} {exc}"[:300]}
    return {}


def do_update_vap(ctl: Controllers, db: Session, ref: dict[str, Any]) -> dict[str, Any]:
    """New rate_limit of a live vAP (its stations stay associated)."""
    ctl.update_vap(ref["vap_id"], ref["new"])
    return {}


def do_update_vap_class(ctl: Controllers, db: Session, ref: dict[str, Any]) -> dict[str, Any]:
    """A live vAP's access category and probe for the slice's new latency class (its stations stay associated)."""
    ctl.change_vap(ref["vap_id"], ref["new"])
    return {}


def do_update_path(ctl: Controllers, db: Session, ref: dict[str, Any]) -> dict[str, Any]:
    """New down/up rates of a live path's meters (its flows stay)."""
    ctl.update_path_rates(ref["path_id"], ref["new"])
    return {}


def do_delete_vap(ctl: Controllers, db: Session, ref: dict[str, Any]) -> dict[str, Any]:
    _ignore_missing(lambda: ctl.delete_vap(ref["agent_id"], ref["vap_id"]))
    return {}


def do_delete_vnf(ctl: Controllers, db: Session, ref: dict[str, Any]) -> dict[str, Any]:
    _ignore_missing(lambda: ctl.delete_vnf(ref["vnf_id"]))
    return {}


def do_delete_path(ctl: Controllers, db: Session, ref: dict[str, Any]) -> dict[str, Any]:
    _ignore_missing(lambda: ctl.delete_path(ref["path_id"]))
    return {}


# --- undo -------------------------------------------------------------------------------------------------------
def _ignore_missing(call: Callable[[], None]) -> None:
    try:
        call()
    except ControllerError as exc:
        if not exc.not_found:
            raise


def undo_create_vap(ctl: Controllers, db: Session, ref: dict[str, Any]) -> None:
    _ignore_missing(lambda: ctl.delete_vap(ref["agent_id"], ref["vap_id"]))


def undo_create_vnf(ctl: Controllers, db: Session, ref: dict[str, Any]) -> None:
    _ignore_missing(lambda: ctl.delete_vnf(ref["vnf_id"]))


def undo_create_path(ctl: Controllers, db: Session, ref: dict[str, Any]) -> None:
    _ignore_missing(lambda: ctl.delete_path(ref["path_id"]))


def undo_replace_path(ctl: Controllers, db: Session, ref: dict[str, Any]) -> None:
    """Put back the path as it was before the change (without the vNF or vAP being added, with the one being
    removed)."""
    _ignore_missing(lambda: ctl.delete_path(ref["path_id"]))
    slice_ = db.get(Slice, ref["slice"])
    if slice_ is not None and any(v.id != ref.get("exclude_row") for v in slice_.vnfs) and \
            path_vaps(slice_, ref.get("exclude_vap")):
        install_path(ctl, path_body(db, slice_, exclude_vnf_row=ref.get("exclude_row"),
                                    skip_vap=ref.get("exclude_vap")))


def undo_switch_path(ctl: Controllers, db: Session, ref: dict[str, Any]) -> None:
    """Put back the path to the old node as it was before the follow (its body, journalled when it was planned)."""
    _ignore_missing(lambda: ctl.delete_path(ref["path_id"]))
    install_path(ctl, ref["old_body"])


def undo_update_vap(ctl: Controllers, db: Session, ref: dict[str, Any]) -> None:
    _ignore_missing(lambda: ctl.update_vap(ref["vap_id"], ref["old"]))


def undo_update_vap_class(ctl: Controllers, db: Session, ref: dict[str, Any]) -> None:
    _ignore_missing(lambda: ctl.change_vap(ref["vap_id"], ref["old"]))


def undo_update_path(ctl: Controllers, db: Session, ref: dict[str, Any]) -> None:
    _ignore_missing(lambda: ctl.update_path_rates(ref["path_id"], ref["old"]))


def undo_nothing(ctl: Controllers, db: Session, ref: dict[str, Any]) -> None:
    """Deletions are rolled forward, never undone."""


DO: dict[str, Callable[[Controllers, Session, dict[str, Any]], dict[str, Any]]] = {
    "create_vap": do_create_vap,
    "create_vnf": do_create_vnf,
    "create_path": do_create_path,
    "replace_path": do_replace_path,
    "switch_path": do_replace_path,
    "retire_vnf": do_retire_vnf,
    "update_vap": do_update_vap,
    "update_vap_class": do_update_vap_class,
    "update_path": do_update_path,
    "delete_vap": do_delete_vap,
    "delete_vnf": do_delete_vnf,
    "delete_path": do_delete_path,
}

UNDO: dict[str, Callable[[Controllers, Session, dict[str, Any]], None]] = {
    "create_vap": undo_create_vap,
    "create_vnf": undo_create_vnf,
    "create_path": undo_create_path,
    "replace_path": undo_replace_path,
    "switch_path": undo_switch_path,
    "retire_vnf": undo_nothing,
    "update_vap": undo_update_vap,
    "update_vap_class": undo_update_vap_class,
    "update_path": undo_update_path,
    "delete_vap": undo_nothing,
    "delete_vnf": undo_nothing,
    "delete_path": undo_nothing,
}


# Kinds whose controller call can run beside the others of a run: (prepare the call, apply its reply).
CONCURRENT: dict[str, tuple[Callable[[Controllers, Session, dict[str, Any]], Callable[[], Any]],
                            Callable[[Session, dict[str, Any], Any], dict[str, Any]]]] = {
    "create_vap": (call_create_vap, apply_create_vap),
    "create_vnf": (call_create_vnf, apply_create_vnf),
}


def new_step(kind: str, **ref: Any) -> Step:
    if kind not in DO:
        raise ValueError(f"unknown step kind {kind}")
    return {"kind": kind, "ref": ref, "state": "pending", "result": None, "error": None}


def step_label(step: Step) -> str:
    ref = step["ref"]
    target = ref.get("vap_id") or ref.get("vnf_id") or ref.get("path_id") or ""
    return f"{step['kind']} {target}".strip()
