"""/metrics of the ap-agent (metrics.py): what the stats event gathered, as Prometheus text format read back
strictly; the agent's own server on 127.0.0.1:0 scraped over HTTP with and without a controller session, its
token, and the config keys."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import fake_sysfs, vap_spec
from support.controller import wait_until
from wislice_agent_proto import prometheus as P

from wislice_ap_agent import config as config_mod
from wislice_ap_agent.metrics import ApMetrics
from wislice_ap_agent.stats import RateMeter

A, B = "02:00:00:00:01:00", "02:00:00:00:02:00"
TOKEN = "ap-metrics-token-0123456789"
ROOT = Path(__file__).resolve().parents[3]
SPEC = json.loads((ROOT / "spec" / "agent-metrics" / "metrics.json").read_text())["ap"]
RATES = {"down_kbps": 20000, "up_kbps": 5000, "down_guaranteed_kbps": 5000, "up_guaranteed_kbps": 1000}


def vap_ids(vap_id, slice_id="s-1", tenant_id="1"):
    return (("agent_id", "ap-1"), ("radio", "phy0"), ("slice_id", slice_id), ("tenant_id", tenant_id),
            ("vap_id", vap_id))


def way(ids, direction):
    return tuple(sorted((*ids, ("direction", direction))))


def write_counters(root, ifname, **values):
    for name, value in values.items():
        (root / ifname / "statistics" / name).write_text(f"{value}\n")


class Clock:
    t = 50.0

    def __call__(self) -> float:
        return self.t


def test_families_from_the_stats_event(manager, fake_hostapd, sockdir):
    sysfs = fake_sysfs(sockdir / "sys")
    manager.meter = RateMeter(sysfs)
    manager.create(vap_spec("v1", tenant_id=7, slice_id="s-7", rate_limit=RATES))
    manager.create(vap_spec("v2"))
    fake_hostapd.associate("wlan0_1", A, signal=-51)
    fake_hostapd.associate("wlan0_2", B, signal=None)
    manager.vaps["v1"].clients[A] = 0.0  # what the agent's loop does on hostapd's AP-STA-CONNECTED
    write_counters(sysfs, "wlan0_1", tx_bytes=5000, rx_bytes=700)
    clock = Clock()
    metrics = ApMetrics("ap-1", lambda: False, clock)
    metrics.record(manager, manager.stats_event(5))
    fake_hostapd.bss["wlan0_1"].stations[A].update(tx_bytes="9000", connected_time="9")
    data = manager.stats_event(5)
    clock.t += 1.5
    metrics.record(manager, data)
    clock.t += 0.25
    parsed = P.parse(metrics.render())

    assert parsed["wislice_ap_connected"].samples == {(("agent_id", "ap-1"),): 0}
    assert parsed["wislice_ap_stats_age_seconds"].samples == {(("agent_id", "ap-1"),): 0.25}
    v1, v2 = vap_ids("v1", "s-7", "7"), vap_ids("v2")
    sent = parsed["wislice_ap_vap_bytes_total"]
    assert sent.kind == "counter"
    assert sent.samples[way(v1, "tx")] == 5000 and sent.samples[way(v1, "rx")] == 700
    assert sent.samples[way(v2, "tx")] == 0
    rate = parsed["wislice_ap_vap_rate_bps"].samples
    assert rate[way(v1, "tx")] == data["vaps"][0]["tx_bps"] and rate[way(v2, "rx")] == data["vaps"][1]["rx_bps"]
    assert parsed["wislice_ap_vap_clients"].samples == {v1: 1, v2: 0}
    assert parsed["wislice_ap_vap_guaranteed_kbps"].samples == {
        way(v1, "down"): 5000, way(v1, "up"): 1000, way(v2, "down"): 0, way(v2, "up"): 0}
    assert parsed["wislice_ap_vap_cap_kbps"].samples == {
        way(v1, "down"): 20000, way(v1, "up"): 5000, way(v2, "down"): 0, way(v2, "up"): 0}
    assert parsed["wislice_ap_radio_capacity_kbps"].samples == {
        (("agent_id", "ap-1"), ("radio", "phy0"), ("source", "default")): 20000}
    a = (("agent_id", "ap-1"), ("mac", A), ("vap_id", "v1"))
    b = (("agent_id", "ap-1"), ("mac", B), ("vap_id", "v2"))
    assert parsed["wislice_ap_client_bytes_total"].samples == {
        way(a, "tx"): 9000, way(a, "rx"): 2000, way(b, "tx"): 1000, way(b, "rx"): 2000}
    client_rate = parsed["wislice_ap_client_rate_bps"].samples
    assert client_rate[way(a, "tx")] == data["clients"][0]["tx_bps"] > 0 and client_rate[way(b, "rx")] == 0
    assert parsed["wislice_ap_client_signal_dbm"].samples == {a: -51}  # B's hostapd entry has no signal

    # every family of spec/agent-metrics, in its order, with its type and labels; the README's table names them all
    assert [(f.name, f.kind, list(f.labels)) for f in metrics.families()] == [
        (w["name"], w["type"], w["labels"]) for w in SPEC]
    assert re.findall(r"^\| `(wislice_\w+)` \|", (ROOT / "ap-agent" / "README.md").read_text(), re.M) == [
        w["name"] for w in SPEC]
    for w in SPEC:
        for label, values in w.get("values", {}).items():
            assert {dict(k)[label] for k in parsed[w["name"]].samples} <= set(values), w["name"]


def test_a_vap_removed_after_the_event_and_a_station_listed_twice(manager, fake_hostapd):
    manager.create(vap_spec("v1"))
    fake_hostapd.associate("wlan0_1", A)
    data = manager.stats_event(5)
    data["clients"].append(dict(data["clients"][0]))
    manager.delete("v1")
    metrics = ApMetrics("ap-1", lambda: True)
    metrics.record(manager, data)
    parsed = P.parse(metrics.render())
    assert parsed["wislice_ap_vap_clients"].samples == {}
    assert len(parsed["wislice_ap_client_bytes_total"].samples) == 2
    assert parsed["wislice_ap_connected"].samples == {(("agent_id", "ap-1"),): 1}


def test_before_any_stats_event():
    parsed = P.parse(ApMetrics("ap-1", lambda: False).render())
    assert list(parsed) == ["wislice_ap_connected", "wislice_ap_stats_age_seconds"]
    assert parsed["wislice_ap_stats_age_seconds"].samples == {}


def test_the_agents_server_with_and_without_a_controller(run_agent, controller, fake_hostapd, sockdir):
    token_file = sockdir / "metrics.token"
    token_file.write_text(TOKEN + "\n")
    agent = run_agent(controller, metrics_listen="127.0.0.1:0", metrics_token_file=str(token_file))
    address = agent.metrics_server.address
    assert address[0] == "127.0.0.1" and address[1] > 0

    def scrape():
        status, headers, body = P.scrape(address, token=TOKEN)
        assert status == 200 and headers["Content-Type"] == P.CONTENT_TYPE
        return P.parse(body)

    def connected():
        return scrape()["wislice_ap_connected"].samples[(("agent_id", "ap-1"),)]

    s = controller.next_session()
    assert wait_until(lambda: connected() == 1, 5)
    assert P.scrape(address)[0] == 401 and P.scrape(address, token="not-" + TOKEN)[0] == 401
    assert P.scrape(address, "/", token=TOKEN)[0] == 404
    assert s.request("createVap", {"vap": vap_spec("v1", rate_limit=RATES)})["ok"]
    fake_hostapd.associate("wlan0_1", A, signal=-60)
    s.discard("stats")
    s.wait_event("stats", timeout=5)
    parsed = scrape()
    assert parsed["wislice_ap_vap_cap_kbps"].samples[way(vap_ids("v1"), "down")] == 20000
    station = (("agent_id", "ap-1"), ("mac", A), ("vap_id", "v1"))
    assert parsed["wislice_ap_client_signal_dbm"].samples == {station: -60}
    controller.close()  # the controller goes away: /metrics goes on, from stats the agent makes itself
    assert wait_until(lambda: connected() == 0, 10)
    fake_hostapd.bss["wlan0_1"].stations[A]["signal"] = "-70"
    assert wait_until(lambda: scrape()["wislice_ap_client_signal_dbm"].samples == {station: -70}, 5)
    assert scrape()["wislice_ap_stats_age_seconds"].samples[(("agent_id", "ap-1"),)] < 2.5


def test_config_keys(tmp_path):
    base = {"agent_id": "a", "controller": "h:1", "hostapd_global": "/g", "radios": [{"name": "phy0",
                                                                                       "iface": "wlan0"}]}
    assert config_mod.from_dict(base).metrics_listen is None  # off by default
    assert config_mod.from_dict({**base, "metrics_listen": ""}).metrics_listen is None
    cfg = config_mod.from_dict({**base, "metrics_listen": "[::1]:9690"})
    assert (cfg.metrics_listen, cfg.metrics_token) == (("::1", 9690), None)
    (tmp_path / "token").write_text(TOKEN)
    ini = tmp_path / "agent.ini"
    ini.write_text("[agent]\nagent_id = a\ncontroller = h:1\nhostapd_global = /g\nmetrics_listen = 0.0.0.0:9690\n"
                   "metrics_token_file = token\n[radio phy0]\niface = wlan0\n")
    cfg = config_mod.load(str(ini))  # a relative token file is beside the config, as secret_file is
    assert (cfg.metrics_listen, cfg.metrics_token) == (("0.0.0.0", 9690), TOKEN)
    for bad in ({"metrics_listen": "9690"}, {"metrics_listen": "h:99999"}, {"metrics_listen": "h:1 x"},
                {"metrics_token_file": str(tmp_path / "missing")}):
        with pytest.raises(config_mod.ConfigError, match="metrics"):
            config_mod.from_dict({**base, **bad})
    (tmp_path / "token").write_text("short")
    with pytest.raises(config_mod.ConfigError, match="token"):
        config_mod.from_dict({**base, "metrics_token_file": str(tmp_path / "token")})
