"""Issue #13 (credentials): every token expires (but the configured bootstrap one) and can be revoked; an expired
or revoked token is a 401 saying which, before any body is parsed; listings never show a secret; a tenant cannot
reach another tenant's token ids (404). The clock is auth.now, moved by the tests (no sleeps)."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from orch_helpers import make_world, slice_body

from wislice_orchestrator import auth
from wislice_orchestrator.models import ApiToken, utcnow


class Clock:
    """Starts at the real time (the world's own tokens were issued by it), to the second; moves when told."""

    def __init__(self) -> None:
        self.start = self.at = utcnow().replace(microsecond=0)

    def __call__(self) -> dt.datetime:
        return self.at

    def advance(self, seconds: float) -> None:
        self.at += dt.timedelta(seconds=seconds)


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    c = Clock()
    monkeypatch.setattr(auth, "now", c)
    return c


def issue(world: Any, path: str, **body: Any) -> dict[str, Any]:
    resp = world.call("POST", path, world.operator, json={"name": "t", **body})
    assert resp.status_code == 201, resp.get_json()
    return resp.get_json()


def assert_401(resp: Any, reason: str | None) -> None:
    assert resp.status_code == 401 and resp.mimetype == "application/problem+json"
    assert resp.headers["WWW-Authenticate"].startswith("Bearer")
    detail = resp.get_json()["detail"]
    if reason:
        assert reason in detail
    else:
        assert "expired" not in detail and "revoked" not in detail
    # Nothing about whose token it was.
    for leak in ("tenant 1", "alpha", "operator token", "name"):
        assert leak not in detail


# --- expiry -----------------------------------------------------------------------------------------------------
def test_tenant_token_expires_after_the_default_lifetime(world, clock):
    tok = issue(world, "/api/v1/tenants/1/tokens")
    assert dt.datetime.fromisoformat(tok["expires_at"]) == (clock.start + dt.timedelta(hours=24)).replace(tzinfo=dt.UTC)
    clock.advance(24 * 3600 - 1)
    assert world.call("GET", "/api/v1/me", tok["token"]).status_code == 200
    clock.advance(1)
    assert_401(world.call("GET", "/api/v1/me", tok["token"]), "expired")


def test_operator_token_expires_too(world, clock):
    tok = issue(world, "/api/v1/operator-tokens", ttl_s=600)
    assert world.call("GET", "/api/v1/events", tok["token"]).status_code == 200
    clock.advance(600)
    assert_401(world.call("GET", "/api/v1/events", tok["token"]), "expired")


def test_lifetime_asked_for_and_the_maximum(tmp_path, clock):
    w = make_world(tmp_path, TOKEN_TTL_S=3600, OPERATOR_TOKEN_TTL_S=1800, TOKEN_MAX_TTL_S=7200)
    try:
        def expires(tok: dict[str, Any]) -> float:
            return (dt.datetime.fromisoformat(tok["expires_at"]).replace(tzinfo=None) - clock.start).total_seconds()

        assert expires(issue(w, "/api/v1/tenants/1/tokens")) == 3600
        assert expires(issue(w, "/api/v1/operator-tokens")) == 1800
        assert expires(issue(w, "/api/v1/tenants/1/tokens", ttl_s=60)) == 60
        assert expires(issue(w, "/api/v1/operator-tokens", ttl_s=7200)) == 7200
        for path in ("/api/v1/tenants/1/tokens", "/api/v1/operator-tokens"):
            refused = w.call("POST", path, w.operator, json={"ttl_s": 7201})
            assert refused.status_code == 422 and "7200" in refused.get_json()["detail"]
            assert w.call("POST", path, w.operator, json={"ttl_s": 59}).status_code == 422
        assert w.call("GET", "/api/v1/operator-tokens", w.operator).get_json()["tokens"][-1]["expires_at"] is not None
    finally:
        w.app.extensions["wislice_engine"].dispose()


# --- revocation -------------------------------------------------------------------------------------------------
def test_tenant_revokes_its_own_token(world, clock):
    tok = issue(world, "/api/v1/tenants/1/tokens")
    assert world.call("GET", "/api/v1/me", tok["token"]).status_code == 200
    resp = world.call("DELETE", f"/api/v1/tenants/1/tokens/{tok['token_id']}", world.tenant_a)
    assert resp.status_code == 204
    assert_401(world.call("GET", "/api/v1/me", tok["token"]), "revoked")
    # Again: still a success, the first revocation's time kept.
    clock.advance(60)
    assert world.call("DELETE", f"/api/v1/tenants/1/tokens/{tok['token_id']}", world.tenant_a).status_code == 204
    listed = world.call("GET", "/api/v1/tenants/1/tokens", world.tenant_a).get_json()["tokens"]
    row = next(t for t in listed if t["token_id"] == tok["token_id"])
    assert row["revoked"] is True
    assert dt.datetime.fromisoformat(row["revoked_at"]) == clock.start.replace(tzinfo=dt.UTC)
    # The tenant's other token still works.
    assert world.call("GET", "/api/v1/me", world.tenant_a).status_code == 200


def test_operator_revokes_a_tenant_token_and_an_operator_token(world, clock):
    tok = issue(world, "/api/v1/tenants/1/tokens")
    assert world.call("DELETE", f"/api/v1/tenants/1/tokens/{tok['token_id']}", world.operator).status_code == 204
    assert_401(world.call("GET", "/api/v1/me", tok["token"]), "revoked")
    op = issue(world, "/api/v1/operator-tokens")
    assert world.call("DELETE", f"/api/v1/operator-tokens/{op['token_id']}", world.operator).status_code == 204
    assert_401(world.call("GET", "/api/v1/me", op["token"]), "revoked")
    events = world.call("GET", "/api/v1/events", world.operator).get_json()["events"]
    assert sum("revoked" in e["message"] for e in events) == 2


def test_a_tenant_cannot_reach_another_tenants_tokens(world):
    """404 whatever the id names, so ids cannot be probed: another tenant's, an operator's, none at all."""
    other = issue(world, "/api/v1/tenants/1/tokens")
    operator = issue(world, "/api/v1/operator-tokens")
    for token_id in (other["token_id"], operator["token_id"], 999_999):
        resp = world.call("DELETE", f"/api/v1/tenants/2/tokens/{token_id}", world.tenant_b)
        assert resp.status_code == 404 and resp.get_json()["detail"] == "token not found"
    assert world.call("DELETE", f"/api/v1/tenants/1/tokens/{other['token_id']}", world.tenant_b).status_code == 404
    assert world.call("GET", "/api/v1/tenants/1/tokens", world.tenant_b).status_code == 404
    # A tenant token id is no operator token either.
    assert world.call("DELETE", f"/api/v1/operator-tokens/{other['token_id']}", world.operator).status_code == 404
    assert world.call("GET", "/api/v1/me", other["token"]).status_code == 200
    assert world.call("GET", "/api/v1/me", operator["token"]).status_code == 200


# --- listing ----------------------------------------------------------------------------------------------------
def test_listing_never_shows_a_secret(world, clock):
    issued = [issue(world, "/api/v1/tenants/1/tokens", name=f"n{i}") for i in range(2)]
    world.call("GET", "/api/v1/me", issued[0]["token"])
    world.call("DELETE", f"/api/v1/tenants/1/tokens/{issued[1]['token_id']}", world.tenant_a)
    secrets = [t["token"] for t in issued] + [world.tenant_a, world.tenant_b, world.operator]
    with world.service.session_factory() as db:
        rows = list(db.query(ApiToken))
    hashes = [row.token_hash for row in rows]
    # At rest: the hash and the role's prefix, no character of the secret's random part.
    assert {row.prefix for row in rows} == {"wso_", "wst_"}
    for who, path in ((world.tenant_a, "/api/v1/tenants/1/tokens"), (world.operator, "/api/v1/tenants/1/tokens"),
                      (world.operator, "/api/v1/operator-tokens")):
        resp = world.call("GET", path, who)
        assert resp.status_code == 200
        text = resp.get_data(as_text=True)
        for secret in secrets:
            assert secret[4:12] not in text  # no part of a secret past its role prefix, not even the stored prefix
        assert not any(h in text for h in hashes)
        for row in resp.get_json()["tokens"]:
            assert set(row) == {"token_id", "role", "tenant_id", "name", "created_at", "expires_at", "revoked",
                                "revoked_at", "last_used_at"}
    listed = world.call("GET", "/api/v1/tenants/1/tokens", world.tenant_a).get_json()["tokens"]
    rows = {t["token_id"]: t for t in listed}
    used, revoked = rows[issued[0]["token_id"]], rows[issued[1]["token_id"]]
    assert used["last_used_at"] is not None and used["revoked"] is False
    assert revoked["last_used_at"] is None and revoked["revoked"] is True
    assert {t["role"] for t in rows.values()} == {"tenant"} and {t["tenant_id"] for t in rows.values()} == {1}


def test_last_used_is_written_at_most_once_a_minute(world, clock):
    tok = issue(world, "/api/v1/tenants/1/tokens")

    def last_used() -> str | None:
        tokens = world.call("GET", "/api/v1/operator-tokens", world.operator)  # not the token watched
        assert tokens.status_code == 200
        listed = world.call("GET", "/api/v1/tenants/1/tokens", world.operator).get_json()["tokens"]
        return next(t["last_used_at"] for t in listed if t["token_id"] == tok["token_id"])

    world.call("GET", "/api/v1/me", tok["token"])
    first = last_used()
    clock.advance(59)
    world.call("GET", "/api/v1/me", tok["token"])
    assert last_used() == first
    clock.advance(1)
    world.call("GET", "/api/v1/me", tok["token"])
    assert last_used() != first


# --- 401 before the body ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("reason", ["expired", "revoked"])
def test_refused_before_the_body_is_parsed(world, clock, reason):
    tok = issue(world, "/api/v1/tenants/1/tokens", ttl_s=60)
    if reason == "expired":
        clock.advance(60)
    else:
        world.call("DELETE", f"/api/v1/tenants/1/tokens/{tok['token_id']}", world.operator)
    # A body the schema would refuse (422 listing its fields) and one that is not even JSON the API takes (400).
    bad = world.call("POST", "/api/v1/tenants/1/slices", tok["token"], json={"bogus": 1})
    assert_401(bad, reason)
    assert "errors" not in bad.get_json()
    unreadable = world.call("POST", "/api/v1/tenants/1/slices", tok["token"], data="[NaN",
                            content_type="application/json")
    assert_401(unreadable, reason)
    assert world.call("POST", "/api/v1/tenants/1/slices", tok["token"], json=slice_body()).status_code == 401


def test_unknown_token_says_neither_expired_nor_revoked(world):
    assert_401(world.call("GET", "/api/v1/me", "wst_" + "x" * 43), None)
    assert_401(world.call("GET", "/api/v1/me"), None)


def test_revoked_wins_over_expired(world, clock):
    tok = issue(world, "/api/v1/tenants/1/tokens", ttl_s=60)
    world.call("DELETE", f"/api/v1/tenants/1/tokens/{tok['token_id']}", world.tenant_a)
    clock.advance(3600)
    assert_401(world.call("GET", "/api/v1/me", tok["token"]), "revoked")


def test_metrics_refuse_an_expired_operator_token(world, clock):
    tok = issue(world, "/api/v1/operator-tokens", ttl_s=60)
    assert world.call("GET", "/metrics", tok["token"]).status_code == 200
    clock.advance(60)
    assert_401(world.call("GET", "/metrics", tok["token"]), "expired")
