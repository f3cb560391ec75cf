"""A latency slice's probes (issue 15): the request's `probe` checked and passed to its vAPs, its measured latency
on the telemetry endpoint, and the budget's broken/restored events with their hysteresis."""

from __future__ import annotations

import pytest
from orch_helpers import slice_body

from wislice_orchestrator.latency_watch import BREAK_SAMPLES

T0 = 1_700_000_000.0
PROBE = {"source_ip": "10.8.0.250", "target_ip": "10.8.0.1", "interval_ms": 50}


@pytest.fixture
def collector(world):
    return world.app.extensions["wislice_telemetry"]


def create(world, **extra):
    return world.call("POST", "/api/v1/tenants/1/slices", world.tenant_a, json=slice_body(**extra))


def get_slice(world, slice_id):
    return world.call("GET", f"/api/v1/tenants/1/slices/{slice_id}", world.tenant_a).get_json()


def latency_of(world, slice_id):
    resp = world.call("GET", f"/api/v1/tenants/1/slices/{slice_id}/telemetry", world.tenant_a)
    assert resp.status_code == 200, resp.get_json()
    return resp.get_json().get("latency")


def budget_events(world):
    events = world.call("GET", "/api/v1/events", world.operator).get_json()["events"]
    return [e for e in events if e["kind"].startswith("latency_budget_")]


@pytest.mark.parametrize(("probe", "field"), [
    ({"source_ip": "10.8.0.1", "target_ip": "10.8.0.1"}, "target_ip"),
    ({"source_ip": "10.8.0.256", "target_ip": "10.8.0.1"}, "source_ip"),
    ({"source_ip": "fe80::1", "target_ip": "10.8.0.1"}, "source_ip"),
    ({"source_ip": "10.8.0.2", "target_ip": "224.0.0.1"}, "target_ip"),
    ({"source_ip": "10.8.0.2", "target_ip": "10.8.0.1", "interval_ms": 9}, "interval_ms"),
    ({"source_ip": "10.8.0.2", "target_ip": "10.8.0.1", "interval_ms": 10_001}, "interval_ms"),
    ({"source_ip": "10.8.0.2"}, "target_ip"),
    ({"source_ip": "10.8.0.2", "target_ip": "10.8.0.1", "port": 7}, "port"),
])
def test_a_bad_probe_is_refused_naming_the_field(world, probe, field):
    resp = create(world, probe=probe)
    assert resp.status_code == 422, resp.get_json()
    assert field in str(resp.get_json()["errors"]["json"]["probe"])
    assert world.fake.vaps == {}


def test_a_best_effort_slice_may_not_ask_for_a_probe(world):
    resp = create(world, latency_class="best_effort", latency_budget_us=None, probe=PROBE)
    assert resp.status_code == 400
    assert "only a latency slice" in resp.get_json()["detail"]
    assert world.fake.vaps == {}


def test_the_probe_reaches_the_vaps_and_only_a_probed_slice_has_latency(world, collector):
    probed = create(world, probe=PROBE).get_json()["slice_id"]
    plain = create(world, name="plain", latency_class="best_effort", latency_budget_us=None).get_json()["slice_id"]
    shown = get_slice(world, probed)
    assert shown["probe"] == PROBE
    vap = shown["vaps"][0]["vap_id"]
    assert world.fake.vaps[vap]["probe"] == PROBE  # the VapSpec the WiFi controller got
    plain_vap = get_slice(world, plain)["vaps"][0]["vap_id"]
    assert get_slice(world, plain)["probe"] is None
    assert "probe" not in world.fake.vaps[plain_vap] and "wmm_ac" not in world.fake.vaps[plain_vap]

    collector.poll_once(now=T0)  # the AP has not reported yet
    assert latency_of(world, probed) == {
        "budget_us": 500, "worst_p99_us": None, "budget_broken": False, "since": None,
        "vaps": [{"agent_id": "ap-1", "vap_id": vap, "p50_us": None, "p99_us": None, "lost": None,
                  "samples": None, "updated": None}]}
    world.fake.set_vap_latency(vap, 180, 420, ts=T0 + 1, lost=2)
    collector.poll_once(now=T0 + 2)
    got = latency_of(world, probed)
    assert got["worst_p99_us"] == 420 and got["budget_us"] == 500
    assert got["vaps"][0] == {"agent_id": "ap-1", "vap_id": vap, "p50_us": 180, "p99_us": 420, "lost": 2,
                                   "samples": 100, "updated": T0 + 1}
    assert latency_of(world, plain) is None
    text = world.call("GET", "/metrics", world.operator).get_data(as_text=True)
    assert f'wislice_slice_latency_us{{quantile="0.99",slice_id="{probed}",tenant_id="1",vap_id="{vap}"}} 420.0' in text
    assert f'wislice_slice_latency_budget_us{{slice_id="{probed}",tenant_id="1"}} 500.0' in text
    assert f'slice_id="{plain}"' not in text.split("wislice_slice_latency_us")[1].split("# HELP")[0]


