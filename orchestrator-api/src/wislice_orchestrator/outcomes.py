"""What a finished operation does to the orchestrator's records of its slice (the saga runner's hooks)."""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from .bandwidth import Bandwidth
from .models import Operation, Slice, event
from .vnf_follow import follow_failed, followed


def on_success(db: Session, op: Operation) -> None:
    """A succeeded operation's effect on its slice's records."""
    slice_ = db.get(Slice, op.slice_id) if op.slice_id else None
    if slice_ is None:
        return
    if op.kind == "create_slice":
        slice_.status = "active"
        event(db, "slice", f"slice {slice_.id} {slice_.name!r} is active", slice_.tenant_id)
    elif op.kind == "delete_slice":
        slice_.status = "deleted"
        slice_.path_links = []
        _forget_params(slice_)
        event(db, "slice", f"slice {slice_.id} {slice_.name!r} deleted", slice_.tenant_id)
    elif op.kind == "remove_vap":
        for vap in [v for v in slice_.vaps if v.state == "removing"]:
            db.delete(vap)
        event(db, "slice", f"slice {slice_.id}: vAP removed", slice_.tenant_id)
    elif op.kind == "update_slice":
        change = slice_.pending_change or {}
        pending = slice_.pending_bandwidth
        if pending is not None:
            slice_.bandwidth = pending
        slice_.latency_class = change.get("latency_class") or slice_.latency_class
        if "latency_budget_us" in change:  # changes recorded before budgets existed keep the slice's
            slice_.latency_budget_us = change["latency_budget_us"]
        slice_.pending_change = None
        event(db, "slice", f"slice {slice_.id} {slice_.name!r} changed: {describe(change)}", slice_.tenant_id)
    elif op.kind == "remove_vnf":
        gone = [v for v in slice_.vnfs if v.state == "removing"]
        for vnf in gone:
            db.delete(vnf)
        if len(gone) == len(slice_.vnfs):
            slice_.mec_node = None
            slice_.path_links = []
        event(db, "slice", f"slice {slice_.id}: vNF removed", slice_.tenant_id)
    elif op.kind == "follow_vnf":
        followed(db, op, slice_)
    else:
        event(db, "slice", f"slice {slice_.id}: {op.kind} done", slice_.tenant_id)

def on_failure(db: Session, op: Operation) -> None:
    """A failed operation's effect on its slice's records (its steps are undone or, for deletions, to retry)."""
    slice_ = db.get(Slice, op.slice_id) if op.slice_id else None
    if slice_ is None:
        return
    level = "error"
    if op.kind == "create_slice":
        slice_.status = "failed"
        slice_.status_reason = op.error[:500]
        slice_.path_links = []
        for vap in slice_.vaps:
            vap.sealed_passphrase = None
        _forget_params(slice_)
    elif op.kind == "add_vap":
        new_ids = {s["ref"]["vap_id"] for s in op.steps if s["kind"] == "create_vap"}
        for vap in [v for v in slice_.vaps if v.vap_id in new_ids]:
            db.delete(vap)
    elif op.kind == "add_vnf":
        rows = {s["ref"]["row"] for s in op.steps if s["kind"] == "create_vnf"}
        for vnf in [v for v in slice_.vnfs if v.id in rows]:
            db.delete(vnf)
        if not [v for v in slice_.vnfs if v.id not in rows]:
            slice_.mec_node = None
            slice_.path_links = []
    elif op.kind == "update_slice":
        # The old rates are back on the controllers (undone steps); the slice keeps its values.
        slice_.pending_change = None
        if "rollback incomplete" in op.error:
            slice_.status_reason = f"a change could not be undone everywhere: {op.error}"[:500]
    elif op.kind == "follow_vnf":
        follow_failed(db, op, slice_)
        level = "warn"
    else:
        # A deletion that could not finish: the slice keeps its reservations until a retry succeeds.
        slice_.status_reason = f"{op.kind} incomplete: {op.error}"[:500]
        if op.kind == "delete_slice":
            slice_.status = "deleting"
    event(db, "operation", f"operation {op.id} ({op.kind}) on slice {slice_.id} failed: {op.error}",
          slice_.tenant_id, level)


def _forget_params(slice_: Slice) -> None:
    """A slice that is deleted or failed keeps its vNF rows (the history) without their params, which may hold a
    tenant's secrets and are of no use once the vNFs are gone."""
    for vnf in slice_.vnfs:
        vnf.params = {}


def describe(change: dict[str, Any]) -> str:
    """A pending_change for the event log: its bandwidth, latency class and budget."""
    stored = change.get("bandwidth")
    bandwidth = Bandwidth.from_dict(stored).describe() if stored else "bandwidth unchanged"
    budget = change.get("latency_budget_us")
    return f"{bandwidth}, latency class {change.get('latency_class')}" + (f" ({budget} us)" if budget else "")
