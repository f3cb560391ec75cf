"""Two orchestrator instances (two apps, each with its saga worker and lease keeper) on one real PostgreSQL and one
set of fake controllers (standing for the shared ONOS): concurrent requests for the same slice run once, any
instance answers, and a runner that dies mid-saga has its operation taken over and rolled back by the other."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
import sqlalchemy as sa
from fake_controllers import FakeControllers
from orch_helpers import seed_topology, slice_body

from wislice_orchestrator import auth
from wislice_orchestrator.app import create_app
from wislice_orchestrator.models import ACTIVE_STATES, Operation, Slice, Tenant

pytestmark = pytest.mark.integration

EMPTY = {"vaps": [], "vnfs": [], "paths": []}
LEASE = {"LEASE_S": 2.0, "LEASE_RENEW_S": 0.5}  # a takeover within about 2.5 s


@pytest.fixture
def instances(postgres_url, tmp_path):
    """Apps orch-a and orch-b with tenant 1's token; both stopped and disposed at the end, whatever happened."""
    fake = FakeControllers()
    apps: list[Any] = []
    try:
        for name in ("orch-a", "orch-b"):
            apps.append(create_app({"DATABASE_URL": postgres_url, "TELEMETRY": False, "INSTANCE_ID": name,
                                    "PASSPHRASE_KEY_FILE": str(tmp_path / "passphrase.key"), **LEASE},
                                   controllers=fake))
        seed_topology(apps[0], fake)
        with apps[0].extensions["wislice"].session_factory() as s:
            s.add(Tenant(id=1, name="alpha"))
            s.flush()
            token = auth.issue_token(s, "tenant", 1)
            s.commit()
        yield apps, fake, {"Authorization": f"Bearer {token}"}
    finally:
        for app in apps:
            app.extensions["wislice"].runner.stop()
            app.extensions["wislice_rollouts"].stop()
            app.extensions["wislice_engine"].dispose()


def finished(app: Any, location: str, headers: dict[str, str], timeout: float = 15.0) -> dict[str, Any]:
    """The operation once it has ended, read through `app`'s API (any instance answers from the database)."""
    deadline = time.monotonic() + timeout
    while True:
        op = app.test_client().get(location, headers=headers).get_json()
        if op["status"] not in ACTIVE_STATES:
            return op
        assert time.monotonic() < deadline, op
        time.sleep(0.1)


def both(apps: list[Any], call: Any) -> list[Any]:
    """`call(app)` on both instances at the same moment."""
    start = threading.Barrier(len(apps))

    def one(app: Any) -> Any:
        start.wait()
        return call(app)

    with ThreadPoolExecutor(len(apps)) as pool:
        return list(pool.map(one, apps))


def test_concurrent_creates_of_one_slice_run_once(instances):
    apps, fake, headers = instances
    # Slow admission down (its controller reads), so the two requests would overlap there without the shared lock.
    list_agents = fake.list_agents
    fake.list_agents = lambda: (time.sleep(0.3), list_agents())[1]

    keyed = both(apps, lambda app: app.test_client().post("/api/v1/tenants/1/slices", json=slice_body(),
                                                          headers={**headers, "Idempotency-Key": "ha-1"}))
    assert [r.status_code for r in keyed] == [202, 202]
    assert keyed[0].get_json()["operation_id"] == keyed[1].get_json()["operation_id"]
    # The same slice without a key: one is admitted, the other refused (its SSID is taken on that AP).
    other = slice_body(name="second", agent="ap-2")
    plain = both(apps, lambda app: app.test_client().post("/api/v1/tenants/1/slices", json=other, headers=headers))
    assert sorted(r.status_code for r in plain) == [202, 409], [r.get_json() for r in plain]
    for resp in keyed[:1] + [r for r in plain if r.status_code == 202]:
        # Read through the other instance than the one that answered, too.
        assert finished(apps[1], resp.headers["Location"], headers)["status"] == "succeeded"
        assert finished(apps[0], resp.headers["Location"], headers)["status"] == "succeeded"
    assert fake.calls.count("create_vap") == 2 and fake.calls.count("create_vnf") == 2
    assert len(fake.resources()["vaps"]) == 2
    with apps[0].extensions["wislice"].session_factory() as s:
        assert s.scalar(sa.select(sa.func.count()).select_from(Operation)) == 2
        assert s.scalar(sa.select(sa.func.count()).select_from(Slice).where(Slice.status == "active")) == 2


