"""Telemetry collector: series from recorded controller stats (one wifi_stats call per poll, the clients' reported
rates), the ring's bound, controller errors, the thread, and GET .../telemetry."""

from __future__ import annotations

import logging
import time

import pytest
from orch_helpers import make_world, slice_body

from wislice_orchestrator.telemetry import MAX_RATE_BPS, TelemetryCollector, counter_rate
from wislice_orchestrator.timeseries import Ring, SeriesSet

T0 = 1_700_000_000.0


def make_slice(world, tenant=1, token=None, **extra):
    created = world.call("POST", f"/api/v1/tenants/{tenant}/slices", token or world.tenant_a,
                         json=slice_body(**extra)).get_json()
    s = world.call("GET", f"/api/v1/tenants/{tenant}/slices/{created['slice_id']}", token or world.tenant_a).get_json()
    assert s["status"] == "active", s
    return s


def macs_of(world, vap_id):
    return sorted(m for m, c in world.fake.clients.items() if c["vap_id"] == vap_id)


def telemetry(world, s, since=None, token=None):
    url = f"/api/v1/tenants/{s['tenant_id']}/slices/{s['slice_id']}/telemetry"
    resp = world.call("GET", url + (f"?since={since}" if since is not None else ""), token or world.tenant_a)
    assert resp.status_code == 200, resp.get_json()
    return resp.get_json()


@pytest.fixture
def collector(world):
    return world.app.extensions["wislice_telemetry"]


def test_series_from_recorded_stats(world, collector):
    s = make_slice(world)
    vap = s["vaps"][0]["vap_id"]
    m1, m2 = macs_of(world, vap)
    # What the agents' stats reported at three polls, 2 s apart: vAP rates and the clients' rates (none at a
    # client's first report).
    recorded = [
        ((8_000_000, 2_000_000), {m1: (None, None), m2: (None, None)}),
        ((9_000_000, 2_500_000), {m1: (2_000_000, 1_000_000), m2: (1_000_000, 0)}),
        ((7_000_000, 1_000_000), {m1: (2_000_000, 1_000_000), m2: (0, 500_000)}),
    ]
    for k, ((tx, rx), rates) in enumerate(recorded):
        world.fake.set_vap_rates(vap, tx, rx)
        for mac, (tx_bps, rx_bps) in rates.items():
            world.fake.set_client_rates(mac, tx_bps, rx_bps)
        world.fake.calls.clear()
        collector.poll_once(now=T0 + 2 * k)
        assert world.fake.calls == ["wifi_stats", "list_switches", "vnf_stats"]  # one each per poll (and one per vNF)

    data = telemetry(world, s)
    assert data["slice_id"] == s["slice_id"] and data["interval_s"] == 2.0
    assert [p["ts"] for p in data["points"]] == [T0, T0 + 2, T0 + 4]
    assert [(p["down_bps"], p["up_bps"], p["clients"]) for p in data["points"]] == [
        (8_000_000, 2_000_000, 2), (9_000_000, 2_500_000, 2), (7_000_000, 1_000_000, 2)]
    assert {(p["guaranteed_down_kbps"], p["guaranteed_up_kbps"]) for p in data["points"]} == {(5000, 1000)}
    # Client rates: none at the first poll (the agent had none yet), then the reported ones; the AP's tx is down.
    assert [(p["ts"], p["down_bps"], p["up_bps"]) for p in data["clients"][m1]] == [
        (T0 + 2, 2_000_000, 1_000_000), (T0 + 4, 2_000_000, 1_000_000)]
    assert [(p["down_bps"], p["up_bps"]) for p in data["clients"][m2]] == [(1_000_000, 0), (0, 500_000)]
    # since: only newer points, for the slice and its clients.
    newer = telemetry(world, s, since=T0 + 2)
    assert [p["ts"] for p in newer["points"]] == [T0 + 4]
    assert [p["ts"] for p in newer["clients"][m1]] == [T0 + 4]


def test_guarantee_changes_show_in_later_points(world, collector):
    s = make_slice(world)
    collector.poll_once(now=T0)
    patch = {"bandwidth": {"down_guaranteed_kbps": 8000}}
    assert world.call("PATCH", f"/api/v1/tenants/1/slices/{s['slice_id']}", world.tenant_a, json=patch).status_code \
        == 202
    collector.poll_once(now=T0 + 2)
    assert [p["guaranteed_down_kbps"] for p in telemetry(world, s)["points"]] == [5000, 8000]


def test_counter_rate_edge_cases():  # vNF port counters
    assert counter_rate(None, 10.0, 100) is None  # first reading
    assert counter_rate((10.0, 100), 12.0, 350) == 1000.0
    assert counter_rate((10.0, 100), 12.0, 50) is None  # reset
    assert counter_rate((10.0, 100), 10.0, 200) is None  # no time passed
    assert counter_rate((10.0, 100), 9.0, 200) is None  # clock went back
    assert counter_rate((10.0, 0), 11.0, int(MAX_RATE_BPS)) is None  # absurd: 800 Gbit/s


