"""The orchestrator on a real PostgreSQL server, started privately for each test (conftest.postgres_url)."""

from __future__ import annotations

import pytest
import sqlalchemy as sa
from fake_controllers import FakeControllers
from orch_helpers import (
    budget_migration_round_trip,
    passphrase_migration_round_trip,
    seed_topology,
    slice_body,
    token_migration_round_trip,
)

from wislice_orchestrator import auth, db
from wislice_orchestrator.app import create_app
from wislice_orchestrator.models import Operation, Slice, Tenant

pytestmark = pytest.mark.integration


def test_migrations_down_and_up(postgres_url):
    engine = db.make_engine(postgres_url)
    db.upgrade(engine)
    assert "slices" in sa.inspect(engine).get_table_names()
    db.downgrade(engine, "base")
    assert "slices" not in sa.inspect(engine).get_table_names()
    db.upgrade(engine)
    assert {"tenants", "operations", "events"} <= set(sa.inspect(engine).get_table_names())
    engine.dispose()


def test_passphrase_migration_on_postgresql(postgres_url):
    """0006 on PostgreSQL: the column is widened and renamed with rows in it (sealed up, opened down)."""
    engine = db.make_engine(postgres_url)
    try:
        passphrase_migration_round_trip(engine)
    finally:
        engine.dispose()


def test_budget_migration_on_postgresql(postgres_url):
    engine = db.make_engine(postgres_url)
    try:
        budget_migration_round_trip(engine)
    finally:
        engine.dispose()


def test_token_migration_on_postgresql(postgres_url):
    engine = db.make_engine(postgres_url)
    try:
        token_migration_round_trip(engine)
    finally:
        engine.dispose()


def test_slice_lifecycle_and_recovery_on_postgresql(postgres_url, tmp_path):
    fake = FakeControllers()
    # Not a SQLite file: the passphrase key file must be named (at_rest.key_path).
    app = create_app({"DATABASE_URL": postgres_url, "START_WORKER": False, "TELEMETRY": False,
                      "PASSPHRASE_KEY_FILE": str(tmp_path / "passphrase.key")}, controllers=fake)
    seed_topology(app, fake)
    service = app.extensions["wislice"]
    with service.session_factory() as s:
        s.add(Tenant(id=1, name="alpha"))
        s.flush()
        token = auth.issue_token(s, "tenant", 1)
        s.commit()
    client = app.test_client()
    headers = {"Authorization": f"Bearer {token}", "Idempotency-Key": "pg-1"}
    resp = client.post("/api/v1/tenants/1/slices", json=slice_body(), headers=headers)
    assert resp.status_code == 202
    again = client.post("/api/v1/tenants/1/slices", json=slice_body(), headers=headers)
    assert again.get_json()["operation_id"] == resp.get_json()["operation_id"]
    op = client.get(resp.headers["Location"], headers=headers).get_json()
    assert op["status"] == "succeeded"

    # A failing step rolls back on PostgreSQL too.
    fake.fail_on("create_path", 1)
    resp = client.post("/api/v1/tenants/1/slices", json=slice_body(name="second", agent="ap-2"),
                       headers={"Authorization": f"Bearer {token}"})
    assert client.get(resp.headers["Location"], headers=headers).get_json()["status"] == "failed"
    assert len(fake.resources()["vaps"]) == 1

    # An interrupted operation left in the journal is rolled back by the next process.
    with service.session_factory() as s:
        s.add(Operation(kind="create_slice", tenant_id=1, slice_id=None, status="running",
                        steps=[{"kind": "create_vnf", "ref": {"row": 0, "vnf_id": 77}, "state": "started"}]))
        s.commit()
    fake.create_vnf({"tenant_id": 0, "instance_id": 77, "image": "kernel-fwd", "params": {}, "cpu": 0.1,
                     "memory_mib": 1, "chain_position": 0})
    app.extensions["wislice_engine"].dispose()
    app2 = create_app({"DATABASE_URL": postgres_url, "START_WORKER": False, "TELEMETRY": False,
                       "PASSPHRASE_KEY_FILE": str(tmp_path / "passphrase.key")}, controllers=fake)
    app2.extensions["wislice"].runner.recover()
    assert 77 not in fake.resources()["vnfs"]
    with app2.extensions["wislice"].session_factory() as s:
        statuses = sorted(o.status for o in s.scalars(sa.select(Operation)))
        assert statuses == ["failed", "failed", "succeeded"]
        assert s.scalar(sa.select(sa.func.count()).select_from(Slice)) == 2
    app2.extensions["wislice_engine"].dispose()
