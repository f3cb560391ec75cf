"""Issue #13 (found by the probe): a tenant's lifetime. Deleting a tenant races nothing (it is refused, 409, while
the tenant has slices or operations in progress, and a slice create never meets a half-deleted tenant), and a
tenant id reused after deletion starts clean: no operations, no Idempotency-Keys, no record ids of the old tenant."""

from __future__ import annotations

import threading
from typing import Any

import sqlalchemy as sa
from orch_helpers import insert_slice_row, slice_body
from sqlalchemy.exc import IntegrityError

from wislice_orchestrator import service as service_module
from wislice_orchestrator.models import Operation, Slice, Tenant


def _in_thread(call: Any) -> tuple[threading.Thread, dict[str, Any]]:
    out: dict[str, Any] = {}
    thread = threading.Thread(target=lambda: out.__setitem__("resp", call()))
    thread.start()
    return thread, out


def test_deleting_a_tenant_while_it_creates_a_slice_is_refused(world, monkeypatch):
    """The delete arrives while the create is being admitted: it waits for admission, then sees the slice."""
    svc = world.service
    snapshot = svc.snapshot
    pending: list[Any] = []

    def snapshot_then_delete(db: Any, exclude_slice: int | None = None) -> Any:
        if not pending:
            pending.append(_in_thread(lambda: world.call("DELETE", "/api/v1/tenants/1", world.operator)))
            pending[0][0].join(timeout=1.0)  # today's code finishes the delete here, under the create's feet
        return snapshot(db, exclude_slice)

    monkeypatch.setattr(svc, "snapshot", snapshot_then_delete)
    created = world.call("POST", "/api/v1/tenants/1/slices", world.tenant_a, json=slice_body())
    thread, out = pending[0]
    thread.join(timeout=20)
    assert created.status_code == 202, created.get_data(as_text=True)
    deleted = out["resp"]
    assert deleted.status_code == 409 and deleted.mimetype == "application/problem+json"
    assert "slice" in deleted.get_json()["detail"]
    assert world.call("GET", "/api/v1/tenants/1", world.operator).status_code == 200


def test_a_create_that_meets_a_deleted_tenant_is_404(world, monkeypatch):
    """The delete lands between the create's tenant lookup and its admission: the create must not insert a slice
    for a tenant that is gone."""
    request_hash = service_module.request_hash
    done: list[Any] = []

    def delete_first(box: Any, kind: str, body: Any) -> str:
        if not done:
            thread, out = _in_thread(lambda: world.call("DELETE", "/api/v1/tenants/1", world.operator))
            thread.join(timeout=20)
            done.append(out["resp"])
        return request_hash(box, kind, body)

    monkeypatch.setattr(service_module, "request_hash", delete_first)
    created = world.call("POST", "/api/v1/tenants/1/slices", world.tenant_a, json=slice_body())
    assert done[0].status_code == 204
    assert created.status_code == 404 and created.mimetype == "application/problem+json", created.get_json()
    with world.service.session_factory() as db:
        assert db.scalar(sa.select(sa.func.count()).select_from(Slice)) == 0


def test_deleting_a_tenant_with_an_operation_in_progress_is_refused(world):
    with world.service.session_factory() as db:
        db.add(Operation(kind="delete_slice", tenant_id=1, slice_id=None, status="pending", steps=[]))
        db.commit()
    resp = world.call("DELETE", "/api/v1/tenants/1", world.operator)
    assert resp.status_code == 409 and "operation" in resp.get_json()["detail"]


def test_an_integrity_error_is_a_409_problem(world, monkeypatch):
    """The database's own refusal of a concurrent change (a backstop behind the checks above) is a 409, not a 500."""

    def clash(*_args: Any, **_kwargs: Any) -> Any:
        raise IntegrityError("INSERT INTO slices ...", {}, Exception("FOREIGN KEY constraint failed"))

    monkeypatch.setattr(world.service, "usage", clash)
    resp = world.call("GET", "/api/v1/tenants/1", world.operator)
    assert resp.status_code == 409 and resp.mimetype == "application/problem+json"
    assert "INSERT" not in resp.get_data(as_text=True)  # no SQL in the answer


