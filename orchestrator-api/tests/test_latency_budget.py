"""A slice's latency budget (latency_budget_us): required for the latency classes, none for best effort, at
creation and merged with the class by PATCH; stored, shown, and migration 0008."""

from __future__ import annotations

import pytest
from orch_helpers import budget_migration_round_trip, slice_body
from test_slice_update import applied, make_slice, patch

from wislice_orchestrator import db


def create(world, **extra):
    return world.call("POST", "/api/v1/tenants/1/slices", world.tenant_a, json=slice_body(**extra))


@pytest.mark.parametrize("extra,message", [
    ({"latency_class": "low", "latency_budget_us": None}, "required for latency class low"),
    ({"latency_class": "ultra_low", "latency_budget_us": None}, "required for latency class ultra_low"),
    ({"latency_class": "best_effort", "latency_budget_us": 300}, "best_effort has no budget"),
    ({"latency_budget_us": 0}, "greater than or equal to 1"),
    ({"latency_budget_us": -5}, "greater than or equal to 1"),
    ({"latency_budget_us": 1.5}, "Not a valid integer"),
    ({"latency_budget_us": "300"}, "Not a valid integer"),
    ({"latency_budget_us": 10_000_001}, "less than or equal to 10000000"),
])
def test_create_refuses_a_budget_that_does_not_fit_its_class(world, extra, message):
    resp = create(world, **extra)
    assert resp.status_code == 422, resp.get_json()
    assert message in str(resp.get_json()["errors"]["json"]["latency_budget_us"])
    assert world.fake.calls == []  # nothing reached a controller


def test_create_stores_and_shows_the_budget(world):
    url = make_slice(world, latency_class="ultra_low", latency_budget_us=350)
    s = world.call("GET", url, world.tenant_a).get_json()
    assert (s["latency_class"], s["latency_budget_us"]) == ("ultra_low", 350)
    url = make_slice(world, name="bulk", latency_class="best_effort", latency_budget_us=None)
    s = world.call("GET", url, world.tenant_a).get_json()
    assert (s["latency_class"], s["latency_budget_us"]) == ("best_effort", None)


def test_patch_merges_budget_and_class(world):
    url = make_slice(world)  # low, 500 us

    def shown():
        s = world.call("GET", url, world.tenant_a).get_json()
        return s["latency_class"], s["latency_budget_us"], s["pending_change"]

    assert applied(world, patch(world, url, {"latency_budget_us": 300}))["status"] == "succeeded"
    assert shown() == ("low", 300, None)
    # another latency class keeps the current budget
    assert applied(world, patch(world, url, {"latency_class": "ultra_low"}))["status"] == "succeeded"
    assert shown() == ("ultra_low", 300, None)
    # best effort drops it
    assert applied(world, patch(world, url, {"latency_class": "best_effort"}))["status"] == "succeeded"
    assert shown() == ("best_effort", None, None)
    # back to a latency class: a budget is needed again
    resp = patch(world, url, {"latency_class": "low"})
    assert resp.status_code == 422 and "required for latency class low" in str(resp.get_json()["errors"])
    resp = patch(world, url, {"latency_budget_us": 300})  # best effort takes none
    assert resp.status_code == 422 and "has no budget" in str(resp.get_json()["errors"])
    assert applied(world, patch(world, url, {"latency_class": "low", "latency_budget_us": 900}))["status"] == \
        "succeeded"
    assert shown() == ("low", 900, None)
    resp = patch(world, url, {"latency_budget_us": None})  # a latency class cannot lose its budget
    assert resp.status_code == 422 and "required for latency class low" in str(resp.get_json()["errors"])
    assert shown() == ("low", 900, None)
    events = world.call("GET", "/api/v1/events", world.operator).get_json()["events"]
    assert any("latency class low (900 us)" in e["message"] for e in events)


def test_a_latency_class_needs_caps_both_ways(world):
    for caps in ({"down_cap_kbps": 0}, {"up_cap_kbps": 0}):
        body = slice_body()
        body["bandwidth"] |= caps
        resp = world.call("POST", "/api/v1/tenants/1/slices", world.tenant_a, json=body)
        assert resp.status_code == 422 and "needs a down and an up cap" in resp.get_json()["errors"]["json"][
            "bandwidth"], resp.get_json()
    url = make_slice(world)
    resp = patch(world, url, {"bandwidth": {"up_cap_kbps": 0}})
    assert resp.status_code == 422 and "needs a down and an up cap" in str(resp.get_json()["errors"])
    # best effort may be uncapped, and dropping to it allows that again
    assert applied(world, patch(world, url, {"latency_class": "best_effort", "bandwidth": {"up_cap_kbps": 0}}))[
        "status"] == "succeeded"


def test_the_path_carries_the_class(world):
    make_slice(world, latency_class="ultra_low", latency_budget_us=350)
    make_slice(world, name="bulk", agent="ap-2", latency_class="best_effort", latency_budget_us=None)
    classes = {p["slice_id"]: p["latency_class"] for p in world.fake.paths.values()}
    assert sorted(classes.values()) == ["best_effort", "ultra_low"], classes


def test_migration_0008_on_sqlite(tmp_path):
    engine = db.make_engine(f"sqlite:///{tmp_path / 'budget.db'}")
    try:
        budget_migration_round_trip(engine)
    finally:
        engine.dispose()


def test_switches_without_a_priority_queue_are_journalled(world):
    plain = world.fake.create_path

    def without_queue(path):
        reply = plain(path)
        reply["hops"] = [{**h, "latency_queue": False} for h in path["hops"]]
        return reply

    world.fake.create_path = without_queue
    resp = create(world, latency_class="low", latency_budget_us=400)
    assert world.call("GET", resp.headers["Location"], world.tenant_a).get_json()["status"] == "succeeded"
    devices = sorted({h["device_id"] for h in next(iter(world.fake.paths.values()))["hops"]})
    events = world.call("GET", "/api/v1/events", world.operator).get_json()["events"]
    told = [e for e in events if "no latency queue on" in e["message"]]
    assert len(told) == 1 and told[0]["level"] == "warn" and all(d in told[0]["message"] for d in devices), told
