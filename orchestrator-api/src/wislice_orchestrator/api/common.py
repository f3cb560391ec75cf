"""Shared by the REST modules: the request's database session, lookups that 404, and record -> JSON."""

from __future__ import annotations

from typing import Any

from flask import abort, current_app, g
from sqlalchemy.orm import Session

from ..models import Operation, Slice, SliceVap, SliceVnf, Tenant
from ..service import SliceService
from ..slice_qos import bandwidth_of

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


def vnf_address(vnf: SliceVnf) -> str:
    vid = vnf.vnf_id
    return ".".join(str(vid >> shift & 0xFF) for shift in (24, 16, 8, 0))


def vap_json(vap: SliceVap) -> dict[str, Any]:
    return {"vap_id": vap.vap_id, "agent_id": vap.agent_id, "radio": vap.radio, "ssid": vap.ssid,
            "security_mode": vap.security_mode, "hidden": vap.hidden, "max_clients": vap.max_clients,
            "state": vap.state, "pof_port": vap.pof_port}


def vnf_json(vnf: SliceVnf) -> dict[str, Any]:
    return {"vnf_id": vnf.vnf_id, "address": vnf_address(vnf), "instance_id": vnf.instance_id, "image": vnf.image,
            "params": vnf.params, "cpu": vnf.cpu, "memory_mib": vnf.memory_mib,
            "chain_position": vnf.chain_position, "node": vnf.node, "state": vnf.state}


def slice_json(s: Slice) -> dict[str, Any]:
    return {"slice_id": s.id, "tenant_id": s.tenant_id, "name": s.name, "status": s.status,
            "status_reason": s.status_reason, "latency_class": s.latency_class, "mec_node": s.mec_node, "tag": s.tag,
            "bandwidth": bandwidth_of(s),
            "pending_change": s.pending_change,
            "vaps": [vap_json(v) for v in s.vaps], "vnfs": [vnf_json(v) for v in s.vnfs],
            "policies": s.policies or [], "policy_state": s.policy_state or [], "created_at": s.created_at}


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
