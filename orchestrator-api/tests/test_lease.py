"""Operation leases (lease.py): the arithmetic and its conditions, and a takeover of a crashed or stalled runner's
operation by another instance on the same database, over the fake controllers."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from orch_helpers import UNIT_INSTANCE, make_world, slice_body

from wislice_orchestrator import lease
from wislice_orchestrator.app import create_app
from wislice_orchestrator.lease import LeaseTerms
from wislice_orchestrator.models import Event, Operation, Slice, utcnow

EMPTY = {"vaps": [], "vnfs": [], "paths": []}
T0 = dt.datetime(2026, 11, 27, 12, 0, 0)
S = dt.timedelta(seconds=1)


def test_terms_arithmetic_and_validation():
    terms = LeaseTerms("orch-a", 30.0, 10.0)
    assert terms.expiry(T0) == T0 + 30 * S
    assert LeaseTerms("a", 2.0, 1.0).expiry(T0) == T0 + 2 * S  # exactly twice the renew interval is allowed
    for bad in [dict(owner=""), dict(owner="-a"), dict(owner="a b"), dict(owner="a" * 65),
                dict(owner="a", renew_s=0.0), dict(owner="a", renew_s=-1.0),
                dict(owner="a", duration_s=19.9, renew_s=10.0), dict(owner="a", duration_s=3601.0)]:
        with pytest.raises(ValueError, match="WISLICE_"):
            LeaseTerms(**bad)
    shared = {"INSTANCE_ID": "", "LEASE_S": 30, "LEASE_RENEW_S": 10, "DATABASE_URL": "postgresql://db/wislice"}
    generated = {lease.terms_from(shared).owner for _ in range(5)}
    assert len(generated) == 5 and all(lease.INSTANCE_ID.fullmatch(g) for g in generated)
    # SQLite serves one instance: the same id after a restart, so it resumes its own operations at once.
    local = {**shared, "DATABASE_URL": "sqlite:////var/lib/wislice/o.db"}
    assert {lease.terms_from(local).owner for _ in range(3)} == {lease.SQLITE_INSTANCE_ID}
    assert lease.terms_from({"INSTANCE_ID": "orch-b", "LEASE_S": "4", "LEASE_RENEW_S": "1"}) == LeaseTerms("orch-b",
                                                                                                           4.0, 1.0)


def test_bad_lease_settings_stop_the_start(tmp_path):
    with pytest.raises(ValueError, match="WISLICE_LEASE_S"):
        create_app({"DATABASE_URL": f"sqlite:///{tmp_path}/x.db", "START_WORKER": False, "TELEMETRY": False,
                    "LEASE_S": 5.0, "LEASE_RENEW_S": 5.0})
    assert not (tmp_path / "x.db").exists()  # refused before the database was touched


def test_take_and_renew_conditions(tmp_path):
    w = make_world(tmp_path)
    a, b = LeaseTerms("orch-a", 30.0, 10.0), LeaseTerms("orch-b", 30.0, 10.0)
    with w.service.session_factory() as db:
        op = Operation(kind="create_slice", tenant_id=1, status="running", steps=[])
        lease.claim(op, a, T0)
        done = Operation(kind="create_slice", tenant_id=1, status="succeeded", steps=[])
        lease.claim(done, a, T0 - 3600 * S)  # long expired, but finished: nothing to take over
        orphan = Operation(kind="delete_slice", tenant_id=1, status="pending", steps=[])  # from before leases
        db.add_all([op, done, orphan])
        db.commit()
        assert not lease.take(db, b, op.id, T0 + 29 * S)
        assert not lease.take(db, b, op.id, T0 + 30 * S)  # a lease lasts its whole duration
        assert not lease.take(db, b, op.id, T0 + 29 * S, own=True)  # own= covers b's own leases only
        assert lease.renew(db, a, op.id, T0 + 20 * S)  # a renews: now good until T0 + 50 s
        assert not lease.take(db, b, op.id, T0 + 45 * S)
        assert lease.take(db, b, op.id, T0 + 51 * S)
        db.commit()
        assert not lease.renew(db, a, op.id, T0 + 52 * S)  # a stalled past its lease: it cannot renew it back
        assert not lease.take(db, a, op.id, T0 + 52 * S, own=True)
        assert lease.renew(db, b, op.id, T0 + 52 * S)
        assert not lease.take(db, b, done.id, T0)
        assert lease.take(db, b, orphan.id, T0, own=False)
        db.commit()
        db.expire_all()
        assert (op.lease_owner, op.lease_expires_at) == ("orch-b", T0 + 82 * S)
        assert (orphan.lease_owner, done.lease_owner) == ("orch-b", "orch-a")


class Crash(BaseException):
    """Stands for the process dying: not an Exception, so the saga cannot handle it."""


def second_instance(tmp_path, fake, instance="unit-b"):
    """Another orchestrator instance on the first one's database and controllers (no worker: runs in the caller)."""
    app = create_app({"DATABASE_URL": f"sqlite:///{tmp_path}/test.db", "START_WORKER": False, "TELEMETRY": False,
                      "INSTANCE_ID": instance, "LEASE_S": 30.0, "LEASE_RENEW_S": 10.0}, controllers=fake)
    return app.extensions["wislice"].runner


