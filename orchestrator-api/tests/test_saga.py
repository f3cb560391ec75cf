"""Slice creation is all or nothing: whichever controller call fails, nothing stays behind."""

from __future__ import annotations

import pytest
from orch_helpers import UNIT_INSTANCE, make_world, slice_body

from wislice_orchestrator import saga as saga_mod
from wislice_orchestrator.models import Operation, Slice

EMPTY = {"vaps": [], "vnfs": [], "paths": []}

# A slice with two vAPs (two APs) and a two-vNF chain runs five steps: two vAPs, two vNFs, and its one path (the
# second AP's route a branch of it).
STEPS = [("create_vap", 1), ("create_vap", 2), ("create_vnf", 1), ("create_vnf", 2), ("create_path", 1)]


def two_ap_body() -> dict:
    body = slice_body(vnfs=2)
    body["vaps"].append({"agent_id": "ap-2", "radio": "phy0", "ssid": "video-2", "security": {"mode": "open"}})
    return body


def create(world, body=None, key=None):
    headers = {"Idempotency-Key": key} if key else {}
    resp = world.call("POST", "/api/v1/tenants/1/slices", world.tenant_a, json=body or two_ap_body(), headers=headers)
    assert resp.status_code == 202, resp.get_json()
    return world.call("GET", resp.headers["Location"], world.tenant_a).get_json()


def test_all_steps_succeed(world):
    op = create(world)
    assert op["status"] == "succeeded"
    assert [s["kind"] for s in op["steps"]] == [k for k, _ in STEPS]
    res = world.fake.resources()
    assert len(res["vaps"]) == 2 and len(res["vnfs"]) == 2 and len(res["paths"]) == 1
    path = next(iter(world.fake.paths.values()))
    assert path["main_branch_id"] == "t1s1v1" and [b["branch_id"] for b in path["branches"]] == ["t1s1v2"]
    # AP switch -> core -> MEC switch -> vNF 1 -> vNF 2 (no egress configured).
    assert [h["device_id"] for h in path["hops"]] == ["pof:ap-1", "pof:core", "pof:mec-1", "pof:mec-1"]
    # Forward (AP -> MEC) is up; each direction carries its guarantee and cap; the vAP its air-hop rates.
    assert "rate_kbps" not in path
    assert path["down"] == {"guaranteed_kbps": 5000, "cap_kbps": 20000}
    assert path["up"] == {"guaranteed_kbps": 1000, "cap_kbps": 5000}
    vap = world.fake.vaps[path["slice_id"].split("-", 1)[1]]
    assert vap["rate_limit"] == {"down_kbps": 20000, "up_kbps": 5000, "down_guaranteed_kbps": 5000,
                                 "up_guaranteed_kbps": 1000}


def test_each_slice_is_its_own_vnf_chain(world):
    # Two slices of one tenant: the MEC node groups backpressure chains by chain_id, so each gets its slice's id.
    first = create(world, slice_body(vnfs=2))
    second = create(world, slice_body(name="bulk", agent="ap-2", vnfs=1))
    assert first["status"] == second["status"] == "succeeded" and first["slice_id"] != second["slice_id"]
    chains = sorted(v["chain_id"] for v in world.fake.vnfs.values())
    assert chains == sorted([first["slice_id"]] * 2 + [second["slice_id"]])


def test_each_vnf_carries_its_slices_latency_class(world):
    # The MEC node places a latency slice's vNFs on a core of their own and runs them in latency mode there.
    low = create(world, slice_body(vnfs=2))
    bulk = create(world, dict(slice_body(name="bulk", agent="ap-2", vnfs=1), latency_class="best_effort",
                              latency_budget_us=None))
    assert low["status"] == bulk["status"] == "succeeded"
    classes = sorted((v["chain_id"], v["latency_class"]) for v in world.fake.vnfs.values())
    assert classes == sorted([(low["slice_id"], "low")] * 2 + [(bulk["slice_id"], "best_effort")])


@pytest.mark.parametrize("after", [False, True], ids=["fails-before", "fails-after-effect"])
@pytest.mark.parametrize("method,nth", STEPS, ids=[f"{m}-{n}" for m, n in STEPS])
def test_any_failing_step_leaves_nothing(world, method, nth, after):
    world.fake.fail_on(method, nth, after=after)
    op = create(world)
    assert op["status"] == "failed"
    assert method in op["error"]
    assert world.fake.resources() == EMPTY
    s = world.call("GET", f"/api/v1/tenants/1/slices/{op['slice_id']}", world.tenant_a).get_json()
    assert s["status"] == "failed" and s["status_reason"]
    # The reservation is released: the same slice fits again afterwards.
    assert create(world)["status"] == "succeeded"


