"""Shared by the REST modules: the request's database session, lookups that 404, and record -> JSON."""

from __future__ import annotations

from typing import Any

from flask import abort, current_app, g
from sqlalchemy.orm import Session

from ..models import Operation, Slice, Tenant
from ..service import SliceService

IDEMPOTENCY_HEADER = {"in": "header", "name": "Idempotency-Key", "required": False,
                      "schema": {"type": "string", "minLength": 1, "maxLength": 128},
                      "description": "repeat a create safely: the same key and body return the same operation"}
# Ids in paths are bounded so an absurd number is a 404, never a database overflow.
MAX_ID = 2_147_483_647
STEP_FIELDS = ("kind", "ref", "state", "error", "started_at", "seconds")


def db() -> Session:
    return g.db


def service() -> SliceService:
    return current_app.extensions["wislice"]


def get_tenant(tenant_id: int) -> Tenant:
    tenant = db().get(Tenant, tenant_id)
    if tenant is None:
        abort(404, f"tenant {tenant_id} not found")
    return tenant


def get_slice(tenant_id: int, slice_id: int) -> Slice:
    slice_ = db().get(Slice, slice_id)
    if slice_ is None or slice_.tenant_id != tenant_id or slice_.status == "deleted":
        abort(404, f"slice {slice_id} of tenant {tenant_id} not found")
    return slice_


def operation_json(op: Operation) -> dict[str, Any]:
    steps = op.steps or []
    done = sum(1 for s in steps if s["state"] == "done")
    progress = 1.0 if op.status == "succeeded" else (done / len(steps) if steps else 0.0)
    return {"operation_id": op.id, "kind": op.kind, "tenant_id": op.tenant_id, "slice_id": op.slice_id,
            "status": op.status, "progress": round(progress, 3),
            "steps": [{k: s[k] for k in STEP_FIELDS if s.get(k) is not None} for s in steps],
            "error": op.error, "created_at": op.created_at, "finished_at": op.finished_at}


def tenant_json(t: Tenant, usage: Any) -> dict[str, Any]:
    return {"tenant_id": t.id, "name": t.name, "created_at": t.created_at,
            "quota": {"slices": t.quota_slices, "vaps": t.quota_vaps, "bandwidth_kbps": t.quota_bandwidth_kbps,
                      "cpu": t.quota_cpu, "memory_mib": t.quota_memory_mib},
            "usage": {"slices": usage.slices, "vaps": usage.vaps, "bandwidth_kbps": usage.bandwidth_kbps,
                      "cpu": round(usage.cpu, 3), "memory_mib": usage.memory_mib}}
