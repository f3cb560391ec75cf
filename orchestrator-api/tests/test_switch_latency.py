"""A switch's measured latency as its admission cost (issue 15): the telemetry poll reads each switch's p99 from
GET /onos/pof/switches (`latency`, fresh only), admission uses it in place of the default estimate (the topology's
switch_latency_us still overrides it), and the refusal names it measured."""

from __future__ import annotations

import time

import pytest
from orch_helpers import slice_body
from test_latency_admission import LINE, costs_along
from test_slice_update import make_slice

from wislice_orchestrator.latency_budget import LatencyCosts, with_measured
from wislice_orchestrator.telemetry import SWITCH_LATENCY_MAX_AGE_MS, switch_latencies
from wislice_orchestrator.topology import Topology


def test_measured_switch_replaces_the_default_and_the_topology_overrides_it():
    costs = with_measured(LatencyCosts(), [], {}, {"b": 7, "c": 3})
    items = costs_along(LINE, ["dpdk-fwd"], costs)
    # a: default 20; b: measured 7; c twice (before and after the vNF): measured 3; 2 links of 50; dpdk 30
    assert sum(us for _, us in items) == 20 + 7 + 2 * 3 + 2 * 50 + 30
    assert ("switch b (measured p99)", 7) in items and ("switch a", 20) in items
    doc = LINE.to_json()
    doc["switch_latency_us"] = {"b": 90}
    items = costs_along(Topology.from_json(doc), ["dpdk-fwd"], costs)
    assert ("switch b", 90) in items and ("switch b (measured p99)", 7) not in items  # the operator's value wins
    assert with_measured(LatencyCosts(), [], {}, {}) == LatencyCosts()  # nothing measured: unchanged


def lat(p99, age=500, **extra):
    return {"p99_us": p99, "p50_us": 1.0, "packets": 10, "age_ms": age, **extra}


def test_switch_latencies_keeps_fresh_sound_readings_only():
    switches = [
        {"device_id": "pof:1", "latency": lat(12.2)},
        {"device_id": "pof:2", "latency": lat(0)},
        {"device_id": "pof:3"},                                         # an older controller or switch
        {"device_id": "pof:4", "latency": lat(40, age=SWITCH_LATENCY_MAX_AGE_MS + 1)},  # stale
        {"device_id": "pof:5", "latency": lat(40, age=None)},           # no age to judge it by
        {"device_id": "pof:6", "latency": lat(-1)},
        {"device_id": "pof:7", "latency": lat(True)},
        {"device_id": "pof:8", "latency": lat(float("nan"))},
        {"device_id": "pof:9", "latency": "fast"},
        {"device_id": 10, "latency": lat(5)},
        "junk",
    ]
    assert switch_latencies(switches) == {"pof:1": 13, "pof:2": 0}
    with pytest.raises(ValueError):
        switch_latencies({"switches": []})


@pytest.fixture
def collector(world):
    return world.app.extensions["wislice_telemetry"]


def test_poll_reads_the_switches_and_a_stale_poll_gives_none(world, collector, monkeypatch):
    switches = world.fake.list_switches
    monkeypatch.setattr(world.fake, "list_switches",
                        lambda: [dict(s, latency=lat(4.5)) if s["device_id"] == "pof:core" else s
                                 for s in switches()])
    collector.poll_once()
    assert collector.snapshot().switch_p99_us == {"pof:core": 5}
    assert collector.measured_switch_us() == {"pof:core": 5}
    collector.poll_once(now=time.time() - 4 * collector.interval_s)  # the last poll is old: not used
    assert collector.measured_switch_us() == {}
    monkeypatch.setattr(world.fake, "list_switches", lambda: 1 / 0)  # a failing controller: counted, none kept
    errors = collector.errors
    collector.poll_once()
    assert collector.errors > errors and collector.measured_switch_us() == {}


def test_admission_uses_the_measured_switch_cost_and_names_it(world, collector, monkeypatch):
    """The fake star: AP switch -> core -> MEC switch, 2 links, a firewall: 4 x 20 + 2 x 50 + 120 = 300 us with
    the estimates. The core switch measures 2 us and the MEC switch 5 us: 20 + 2 + 2 x 5 + 100 + 120 = 252 us."""
    make_slice(world)
    switches = world.fake.list_switches
    measured = {"pof:core": lat(1.7), "pof:mec-1": lat(4.2)}
    monkeypatch.setattr(world.fake, "list_switches",
                        lambda: [dict(s, latency=measured[s["device_id"]]) if s["device_id"] in measured else s
                                 for s in switches()])
    collector.poll_once()
    body = slice_body(latency_budget_us=251)
    body["vaps"][0]["ssid"] = "second"
    resp = world.call("POST", "/api/v1/tenants/1/slices", world.tenant_a, json=body)
    assert resp.status_code == 409, resp.get_json()
    errors = resp.get_json()["errors"]
    assert any(r.startswith("AP ap-1 to MEC node mec-1: path needs ~252 us") and
               "switch pof:core (measured p99) 2 us" in r and "switch pof:mec-1 (measured p99) 2 x 5 us" in r
               for r in errors), errors
    body["latency_budget_us"] = 252
    assert world.call("POST", "/api/v1/tenants/1/slices", world.tenant_a, json=body).status_code == 202
