"""The vNF follows its clients (issue 16): a slice with `vnf_follow` has its vNF chain moved to the MEC node nearest
the AP its stations went to, make-before-break.

Trigger: the handover watch (handover_watch.py) calls `observe` after every clients read with where each station
is and the slices that saw a `client_handover` in it. A slice with vnf_follow, active, with vNFs, that saw one is
*pending* until its chain is where its stations are:
- its AP is the one where most of the slice's stations are in that read (a tie goes to the AP of its latest
  handover, then the smaller agent id), so one station roaming away from a crowd does not pull the chain along;
- its MEC node is the connected one (GET /onos/nfv/nodes) the topology reaches from that AP's switch with the
  fewest wired links (a tie keeps the slice's node, then the smaller agent id). The NFV controller's own placement
  (near_ap) has no dry run and scores load too, and the orchestrator needs the node before it plans the routes
  and admits them; the wired distance is what the issue asks ("nearest");
- the same node as the slice's: nothing to do (no event). Else, when the slice's previous follow started less than
  `hold_s` (VNF_FOLLOW_HOLD_S, 30 s) ago or the slice has an operation running, it stays pending and is looked at
  again at the next read; so a client roaming back and forth moves the chain at most once per hold.

The move is a slice operation `follow_vnf` (saga.py: journalled, one at a time per slice, under the admission lock
like every change): admission first (admission.admit pinned to the new node, the slice's own reservations left
out: the node's CPU, memory and images, every vAP's route to it with the guarantees free, the latency budget, and
the routes joining into one path); refused: event `vnf_follow_failed` (warn) and nothing changes. Admitted: new vNF
rows (new instance ids: the NFV controller refuses an existing vnf_id, and both chains exist for a moment) and the
steps, in order:
1. create_vnf of each vNF of the chain pinned to the new node (same image, params, cpu, memory, position);
2. switch_path: the slice's one path (one per slice, one path id: there is no PATCH of its route) deleted and
   posted again to the new node through the new chain; its undo posts back the old path, whose body was journalled
   when the move was planned; this step is the point of no return (`commit`: saga.py rolls forward past it);
3. retire_vnf of each old vNF: removed from the old node. A failure there does not undo the move: the vNF is
   `left_behind` (out of the path, kept as a record; deleting it or the slice removes it), and the event says so.
A failure in 1 or 2 rolls back: the new vNFs removed, the old path put back, the slice unchanged (nothing
half-moved); event `vnf_follow_failed`. Success: the slice's mec_node, path links and vAP routes are the new ones,
the old rows gone; event `vnf_followed` with follow_s = handover seen -> new chain running and path switched (the
end of step 2). Events `vnf_follow_started` when the operation is queued. State (pending, last follow) is in memory.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from .admission import AdmissionError, admit
from .controllers import ControllerError
from .models import ACTIVE_STATES, Operation, Slice, SliceVnf, event
from .slice_path import join_reasons
from .steps import load_topology, new_step, path_body, path_vaps, slice_path_id
from .topology import Topology

if TYPE_CHECKING:
    from .radio_watch import OwnVap
    from .service import SliceService

log = logging.getLogger(__name__)

VNF_FOLLOW_HOLD_S = 30.0


@dataclass
class Pending:
    seen_at: float  # time.time() when its latest handover was seen
    to_agent: str  # the AP of that handover


class VnfFollow:
    def __init__(self, service: SliceService, hold_s: float = VNF_FOLLOW_HOLD_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if hold_s < 0:
            raise ValueError("VNF_FOLLOW_HOLD_S must be >= 0")
        self.service = service
        self.hold_s = hold_s
        self.clock = clock  # the hold's clock (tests move it)
        self.pending: dict[int, Pending] = {}
        self.last: dict[int, float] = {}  # slice -> clock() when its last follow started

    def observe(self, where: dict[str, str], vaps: list[OwnVap], moved: dict[int, str]) -> None:
        """After a clients read: `where` mac -> vap_id, `moved` slice -> the AP of its latest handover in it."""
        now = time.time()
        for slice_id, agent_id in moved.items():
            self.pending[slice_id] = Pending(now, agent_id)
        if not self.pending:
            return
        by_vap = {v.vap_id: v for v in vaps}
        stations: dict[int, Counter[str]] = {}
        for vap_id in where.values():
            v = by_vap.get(vap_id)
            if v is not None:
                stations.setdefault(v.slice_id, Counter())[v.agent_id] += 1
        for slice_id in sorted(self.pending):
            try:
                self._consider(slice_id, stations.get(slice_id, Counter()))
            except Exception:  # one slice's trouble (a controller or database error) must not stop the watch
                log.exception("vnf follow: slice %s", slice_id)
                self.pending.pop(slice_id, None)

    def _consider(self, slice_id: int, stations: Counter[str]) -> None:
        pending = self.pending[slice_id]
        with self.service.session_factory() as db:
            slice_ = db.get(Slice, slice_id)
            if (slice_ is None or not slice_.vnf_follow or slice_.status != "active" or not slice_.mec_node
                    or not slice_.vnfs):
                del self.pending[slice_id]
                return
            ap = majority(stations, pending.to_agent)
            nodes = [n["agent_id"] for n in self.service.controllers.list_nodes() if n.get("connected")]
            node = nearest(load_topology(db), nodes, ap, slice_.mec_node)
            if node is None or node == slice_.mec_node:
                del self.pending[slice_id]
                return
            held = slice_id in self.last and self.clock() - self.last[slice_id] < self.hold_s
            if held or busy(db, slice_id):
                return  # looked at again at the next read
            del self.pending[slice_id]
            self.last[slice_id] = self.clock()
            self.start(db, slice_, ap, node, pending.seen_at, stations)

    def start(self, db: Session, slice_: Slice, ap: str, node: str, seen_at: float, stations: Counter[str]) -> None:
        """Admit the slice's chain on `node` and queue the follow_vnf operation; refused: an event."""
        service, old_node = self.service, slice_.mec_node
        where = ", ".join(f"{n} on AP {a}" for a, n in sorted(stations.items())) or "none seen"
        what = f"slice {slice_.id} {slice_.name!r}: vNF chain from MEC node {old_node} to {node}"
        why = f"nearest AP {ap}, where most of its stations are ({where})"
        with service.admitting(db):  # which reads the slice again
            if slice_.status != "active" or slice_.mec_node != old_node or busy(db, slice_.id):
                return  # changed meanwhile: the next handover tells
            chain = sorted((v for v in slice_.vnfs if v.state != "left_behind"), key=lambda v: v.chain_position)
            vaps = path_vaps(slice_)
            probe = {"bandwidth": slice_.bandwidth, "latency_class": slice_.latency_class,
                     "latency_budget_us": slice_.latency_budget_us, "mec_node": node,
                     "vaps": [{"agent_id": v.agent_id, "radio": v.radio} for v in vaps],
                     "vnfs": [{"image": v.image, "cpu": v.cpu, "memory_mib": v.memory_mib} for v in chain]}
            try:
                plan = admit(service.snapshot(db, exclude_slice=slice_.id), probe)
                reasons = join_reasons(load_topology(db), node, [(v.agent_id, r) for v, r in
                                                                 zip(vaps, plan.vap_links, strict=True)])
                if reasons:
                    raise AdmissionError(reasons)
                old_body = path_body(db, slice_)
            except (AdmissionError, ControllerError) as exc:
                event(db, "vnf_follow_failed", f"{what} ({why}) refused, it stays: {exc}", slice_.tenant_id, "warn")
                db.commit()
                return
            first = service._next_instance(db, slice_.tenant_id)
            new = [SliceVnf(slice=slice_, tenant_id=slice_.tenant_id, instance_id=first + k, image=v.image,
                            params=dict(v.params), cpu=v.cpu, memory_mib=v.memory_mib,
                            chain_position=v.chain_position, node=node) for k, v in enumerate(chain)]
            db.add_all(new)
            db.flush()
            to = {"node": node, "from_node": old_node, "ap": ap, "seen_at": seen_at, "rows": [v.id for v in new],
                  "routes": {v.vap_id: plan.route_keys(i) for i, v in enumerate(vaps)}, "links": plan.link_keys()}
            steps = [new_step("create_vnf", row=v.id, vnf_id=v.vnf_id, node=node) for v in new]
            steps.append(new_step("switch_path", slice=slice_.id, path_id=slice_path_id(slice_), to=to,
                                  old_body=old_body, commit=True))
            steps += [new_step("retire_vnf", row=v.id, vnf_id=v.vnf_id) for v in chain]
            op = Operation(kind="follow_vnf", tenant_id=slice_.tenant_id, slice_id=slice_.id, steps=steps)
            service.runner.claim(op)
            db.add(op)
            event(db, "vnf_follow_started", f"{what} ({why}): new chain first, then the path, then the old chain "
                                            "removed", slice_.tenant_id)
            db.commit()
        service.runner.submit(op.id)


