"""Bearer tokens: issued with a lifetime (operators), listed without their secret, revoked by id.

A tenant lists and revokes its own tokens; operators any. A token id that is not the tenant's is a 404 whatever
it names (another tenant's token, an operator's, none), so ids cannot be probed.
"""

from __future__ import annotations

from typing import Any

from flask import abort, current_app
from sqlalchemy import select

from .. import auth
from ..json_body import Blueprint
from ..models import ApiToken
from ..schemas import TokenCreateSchema, TokenListSchema, TokenSchema
from ..service import event
from .common import MAX_ID, db, get_tenant

blp = Blueprint("tokens", __name__, url_prefix="/api/v1",
                description="Bearer tokens: issued with an expiry, listed without their secret, revoked by id")

TENANT_TOKENS = "/tenants/<int(max=65535):tenant_id>/tokens"
OPERATOR_TOKENS = "/operator-tokens"
TOKEN_ID = f"/<int(max={MAX_ID}):token_id>"


def _lifetime(role: str, body: dict[str, Any]) -> int:
    """The lifetime asked for, or the role's default; more than the configured maximum is refused, not cut, so the
    caller knows when its token ends."""
    config = current_app.config
    longest = config["TOKEN_MAX_TTL_S"]
    if "ttl_s" in body:
        if body["ttl_s"] > longest:
            abort(422, f"ttl_s {body['ttl_s']} is longer than the longest lifetime allowed here ({longest} s)")
        return body["ttl_s"]
    return min(config["TOKEN_TTL_S" if role == "tenant" else "OPERATOR_TOKEN_TTL_S"], longest)


def _issued(token: str, row: ApiToken) -> dict[str, Any]:
    """What TokenSchema dumps: the row's fields and the plain token, this once."""
    return {"token": token, "prefix": token[:8], "id": row.id, "role": row.role, "tenant_id": row.tenant_id,
            "name": row.name, "created_at": row.created_at, "expires_at": row.expires_at, "revoked": False,
            "revoked_at": None, "last_used_at": None}


def _listed(tenant_id: int | None) -> dict[str, Any]:
    owner = ApiToken.tenant_id == tenant_id if tenant_id is not None else ApiToken.role == "operator"
    return {"tokens": list(db().scalars(select(ApiToken).where(owner).order_by(ApiToken.id)))}


def _revoke(row: ApiToken | None, tenant_id: int | None) -> None:
    """Revoke the token if it is one of the owner's (a tenant's, or the operators' for None), else 404. Revoking a
    revoked token again is a success that keeps the first time."""
    role = "tenant" if tenant_id is not None else "operator"
    if row is None or row.role != role or row.tenant_id != tenant_id:
        abort(404, "token not found")
    if row.revoked_at is None:
        row.revoked_at = auth.now()
        owner = f"of tenant {tenant_id}" if tenant_id is not None else "(operator)"
        event(db(), "token", f"token {row.id} {row.name!r} {owner} revoked", tenant_id)
    db().commit()


@blp.post(TENANT_TOKENS)
@blp.arguments(TokenCreateSchema)
@blp.response(201, TokenSchema)
def create_tenant_token(body: dict[str, Any], tenant_id: int) -> dict[str, Any]:
    """Issue a token for a tenant (operators). The token is shown in this response only."""
    auth.require_operator()
    get_tenant(tenant_id)
    token, row = auth.issue(db(), "tenant", tenant_id, body["name"], ttl_s=_lifetime("tenant", body))
    db().commit()
    return _issued(token, row)


@blp.get(TENANT_TOKENS)
@blp.response(200, TokenListSchema)
def list_tenant_tokens(tenant_id: int) -> dict[str, Any]:
    """A tenant's tokens, expired and revoked ones included, never their secret (the tenant itself, operators)."""
    auth.require_tenant(tenant_id)
    get_tenant(tenant_id)
    return _listed(tenant_id)


@blp.delete(TENANT_TOKENS + TOKEN_ID)
@blp.response(204)
def revoke_tenant_token(tenant_id: int, token_id: int) -> None:
    """Revoke one of a tenant's tokens (the tenant itself, operators): refused from the next request on."""
    auth.require_tenant(tenant_id)
    _revoke(db().get(ApiToken, token_id), tenant_id)


@blp.post(OPERATOR_TOKENS)
@blp.arguments(TokenCreateSchema)
@blp.response(201, TokenSchema)
def create_operator_token(body: dict[str, Any]) -> dict[str, Any]:
    """Issue another operator token (operators)."""
    auth.require_operator()
    token, row = auth.issue(db(), "operator", None, body["name"], ttl_s=_lifetime("operator", body))
    db().commit()
    return _issued(token, row)


@blp.get(OPERATOR_TOKENS)
@blp.response(200, TokenListSchema)
def list_operator_tokens() -> dict[str, Any]:
    """The operator tokens, the bootstrap one (no expiry) included, never their secret (operators)."""
    auth.require_operator()
    return _listed(None)


@blp.delete(OPERATOR_TOKENS + TOKEN_ID)
@blp.response(204)
def revoke_operator_token(token_id: int) -> None:
    """Revoke an operator token (operators), the bootstrap one too (a new WISLICE_BOOTSTRAP_OPERATOR_TOKEN then
    brings a new one at the next start; the revoked value never comes back)."""
    auth.require_operator()
    _revoke(db().get(ApiToken, token_id), None)