def test_expired_lease_is_taken_over_and_rolled_back(tmp_path):
    w = make_world(tmp_path)

    def crash(op, step):
        if step["kind"] == "create_path":
            raise Crash()

    w.service.runner.step_hook = crash
    with pytest.raises(Crash):
        w.call("POST", "/api/v1/tenants/1/slices", w.tenant_a, json=slice_body())
    assert len(w.fake.resources()["vaps"]) == 1 and len(w.fake.resources()["vnfs"]) == 1
    b = second_instance(tmp_path, w.fake)
    assert b.recover() == [] and b.recover(own=False) == []  # the lease runs: its runner may still be alive
    b.clock = lambda: utcnow() + 31 * S
    [op_id] = b.recover(own=False)
    assert b.recover(own=False) == []  # finished: nothing left to take
    with b.session_factory() as db:
        op = db.get(Operation, op_id)
        assert op.status == "failed" and op.lease_owner == "unit-b"
        assert f"orchestrator instance {UNIT_INSTANCE}" in op.error
        assert db.get(Slice, op.slice_id).status == "failed"
        assert any("instance unit-b is rolling back" in e.message for e in db.query(Event).filter_by(kind="recovery"))
    assert w.fake.resources() == EMPTY
    # Had the first instance still held the operation in its queue, its keeper would find the lease gone.
    w.service.runner.mine.add(op_id)
    assert w.service.runner.renew() == [op_id]


def test_expired_delete_is_taken_over_and_finished(tmp_path):
    w = make_world(tmp_path)
    created = w.call("POST", "/api/v1/tenants/1/slices", w.tenant_a, json=slice_body()).get_json()
    assert w.fake.resources()["paths"]
    seen = []

    def crash(op, step):
        seen.append(step)
        if len(seen) == 2:  # the path is gone, the vNF deletion started
            raise Crash()

    w.service.runner.step_hook = crash
    with pytest.raises(Crash):
        w.call("DELETE", f"/api/v1/tenants/1/slices/{created['slice_id']}", w.tenant_a)
    b = second_instance(tmp_path, w.fake)
    b.clock = lambda: utcnow() + 31 * S
    [op_id] = b.recover(own=False)
    with b.session_factory() as db:
        assert db.get(Operation, op_id).status == "succeeded"
        assert db.get(Slice, created["slice_id"]).status == "deleted"
    assert w.fake.resources() == EMPTY


def test_stalled_runner_loses_its_operation_and_stops(tmp_path):
    """The runner stalls (not dead) past its lease; another instance takes the operation over and rolls it back;
    when the first resumes it makes no controller call and writes nothing more."""
    w = make_world(tmp_path)
    b = second_instance(tmp_path, w.fake)
    b.clock = lambda: utcnow() + 31 * S

    def stall(op, step):
        if step["kind"] == "create_path":
            assert b.recover(own=False) == [op.id]  # meanwhile, on the other instance

    w.service.runner.step_hook = stall
    resp = w.call("POST", "/api/v1/tenants/1/slices", w.tenant_a, json=slice_body())
    assert resp.status_code == 202
    op = w.call("GET", resp.headers["Location"], w.tenant_a).get_json()
    assert op["status"] == "failed" and [s["state"] for s in op["steps"]] == ["undone"] * 3
    assert "create_path" not in w.fake.calls
    assert w.fake.resources() == EMPTY
    assert w.service.runner.mine == set()
    assert re.search(r"unit-a .*lease expired", op["error"])