def test_vaps_and_vnfs_go_to_the_controllers_at_once(world):
    """A slice's create_vap and create_vnf calls overlap (each waits here until all four have started), its paths
    follow; every step keeps its own journal entry and time."""
    import threading

    started = threading.Barrier(4, timeout=5)  # broken (step fails) if the calls came one after another
    for method in ("create_vap", "create_vnf"):
        original = getattr(world.fake, method)

        def waiting(*args, _original=original, **kwargs):
            started.wait()
            return _original(*args, **kwargs)

        setattr(world.fake, method, waiting)
    op = create(world)
    assert op["status"] == "succeeded", op["error"]
    assert [s["kind"] for s in op["steps"]] == [k for k, _ in STEPS]
    assert all(s["state"] == "done" and s["seconds"] >= 0 for s in op["steps"])
    first_path = min(s["started_at"] for s in op["steps"] if s["kind"] == "create_path")
    assert all(s["started_at"] < first_path for s in op["steps"] if s["kind"] != "create_path")


def test_a_failing_call_beside_a_succeeding_one_undoes_both(world):
    world.fake.fail_on("create_vnf", 2)
    op = create(world)
    assert op["status"] == "failed" and "create_vnf" in op["error"]
    states = {(s["kind"], s["ref"].get("vnf_id") or s["ref"].get("vap_id")): s["state"] for s in op["steps"]}
    assert sorted(states.values()).count("undone") == 4  # both vAPs, both vNFs (the failed one undone too)
    assert world.fake.resources() == EMPTY


def test_failed_undo_is_reported(world):
    world.fake.fail_on("create_path", 1)
    world.fake.fail_on("delete_vnf", 1, status=500, code="internal")
    op = create(world)
    assert op["status"] == "failed" and "rollback incomplete" in op["error"]
    events = world.call("GET", "/api/v1/events", world.operator).get_json()["events"]
    assert any(e["level"] == "error" for e in events)


def test_an_undo_waits_for_a_controller_that_does_not_answer(world, monkeypatch):
    # A creation failed, and the nfv controller is restarting while its vNFs are undone: the undo is tried again
    # until it answers, not given up (which left the vNF behind on the controller that came back).
    monkeypatch.setattr(saga_mod, "UNDO_RETRY_S", 5.0)
    world.fake.fail_on("create_path", 1)
    world.fake.fail_on("delete_vnf", 1, status=502, code="unreachable")
    world.fake.fail_on("delete_vnf", 2, status=503, code="app_unavailable")
    op = create(world)
    assert op["status"] == "failed" and "rollback incomplete" not in op["error"], op["error"]
    assert world.fake.resources() == EMPTY


def test_an_undo_gives_up_on_a_controller_that_stays_away(world, monkeypatch):
    monkeypatch.setattr(saga_mod, "UNDO_RETRY_S", 1.0)
    world.fake.fail_on("create_path", 1)
    for n in range(1, 10):
        world.fake.fail_on("delete_vnf", n, status=502, code="unreachable")
    op = create(world)
    assert op["status"] == "failed" and "rollback incomplete" in op["error"]


def test_idempotency_key_returns_same_operation(world):
    first = create(world, key="k1")
    again = create(world, key="k1")
    assert again["operation_id"] == first["operation_id"]
    assert len(world.fake.resources()["vaps"]) == 2
    other = world.call("POST", "/api/v1/tenants/1/slices", world.tenant_a, json=slice_body(name="other"),
                       headers={"Idempotency-Key": "k1"})
    assert other.status_code == 409
    assert "different request" in other.get_json()["detail"]


class Crash(BaseException):
    """Stands for the process dying: not an Exception, so the saga cannot handle it."""


@pytest.mark.parametrize("crash_at", range(len(STEPS)))
def test_restart_rolls_back_interrupted_create(tmp_path, crash_at):
    w = make_world(tmp_path)
    seen = []

    def hook(op, step):
        seen.append(step)
        if len(seen) == crash_at + 1:  # die after journalling "started", before the controller call
            raise Crash()

    w.service.runner.step_hook = hook
    with pytest.raises(Crash):
        w.call("POST", "/api/v1/tenants/1/slices", w.tenant_a, json=two_ap_body())
    with w.service.session_factory() as db:
        op = db.query(Operation).one()
        assert op.status == "running"
    # A new process on the same database and the same (surviving) controllers.
    w2 = make_world_again(tmp_path, w.fake)
    with w2.service.session_factory() as db:
        op = db.query(Operation).one()
        assert op.status == "failed" and "restart" in op.error
        assert db.query(Slice).one().status == "failed"
    assert w.fake.resources() == EMPTY


