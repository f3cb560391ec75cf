"""Slice lifecycle: quota and admission checks, recording the plan, and queuing the saga that builds it."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from . import history
from .admission import AdmissionError, Snapshot, TenantUsage, admit, check_change, check_quota
from .at_rest import PassphraseBox, seal_passphrase, session_box
from .bandwidth import Bandwidth
from .controllers import Controllers
from .latency_budget import LatencyCosts, with_measured
from .lease import LeaseTerms
from .models import Lock, Operation, Slice, SliceVap, SliceVnf, Tenant, event
from .outcomes import describe, on_failure, on_success
from .policy_state import initial_state
from .saga import ACTIVE_STATES, SagaRunner
from .slice_path import join_reasons
from .slice_qos import path_rates, rate_limit, reserved_bandwidth
from .steps import Step, load_topology, new_step, path_id, path_vaps, slice_path_id, vap_class, vap_route
from .topology import reserve
from .vap_expand import expand_all_aps

LIVE = ("creating", "active", "deleting")


class Conflict(Exception):
    """The request clashes with the current state (409)."""


class Missing(Exception):
    """What the request names is gone (404): e.g. its tenant was removed while the request waited."""


class Rejected(Exception):
    """The request is well-formed but cannot be admitted (409 with reasons)."""

    def __init__(self, title: str, reasons: list[str]) -> None:
        super().__init__(title)
        self.title, self.reasons = title, reasons


def request_hash(box: PassphraseBox, kind: str, body: Any) -> str:
    """What an Idempotency-Key replay is compared with. Keyed (HMAC under the passphrase key): a body holds a
    passphrase, and a plain hash of it would let whoever reads the database test passphrase guesses offline."""
    return box.request_digest(json.dumps([kind, body], sort_keys=True, default=str).encode())


class SliceService:
    def __init__(self, session_factory: sessionmaker[Session], controllers: Controllers, ap_budget_kbps: int,
                 metrics: Any = None, terms: LeaseTerms | None = None,
                 retention: history.Retention | None = None, latency_costs: LatencyCosts | None = None) -> None:
        self.session_factory = session_factory
        self.controllers = controllers
        self.ap_budget_kbps = ap_budget_kbps
        self.latency_costs = latency_costs or LatencyCosts()
        # vnf_id -> its measured p99 (us), the telemetry's last poll (app.py connects it): measured vNF costs.
        self.measured_vnf_us: Callable[[], dict[int, int]] = dict
        # device id -> the switch's measured p99 (us), fresh from the telemetry (app.py connects it): measured switch
        # costs, in place of the default estimate (the topology's switch_latency_us still overrides them).
        self.measured_switch_us: Callable[[], dict[str, int]] = dict
        self.metrics = metrics
        # Admission reads reservations and writes new ones: one request at a time, so two cannot both fit.
        self.admission_lock = threading.Lock()
        self.runner = SagaRunner(session_factory, controllers, on_success, on_failure,
                                 observe=self._observe, terms=terms, retention=retention)

    @contextmanager
    def admitting(self, db: Session) -> Iterator[None]:
        """One admission (or other change of what slices hold) at a time, across every orchestrator instance on the
        database: this process's lock, then the 'admission' row locked in `db`'s transaction until it commits or
        rolls back (SELECT ... FOR UPDATE; SQLite, which serves one instance, leaves FOR UPDATE out and has the
        process lock). Objects `db` loaded before are read again: another instance may have changed them. A refusal
        leaves the transaction to its caller (who may still record something), which ends it soon: a request's at
        its end, the policy engine's after its round."""
        with self.admission_lock:
            if db.scalar(select(Lock.name).where(Lock.name == "admission").with_for_update()) is None:
                raise RuntimeError("the database lacks its 'admission' lock row (migration 0007)")
            db.expire_all()
            yield

    # --- snapshot of what is used ---------------------------------------------------------------------------
    def snapshot(self, db: Session, exclude_slice: int | None = None) -> Snapshot:
        """What is in use now; `exclude_slice` leaves one slice's own reservations out (re-admitting a change)."""
        ctl = self.controllers
        live = [s for s in db.scalars(select(Slice).where(Slice.status.in_(LIVE))) if s.id != exclude_slice]
        excluded = db.get(Slice, exclude_slice) if exclude_slice is not None else None
        hidden = {v.vap_id for v in excluded.vaps} if excluded is not None else set()
        topo = load_topology(db)
        vnfs = ctl.list_vnfs()
        snap = Snapshot(agents=ctl.list_agents(), nodes=ctl.list_nodes(),
                        controller_vaps=[v for v in ctl.list_vaps() if v.get("vap_id") not in hidden],
                        controller_vnfs=vnfs, topology=topo, ap_budget_kbps=self.ap_budget_kbps,
                        latency_costs=with_measured(self.latency_costs, vnfs, self.measured_vnf_us(),
                                                                self.measured_switch_us()))
        for s in live:
            bw = reserved_bandwidth(s)
            down, up = bw.down.guaranteed_kbps, bw.up.guaranteed_kbps
            for v in s.vaps:
                key = (v.agent_id, v.radio)
                snap.radio_reserved_kbps[key] = snap.radio_reserved_kbps.get(key, 0) + bw.total_guaranteed_kbps
                if not s.mec_node:
                    continue
                route = vap_route(topo, s, v)
                if route is None:  # no longer in the topology: hold the slice's links in both directions
                    route = [(link, end) for link in topo.links if link.key in set(s.path_links or [])
                             for end in (link.a, link.b)]
                    reserve(snap.link_reserved_kbps, route, max(down, up), 0)
                else:
                    reserve(snap.link_reserved_kbps, route, up, down)
            snap.own_vaps += [{"vap_id": v.vap_id, "agent_id": v.agent_id, "radio": v.radio, "ssid": v.ssid}
                              for v in s.vaps]
            snap.own_vnfs += [{"vnf_id": v.vnf_id, "node": v.node or s.mec_node, "cpu": v.cpu,
                               "memory_mib": v.memory_mib} for v in s.vnfs]
        return snap

    def usage(self, db: Session, tenant_id: int, exclude_slice: int | None = None) -> TenantUsage:
        usage = TenantUsage()
        for s in db.scalars(select(Slice).where(Slice.tenant_id == tenant_id, Slice.status.in_(LIVE))):
            if s.id == exclude_slice:
                continue
            usage.slices += 1
            usage.vaps += len(s.vaps)
            usage.bandwidth_kbps += reserved_bandwidth(s).total_guaranteed_kbps
            usage.cpu += sum(v.cpu for v in s.vnfs)
            usage.memory_mib += sum(v.memory_mib for v in s.vnfs)
        return usage

    # --- idempotency ------------------------------------------------------------------------------------------
    @staticmethod
    def _replay(db: Session, tenant_id: int, key: str | None, digest: str) -> Operation | None:
        if not key:
            return None
        op = db.scalar(select(Operation).where(Operation.tenant_id == tenant_id, Operation.idempotency_key == key))
        # No hash: a create from before migration 0006, whose plain hash it dropped; the key alone identifies it.
        if op is not None and op.request_hash is not None and op.request_hash != digest:
            raise Conflict(f"Idempotency-Key {key!r} was already used with a different request")
        return op

    @staticmethod
    def _busy(db: Session, slice_id: int) -> None:
        running = db.scalar(select(Operation.id).where(Operation.slice_id == slice_id,
                                                       Operation.status.in_(ACTIVE_STATES)))
        if running is not None:
            raise Conflict(f"slice has operation {running} in progress; retry when it has finished")

    def _next_instance(self, db: Session, tenant_id: int) -> int:
        highest = db.scalar(select(func.max(SliceVnf.instance_id)).where(SliceVnf.tenant_id == tenant_id))
        nxt = (highest or 0) + 1
        if nxt > 0xFFFF:
            raise Conflict("tenant has used all 65535 vNF instance ids")
        return nxt

    def _admit_and_queue(self, db: Session, tenant_id: int, kind: str, digest_key: str, body: dict[str, Any],
                         idempotency_key: str | None,
                         record: Callable[[], tuple[int, list[Step]]]) -> tuple[Operation, bool]:
        """The one path of every create-type request: under the admission lock, a repeat of an earlier request (same
        Idempotency-Key and body) gets its operation back; otherwise `record` checks quota and admission and records
        the rows (raising Conflict or Rejected), and its steps are journalled as an operation in the same
        transaction and queued. Returns (operation, newly created)."""
        digest = request_hash(session_box(db), digest_key, body)
        with self.admitting(db):
            # The tenant was looked up before the lock; its removal (which takes the lock) may have come between.
            if db.scalar(select(Tenant.id).where(Tenant.id == tenant_id)) is None:
                raise Missing(f"tenant {tenant_id} not found")
            old = self._replay(db, tenant_id, idempotency_key, digest)
            if old is not None:
                return old, False
            slice_id, steps = record()
            op = Operation(kind=kind, tenant_id=tenant_id, slice_id=slice_id, steps=steps,
                           idempotency_key=idempotency_key, request_hash=digest)
            self.runner.claim(op)
            db.add(op)
            db.commit()
        self.runner.submit(op.id)
        return op, True

    # --- create ------------------------------------------------------------------------------------------------
    def create_slice(self, db: Session, tenant: Tenant, body: dict[str, Any],
                     idempotency_key: str | None = None) -> tuple[Operation, bool]:
        """Admit and record a slice, queue its saga; returns (operation, newly created)."""

        def record() -> tuple[int, list[Step]]:
            try:
                skipped = expand_all_aps(lambda: self.snapshot(db), body)  # "*": one vAP per AP with room
                if reasons := check_quota(tenant, self.usage(db, tenant.id), body):
                    raise Rejected("quota exceeded", reasons)
                plan = admit(self.snapshot(db), body)
            except AdmissionError as exc:
                event(db, "admission", f"tenant {tenant.id} slice {body['name']!r} rejected: {exc}", tenant.id, "warn")
                db.commit()
                raise Rejected("slice does not fit", exc.reasons) from exc
            self._check_joins(db, tenant.id, body["name"], plan.mec_node,
                              [(v["agent_id"], r) for v, r in zip(body["vaps"], plan.vap_links, strict=True)])
            slice_ = Slice(tenant_id=tenant.id, name=body["name"], latency_class=body["latency_class"],
                           latency_budget_us=body.get("latency_budget_us"), probe=body.get("probe"),
                           bandwidth=Bandwidth.from_dict(body["bandwidth"]), status="creating",
                           mec_node=plan.mec_node, path_links=plan.link_keys(), policies=body.get("policies", []),
                           handover_policy=body.get("handover_policy", "best_effort"),
                           vnf_follow=body.get("vnf_follow", False),
                           policy_state=[initial_state() for _ in body.get("policies", [])])
            db.add(slice_)
            db.flush()
            for k, v in enumerate(body["vaps"], start=1):
                vap_id = f"{slice_.controller_id}v{k}"
                db.add(SliceVap(slice=slice_, vap_id=vap_id, agent_id=v["agent_id"],
                                radio=v["radio"], ssid=v["ssid"], security_mode=v["security"]["mode"],
                                sealed_passphrase=seal_passphrase(db, v["security"].get("passphrase"), vap_id),
                                hidden=v["hidden"], max_clients=v.get("max_clients"),
                                path_links=plan.route_keys(k - 1) if plan.mec_node else None))
            first = self._next_instance(db, tenant.id)
            for k, v in enumerate(body["vnfs"]):
                db.add(SliceVnf(slice=slice_, tenant_id=tenant.id, instance_id=first + k, image=v["image"],
                                params=v["params"], cpu=v["cpu"], memory_mib=v["memory_mib"], chain_position=k,
                                node=plan.mec_node))
            db.flush()
            steps = [new_step("create_vap", vap_id=v.vap_id, agent_id=v.agent_id) for v in slice_.vaps]
            steps += [new_step("create_vnf", row=v.id, vnf_id=v.vnf_id) for v in slice_.vnfs]
            if plan.mec_node:
                main = path_vaps(slice_)[0]
                steps.append(new_step("create_path", slice=slice_.id, vap_id=main.vap_id,
                                      path_id=path_id(slice_, main)))
            event(db, "slice", f"tenant {tenant.id} slice {slice_.id} {slice_.name!r} admitted "
                               f"(MEC node {plan.mec_node or '-'}){skipped}; building", tenant.id)
            return slice_.id, steps

        return self._admit_and_queue(db, tenant.id, "create_slice", "create_slice", body, idempotency_key, record)

    def add_vap(self, db: Session, slice_: Slice, body: dict[str, Any],
                idempotency_key: str | None = None) -> tuple[Operation, bool]:
        """Admit one more vAP for an active slice (with its wired path when the slice has vNFs) and queue it."""

        def record() -> tuple[int, list[Step]]:
            if slice_.status != "active":
                raise Conflict(f"slice is {slice_.status}; vAPs can be added to an active slice only")
            self._busy(db, slice_.id)
            tenant = db.get(Tenant, slice_.tenant_id)
            assert tenant is not None
            if self.usage(db, tenant.id).vaps + 1 > tenant.quota_vaps:
                raise Rejected("quota exceeded", [f"tenant quota exceeded: vAPs would be above {tenant.quota_vaps}"])
            # Admit the new vAP as a one-vAP slice with the same bandwidth, pinned to the slice's MEC node.
            probe = {"bandwidth": slice_.bandwidth, "latency_class": slice_.latency_class, "vaps": [body],
                     "vnfs": [{"image": v.image, "cpu": 0, "memory_mib": 0} for v in slice_.vnfs],
                     "mec_node": slice_.mec_node}
            try:
                plan = admit(self.snapshot(db), probe)
            except AdmissionError as exc:
                raise Rejected("vAP does not fit", exc.reasons) from exc
            if slice_.mec_node and slice_.vaps:
                topo = self.snapshot(db).topology
                self._check_joins(db, slice_.tenant_id, slice_.name, slice_.mec_node,
                                  [(v.agent_id, vap_route(topo, slice_, v) or []) for v in path_vaps(slice_)]
                                  + [(body["agent_id"], plan.vap_links[0])])
            slice_.path_links = sorted(set(slice_.path_links or []) | set(plan.link_keys()))
            k = 1 + max((int(v.vap_id.rsplit("v", 1)[1]) for v in slice_.vaps), default=0)
            vap_id = f"{slice_.controller_id}v{k}"
            vap = SliceVap(slice=slice_, vap_id=vap_id, agent_id=body["agent_id"],
                           radio=body["radio"], ssid=body["ssid"], security_mode=body["security"]["mode"],
                           sealed_passphrase=seal_passphrase(db, body["security"].get("passphrase"), vap_id),
                           hidden=body["hidden"], max_clients=body.get("max_clients"),
                           path_links=plan.route_keys(0) if slice_.mec_node else None)
            db.add(vap)
            db.flush()
            steps = [new_step("create_vap", vap_id=vap.vap_id, agent_id=vap.agent_id)]
            if slice_.mec_node:
                # The slice's one path gets the new vAP as a branch: replaced (there is no branch PATCH).
                steps.append(new_step("replace_path", slice=slice_.id, vap_id=vap.vap_id,
                                      path_id=slice_path_id(slice_), exclude_vap=vap.vap_id))
            return slice_.id, steps

        return self._admit_and_queue(db, slice_.tenant_id, "add_vap", f"add_vap:{slice_.id}", body, idempotency_key,
                                     record)

    def add_vnf(self, db: Session, slice_: Slice, body: dict[str, Any], idempotency_key: str | None = None,
                position: int | None = None) -> tuple[Operation, bool]:
        """Admit one more vNF for an active slice and queue the operation that builds it and re-installs the
        slice's paths through it: at the end of the chain, or at `position` (0 = the head, next to the wired
        path; the vNFs from there on move one place down)."""

        def record() -> tuple[int, list[Step]]:
            if slice_.status != "active":
                raise Conflict(f"slice is {slice_.status}; vNFs can be added to an active slice only")
            self._busy(db, slice_.id)
            tenant = db.get(Tenant, slice_.tenant_id)
            assert tenant is not None
            usage = self.usage(db, tenant.id)
            over = []
            if usage.cpu + body["cpu"] > tenant.quota_cpu:
                would = usage.cpu + body["cpu"]
                over.append(f"tenant quota exceeded: vNF CPU would be {would:g} of {tenant.quota_cpu}")
            if usage.memory_mib + body["memory_mib"] > tenant.quota_memory_mib:
                over.append(f"tenant quota exceeded: vNF memory would be {usage.memory_mib + body['memory_mib']} "
                            f"of {tenant.quota_memory_mib}")
            if over:
                raise Rejected("quota exceeded", over)
            probe = {"bandwidth": slice_.bandwidth, "latency_class": slice_.latency_class,
                     "vaps": [{"agent_id": v.agent_id, "radio": v.radio} for v in slice_.vaps][:0],
                     "vnfs": [body], "mec_node": slice_.mec_node}
            try:
                plan = admit(self.snapshot(db), probe)
            except AdmissionError as exc:
                raise Rejected("vNF does not fit", exc.reasons) from exc
            if slice_.mec_node is None:
                # The slice had no vNFs: its vAPs now need wired paths to the chosen node.
                probe["vaps"] = [{"agent_id": v.agent_id, "radio": v.radio} for v in slice_.vaps]
                probe["vnfs"] = [body]
                try:
                    # The slice's own vAPs are already counted; do not count them twice.
                    plan = admit(self.snapshot(db, exclude_slice=slice_.id), probe)
                except AdmissionError as exc:
                    raise Rejected("vNF does not fit", exc.reasons) from exc
                order = sorted(range(len(slice_.vaps)), key=lambda i: path_vaps(slice_).index(slice_.vaps[i]))
                self._check_joins(db, slice_.tenant_id, slice_.name, plan.mec_node,
                                  [(slice_.vaps[i].agent_id, plan.vap_links[i]) for i in order])
                slice_.mec_node = plan.mec_node
                slice_.path_links = plan.link_keys()
                for i, v in enumerate(slice_.vaps):
                    v.path_links = plan.route_keys(i)
            chain = sorted(slice_.vnfs, key=lambda v: v.chain_position)
            at = len(chain) if position is None else max(0, min(position, len(chain)))
            for k, v in enumerate(chain):
                v.chain_position = k + (k >= at)
            vnf = SliceVnf(slice=slice_, tenant_id=slice_.tenant_id, instance_id=self._next_instance(db, tenant.id),
                           image=body["image"], params=body["params"], cpu=body["cpu"], memory_mib=body["memory_mib"],
                           chain_position=at, node=slice_.mec_node)
            db.add(vnf)
            db.flush()
            steps = [new_step("create_vnf", row=vnf.id, vnf_id=vnf.vnf_id)]
            steps += [new_step("replace_path", slice=slice_.id, vap_id=v.vap_id, path_id=path_id(slice_, v),
                               exclude_row=vnf.id) for v in path_vaps(slice_)[:1]]
            return slice_.id, steps

        key = f"add_vnf:{slice_.id}" + ("" if position is None else f":{position}")
        return self._admit_and_queue(db, slice_.tenant_id, "add_vnf", key, body, idempotency_key, record)

    # --- live change ------------------------------------------------------------------------------------------
    def update_slice(self, db: Session, slice_: Slice, bandwidth: Bandwidth, latency_class: str | None,
                     latency_budget_us: int | None, own: dict[str, Any] | None = None) -> Operation:
        """Re-admit an active slice with new guarantees/caps and/or latency class and budget (the slice's own
        reservation left out, only what grows checked) and queue the update_slice operation that applies them on
        the controllers. `latency_budget_us` is the budget the slice will have (the caller merged class and budget).
        The slice keeps its values until the operation succeeds; meanwhile admission counts the larger of both.
        `own`: the orchestrator's own settings (handover_policy, vnf_follow; nothing to apply), set with the record."""
        with self.admitting(db):
            if slice_.status != "active":
                raise Conflict(f"slice is {slice_.status}; only an active slice can be changed")
            self._busy(db, slice_.id)
            tenant = db.get(Tenant, slice_.tenant_id)
            assert tenant is not None
            old = slice_.bandwidth
            new_class = latency_class if latency_class not in (None, slice_.latency_class) else None
            reasons = []
            want = bandwidth.total_guaranteed_kbps
            if want > old.total_guaranteed_kbps:
                would = self.usage(db, tenant.id, exclude_slice=slice_.id).bandwidth_kbps + want
                if would > tenant.quota_bandwidth_kbps:
                    reasons.append(f"tenant quota exceeded: guaranteed bandwidth (kbps) would be {would} of "
                                   f"{tenant.quota_bandwidth_kbps}")
            snap = self.snapshot(db, exclude_slice=slice_.id)
            vaps = [{"vap_id": v.vap_id, "agent_id": v.agent_id, "radio": v.radio} for v in slice_.vaps]
            routes = [vap_route(snap.topology, slice_, v) if slice_.mec_node else [] for v in slice_.vaps]
            # A new or lower budget is checked against the current paths (a raised one always fits).
            old_budget = slice_.latency_budget_us
            check_budget = latency_budget_us if latency_budget_us is not None and (
                old_budget is None or latency_budget_us < old_budget) else None
            images = [v.image for v in sorted(slice_.vnfs, key=lambda v: v.chain_position)]
            reasons += check_change(snap, vaps, routes, old, bandwidth, new_class, check_budget if slice_.mec_node
                                    else None, images, slice_.mec_node)
            if reasons:
                event(db, "admission", f"tenant {tenant.id} slice {slice_.id} change rejected: {'; '.join(reasons)}",
                      tenant.id, "warn")
                db.commit()
                raise Rejected("slice change does not fit", reasons)
            steps = []
            if bandwidth != old:
                steps += [new_step("update_vap", vap_id=v.vap_id, agent_id=v.agent_id, old=rate_limit(old),
                                   new=rate_limit(bandwidth)) for v in slice_.vaps]
            if new_class and vap_class(slice_, new_class) != vap_class(slice_, slice_.latency_class):
                steps += [new_step("update_vap_class", vap_id=v.vap_id, agent_id=v.agent_id,
                                   old=vap_class(slice_, slice_.latency_class), new=vap_class(slice_, new_class))
                          for v in slice_.vaps]
            if slice_.mec_node and slice_.vaps and (bandwidth != old or new_class):
                # A new class re-installs the path's meters with or without the switches' latency flag.
                classes = ({"old": {"latency_class": slice_.latency_class}, "new": {"latency_class": new_class}}
                           if new_class else {"old": {}, "new": {}})
                steps.append(new_step("update_path", path_id=slice_path_id(slice_),
                                      old=path_rates(old) | classes["old"], new=path_rates(bandwidth) | classes["new"]))
            for key, value in (own or {}).items():
                setattr(slice_, key, value)
            slice_.pending_change = {"bandwidth": bandwidth.to_dict(), "latency_class": latency_class or
                                     slice_.latency_class, "latency_budget_us": latency_budget_us}
            op = Operation(kind="update_slice", tenant_id=slice_.tenant_id, slice_id=slice_.id, steps=steps)
            self.runner.claim(op)
            db.add(op)
            event(db, "slice", f"slice {slice_.id} {slice_.name!r} change admitted: {describe(slice_.pending_change)}"
                               f", handover policy {slice_.handover_policy}; applying", slice_.tenant_id)
            db.commit()
        self.runner.submit(op.id)
        return op

    def set_policies(self, db: Session, slice_: Slice, policies: list[dict[str, Any]]) -> None:
        """Replace a slice's policies. A policy whose vNF is deployed keeps it (and its state) when the same policy
        stays at the same place; anything else starts idle, and a vNF a dropped policy deployed stays in the chain
        until the tenant removes it (an event says so)."""
        with self.admitting(db):
            if slice_.status != "active":
                raise Conflict(f"slice is {slice_.status}; only an active slice's policies can be changed")
            old, states = list(slice_.policies or []), list(slice_.policy_state or [])
            kept = [states[i] if i < len(old) and i < len(states) and old[i] == p else initial_state()
                    for i, p in enumerate(policies)]
            for i, st in enumerate(states):
                if st.get("vnf_id") is not None and (i >= len(policies) or kept[i] is not st):
                    event(db, "policy", f"slice {slice_.id}: policy {i} changed; the vNF {st['vnf_id']} it deployed "
                                        "stays in the chain until removed", slice_.tenant_id, "warn")
            slice_.policies, slice_.policy_state = policies, kept
            event(db, "policy", f"slice {slice_.id} {slice_.name!r}: {len(policies)} policies set", slice_.tenant_id)
            db.commit()

    # --- delete -------------------------------------------------------------------------------------------------
    def delete_slice(self, db: Session, slice_: Slice) -> Operation:
        """Tear a slice down. A failed slice, too: its rollback may have left something on the controllers
        (rollback incomplete), which the deletion's steps remove ("not found" counts as done)."""
        with self.admitting(db):
            if slice_.status == "deleted":
                raise Conflict("slice is already deleted")
            self._busy(db, slice_.id)
            steps = [new_step("delete_path", path_id=slice_path_id(slice_))] if slice_.mec_node and slice_.vaps else []
            steps += [new_step("delete_vnf", vnf_id=v.vnf_id) for v in reversed(slice_.vnfs)]
            steps += [new_step("delete_vap", vap_id=v.vap_id, agent_id=v.agent_id) for v in slice_.vaps]
            slice_.status = "deleting"
            op = Operation(kind="delete_slice", tenant_id=slice_.tenant_id, slice_id=slice_.id, steps=steps)
            self.runner.claim(op)
            db.add(op)
            db.commit()
        self.runner.submit(op.id)
        return op

    def remove_vap(self, db: Session, slice_: Slice, vap: SliceVap) -> Operation:
        with self.admitting(db):
            if slice_.status != "active":
                raise Conflict(f"slice is {slice_.status}")
            self._busy(db, slice_.id)
            steps = []
            rest = slice_path_id(slice_, skip_vap=vap.vap_id)
            if slice_.mec_node and rest is None:
                steps.append(new_step("delete_path", path_id=slice_path_id(slice_)))
            elif slice_.mec_node:
                # The slice's one path loses the vAP's branch (or, for the main vAP, is re-rooted at the next one).
                steps.append(new_step("replace_path", slice=slice_.id, vap_id=vap.vap_id, path_id=rest,
                                      old_path_id=slice_path_id(slice_), without_vap=vap.vap_id))
            steps.append(new_step("delete_vap", vap_id=vap.vap_id, agent_id=vap.agent_id))
            vap.state = "removing"
            op = Operation(kind="remove_vap", tenant_id=slice_.tenant_id, slice_id=slice_.id, steps=steps)
            self.runner.claim(op)
            db.add(op)
            db.commit()
        self.runner.submit(op.id)
        return op

    def remove_vnf(self, db: Session, slice_: Slice, vnf: SliceVnf) -> Operation:
        with self.admitting(db):
            if slice_.status != "active":
                raise Conflict(f"slice is {slice_.status}")
            self._busy(db, slice_.id)
            vnf.state = "removing"
            rest = [v for v in slice_.vnfs if v.id != vnf.id]
            if rest:
                steps = [new_step("replace_path", slice=slice_.id, vap_id=v.vap_id, path_id=path_id(slice_, v),
                                  exclude_row=None, without_row=vnf.id) for v in path_vaps(slice_)[:1]]
            else:
                steps = [new_step("delete_path", path_id=path_id(slice_, v)) for v in path_vaps(slice_)[:1]]
            steps.append(new_step("delete_vnf", vnf_id=vnf.vnf_id, row=vnf.id))
            op = Operation(kind="remove_vnf", tenant_id=slice_.tenant_id, slice_id=slice_.id, steps=steps)
            self.runner.claim(op)
            db.add(op)
            db.commit()
        self.runner.submit(op.id)
        return op

    @staticmethod
    def _check_joins(db: Session, tenant_id: int, name: str, mec_node: str | None,
                     routes: list[tuple[str, Any]]) -> None:
        """Refuse (409) a slice whose vAPs' routes cannot make one path: each must join the main vAP's route."""
        reasons = join_reasons(load_topology(db), mec_node, routes)
        if reasons:
            event(db, "admission", f"tenant {tenant_id} slice {name!r} rejected: {'; '.join(reasons)}", tenant_id,
                  "warn")
            db.commit()
            raise Rejected("slice does not fit", reasons)

    def _observe(self, op: Operation, seconds: float) -> None:
        if self.metrics is not None:
            self.metrics.observe_operation(op.kind, op.status, seconds)