def test_client_points_only_where_the_agent_reported_rates(world, collector):
    s = make_slice(world)
    vap = s["vaps"][0]["vap_id"]
    mac = macs_of(world, vap)[0]
    steps = [  # the agent's (tx_bps, rx_bps) for the client, or None: no rate (first report, new association)
        (None, None), (40_000, 80_000), (None, None), (4_000.4, 0), (0, 0), (float("nan"), 1), (-1, 1)]
    for k, (tx, rx) in enumerate(steps):
        world.fake.set_client_rates(mac, tx, rx)
        world.fake.set_client_counters(mac, 10_000 * k, 10_000 * k)  # counters alone make no rate
        collector.poll_once(now=T0 + 2 * k)
    got = {p["ts"]: (p["down_bps"], p["up_bps"]) for p in telemetry(world, s)["clients"][mac]}
    assert got == {T0 + 2: (40_000, 80_000), T0 + 6: (4_000, 0), T0 + 8: (0, 0)}


def test_client_rates_go_to_the_slice_of_the_reported_vap(world, collector):
    a = make_slice(world)
    b = make_slice(world, name="other", agent="ap-2")
    mac = macs_of(world, a["vaps"][0]["vap_id"])[0]
    world.fake.set_client_rates(mac, 1_000, 1_000)
    collector.poll_once(now=T0)
    # Roamed to b's vAP (another agent): the agent reports it there, without a rate for the new association.
    world.fake.clients[mac].update(vap_id=b["vaps"][0]["vap_id"], agent_id="ap-2")
    world.fake.set_client_rates(mac, None, None)
    collector.poll_once(now=T0 + 2)
    assert mac not in telemetry(world, b)["clients"]
    assert collector.snapshot().clients[(b["slice_id"], mac)] == (None, None)
    assert (a["slice_id"], mac) not in collector.snapshot().clients
    world.fake.set_client_rates(mac, 2_000, 4_000)
    collector.poll_once(now=T0 + 4)
    assert telemetry(world, b)["clients"][mac] == [{"ts": T0 + 4, "down_bps": 2000, "up_bps": 4000}]
    # The same vap_id reported by another agent is not the slice's vAP.
    world.fake.clients[mac]["agent_id"] = "ap-1"
    collector.poll_once(now=T0 + 6)
    assert (b["slice_id"], mac) not in collector.snapshot().clients


def test_a_vap_missing_from_the_stats_leaves_its_slice_unknown(world, collector):
    s = make_slice(world)
    world.fake.agents["ap-1"]["connected"] = False  # its agent's stats are gone with its connection
    collector.poll_once(now=T0)
    point = telemetry(world, s)["points"][-1]
    assert (point["down_bps"], point["up_bps"], point["clients"]) == (None, None, None)
    assert collector.errors == 0  # not a failed call: the controller answered
    world.fake.agents["ap-1"]["connected"] = True
    collector.poll_once(now=T0 + 2)
    assert telemetry(world, s)["points"][-1]["clients"] == 2


def test_ring_is_bounded(world):
    s = make_slice(world)
    small = TelemetryCollector(world.service.session_factory, world.fake, interval_s=2, window_s=10)
    assert small.ring.slots == 5
    for k in range(12):
        small.poll_once(now=T0 + 2 * k)
    data = small.series(s["slice_id"])
    assert [p["ts"] for p in data["points"]] == [T0 + 2 * k for k in range(7, 12)]
    assert all(len(v) == 5 for v in data["clients"].values())
    # Storage is allocated once: 5 float32 columns x 5 slots per slice, 2 x 5 per client.
    assert len(small.slice_series.series[s["slice_id"]].values) == 25
    assert {len(c.values) for c in small.client_series.series.values()} == {10}
    # A window needing more than 3600 polls is cut at 3600 slots.
    assert TelemetryCollector(world.service.session_factory, world.fake, 0.1, 86_400).ring.slots == 3600


def test_series_set_caps_and_forgets():
    ring = Ring(3)
    series = SeriesSet(ring, 1, max_series=2)
    assert series.record(ring.advance(1.0), {"a": [1.0], "b": [2.0], "c": [3.0]}) == ["c"]
    for t in (2.0, 3.0):
        series.record(ring.advance(t), {"a": [t]})
    assert series.read("b", ring.order()) == [(1.0, (2.0,))]
    series.record(ring.advance(4.0), {"a": [4.0], "c": [5.0]})  # b silent for a whole ring: dropped, c gets in
    assert sorted(series.series) == ["a", "c"]
    assert series.read("a", ring.order(1.5)) == [(2.0, (2.0,)), (3.0, (3.0,)), (4.0, (4.0,))]


def test_deleted_slice_series_are_dropped(world, collector):
    s = make_slice(world)
    collector.poll_once(now=T0)
    assert s["slice_id"] in collector.slice_series.series
    world.call("DELETE", f"/api/v1/tenants/1/slices/{s['slice_id']}", world.tenant_a)
    collector.poll_once(now=T0 + 2)
    assert collector.slice_series.series == {} and collector.client_series.series == {}
    assert collector.snapshot().slices == {}


