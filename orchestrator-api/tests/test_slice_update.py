"""Live slice changes: PATCH .../slices/{sid} re-admits the new bandwidth/latency class and applies it as an
operation (update_vap, update_path), undone on failure; the slice takes the new values only on success."""

from __future__ import annotations

import copy

import pytest
from fake_controllers import FakeControllers
from orch_helpers import make_world, slice_body
from test_saga import Crash, make_world_again

from wislice_orchestrator.models import Operation, Slice

OLD_RL = {"down_kbps": 20000, "up_kbps": 5000, "down_guaranteed_kbps": 5000, "up_guaranteed_kbps": 1000}
OLD_PATH = {"down": {"guaranteed_kbps": 5000, "cap_kbps": 20000}, "up": {"guaranteed_kbps": 1000, "cap_kbps": 5000}}


def make_slice(world, **extra):
    resp = world.call("POST", "/api/v1/tenants/1/slices", world.tenant_a, json=slice_body(**extra))
    assert resp.status_code == 202, resp.get_json()
    op = world.call("GET", resp.headers["Location"], world.tenant_a).get_json()
    assert op["status"] == "succeeded", op
    return f"/api/v1/tenants/1/slices/{op['slice_id']}"


def patch(world, url, body, token=None):
    return world.call("PATCH", url, token or world.tenant_a, json=body)


def applied(world, resp):
    assert resp.status_code == 202, resp.get_json()
    assert resp.headers["Location"].startswith("/api/v1/operations/")
    return world.call("GET", resp.headers["Location"], world.tenant_a).get_json()


def state(world):
    vap = next(iter(world.fake.vaps.values()))
    path = next(iter(world.fake.paths.values()))
    return vap["rate_limit"], {"down": path["down"], "up": path["up"]}


def test_partial_bandwidth_is_merged_and_applied(world):
    url = make_slice(world, latency_class="best_effort", latency_budget_us=None)  # may lose its up cap
    op = applied(world, patch(world, url, {"bandwidth": {"down_guaranteed_kbps": 8000, "up_cap_kbps": 0}}))
    assert op["kind"] == "update_slice" and op["status"] == "succeeded", op
    assert [s["kind"] for s in op["steps"]] == ["update_vap", "update_path"]
    new = {"down_guaranteed_kbps": 8000, "up_guaranteed_kbps": 1000, "down_cap_kbps": 20000, "up_cap_kbps": 0}
    s = world.call("GET", url, world.tenant_a).get_json()
    assert s["bandwidth"] == new and s["pending_change"] is None
    rate_limit, rates = state(world)
    assert rate_limit == {"down_kbps": 20000, "up_kbps": 0, "down_guaranteed_kbps": 8000, "up_guaranteed_kbps": 1000}
    assert rates == {"down": {"guaranteed_kbps": 8000, "cap_kbps": 20000}, "up": {"guaranteed_kbps": 1000,
                                                                                   "cap_kbps": 0}}
    assert world.fake.calls.count("delete_path") == 0 and world.fake.calls.count("delete_vap") == 0
    events = world.call("GET", "/api/v1/events", world.operator).get_json()["events"]
    assert any("changed: down 8000..20000 kbps, up 1000..uncapped kbps" in e["message"] for e in events)
    usage = world.call("GET", "/api/v1/tenants/1", world.tenant_a).get_json()["usage"]
    assert usage["bandwidth_kbps"] == 9000


def test_operator_changes_latency_class_only(world):
    url = make_slice(world)
    op = applied(world, patch(world, url, {"latency_class": "ultra_low"}, world.operator))
    # The path's meters are installed again in the new class (the network controller sets the switches' flag).
    assert op["status"] == "succeeded" and [s["kind"] for s in op["steps"]] == ["update_path"]
    assert op["steps"][0]["ref"]["new"] == {**OLD_PATH, "latency_class": "ultra_low"}
    assert op["steps"][0]["ref"]["old"] == {**OLD_PATH, "latency_class": "low"}
    assert world.call("GET", url, world.tenant_a).get_json()["latency_class"] == "ultra_low"
    assert state(world) == (OLD_RL, OLD_PATH)
    assert next(iter(world.fake.paths.values()))["latency_class"] == "ultra_low"


@pytest.mark.parametrize("body,field", [
    ({}, "_schema"),
    ({"bandwidth": {}}, "_schema"),
    ({"bandwidth": {"down_guaranteed_kbps": 30000}}, "bandwidth"),  # above the current 20000 cap
    ({"bandwidth": {"up_cap_kbps": -1}}, "bandwidth"),
    ({"latency_class": "warp"}, "latency_class"),
    ({"name": "renamed"}, "name"),
])
def test_bad_patch_is_422(world, body, field):
    url = make_slice(world)
    resp = patch(world, url, body)
    assert resp.status_code == 422 and resp.mimetype == "application/problem+json"
    assert field in resp.get_json()["errors"]["json"]
    assert state(world) == (OLD_RL, OLD_PATH)


