"""Issue #13 (credentials), continued: migration 0005 of existing tokens, and the bootstrap operator token from the
configuration (no expiry; rotated by a new value and a restart; a revoked value never comes back)."""

from __future__ import annotations

from typing import Any

from fake_controllers import FakeControllers
from orch_helpers import token_migration_round_trip

from wislice_orchestrator import db
from wislice_orchestrator.app import create_app

FIRST, SECOND = "bootstrap-" + "a" * 30, "bootstrap-" + "b" * 30


def test_migration_0005_on_sqlite(tmp_path):
    engine = db.make_engine(f"sqlite:///{tmp_path}/m.db")
    try:
        token_migration_round_trip(engine)
    finally:
        engine.dispose()


def start(tmp_path: Any, bootstrap: str) -> Any:
    return create_app({"DATABASE_URL": f"sqlite:///{tmp_path}/b.db", "START_WORKER": False, "TELEMETRY": False,
                       "TESTING": True, "BOOTSTRAP_OPERATOR_TOKEN": bootstrap}, controllers=FakeControllers())


def me(app: Any, token: str) -> Any:
    return app.test_client().get("/api/v1/me", headers={"Authorization": f"Bearer {token}"})


def stop(app: Any) -> None:
    app.extensions["wislice_engine"].dispose()


def test_bootstrap_token_has_no_expiry_and_rotates(tmp_path):
    app = start(tmp_path, FIRST)
    assert me(app, FIRST).status_code == 200
    listed = app.test_client().get("/api/v1/operator-tokens", headers={"Authorization": f"Bearer {FIRST}"})
    (row,) = listed.get_json()["tokens"]
    assert row["name"] == "bootstrap" and row["expires_at"] is None and row["revoked"] is False
    stop(app)

    app = start(tmp_path, FIRST)  # the same value again: nothing changes
    assert me(app, FIRST).status_code == 200
    stop(app)

    app = start(tmp_path, SECOND)  # a new value rotates it: the old one is revoked
    assert me(app, SECOND).status_code == 200
    old = me(app, FIRST)
    assert old.status_code == 401 and "revoked" in old.get_json()["detail"]
    stop(app)

    app = start(tmp_path, "")  # unset: the stored one stays (it may have been set for the first start only)
    assert me(app, SECOND).status_code == 200
    stop(app)


def test_a_revoked_bootstrap_token_does_not_come_back(tmp_path):
    app = start(tmp_path, FIRST)
    client = app.test_client()
    auth = {"Authorization": f"Bearer {FIRST}"}
    spare = client.post("/api/v1/operator-tokens", json={"name": "spare"}, headers=auth).get_json()
    listed = client.get("/api/v1/operator-tokens", headers=auth).get_json()["tokens"]
    (boot,) = (t for t in listed if t["expires_at"] is None)
    assert client.delete(f"/api/v1/operator-tokens/{boot['token_id']}", headers=auth).status_code == 204
    stop(app)
    app = start(tmp_path, FIRST)
    assert me(app, FIRST).status_code == 401
    assert me(app, spare["token"]).status_code == 200
    stop(app)
