"""Tenants (addTenant, getTenants, removeTenant), their quotas and tokens, and who-am-I."""

from __future__ import annotations

from typing import Any

from flask import abort
from flask_smorest import Blueprint
from sqlalchemy import select

from .. import auth
from ..models import Slice, Tenant
from ..schemas import (
    TenantCreateSchema,
    TenantListSchema,
    TenantPatchSchema,
    TenantSchema,
    TokenCreateSchema,
    TokenSchema,
    WhoAmISchema,
)
from ..service import LIVE, event
from .common import MAX_ID, db, get_tenant, service, tenant_json

blp = Blueprint("tenants", __name__, url_prefix="/api/v1", description="Tenants, quotas and tokens")


@blp.get("/me")
@blp.response(200, WhoAmISchema)
def whoami() -> dict[str, Any]:
    """Who the bearer token belongs to."""
    principal = auth.current()
    return {"role": principal.role, "tenant_id": principal.tenant_id}


@blp.get("/tenants")
@blp.response(200, TenantListSchema)
def list_tenants() -> dict[str, Any]:
    """getTenants: every tenant for operators, only itself for a tenant."""
    principal = auth.current()
    query = select(Tenant).order_by(Tenant.id)
    if not principal.is_operator:
        query = query.where(Tenant.id == principal.tenant_id)
    return {"tenants": [tenant_json(t, service().usage(db(), t.id)) for t in db().scalars(query)]}


@blp.post("/tenants")
@blp.arguments(TenantCreateSchema)
@blp.response(201, TenantSchema)
def add_tenant(body: dict[str, Any]) -> dict[str, Any]:
    """addTenant (operators)."""
    auth.require_operator()
    session = db()
    if session.get(Tenant, body["tenant_id"]) is not None:
        abort(409, f"tenant id {body['tenant_id']} is taken")
    if session.scalar(select(Tenant).where(Tenant.name == body["name"])) is not None:
        abort(409, f"tenant name {body['name']!r} is taken")
    q = body["quota"]
    tenant = Tenant(id=body["tenant_id"], name=body["name"], quota_slices=q["slices"], quota_vaps=q["vaps"],
                    quota_bandwidth_kbps=q["bandwidth_kbps"], quota_cpu=q["cpu"], quota_memory_mib=q["memory_mib"])
    session.add(tenant)
    event(session, "tenant", f"tenant {tenant.id} {tenant.name!r} added", tenant.id)
    session.commit()
    return tenant_json(tenant, service().usage(session, tenant.id))


@blp.get("/tenants/<int(max=65535):tenant_id>")
@blp.response(200, TenantSchema)
def get_tenant_view(tenant_id: int) -> dict[str, Any]:
    """One tenant with its quota and current usage."""
    auth.require_tenant(tenant_id)
    return tenant_json(get_tenant(tenant_id), service().usage(db(), tenant_id))


@blp.patch("/tenants/<int(max=65535):tenant_id>")
@blp.arguments(TenantPatchSchema)
@blp.response(200, TenantSchema)
def patch_tenant(body: dict[str, Any], tenant_id: int) -> dict[str, Any]:
    """Change a tenant's quotas (operators). Existing slices are kept even when above the new quota."""
    auth.require_operator()
    tenant = get_tenant(tenant_id)
    names = {"slices": "quota_slices", "vaps": "quota_vaps", "bandwidth_kbps": "quota_bandwidth_kbps",
             "cpu": "quota_cpu", "memory_mib": "quota_memory_mib"}
    for key, value in body["quota"].items():
        setattr(tenant, names[key], value)
    db().commit()
    return tenant_json(tenant, service().usage(db(), tenant_id))


@blp.delete("/tenants/<int(max=65535):tenant_id>")
@blp.response(204)
def remove_tenant(tenant_id: int) -> None:
    """removeTenant (operators); refused while the tenant has slices that are not deleted."""
    auth.require_operator()
    session = db()
    tenant = get_tenant(tenant_id)
    live = session.scalar(select(Slice.id).where(Slice.tenant_id == tenant_id, Slice.status.in_(LIVE)))
    if live is not None:
        abort(409, f"tenant {tenant_id} still has slice {live}; delete its slices first")
    for s in list(tenant.slices):
        for part in list(s.vaps) + list(s.vnfs):
            session.delete(part)
        session.delete(s)
    session.delete(tenant)
    event(session, "tenant", f"tenant {tenant_id} removed", tenant_id)
    session.commit()


@blp.post("/tenants/<int(max=65535):tenant_id>/tokens")
@blp.arguments(TokenCreateSchema)
@blp.response(201, TokenSchema)
def create_tenant_token(body: dict[str, Any], tenant_id: int) -> dict[str, Any]:
    """Issue a token for a tenant (operators). The token is shown in this response only."""
    auth.require_operator()
    get_tenant(tenant_id)
    token = auth.issue_token(db(), "tenant", tenant_id, body["name"])
    db().commit()
    return {"token": token, "prefix": token[:8], "role": "tenant", "tenant_id": tenant_id, "name": body["name"]}


@blp.post("/operator-tokens")
@blp.arguments(TokenCreateSchema)
@blp.response(201, TokenSchema)
def create_operator_token(body: dict[str, Any]) -> dict[str, Any]:
    """Issue another operator token (operators)."""
    auth.require_operator()
    token = auth.issue_token(db(), "operator", None, body["name"])
    db().commit()
    return {"token": token, "prefix": token[:8], "role": "operator", "tenant_id": None, "name": body["name"]}


__all__ = ["blp", "MAX_ID"]
