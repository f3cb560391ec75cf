"""Bearer tokens: operator tokens see everything, tenant tokens only their own tenant. Stored as SHA-256 hashes.

Every token has an end (expires_at) but the configured bootstrap operator token (app._bootstrap), and any can be
revoked. A token that is expired or revoked is refused with a 401 saying which (the holder knows the token, so
saying that it existed tells it nothing new), never whose it was.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import logging
import secrets
from dataclasses import dataclass

from flask import abort, g, request
from sqlalchemy import select
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session

from .models import ApiToken, utcnow

PREFIX = {"operator": "wso_", "tenant": "wst_"}
# Lifetime of a token issued without one (tests, scripts calling issue_token); the API and the CLI pass the
# configured lifetimes (config.TOKEN_TTL_S, OPERATOR_TOKEN_TTL_S).
DEFAULT_TTL_S = 24 * 3600
# last_used_at is written at most this often per token: a write on every request would serialize readers on
# SQLite's write lock for a field read by people, to the minute.
LAST_USED_STEP_S = 60
EXPIRED, REVOKED = "expired", "revoked"
DETAIL = {None: "a valid bearer token is required (Authorization: Bearer <token>)",
          EXPIRED: "the bearer token has expired; ask for a new one",
          REVOKED: "the bearer token has been revoked"}
log = logging.getLogger(__name__)


def now() -> dt.datetime:
    """The clock every token decision reads (naive UTC, as the database keeps times); tests replace it."""
    return utcnow()


@dataclass(frozen=True)
class Principal:
    role: str  # operator | tenant
    tenant_id: int | None

    @property
    def is_operator(self) -> bool:
        return self.role == "operator"


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def issue(db: Session, role: str, tenant_id: int | None = None, name: str = "token", plain: str | None = None,
          ttl_s: float | None = DEFAULT_TTL_S) -> tuple[str, ApiToken]:
    """Create a token valid for ttl_s seconds (None: no end, for the bootstrap token only), store its hash, return
    the plain token (the only time it is seen) and its row."""
    if role not in PREFIX:
        raise ValueError(f"unknown role {role}")
    token = plain or PREFIX[role] + secrets.token_urlsafe(32)
    created = now()
    expires = None if ttl_s is None else created + dt.timedelta(seconds=ttl_s)
    # Only the role's prefix is kept in clear: not one character of the random part rests in the database.
    row = ApiToken(token_hash=hash_token(token), prefix=token[:len(PREFIX[role])], role=role, tenant_id=tenant_id,
                   name=name, created_at=created, expires_at=expires)
    db.add(row)
    db.flush()
    return token, row


def issue_token(db: Session, role: str, tenant_id: int | None = None, name: str = "token",
                plain: str | None = None, ttl_s: float | None = DEFAULT_TTL_S) -> str:
    """issue(), returning the plain token only."""
    return issue(db, role, tenant_id, name, plain, ttl_s)[0]


def refusal(row: ApiToken, at: dt.datetime) -> str | None:
    """Why the token is refused at `at` (REVOKED before EXPIRED: a revocation is the deliberate act), or None."""
    if row.revoked_at is not None:
        return REVOKED
    if row.expires_at is not None and row.expires_at <= at:
        return EXPIRED
    return None


def authenticate(db: Session, header: str | None) -> Principal | str | None:
    """The caller the Authorization header names; EXPIRED or REVOKED for a known token that no longer works; None
    for no token or an unknown one. Records its use (last_used_at, at most every LAST_USED_STEP_S)."""
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
    at = now()
    refused = refusal(row, at)
    if refused is not None:
        return refused
    if row.last_used_at is None or (at - row.last_used_at).total_seconds() >= LAST_USED_STEP_S:
        row.last_used_at = at
        try:
            db.commit()  # before the view: the request's own session has nothing else pending yet
        except SQLAlchemyError as exc:  # a busy database must not refuse a valid caller for a bookkeeping field
            db.rollback()
            log.warning("could not record the use of token %s: %s", row.id, exc)
    return Principal(row.role, row.tenant_id)


def unauthorized() -> str:
    """The 401's detail for this request: expired, revoked, or no valid token."""
    return DETAIL[g.get("auth_refusal")]


def current() -> Principal:
    """The caller, or 401."""
    principal = g.get("principal")
    if principal is None:
        abort(401, unauthorized())
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
    found = authenticate(db, request.headers.get("Authorization"))
    g.principal = found if isinstance(found, Principal) else None
    g.auth_refusal = found if isinstance(found, str) else None