def majority(stations: Counter[str], latest: str) -> str:
    """The AP with most of the slice's stations; a tie: the latest handover's AP, then the smaller agent id."""
    if not stations:
        return latest
    return min(stations, key=lambda a: (-stations[a], a != latest, a))


def nearest(topo: Topology, nodes: list[str], ap: str, current: str | None) -> str | None:
    """The MEC node the topology reaches from AP `ap`'s switch with the fewest links (a tie: `current`, then the
    smaller agent id); None when the AP or no node is attached or reachable."""
    src = topo.attachments.get(ap)
    found = []
    for node in nodes:
        dst = topo.attachments.get(node)
        route = None if src is None or dst is None else topo.shortest_path(src, dst, 64)
        if route is not None:
            found.append((len(route), node != current, node))
    return min(found)[2] if found else None


def busy(db: Session, slice_id: int) -> bool:
    return db.scalar(select(Operation.id).where(Operation.slice_id == slice_id,
                                                Operation.status.in_(ACTIVE_STATES))) is not None


# --- the operation's outcome (outcomes.py) -----------------------------------------------------------------------
def followed(db: Session, op: Operation, slice_: Slice) -> None:
    """The path switched: the slice is on the new node; the old vNFs retired, or left behind where that failed
    (also when the operation failed after the switch: it rolled forward, saga.py)."""
    switch = next(s for s in op.steps if s["kind"] == "switch_path")
    to = switch["ref"]["to"]
    slice_.mec_node = to["node"]
    slice_.path_links = to["links"]
    for vap in slice_.vaps:
        vap.path_links = to["routes"].get(vap.vap_id, vap.path_links)
    left = []
    for step in (s for s in op.steps if s["kind"] == "retire_vnf"):
        vnf = db.get(SliceVnf, step["ref"]["row"])
        if vnf is None:
            continue
        if step["state"] == "done":
            why = (step.get("result") or {}).get("left_behind")
        else:  # the operation ended before this step (rolled forward and failed)
            why = step.get("error") or "not removed"
        if why:
            vnf.state = "left_behind"
            left.append(f"vNF {vnf.vnf_id} left behind on {to['from_node']}: {why}")
        else:
            db.delete(vnf)
    follow_s = round(switch["started_at"] + switch.get("seconds", 0.0) - to["seen_at"], 3)
    tail = f"; {'; '.join(left)} (delete it or the slice to retry)" if left else ""
    if left:
        slice_.status_reason = f"vNF follow: {'; '.join(left)}"[:500]
    event(db, "vnf_followed", f"slice {slice_.id} {slice_.name!r}: vNF chain followed its clients from MEC node "
                              f"{to['from_node']} to {to['node']} (nearest AP {to['ap']}): running there with the "
                              f"path switched follow_s={follow_s} after the handover was seen{tail}",
          slice_.tenant_id, "warn" if left else "info")


def follow_failed(db: Session, op: Operation, slice_: Slice) -> None:
    """Rolled back before the switch: the new vNFs' rows go, the slice stays on its node; past the switch (rolled
    forward): as followed."""
    switch = next(s for s in op.steps if s["kind"] == "switch_path")
    if switch["state"] == "done":
        followed(db, op, slice_)
        return
    for vnf in [v for v in slice_.vnfs if v.id in switch["ref"]["to"]["rows"]]:
        db.delete(vnf)
    if "rollback incomplete" in op.error:
        slice_.status_reason = f"a vNF follow could not be undone everywhere: {op.error}"[:500]
    event(db, "vnf_follow_failed", f"slice {slice_.id} {slice_.name!r}: vNF chain not moved from MEC node "
                                   f"{slice_.mec_node} to {switch['ref']['to']['node']}, it stays (new chain "
                                   f"removed, old path kept): {op.error}", slice_.tenant_id, "warn")


def connect(radio_watch: Any, service: SliceService, hold_s: float) -> VnfFollow | None:
    """The follow as the radio watch's handover hook (app.py); none without a radio watch."""
    if radio_watch is None:
        return None
    follow = VnfFollow(service, hold_s)
    radio_watch.handovers.follow = follow.observe
    return follow