def _tenant(world: Any, tenant_id: int, name: str) -> str:
    assert world.call("POST", "/api/v1/tenants", world.operator,
                      json={"tenant_id": tenant_id, "name": name}).status_code == 201
    return world.call("POST", f"/api/v1/tenants/{tenant_id}/tokens", world.operator,
                      json={"name": "t"}).get_json()["token"]


def test_a_reused_tenant_id_starts_clean(world):
    old = _tenant(world, 5, "old-owner")
    key = {"Idempotency-Key": "create-video"}
    body = slice_body(agent="ap-2")
    first = world.call("POST", "/api/v1/tenants/5/slices", old, json=body, headers=key).get_json()
    gone = world.call("DELETE", f"/api/v1/tenants/5/slices/{first['slice_id']}", old).get_json()
    assert world.call("GET", f"/api/v1/operations/{gone['operation_id']}", old).get_json()["status"] == "succeeded"
    assert world.call("DELETE", "/api/v1/tenants/5", world.operator).status_code == 204
    assert world.call("GET", "/api/v1/me", old).status_code == 401  # its tokens went with it

    new = _tenant(world, 5, "new-owner")
    assert world.call("GET", "/api/v1/operations", new).get_json()["operations"] == []
    for op in (first, gone):
        assert world.call("GET", f"/api/v1/operations/{op['operation_id']}", new).status_code == 404
    # The same key and body is a new request of the new tenant, not a replay of the old tenant's operation...
    again = world.call("POST", "/api/v1/tenants/5/slices", new, json=body, headers=key)
    assert again.status_code == 202
    assert again.get_json()["operation_id"] not in (first["operation_id"], gone["operation_id"])
    # ... and its records get ids the old tenant's never had (no id names two records over time).
    assert again.get_json()["slice_id"] != first["slice_id"]
    with world.service.session_factory() as db:
        assert db.get(Tenant, 5).name == "new-owner"
        assert [o.id for o in db.scalars(sa.select(Operation).where(Operation.tenant_id == 5))] == \
            [again.get_json()["operation_id"]]


def test_slice_and_operation_ids_are_never_reused_on_sqlite(world):
    with world.service.session_factory() as db:
        ddl = dict(db.execute(sa.text("SELECT name, sql FROM sqlite_master WHERE type = 'table'")).all())
    for table in ("slices", "operations"):
        assert "AUTOINCREMENT" in ddl[table], ddl[table]


def test_the_migration_keeps_existing_rows_and_foreign_keys(tmp_path):
    from wislice_orchestrator import db as db_module

    engine = db_module.make_engine(f"sqlite:///{tmp_path}/old.db")
    try:
        db_module.upgrade(engine, "0003")
        with engine.begin() as conn:
            insert_slice_row(conn, 7, "low", "active", "2024-01-01 00:00:00")
            conn.execute(sa.text("INSERT INTO slice_vaps (slice_id, vap_id, agent_id, radio, ssid, security_mode, "
                                 "hidden, state) VALUES (7, 't1s7v1', 'ap-1', 'phy0', 'x', 'open', 0, 'up')"))
        db_module.upgrade(engine)
        with engine.begin() as conn:
            assert conn.execute(sa.text("SELECT vap_id FROM slice_vaps WHERE slice_id = 7")).scalar() == "t1s7v1"
            assert conn.execute(sa.text("PRAGMA foreign_keys")).scalar() == 1
            assert conn.execute(sa.text("PRAGMA foreign_key_check")).all() == []
            conn.execute(sa.text("DELETE FROM slice_vaps"))
            conn.execute(sa.text("DELETE FROM slices"))
        with db_module.make_session_factory(engine)() as session:
            new = Slice(tenant_id=1, name="n")
            session.add(new)
            session.commit()
            assert new.id == 8  # 7 was given out once: never again
        db_module.downgrade(engine, "0003")
        with engine.connect() as conn:
            ddl = conn.execute(sa.text("SELECT sql FROM sqlite_master WHERE name = 'slices'")).scalar()
            assert "AUTOINCREMENT" not in ddl
            assert conn.execute(sa.text("SELECT count(*) FROM slices")).scalar() == 1
    finally:
        engine.dispose()