def test_runner_killed_mid_saga_is_taken_over(instances):
    apps, fake, headers = instances
    a = apps[0].extensions["wislice"].runner
    reached, resume = threading.Event(), threading.Event()

    def die(op: Any, step: dict[str, Any]) -> None:
        if step["kind"] == "create_path":  # its vAP and vNF exist on the controllers
            a.stop_keeper()  # the instance is gone: nobody renews its lease ...
            reached.set()
            resume.wait(30)  # ... and its worker is stuck until the test ends (then it must find the lease lost)

    a.step_hook = die
    resp = apps[0].test_client().post("/api/v1/tenants/1/slices", json=slice_body(), headers=headers)
    assert resp.status_code == 202
    location = resp.headers["Location"]
    sid = resp.get_json()["slice_id"]
    try:
        assert reached.wait(10)
        killed = time.monotonic()
        assert len(fake.resources()["vaps"]) == 1 and len(fake.resources()["vnfs"]) == 1
        # While orch-a's lease runs, orch-b answers from the database and refuses to change the slice.
        b = apps[1].test_client()
        assert b.get(f"/api/v1/tenants/1/slices/{sid}", headers=headers).get_json()["status"] == "creating"
        busy = b.delete(f"/api/v1/tenants/1/slices/{sid}", headers=headers)
        assert busy.status_code == 409 and "in progress" in busy.get_json()["detail"]
        op = finished(apps[1], location, headers)
        took = time.monotonic() - killed
        assert 1.0 < took < 10.0, took  # not before the lease expired (2 s after its last renewal)
        assert op["status"] == "failed" and "orch-a" in op["error"], op
        assert b.get(f"/api/v1/tenants/1/slices/{sid}", headers=headers).get_json()["status"] == "failed"
        assert fake.resources() == EMPTY
        with apps[1].extensions["wislice"].session_factory() as s:
            assert s.get(Operation, op["operation_id"]).lease_owner == "orch-b"
    finally:
        resume.set()
    # orch-a's worker, back, finds its lease gone and stops before the controller call it was about to make.
    assert a.wait_idle(10)
    assert "create_path" not in fake.calls and fake.resources() == EMPTY
    # The slice is free again: the next request for it (deleting the failed slice) is taken and runs.
    again = apps[1].test_client().delete(f"/api/v1/tenants/1/slices/{sid}", headers=headers)
    assert again.status_code == 202
    assert finished(apps[0], again.headers["Location"], headers)["status"] == "succeeded"
    assert fake.resources() == EMPTY


def test_a_rollout_runs_on_one_instance_and_moves_on_when_it_stops(instances):
    """Issue 18: both instances' rollout runners go round at the same moments; only one holds the rollout and asks
    APs. When it stops (dies), the other takes the rollout over once the lease expired and finishes it, asking no
    AP twice."""
    from wislice_orchestrator.models import Firmware, Rollout, RolloutAp

    apps, fake, _ = instances
    runners = [app.extensions["wislice_rollouts"] for app in apps]
    for runner in runners:
        runner.stop()  # rounds by hand, both at once
    with apps[0].extensions["wislice"].session_factory() as s:
        image = Firmware(version="2.0", kind="sysupgrade", size=1, sha256="ab" * 32, signature="sig",
                         key_id="00" * 8, download_token="t" * 43)
        s.add(image)
        s.flush()
        rollout = Rollout(firmware_id=image.id, stage_size=1, parallel=1, max_failures=1, timeout_s=600,
                          retry_offline_s=60)
        rollout.aps = [RolloutAp(agent_id="ap-1", stage=1), RolloutAp(agent_id="ap-2", stage=2)]
        s.add(rollout)
        s.commit()
        rollout_id = rollout.id
    with ThreadPoolExecutor(2) as pool:
        for _ in range(3):
            worked = list(pool.map(lambda r: r.tick(), runners))
            assert sorted(worked) == [[], [rollout_id]], worked
    holder = next(r for r, w in zip(runners, worked, strict=True) if w)
    other = next(r for r in runners if r is not holder)
    assert [agent for agent, _ in fake.upgrade_requests] == ["ap-1"]
    time.sleep(LEASE["LEASE_S"] + 0.2)  # the holder is gone: its lease runs out
    for _ in range(20):
        assert other.tick() == [rollout_id]
        with apps[1].extensions["wislice"].session_factory() as s:
            done = s.get(Rollout, rollout_id)
            ended = (done.status, {ap.agent_id: ap.state for ap in done.aps})
            if done.finished_at is not None:
                break
    assert ended == ("finished", {"ap-1": "done", "ap-2": "done"})
    assert sorted(agent for agent, _ in fake.upgrade_requests) == ["ap-1", "ap-2"]
    assert holder.tick() == []