def test_growth_beyond_radio_and_quota_is_409_with_every_reason(world):
    url = make_slice(world)
    world.service.ap_budget_kbps = 12_000
    resp = patch(world, url, {"bandwidth": {"down_guaranteed_kbps": 20000}})
    assert resp.status_code == 409 and resp.mimetype == "application/problem+json"
    problem = resp.get_json()
    assert problem["title"] == "slice change does not fit"
    # The slice's own 6000 kbps is left out: 0 guaranteed besides it, 21000 wanted.
    assert problem["errors"] == ["AP ap-1 radio phy0: capacity 12000 kbps (orchestrator ap_budget_kbps, the agent "
                                 "reports none), 0 kbps guaranteed, 21000 wanted"]
    world.call("PATCH", "/api/v1/tenants/1", world.operator, json={"quota": {"bandwidth_kbps": 10_000}})
    problem = patch(world, url, {"bandwidth": {"down_guaranteed_kbps": 20000}}).get_json()
    assert problem["errors"][0] == "tenant quota exceeded: guaranteed bandwidth (kbps) would be 21000 of 10000"
    assert len(problem["errors"]) == 2
    # Lowering fits even though the tenant is now over a smaller quota.
    world.call("PATCH", "/api/v1/tenants/1", world.operator, json={"quota": {"bandwidth_kbps": 1000}})
    assert applied(world, patch(world, url, {"bandwidth": {"down_guaranteed_kbps": 4000}}))["status"] == "succeeded"
    assert state(world) != (OLD_RL, OLD_PATH)


def test_radio_capacity_from_the_agent_and_other_slices(tmp_path):
    w = make_world(tmp_path)
    w.fake.agents["ap-1"]["radios"][0].update(capacity_kbps=15_000, capacity_source="operator")
    url = make_slice(w)
    make_slice(w, name="other")  # 6000 more on ap-1 phy0
    problem = patch(w, url, {"bandwidth": {"up_guaranteed_kbps": 5000}}).get_json()
    assert problem["errors"] == ["AP ap-1 radio phy0: capacity 15000 kbps (operator), 6000 kbps guaranteed, "
                                 "10000 wanted"]
    assert applied(w, patch(w, url, {"bandwidth": {"up_guaranteed_kbps": 4000}}))["status"] == "succeeded"
    w.app.extensions["wislice_engine"].dispose()


def test_latency_class_the_current_path_cannot_meet_is_409(world):
    topo = FakeControllers.default_topology(["ap-1", "ap-2"], ["mec-1", "mec-2"])
    long = copy.deepcopy(topo)
    long["links"] = [lk for lk in long["links"] if lk["b"] not in ("pof:mec-1", "pof:mec-2")]
    long["links"] += [{"a": "pof:core", "a_port": 20, "b": "pof:agg", "b_port": 1, "capacity_kbps": 10**6},
                      {"a": "pof:agg", "a_port": 2, "b": "pof:mec-1", "b_port": 1, "capacity_kbps": 10**6}]
    assert world.call("PUT", "/api/v1/topology", world.operator, json=long).status_code == 200
    url = make_slice(world, latency_class="low")
    resp = patch(world, url, {"latency_class": "ultra_low"})
    assert resp.status_code == 409
    vap_id = world.call("GET", url, world.tenant_a).get_json()["vaps"][0]["vap_id"]
    assert resp.get_json()["errors"] == [f"vAP {vap_id}: its wired path has 3 links, latency class ultra_low allows "
                                         f"at most 2 (re-routing is not supported)"]
    assert world.call("GET", url, world.tenant_a).get_json()["latency_class"] == "low"


@pytest.mark.parametrize("method,after", [("update_vap", False), ("update_path_rates", False),
                                          ("update_path_rates", True)])
def test_failure_restores_old_rates(world, method, after):
    url = make_slice(world)
    world.fake.fail_on(method, 1, after=after)
    op = applied(world, patch(world, url, {"bandwidth": {"down_guaranteed_kbps": 9000, "down_cap_kbps": 9000}}))
    assert op["status"] == "failed" and method in op["error"]
    assert state(world) == (OLD_RL, OLD_PATH)
    s = world.call("GET", url, world.tenant_a).get_json()
    assert s["bandwidth"]["down_guaranteed_kbps"] == 5000 and s["pending_change"] is None
    assert s["status"] == "active"
    events = world.call("GET", "/api/v1/events", world.operator).get_json()["events"]
    assert any(e["level"] == "error" and "update_slice" in e["message"] for e in events)
    # The slice can be changed again afterwards.
    assert applied(world, patch(world, url, {"bandwidth": {"down_guaranteed_kbps": 6000}}))["status"] == "succeeded"