def test_budget_broken_and_restored_with_hysteresis(world, collector):
    slice_id = create(world, probe=PROBE).get_json()["slice_id"]
    vap = get_slice(world, slice_id)["vaps"][0]["vap_id"]
    t = [T0]

    def sample(p99, new=True):
        if new:
            t[0] += 5
        world.fake.set_vap_latency(vap, p99 // 2, p99, ts=t[0])
        collector.poll_once(now=t[0] + 1)

    for p99 in (900, 900, 400, 900, 900):  # over, over, within (the run starts again), over, over
        sample(p99)
    sample(900, new=False)  # the same report again is no new sample
    assert budget_events(world) == []
    assert latency_of(world, slice_id)["budget_broken"] is False
    sample(950)  # the third over in a row
    events = budget_events(world)
    assert [e["kind"] for e in events] == ["latency_budget_broken"]
    assert events[0]["level"] == "warn" and events[0]["tenant_id"] == 1
    for number in ("p99 950 us", "budget 500 us", f"{BREAK_SAMPLES} samples", vap, "p50 475 us"):
        assert number in events[0]["message"]
    assert latency_of(world, slice_id)["budget_broken"] is True

    for p99 in (950, 300, 300, 1200, 300, 300):  # still broken: no second event; a single over resets the run
        sample(p99)
    assert len(budget_events(world)) == 1
    sample(310)
    kinds = [e["kind"] for e in budget_events(world)]
    assert sorted(kinds) == ["latency_budget_broken", "latency_budget_restored"]
    assert latency_of(world, slice_id)["budget_broken"] is False


def test_a_class_change_moves_the_live_vaps_queue_and_probe(world):
    """PATCH to best effort: the vAPs leave WMM's voice queue and stop probing (one change per vAP, the BSS kept);
    back to a latency class: both again; a failing change is undone."""
    from test_slice_update import applied, patch

    slice_id = create(world, probe=PROBE).get_json()["slice_id"]
    url = f"/api/v1/tenants/1/slices/{slice_id}"
    vap = get_slice(world, slice_id)["vaps"][0]["vap_id"]
    assert (world.fake.vaps[vap]["wmm_ac"], world.fake.vaps[vap]["probe"]) == ("vo", PROBE)

    op = applied(world, patch(world, url, {"latency_class": "best_effort"}))
    assert op["status"] == "succeeded" and "update_vap_class" in [s["kind"] for s in op["steps"]], op
    assert world.fake.vaps[vap]["wmm_ac"] == "be" and "probe" not in world.fake.vaps[vap]
    # a budget change within a class moves nothing on the vAPs
    op = applied(world, patch(world, url, {"latency_class": "low", "latency_budget_us": 900}))
    assert (world.fake.vaps[vap]["wmm_ac"], world.fake.vaps[vap]["probe"]) == ("vo", PROBE)
    op = applied(world, patch(world, url, {"latency_budget_us": 800}))
    assert "update_vap_class" not in [s["kind"] for s in op["steps"]], op

    # the path's change fails after the vAP's: the vAP is put back in the voice queue with its probe
    world.fake.fail_next("update_path_rates")
    op = applied(world, patch(world, url, {"latency_class": "best_effort"}))
    assert op["status"] == "failed", op
    assert (world.fake.vaps[vap]["wmm_ac"], world.fake.vaps[vap]["probe"]) == ("vo", PROBE)
    assert get_slice(world, slice_id)["latency_class"] == "low"
