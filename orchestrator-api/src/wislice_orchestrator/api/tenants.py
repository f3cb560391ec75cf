"""Tenants (addTenant, getTenants, removeTenant), their quotas, and who-am-I (tokens: tokens.py)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from flask import abort
from sqlalchemy import delete, select

from .. import auth
from ..auth import Principal
from ..json_body import Blueprint
from ..models import ApiToken, Operation, Quota, Slice, Tenant
from ..saga import ACTIVE_STATES
from ..schemas import (
    TenantCreateSchema,
    TenantListSchema,
    TenantPatchSchema,
    TenantSchema,
    WhoAmISchema,
)
from ..service import event
from .common import MAX_ID, TenantView, db, get_tenant, service, tenant_view

blp = Blueprint("tenants", __name__, url_prefix="/api/v1", description="Tenants and their quotas")


@blp.get("/me")
@blp.response(200, WhoAmISchema)
def whoami() -> Principal:
    """Who the bearer token belongs to."""
    return auth.current()


@blp.get("/tenants")
@blp.response(200, TenantListSchema)
def list_tenants() -> dict[str, Any]:
    """getTenants: every tenant for operators, only itself for a tenant."""
    principal = auth.current()
    query = select(Tenant).order_by(Tenant.id)
    if not principal.is_operator:
        query = query.where(Tenant.id == principal.tenant_id)
    return {"tenants": [tenant_view(t) for t in db().scalars(query)]}


@blp.post("/tenants")
@blp.arguments(TenantCreateSchema)
@blp.response(201, TenantSchema)
def add_tenant(body: dict[str, Any]) -> TenantView:
    """addTenant (operators)."""
    auth.require_operator()
    session = db()
    if session.get(Tenant, body["tenant_id"]) is not None:
        abort(409, f"tenant id {body['tenant_id']} is taken")
    if session.scalar(select(Tenant).where(Tenant.name == body["name"])) is not None:
        abort(409, f"tenant name {body['name']!r} is taken")
    tenant = Tenant(id=body["tenant_id"], name=body["name"], quota=Quota(**body["quota"]))
    session.add(tenant)
    event(session, "tenant", f"tenant {tenant.id} {tenant.name!r} added", tenant.id)
    session.commit()
    return tenant_view(tenant)


@blp.get("/tenants/<int(max=65535):tenant_id>")
@blp.response(200, TenantSchema)
def get_tenant_view(tenant_id: int) -> TenantView:
    """One tenant with its quota and current usage."""
    auth.require_tenant(tenant_id)
    return tenant_view(get_tenant(tenant_id))


@blp.patch("/tenants/<int(max=65535):tenant_id>")
@blp.arguments(TenantPatchSchema)
@blp.response(200, TenantSchema)
def patch_tenant(body: dict[str, Any], tenant_id: int) -> TenantView:
    """Change a tenant's quotas (operators). Existing slices are kept even when above the new quota."""
    auth.require_operator()
    tenant = get_tenant(tenant_id)
    tenant.quota = replace(tenant.quota, **body["quota"])  # the limits given; the others stay
    db().commit()
    return tenant_view(tenant)


@blp.delete("/tenants/<int(max=65535):tenant_id>")
@blp.response(204)
def remove_tenant(tenant_id: int) -> None:
    """removeTenant (operators); refused (409) while the tenant has a slice that is not deleted (failed ones
    included) or an operation in progress. The tenant's slices, operations and tokens go with it: a tenant later
    given the same id starts with none of them (no old operations to see, no Idempotency-Key to replay)."""
    auth.require_operator()
    session = db()
    # Under the admission lock: a slice being admitted for this tenant is either recorded before this check (and
    # refuses the removal) or admitted after it (and finds the tenant gone, 404). Refusing rather than tearing
    # the slices down here: removing a tenant must never take a working service down as a side effect, nor
    # leave on the controllers what a failed slice's incomplete rollback left (deleting that slice cleans it up).
    with service().admitting(session):
        tenant = get_tenant(tenant_id)
        kept = session.execute(select(Slice.id, Slice.status).where(Slice.tenant_id == tenant_id,
                                                                     Slice.status != "deleted")).first()
        if kept is not None:
            abort(409, f"tenant {tenant_id} still has slice {kept.id} ({kept.status}); delete its slices first")
        running = session.scalar(select(Operation.id).where(Operation.tenant_id == tenant_id,
                                                            Operation.status.in_(ACTIVE_STATES)))
        if running is not None:
            abort(409, f"tenant {tenant_id} has operation {running} in progress; retry when it has finished")
        for s in list(tenant.slices):
            for part in list(s.vaps) + list(s.vnfs):
                session.delete(part)
            session.delete(s)
        # The event log (operators only) keeps the tenant's history; these are the tenant's own records.
        session.execute(delete(Operation).where(Operation.tenant_id == tenant_id))
        session.execute(delete(ApiToken).where(ApiToken.tenant_id == tenant_id))
        session.delete(tenant)
        event(session, "tenant", f"tenant {tenant_id} {tenant.name!r} removed", tenant_id)
        session.commit()


__all__ = ["blp", "MAX_ID"]
