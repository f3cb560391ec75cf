"""Staged rollouts (issue 18) against the fake WiFi controller's simulated APs (fake_firmware.py). The runner is
driven by hand (tick) with its clock moved, so nothing here waits."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from firmware_helpers import upgrade_world, upload
from wislice_agent_proto.usign import SigningKey

from wislice_orchestrator.models import Event, utcnow

IMAGE = b"sysupgrade image " * 100


@pytest.fixture
def key():
    return SigningKey()


class Clock:
    def __init__(self) -> None:
        self.now = utcnow()

    def __call__(self) -> dt.datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += dt.timedelta(seconds=seconds)


@pytest.fixture
def uw(tmp_path, key):
    w = upgrade_world(tmp_path, key, aps=5)
    w.clock = Clock()
    w.runner = w.app.extensions["wislice_rollouts"]
    w.runner.clock = w.clock
    w.firmware_id = upload(w, IMAGE, key.sign(IMAGE), version="2.0").get_json()["firmware_id"]
    yield w
    w.app.extensions["wislice_engine"].dispose()


def start(w: Any, **body: Any) -> dict[str, Any]:
    resp = w.call("POST", "/api/v1/rollouts", w.operator, json={"firmware_id": w.firmware_id, **body})
    assert resp.status_code == 201, resp.get_json()
    return resp.get_json()


def show(w: Any, rollout_id: int) -> dict[str, Any]:
    return w.call("GET", f"/api/v1/rollouts/{rollout_id}", w.operator).get_json()


def run(w: Any, rollout_id: int, step_s: float = 2.0, runner: Any = None) -> dict[str, Any]:
    """Rounds of `runner` (the world's by default), `step_s` apart, until the rollout has finished (40 at most)."""
    for _ in range(40):
        (runner or w.runner).tick()
        got = show(w, rollout_id)
        if got["finished_at"] is not None:
            return got
        w.clock.advance(step_s)
    raise AssertionError(f"rollout {rollout_id} did not finish: {got}")


def states(rollout: dict[str, Any]) -> dict[str, str]:
    return {ap["agent_id"]: ap["state"] for ap in rollout["aps"]}


def events(w: Any) -> list[str]:
    with w.service.session_factory() as db:
        return [e.message for e in db.query(Event).filter(Event.kind == "rollout").order_by(Event.id)]


def test_good_rollout_upgrades_every_ap_in_stages(uw):
    uw.fake.agents["ap-5"]["firmware_version"] = "2.0"  # already there: skipped, never asked
    created = start(uw, aps="all", stage_size=2, parallel=2, max_failures=1)
    assert created["status"] == "pending" and [ap["stage"] for ap in created["aps"]] == [1, 1, 2, 2, 2]
    uw.runner.tick()
    asked = [agent for agent, _ in uw.fake.upgrade_requests]
    assert asked == ["ap-1", "ap-2"]  # the first stage only, until it ended
    body = uw.fake.upgrade_requests[0][1]
    assert body["version"] == "2.0" and body["kind"] == "sysupgrade" and body["timeout_s"] == 600
    assert body["url"].startswith(f"http://orch.test:8080/api/v1/firmware/{uw.firmware_id}/download?token=")
    assert body["signature"].startswith("untrusted comment:") and len(body["sha256"]) == 64
    fetched = uw.client.get(body["url"].removeprefix("http://orch.test:8080"))
    assert fetched.status_code == 200 and fetched.data == IMAGE  # the URL the agents get works
    final = run(uw, created["rollout_id"])
    assert final["status"] == "finished"
    assert states(final) == {"ap-1": "done", "ap-2": "done", "ap-3": "done", "ap-4": "done", "ap-5": "skipped"}
    assert [agent for agent, _ in uw.fake.upgrade_requests] == ["ap-1", "ap-2", "ap-3", "ap-4"]
    assert all(ap["from_version"] == "1.0" for ap in final["aps"] if ap["state"] == "done")
    assert final["counts"] == {"done": 4, "skipped": 1}
    log = events(uw)
    assert "started" in log[0] and "finished" in log[-1] and len(log) == 2


def test_failures_halt_the_rollout_before_the_rest(uw):
    uw.fake.plan_upgrade("ap-1", ("fail", "signature does not verify against the AP's keys"))
    uw.fake.plan_upgrade("ap-2", "rollback")
    created = start(uw, aps=["ap-1", "ap-2", "ap-3", "ap-4"], stage_size=2, max_failures=2)
    final = run(uw, created["rollout_id"])
    assert final["status"] == "halted" and "2 APs failed" in final["reason"]
    got = {ap["agent_id"]: ap for ap in final["aps"]}
    assert got["ap-1"]["state"] == "failed" and "signature does not verify" in got["ap-1"]["reason"]
    assert got["ap-2"]["state"] == "rolled_back" and "restored" in got["ap-2"]["reason"]
    assert got["ap-3"]["state"] == got["ap-4"]["state"] == "not_started"
    assert {agent for agent, _ in uw.fake.upgrade_requests} == {"ap-1", "ap-2"}  # the rest were never asked
    assert uw.fake.agents["ap-1"]["firmware_version"] == "1.0"
    log = events(uw)
    assert sum("ap-1 failed" in m for m in log) == 1 and sum("ap-2 rolled_back" in m for m in log) == 1
    assert any("halted" in m for m in log)


def test_one_failure_below_the_threshold_lets_the_rest_run(uw):
    uw.fake.plan_upgrade("ap-1", ("fail", "sha256 mismatch"))
    final = run(uw, start(uw, aps=["ap-1", "ap-2", "ap-3"], stage_size=1, max_failures=2)["rollout_id"])
    assert final["status"] == "finished"
    assert states(final) == {"ap-1": "failed", "ap-2": "done", "ap-3": "done"}


def test_offline_ap_is_retried_until_it_is_back_or_time_is_up(uw):
    uw.fake.set_connected("ap-2", False)
    uw.fake.set_connected("ap-3", False)
    created = start(uw, aps=["ap-1", "ap-2", "ap-3"], stage_size=3, retry_offline_s=60)
    uw.runner.tick()
    now = states(show(uw, created["rollout_id"]))
    assert now == {"ap-1": "requested", "ap-2": "offline", "ap-3": "offline"}
    for _ in range(8):  # ap-1 ends; the offline ones wait without holding anything back
        uw.clock.advance(2)
        uw.runner.tick()
    assert states(show(uw, created["rollout_id"]))["ap-1"] == "done"
    uw.fake.set_connected("ap-2", True)  # back within retry_offline_s
    final = run(uw, created["rollout_id"], step_s=5)
    got = {ap["agent_id"]: ap for ap in final["aps"]}
    assert got["ap-2"]["state"] == "done" and got["ap-2"]["attempts"] == 1
    assert got["ap-3"]["state"] == "offline" and "retry_offline_s" in got["ap-3"]["reason"]
    assert final["status"] == "finished"  # an AP that never connected is no failure of the image


def test_ap_that_never_comes_back_fails_after_timeout_and_grace(uw):
    uw.fake.plan_upgrade("ap-1", "hang")
    created = start(uw, aps=["ap-1"], timeout_s=60)
    for _ in range(10):
        uw.runner.tick()
        uw.clock.advance(2)
    assert states(show(uw, created["rollout_id"])) == {"ap-1": "restarting"}
    final = run(uw, created["rollout_id"], step_s=60)
    assert final["aps"][0]["state"] == "failed" and "last state restarting" in final["aps"][0]["reason"]
    assert final["status"] == "halted"


def test_cancel_stops_asking_and_watches_the_asked_to_their_end(uw):
    created = start(uw, aps=["ap-1", "ap-2", "ap-3"], stage_size=1)
    uw.runner.tick()
    resp = uw.call("POST", f"/api/v1/rollouts/{created['rollout_id']}/cancel", uw.operator)
    assert resp.status_code == 200 and resp.get_json()["status"] == "cancelled"
    final = run(uw, created["rollout_id"])
    assert states(final) == {"ap-1": "done", "ap-2": "not_started", "ap-3": "not_started"}
    assert final["status"] == "cancelled"
    again = uw.call("POST", f"/api/v1/rollouts/{created['rollout_id']}/cancel", uw.operator)
    assert again.status_code == 409


def test_refusals_at_creation(uw):
    assert uw.call("POST", "/api/v1/rollouts", uw.operator,
                   json={"firmware_id": uw.firmware_id, "aps": ["ap-9"]}).status_code == 422
    for aps in ([], ["ap-1", "ap-1"], "some", [".."]):
        assert uw.call("POST", "/api/v1/rollouts", uw.operator,
                       json={"firmware_id": uw.firmware_id, "aps": aps}).status_code == 422, aps
    assert uw.call("POST", "/api/v1/rollouts", uw.operator,
                   json={"firmware_id": uw.firmware_id + 7, "aps": "all"}).status_code == 404
    start(uw, aps=["ap-1", "ap-2"])
    busy = uw.call("POST", "/api/v1/rollouts", uw.operator, json={"firmware_id": uw.firmware_id, "aps": ["ap-2"]})
    assert busy.status_code == 409 and "ap-2" in busy.get_json()["detail"]
    start(uw, aps=["ap-3"])  # other APs may run another rollout
    in_use = uw.call("DELETE", f"/api/v1/firmware/{uw.firmware_id}", uw.operator)
    assert in_use.status_code == 409 and "rollout" in in_use.get_json()["detail"]


def test_no_base_url_no_rollout(tmp_path, key):
    w = upgrade_world(tmp_path, key, FIRMWARE_BASE_URL="")
    try:
        fid = upload(w, IMAGE, key.sign(IMAGE)).get_json()["firmware_id"]
        resp = w.call("POST", "/api/v1/rollouts", w.operator, json={"firmware_id": fid, "aps": "all"})
        assert resp.status_code == 409 and "WISLICE_FIRMWARE_BASE_URL" in resp.get_json()["detail"]
    finally:
        w.app.extensions["wislice_engine"].dispose()


def test_finished_rollouts_go_with_their_firmware(uw):
    final = run(uw, start(uw, aps=["ap-1"])["rollout_id"])
    assert final["status"] == "finished"
    assert uw.call("DELETE", f"/api/v1/firmware/{uw.firmware_id}", uw.operator).status_code == 204
    assert uw.call("GET", "/api/v1/rollouts", uw.operator).get_json()["rollouts"] == []


def test_a_second_instance_never_runs_the_same_rollout(uw):
    """Two runners on one database (two orchestrator instances): only the lease holder asks APs; the other takes
    over once the holder's lease expired (it died), re-asking nobody, and adopts an upgrade the dead one had asked
    for without recording it."""
    from wislice_orchestrator.lease import LeaseTerms
    from wislice_orchestrator.rollout import RolloutRunner

    a = uw.runner
    b = RolloutRunner(uw.service.session_factory, uw.fake, LeaseTerms("unit-b", 30.0, 10.0), "http://orch.test:8080")
    b.clock = uw.clock
    created = start(uw, aps=["ap-1", "ap-2", "ap-3"], stage_size=1, parallel=1)
    assert a.tick() == [created["rollout_id"]]
    for _ in range(3):
        assert b.tick() == []
        uw.clock.advance(2)
        a.tick()
    assert [agent for agent, _ in uw.fake.upgrade_requests] == ["ap-1"]
    assert states(show(uw, created["rollout_id"]))["ap-1"] in ("installing", "restarting", "done")
    # a dies: after its lease expires, b takes over.
    uw.clock.advance(31)
    # What a died between asking ap-2 and recording it: the controller has the request, the database not.
    body = dict(uw.fake.upgrade_requests[0][1])
    uw.fake.request_upgrade("ap-2", body)
    final = run(uw, created["rollout_id"], runner=b)
    assert states(final) == {"ap-1": "done", "ap-2": "done", "ap-3": "done"}
    assert sorted(agent for agent, _ in uw.fake.upgrade_requests) == ["ap-1", "ap-2", "ap-3"]  # each asked once
    assert a.tick() == []  # the finished rollout is nobody's any more



def test_a_controller_that_does_not_answer_delays_and_an_ap_it_forgot_fails(uw):
    created = start(uw, aps=["ap-1", "ap-2"], stage_size=2, max_failures=2)
    del uw.fake.agents["ap-2"]  # removed from the controller since the rollout was made
    uw.fake.fail_next("get_agent", 504, "timeout")  # ap-1's first look
    uw.runner.tick()
    got = {ap["agent_id"]: ap for ap in show(uw, created["rollout_id"])["aps"]}
    assert got["ap-1"]["state"] == "pending" and "next round" in got["ap-1"]["reason"]
    assert got["ap-2"]["state"] == "failed" and "does not know" in got["ap-2"]["reason"]
    uw.fake.fail_next("request_upgrade", 502, "unreachable")
    uw.clock.advance(2)
    uw.runner.tick()
    assert states(show(uw, created["rollout_id"]))["ap-1"] == "pending"
    final = run(uw, created["rollout_id"])
    assert states(final) == {"ap-1": "done", "ap-2": "failed"} and final["status"] == "finished"
    assert [agent for agent, _ in uw.fake.upgrade_requests] == ["ap-1"]


def test_a_failure_at_the_first_ask_stops_the_rest_of_the_stage(uw):
    created = start(uw, aps=["ap-1", "ap-2", "ap-3"], stage_size=3, max_failures=1)
    del uw.fake.agents["ap-1"]  # gone from the controller since: refused at once
    final = run(uw, created["rollout_id"])
    assert final["status"] == "halted"
    assert states(final) == {"ap-1": "failed", "ap-2": "not_started", "ap-3": "not_started"}
    assert uw.fake.upgrade_requests == []