def test_controller_errors_are_counted_and_leave_gaps(world, collector, caplog):
    caplog.set_level(logging.INFO, logger="wislice_orchestrator.telemetry")
    s = make_slice(world)
    world.fake.fail_always("wifi_stats")
    for k in range(3):
        collector.poll_once(now=T0 + 2 * k)
    point = telemetry(world, s)["points"][-1]
    assert (point["down_bps"], point["up_bps"], point["clients"]) == (None, None, None)
    assert point["guaranteed_down_kbps"] == 5000
    assert collector.errors == 3
    assert sum("telemetry: wifi_stats" in r.message for r in caplog.records) == 1  # logged once, not per poll
    world.fake.clear_failures()
    collector.poll_once(now=T0 + 6)
    assert telemetry(world, s)["points"][-1]["clients"] == 2
    assert any("answers again" in r.message for r in caplog.records)


def test_thread_polls_survives_failures_and_stops(world, collector, monkeypatch):
    make_slice(world)
    quick = TelemetryCollector(world.service.session_factory, world.fake, interval_s=0.02)
    calls = []

    def flaky():
        calls.append(1)
        if len(calls) == 2:
            raise RuntimeError("database went away")
        return TelemetryCollector.load_slices(quick)

    monkeypatch.setattr(quick, "load_slices", flaky)
    quick.start()
    deadline = time.monotonic() + 10
    while quick.polls < 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert quick.polls >= 3 and quick.errors >= 1 and quick.running
    started = time.monotonic()
    quick.stop()
    assert not quick.running and time.monotonic() - started < 2


def test_app_starts_the_collector_when_asked(tmp_path):
    w = make_world(tmp_path, TELEMETRY=True, TELEMETRY_INTERVAL_S=0.05)
    try:
        collector = w.app.extensions["wislice_telemetry"]
        assert collector.running
        make_slice(w)
        deadline = time.monotonic() + 10
        while not collector.snapshot().slices and time.monotonic() < deadline:
            time.sleep(0.02)
        assert collector.snapshot().slices
    finally:
        w.app.extensions["wislice_telemetry"].stop()
        w.app.extensions["wislice_engine"].dispose()
    assert not collector.running


def test_telemetry_endpoint_access_and_query(world, collector):
    s = make_slice(world)
    collector.poll_once(now=T0)
    assert len(telemetry(world, s, token=world.operator)["points"]) == 1
    url = f"/api/v1/tenants/1/slices/{s['slice_id']}/telemetry"
    assert world.call("GET", url, world.tenant_b).status_code == 404
    assert world.call("GET", url).status_code == 401
    for bad in ("-1", "nan", "inf", "soon"):
        resp = world.call("GET", f"{url}?since={bad}", world.tenant_a)
        assert resp.status_code == 422 and resp.mimetype == "application/problem+json"
    # A slice the collector has not seen yet: empty, not an error.
    other = make_slice(world, name="fresh", agent="ap-2")
    assert telemetry(world, other) == {"slice_id": other["slice_id"], "interval_s": 2.0, "points": [],
                                       "clients": {}}


def test_simulated_traffic_moves_the_fake_counters():
    from fake_controllers import FakeControllers

    fake = FakeControllers(simulate_traffic=True)
    fake.create_vap("ap-1", {"vap_id": "v1", "radio": "phy0", "ssid": "x", "security": {"mode": "open"}})
    fake.create_vnf({"tenant_id": 1, "instance_id": 1, "image": "kernel-fwd", "params": {}, "cpu": 0.1, "memory_mib": 1,
                     "chain_position": 0})
    fake.traffic_ts -= 2  # as if two seconds went by
    clients = fake.list_clients()
    assert all(c["tx_bytes"] > 0 and c["rx_bytes"] > 0 and c["tx_bps"] > 0 for c in clients)
    assert {c["mac"] for c in fake.wifi_stats()[0]["clients"]} == {c["mac"] for c in clients}
    assert all(p["rx_bytes"] > 0 for p in fake.vnf_stats(65537)["ports"])


@pytest.mark.parametrize("reply", [
    {"agents": []},  # not a list
    [{"vaps": []}],  # no agent_id
    [{"agent_id": "ap-1", "vaps": [{"vap_id": "v", "tx_bps": "fast", "rx_bps": -1, "clients": 2}]}],
    [{"agent_id": "ap-1", "vaps": [{"vap_id": "v", "tx_bps": 1, "rx_bps": 1, "clients": True}]}],
    [{"agent_id": "ap-1", "radios": "phy0"}],
])
def test_malformed_replies_count_as_errors(world, collector, monkeypatch, reply):
    s = make_slice(world)
    monkeypatch.setattr(world.fake, "wifi_stats", lambda: reply)
    monkeypatch.setattr(world.fake, "vnf_stats", lambda vnf: ["not", "an", "object"])
    collector.poll_once(now=T0)
    assert collector.errors == 2
    point = telemetry(world, s)["points"][0]
    assert (point["down_bps"], point["clients"]) == (None, None)
    assert collector.snapshot().radios == {}
