"""History retention (history.py): ended operations, events and deleted slices beyond the window or the row limit
are pruned; live slices, their operations and active operations are not."""

from __future__ import annotations

import datetime as dt

import pytest
from orch_helpers import make_world, slice_body
from sqlalchemy import func, select

from wislice_orchestrator import history
from wislice_orchestrator.app import create_app
from wislice_orchestrator.models import Event, Operation, Slice, SliceVap, SliceVnf, utcnow

DAY = dt.timedelta(days=1)


def counts(db) -> dict[str, int]:
    return {m.__name__: db.scalar(select(func.count()).select_from(m)) for m in (Operation, Event, Slice, SliceVap,
                                                                               SliceVnf)}


def test_retention_settings_are_checked(tmp_path):
    assert history.retention_from({"HISTORY_KEEP_S": "3600", "HISTORY_MAX_ROWS": "50"}) == history.Retention(3600,
                                                                                                             50)
    for bad in [dict(keep_s=59.0), dict(keep_s=11 * 365 * 86400.0), dict(max_rows=9)]:
        with pytest.raises(ValueError, match="WISLICE_HISTORY_"):
            history.Retention(**bad)
    with pytest.raises(ValueError, match="WISLICE_HISTORY_MAX_ROWS"):
        create_app({"DATABASE_URL": f"sqlite:///{tmp_path}/x.db", "START_WORKER": False, "TELEMETRY": False,
                    "HISTORY_MAX_ROWS": 1})
    assert not (tmp_path / "x.db").exists()


def test_deleted_slices_and_old_history_go_live_ones_stay(tmp_path):
    w = make_world(tmp_path)
    for name in ("gone", "kept"):
        r = w.call("POST", "/api/v1/tenants/1/slices", w.tenant_a, json=slice_body(name=name))
        assert r.status_code == 202, r.get_json()
    factory = w.service.session_factory
    with factory() as db:
        gone, kept = sorted(db.scalars(select(Slice.id)))
    assert w.call("DELETE", f"/api/v1/tenants/1/slices/{gone}", w.tenant_a).status_code == 202
    with factory() as db:
        before = counts(db)
        assert db.get(Slice, gone).status == "deleted" and db.get(Slice, kept).status == "active"
        assert before["Operation"] == 3 and before["SliceVap"] >= 2
        # Nothing is old yet: a prune now keeps everything.
        assert history.prune(db, history.Retention(), utcnow()) == {"operations": 0, "events": 0, "slices": 0}
        # A month and a day later: the ended operations and every event are beyond the window; the deleted slice
        # then has no operation left and goes with its vAP and vNF rows; the live slice stays.
        gone_now = history.prune(db, history.Retention(), utcnow() + 31 * DAY)
    assert gone_now == {"operations": 3, "events": before["Event"], "slices": 1}
    with factory() as db:
        after = counts(db)
        assert db.get(Slice, gone) is None and db.get(Slice, kept).status == "active"
        assert db.scalars(select(SliceVap.slice_id)).all() == [kept] * (before["SliceVap"] - 1)
        assert set(db.scalars(select(SliceVnf.slice_id))) == {kept}
    assert after["Operation"] == 0 and after["Event"] == 0 and after["Slice"] == 1
    # The live slice still works: it can be deleted (a new operation), and its GET answers.
    assert w.call("GET", f"/api/v1/tenants/1/slices/{kept}", w.tenant_a).status_code == 200
    assert w.call("DELETE", f"/api/v1/tenants/1/slices/{kept}", w.tenant_a).status_code == 202


def test_row_limit_keeps_the_newest_and_never_an_active_operation(tmp_path):
    w = make_world(tmp_path)
    factory = w.service.session_factory
    now = utcnow()
    with factory() as db:
        for i in range(30):
            db.add(Operation(kind="create_slice", tenant_id=1, status="succeeded", finished_at=now))
            db.add(Event(kind="slice", message=f"event {i}"))
        db.add(Operation(kind="create_slice", tenant_id=1, status="running"))
        db.commit()
        history.prune(db, history.Retention(max_rows=10), now)
        ended = list(db.scalars(select(Operation.id).where(Operation.status == "succeeded").order_by(Operation.id)))
        assert len(ended) == 10 and ended[-1] == max(ended)
        assert db.scalar(select(func.count()).select_from(Operation).where(Operation.status == "running")) == 1
        messages = list(db.scalars(select(Event.message).order_by(Event.id)))
        assert len(messages) == 10 and messages[-1] == "event 29"
    # The keeper prunes at most once a minute (runner.prune is what it calls).
    assert w.service.runner.prune() == {"operations": 0, "events": 0, "slices": 0}