def test_change_is_held_while_running(world):
    url = make_slice(world)
    seen = {}

    def hook(op, step):
        with world.service.session_factory() as db:
            slice_ = db.get(Slice, op.slice_id)
            seen["pending"] = slice_.pending_change
            seen["stored"] = slice_.down_guaranteed_kbps
            seen["radio"] = world.service.snapshot(db).radio_reserved_kbps[("ap-1", "phy0")]
            seen["usage"] = world.service.usage(db, 1).bandwidth_kbps

    world.service.runner.step_hook = hook
    assert applied(world, patch(world, url, {"bandwidth": {"down_guaranteed_kbps": 8000,
                                                           "up_guaranteed_kbps": 0}}))["status"] == "succeeded"
    # While running: the old values stay stored, admission holds max(old, new) per field: 8000 + 1000.
    assert seen["pending"]["bandwidth"]["down_guaranteed_kbps"] == 8000 and seen["stored"] == 5000
    assert seen["radio"] == 9000 and seen["usage"] == 9000


def test_busy_or_inactive_slice_is_409(world):
    url = make_slice(world)
    world.fake.fail_always("delete_vap")
    world.call("DELETE", url, world.tenant_a)  # the delete cannot finish: the slice stays "deleting"
    resp = patch(world, url, {"latency_class": "best_effort"})
    assert resp.status_code == 409 and "only an active slice" in resp.get_json()["detail"]
    assert patch(world, url, {"latency_class": "low"}, world.tenant_b).status_code == 404


def test_restart_during_a_change_rolls_it_back(tmp_path):
    w = make_world(tmp_path)
    url = make_slice(w)
    seen = []

    def hook(op, step):
        seen.append(step)
        if step["kind"] == "update_path":
            raise Crash()

    w.service.runner.step_hook = hook
    with pytest.raises(Crash):
        patch(w, url, {"bandwidth": {"down_guaranteed_kbps": 7000}})
    assert next(iter(w.fake.vaps.values()))["rate_limit"]["down_guaranteed_kbps"] == 7000
    w2 = make_world_again(tmp_path, w.fake)
    assert state(w) == (OLD_RL, OLD_PATH)
    with w2.service.session_factory() as db:
        op = db.query(Operation).filter_by(kind="update_slice").one()
        assert op.status == "failed" and "restart" in op.error
        slice_ = db.query(Slice).one()
        assert slice_.pending_change is None and slice_.down_guaranteed_kbps == 5000


def test_slice_without_vnfs_updates_its_vaps_only(world):
    url = make_slice(world, vnfs=0)
    op = applied(world, patch(world, url, {"bandwidth": {"up_guaranteed_kbps": 2000}}))
    assert op["status"] == "succeeded" and [s["kind"] for s in op["steps"]] == ["update_vap"]
    assert next(iter(world.fake.vaps.values()))["rate_limit"]["up_guaranteed_kbps"] == 2000


def test_routes_are_kept_per_vap_and_old_rows_fall_back(world):
    """Each vAP records its own route; a vAP recorded before (path_links NULL) has it re-derived from the slice's
    links, for its path body and for the reservations."""
    from wislice_orchestrator.models import SliceVap
    from wislice_orchestrator.steps import load_topology, path_body, vap_route

    url = make_slice(world)
    r = world.call("POST", url + "/vaps", world.tenant_a, json={"agent_id": "ap-2", "ssid": "more"})
    assert applied(world, r)["status"] == "succeeded"
    with world.service.session_factory() as db:
        vaps = db.query(SliceVap).order_by(SliceVap.id).all()
        assert vaps[0].path_links == ["pof:ap-1:1>pof:core:1", "pof:core:3>pof:mec-1:1"]
        assert vaps[1].path_links == ["pof:ap-2:1>pof:core:2", "pof:core:3>pof:mec-1:1"]
        before = world.service.snapshot(db).link_reserved_kbps
        assert before["pof:core:3>pof:mec-1:1"] == 2 * 1000 and before["pof:mec-1:1>pof:core:3"] == 2 * 5000
        body = path_body(db, vaps[1].slice, vaps[1])
        for v in vaps:
            v.path_links = None
        db.commit()
        assert path_body(db, vaps[1].slice, vaps[1]) == body
        assert vap_route(load_topology(db), vaps[0].slice, vaps[0]) is not None
        assert world.service.snapshot(db).link_reserved_kbps == before