def make_world_again(tmp_path, fake):
    from wislice_orchestrator.app import create_app

    app = create_app({"DATABASE_URL": f"sqlite:///{tmp_path}/test.db", "START_WORKER": False, "TELEMETRY": False,
                      "INSTANCE_ID": UNIT_INSTANCE}, controllers=fake)
    app.extensions["wislice"].runner.recover()
    return type("W", (), {"service": app.extensions["wislice"]})


def test_restart_rolls_back_after_effect(tmp_path):
    """The vNF was created on the controller but the process died before journalling it: still undone."""
    w = make_world(tmp_path)
    w.fake.fail_on("create_vnf", 1, after=True)

    def hook(op, step):
        if step["kind"] == "create_path":
            raise Crash()

    w.fake.clear_failures()
    w.service.runner.step_hook = hook
    with pytest.raises(Crash):
        w.call("POST", "/api/v1/tenants/1/slices", w.tenant_a, json=two_ap_body())
    assert len(w.fake.resources()["vnfs"]) == 2
    make_world_again(tmp_path, w.fake)
    assert w.fake.resources() == EMPTY


def test_restart_finishes_interrupted_delete(tmp_path):
    w = make_world(tmp_path)
    op = create(w)
    calls = []

    def hook(op, step):
        calls.append(step)
        if len(calls) == 3:
            raise Crash()

    w.service.runner.step_hook = hook
    with pytest.raises(Crash):
        w.call("DELETE", f"/api/v1/tenants/1/slices/{op['slice_id']}", w.tenant_a)
    make_world_again(tmp_path, w.fake)
    assert w.fake.resources() == EMPTY
    with make_world_again(tmp_path, w.fake).service.session_factory() as db:
        assert db.query(Slice).one().status == "deleted"


def test_add_and_remove_vap_and_vnf(world):
    op = create(world, slice_body(vnfs=1))
    sid = op["slice_id"]
    base = f"/api/v1/tenants/1/slices/{sid}"
    r = world.call("POST", base + "/vaps", world.tenant_a, json={"agent_id": "ap-2", "ssid": "more"})
    assert r.status_code == 202 and world.call("GET", r.headers["Location"], world.tenant_a).get_json()["status"] \
        == "succeeded"
    assert len(world.fake.resources()["paths"]) == 1  # the new vAP is a branch of the slice's one path
    assert [b["branch_id"] for b in next(iter(world.fake.paths.values()))["branches"]] == [f"t1s{sid}v2"]
    r = world.call("POST", base + "/vnfs", world.tenant_a, json={"image": "kernel-fwd"})
    assert world.call("GET", r.headers["Location"], world.tenant_a).get_json()["status"] == "succeeded"
    path = next(iter(world.fake.paths.values()))
    assert len(path["hops"]) == 4  # ap, core, mec -> vnf1, vnf1 -> vnf2
    vnfs = world.call("GET", base + "/vnfs", world.tenant_a).get_json()["vnfs"]
    assert [v["chain_position"] for v in vnfs] == [0, 1]
    # A failing re-path undoes the new vNF and restores the old chain.
    world.fake.fail_on("create_path", 1)
    r = world.call("POST", base + "/vnfs", world.tenant_a, json={"image": "monitor"})
    assert world.call("GET", r.headers["Location"], world.tenant_a).get_json()["status"] == "failed"
    assert len(world.fake.resources()["vnfs"]) == 2
    assert all(len(p["hops"]) == 4 for p in world.fake.paths.values()) and len(world.fake.paths) == 1
    r = world.call("DELETE", base + f"/vnfs/{vnfs[1]['vnf_id']}", world.tenant_a)
    assert world.call("GET", r.headers["Location"], world.tenant_a).get_json()["status"] == "succeeded"
    assert all(len(p["hops"]) == 3 for p in world.fake.paths.values())
    vap = world.call("GET", base + "/vaps", world.tenant_a).get_json()["vaps"][1]
    r = world.call("DELETE", base + f"/vaps/{vap['vap_id']}", world.tenant_a)
    assert world.call("GET", r.headers["Location"], world.tenant_a).get_json()["status"] == "succeeded"
    assert len(world.fake.resources()["vaps"]) == 1 and len(world.fake.paths) == 1
    assert "branches" not in next(iter(world.fake.paths.values()))  # the removed vAP's branch went with it
