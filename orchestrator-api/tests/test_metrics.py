"""GET /metrics: Prometheus text format 0.0.4 (checked line by line and parsed back), the telemetry gauges, label
escaping, and who may scrape."""

from __future__ import annotations

import re

from orch_helpers import make_world, slice_body
from prometheus_client.parser import text_string_to_metric_families

T0 = 1_700_000_000.0
NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
LABEL_VALUE = r'"(?:[^"\\\n]|\\[\\"n])*"'
SAMPLE = re.compile(rf"^{NAME}(?:\{{{NAME}={LABEL_VALUE}(?:,{NAME}={LABEL_VALUE})*\}})? "
                    r"(?:[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|Inf)|NaN)$")
HELP = re.compile(rf"^# HELP {NAME} (?:[^\\\n]|\\[\\n])*$")
TYPE = re.compile(rf"^# TYPE {NAME} (?:counter|gauge|histogram|summary|untyped)$")


def scrape(world, token="operator"):
    resp = world.call("GET", "/metrics", getattr(world, token) if token else None)
    return resp


def with_traffic(world):
    created = world.call("POST", "/api/v1/tenants/1/slices", world.tenant_a, json=slice_body()).get_json()
    s = world.call("GET", f"/api/v1/tenants/1/slices/{created['slice_id']}", world.tenant_a).get_json()
    vap, vnf = s["vaps"][0]["vap_id"], s["vnfs"][0]["vnf_id"]
    collector = world.app.extensions["wislice_telemetry"]
    world.fake.set_vap_rates(vap, 6_000_000, 1_500_000)
    world.fake.agents["ap-1"]["radios"][0].update(capacity_kbps=54_000, capacity_source="measured")
    mac = sorted(m for m, c in world.fake.clients.items() if c["vap_id"] == vap)[0]
    for k, (rates, port_bytes) in enumerate([((None, None), 0), ((2_000_000, 1_000_000), 250_000)]):
        world.fake.set_client_rates(mac, *rates)
        world.fake.set_vnf_counters(vnf, "in", port_bytes, port_bytes)
        collector.poll_once(now=T0 + 2 * k)
    return s, mac, vnf


def check_format(text):
    """Every line is a HELP, a TYPE or a sample line of format 0.0.4; every family has HELP and TYPE first."""
    assert text.endswith("\n")
    typed = set()
    for line in text.splitlines():
        if line.startswith("# HELP "):
            assert HELP.match(line), line
        elif line.startswith("# TYPE "):
            assert TYPE.match(line), line
            typed.add(line.split()[2])
        else:
            assert SAMPLE.match(line), line
            name = line.split("{")[0].split(" ")[0]
            assert any(name == t or name.startswith(t + "_") for t in typed), line
    return {f.name: f for f in text_string_to_metric_families(text)}


def samples(families, name):
    return {tuple(sorted(s.labels.items())): s.value for f in families.values() for s in f.samples if s.name == name}


def test_metrics_need_an_operator(world):
    anonymous = scrape(world, None)
    assert anonymous.status_code == 401 and anonymous.headers["WWW-Authenticate"].startswith("Bearer")
    assert anonymous.mimetype == "application/problem+json"
    assert scrape(world, "tenant_a").status_code == 403
    resp = scrape(world)
    assert resp.status_code == 200
    assert resp.headers["Content-Type"] == "text/plain; version=0.0.4; charset=utf-8"


def test_metrics_public_when_configured(tmp_path):
    w = make_world(tmp_path, METRICS_PUBLIC=True)
    try:
        assert scrape(w, None).status_code == 200
    finally:
        w.app.extensions["wislice_engine"].dispose()


def test_telemetry_gauges(world):
    s, mac, vnf = with_traffic(world)
    families = check_format(scrape(world).get_data(as_text=True))
    sid = str(s["slice_id"])
    assert samples(families, "wislice_slice_rate_bps") == {
        (("direction", "down"), ("slice_id", sid), ("tenant_id", "1")): 6_000_000,
        (("direction", "up"), ("slice_id", sid), ("tenant_id", "1")): 1_500_000}
    assert samples(families, "wislice_slice_guaranteed_kbps") == {
        (("direction", "down"), ("slice_id", sid), ("tenant_id", "1")): 5000,
        (("direction", "up"), ("slice_id", sid), ("tenant_id", "1")): 1000}
    assert samples(families, "wislice_slice_cap_kbps") == {
        (("direction", "down"), ("slice_id", sid), ("tenant_id", "1")): 20000,
        (("direction", "up"), ("slice_id", sid), ("tenant_id", "1")): 5000}
    assert samples(families, "wislice_slice_clients") == {(("slice_id", sid), ("tenant_id", "1")): 2}
    client = samples(families, "wislice_client_rate_bps")
    assert client[(("direction", "down"), ("mac", mac), ("slice_id", sid))] == 2_000_000
    assert client[(("direction", "up"), ("mac", mac), ("slice_id", sid))] == 1_000_000
    assert samples(families, "wislice_vnf_port_rate_bps")[
        (("direction", "rx"), ("port", "in"), ("slice_id", sid), ("vnf_id", str(vnf)))] == 1_000_000
    assert samples(families, "wislice_radio_capacity_kbps") == {(("agent_id", "ap-1"), ("radio", "phy0")): 54_000}
    assert samples(families, "wislice_slices") == {(("status", "active"),): 1}
    assert samples(families, "wislice_telemetry_poll_errors_total") == {(): 0}
    assert families["wislice_telemetry_poll_errors"].type == "counter"
    assert families["wislice_slice_rate_bps"].type == "gauge"
    assert families["wislice_operations"].type == "counter"
    assert samples(families, "wislice_operations_total") == {(("kind", "create_slice"), ("status", "succeeded")): 1}


def test_errors_counter_and_missing_rates(world):
    s, _, _ = with_traffic(world)
    world.fake.clear_failures()
    world.fake.fail_always("wifi_stats")
    world.app.extensions["wislice_telemetry"].poll_once(now=T0 + 4)
    families = check_format(scrape(world).get_data(as_text=True))
    assert samples(families, "wislice_telemetry_poll_errors_total") == {(): 1}
    assert samples(families, "wislice_slice_rate_bps") == {}  # unknown now: left out, not a stale value
    assert samples(families, "wislice_slice_guaranteed_kbps")  # still known


def test_label_values_are_escaped(world):
    s, _, _ = with_traffic(world)
    vap = s["vaps"][0]["vap_id"]
    odd = 'a"b\\c\nd'
    world.fake.clients[odd] = {"mac": odd, "vap_id": vap, "agent_id": "ap-1", "signal_dbm": -50, "connected_s": 1,
                               "tx_bytes": 0, "rx_bytes": 0}
    world.fake.agents["ap-1"]["radios"][0]["name"] = odd
    collector = world.app.extensions["wislice_telemetry"]
    collector.poll_once(now=T0 + 4)
    world.fake.set_client_rates(odd, 1000, 1000)
    collector.poll_once(now=T0 + 6)
    text = scrape(world).get_data(as_text=True)
    assert 'radio="a\\"b\\\\c\\nd"' in text
    families = check_format(text)
    assert (("agent_id", "ap-1"), ("radio", odd)) in samples(families, "wislice_radio_capacity_kbps")
    assert any(dict(k)["mac"] == odd for k in samples(families, "wislice_client_rate_bps"))
