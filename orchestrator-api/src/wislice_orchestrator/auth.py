"""Bearer tokens: operator tokens see everything, tenant tokens only their own tenant. Stored as SHA-256 hashes."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass

from flask import abort, g, request
from sqlalchemy import select
from sqlalchemy.orm import Session

from .models import ApiToken

PREFIX = {"operator": "wso_", "tenant": "wst_"}


@dataclass(frozen=True)
class Principal:
    role: str  # operator | tenant
    tenant_id: int | None

    @property
    def is_operator(self) -> bool:
        return self.role == "operator"


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def issue_token(db: Session, role: str, tenant_id: int | None = None, name: str = "token",
                plain: str | None = None) -> str:
    """Create a token, store its hash, return the plain token (the only time it is seen)."""
    if role not in PREFIX:
        raise ValueError(f"unknown role {role}")
    token = plain or PREFIX[role] + secrets.token_urlsafe(32)
    db.add(ApiToken(token_hash=hash_token(token), prefix=token[:8], role=role, tenant_id=tenant_id, name=name))
    db.flush()
    return token


def resolve(db: Session, header: str | None) -> Principal | None:
    if not header or not header.startswith("Bearer "):
        return None
    token = header[len("Bearer "):].strip()
    if not token or len(token) > 256:
        return None
    digest = hash_token(token)
    row = db.scalar(select(ApiToken).where(ApiToken.token_hash == digest))
    # The lookup is by hash; compare again in constant time so equality timing says nothing either.
    if row is None or not hmac.compare_digest(row.token_hash, digest):
        return None
    return Principal(row.role, row.tenant_id)


def current() -> Principal:
    """The caller, or 401."""
    principal = g.get("principal")
    if principal is None:
        abort(401, "a valid bearer token is required (Authorization: Bearer <token>)")
    return principal


def require_operator() -> Principal:
    principal = current()
    if not principal.is_operator:
        abort(403, "this endpoint is for operators")
    return principal


def require_tenant(tenant_id: int) -> Principal:
    """Operators, or the tenant itself. Another tenant gets 404, so it cannot probe which tenants exist."""
    principal = current()
    if not principal.is_operator and principal.tenant_id != tenant_id:
        abort(404, f"tenant {tenant_id} not found")
    return principal


def load_principal(db: Session) -> None:
    g.principal = resolve(db, request.headers.get("Authorization"))
