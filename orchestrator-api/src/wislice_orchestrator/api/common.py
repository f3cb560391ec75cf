"""Shared by the REST modules: the request's database session, lookups that 404, and what a tenant is shown with.
Responses are the records themselves, dumped by the schema each view declares (schemas/): the schema that documents
a response is the one that writes it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from flask import Flask, abort, current_app, g
from flask_smorest import Api
from sqlalchemy.orm import Session
from werkzeug.routing import BaseConverter, Map

from ..admission import TenantUsage
from ..models import Slice, Tenant
from ..service import SliceService

IDEMPOTENCY_HEADER = {"in": "header", "name": "Idempotency-Key", "required": False,
                      "schema": {"type": "string", "minLength": 1, "maxLength": 128},
                      "description": "repeat a create safely: the same key and body return the same operation"}
# Ids in paths are bounded so an absurd number is a 404, never a database overflow.
MAX_ID = 2_147_483_647


class IdentConverter(BaseConverter):
    """A path segment naming an agent, a radio or a vAP: the schemas' IDENT, at most `maxlength` characters. An
    operator's agent id and radio go into controller URLs, where '.' or '..' would be a step up the path; they
    cannot start with a dot (and the REST client refuses dot segments as well)."""

    def __init__(self, url_map: Map, maxlength: int = 64) -> None:
        super().__init__(url_map)
        self.maxlength = maxlength
        self.regex = f"[A-Za-z0-9_:-][A-Za-z0-9_.:-]{{0,{maxlength - 1}}}"


class MacConverter(BaseConverter):
    """A client's MAC address, aa:bb:cc:dd:ee:ff."""

    regex = "[0-9a-fA-F]{2}(?::[0-9a-fA-F]{2}){5}"


def register_converters(app: Flask, api: Api) -> None:
    """`<ident:...>`, `<ident(maxlength=N):...>` and `<mac:...>` in routes, documented with their patterns; before
    the blueprints are registered."""
    app.url_map.converters.update(ident=IdentConverter, mac=MacConverter)
    api.register_converter(IdentConverter, lambda c: {"type": "string", "minLength": 1, "maxLength": c.maxlength,
                                                      "pattern": f"^{c.regex}$"})
    api.register_converter(MacConverter, lambda c: {"type": "string", "minLength": 17, "maxLength": 17,
                                                    "pattern": f"^{c.regex}$"})


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


@dataclass(frozen=True)
class TenantView:
    """What TenantSchema dumps: the tenant's record, whose attributes it reads through, and its usage, which is
    not a column but the service's count of its live slices."""

    tenant: Tenant
    usage: TenantUsage

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name in ("tenant", "usage"):  # not set yet (copy, pickle): no recursion
            raise AttributeError(name)
        return getattr(self.tenant, name)


def tenant_view(tenant: Tenant) -> TenantView:
    return TenantView(tenant, service().usage(db(), tenant.id))
