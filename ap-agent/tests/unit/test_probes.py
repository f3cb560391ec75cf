"""A vAP's latency probe (probes.py) on the fake switch: the session follows the vAP (started when it is up and
attached, started again when the switch lost it, changed in place, stopped when the vAP goes down, drops its probe
or goes away), getLatency's answers and errors, and the stats event's latency."""

import pytest
from conftest import vap_spec
from support.controller import wait_until
from wislice_agent_proto import validate as V
from wislice_agent_proto.errors import AgentError

from wislice_ap_agent import agent as agent_mod
from wislice_ap_agent.handlers import Handlers
from wislice_ap_agent.hostapd_ctrl import HostapdControl
from wislice_ap_agent.pofswitch import NoSwitch
from wislice_ap_agent.probes import probe_mac
from wislice_ap_agent.vaps import VapManager

PROBE = {"source_ip": "10.61.1.250", "target_ip": "10.61.1.1"}
READING = {"sent": 50, "received": 48, "lost": 1, "p50_us": 310, "p90_us": 420, "p99_us": 900, "max_us": 950,
           "samples": 48}


def get_latency(manager, vap_id):
    return Handlers("ap-1", manager).table["getLatency"]({"vap_id": vap_id})


def test_probe_mac_is_locally_administered_unicast_and_per_vap():
    mac = probe_mac("v1")
    first = int(mac[:2], 16)
    assert V.MAC.match(mac) and first & 2 and not first & 1
    assert probe_mac("v1") == mac and probe_mac("v2") != mac


def test_a_probed_vap_gets_its_session_and_getlatency_reads_it(manager, switch):
    vap = manager.create(vap_spec("v1", probe={**PROBE, "interval_ms": 50}))
    manager.create(vap_spec("v2"))  # no probe: no session
    assert switch.probe_starts == [("wlan0_1", vap.slot, probe_mac("v1"), "10.61.1.250", "10.61.1.1", 50_000)]
    assert vap.public()["probe"] == {**PROBE, "interval_ms": 50}
    switch.probe_readings[("wlan0_1", vap.slot)] = READING
    assert get_latency(manager, "v1") == {"vap_id": "v1", **READING}
    for vap_id, code in (("v2", "unsupported"), ("nope", "not_found")):
        with pytest.raises(AgentError) as e:
            get_latency(manager, vap_id)
        assert e.value.code == code
    # the stats event carries the probed vAP only, valid as the protocol says
    data = manager.stats_event(5.0)
    assert data["latency"] == [{"vap_id": "v1", **READING}]
    V.message({"type": "event", "event": "stats", "ts": 1.0, "data": data})
    manager.delete("v1")
    assert switch.probes == {} and "latency" not in manager.stats_event(5.0)


def test_a_session_the_switch_lost_is_started_again(manager, switch):
    vap = manager.create(vap_spec("v1", probe=PROBE))
    key = ("wlan0_1", vap.slot)
    switch.probe_readings[key] = READING
    switch.probes.clear()  # the switch restarted (its ports came back through reattach_lost_ports)
    assert get_latency(manager, "v1") == {"vap_id": "v1", **dict.fromkeys(READING, 0)}  # a new session
    assert key in switch.probes and len(switch.probe_starts) == 2
    switch.detach("wlan0_1")  # the port made again (after a hostapd restart): its session went with it
    switch.attach("wlan0_1", vap.pof_port)
    assert manager.stats_event(5.0).get("latency") is None  # not readable now ...
    manager.probes.sync(manager.vaps)  # ... and started again by the agent's next check
    assert key in switch.probes and len(switch.probe_starts) == 3
    manager.probes.sync(manager.vaps)  # running: left alone
    assert len(switch.probe_starts) == 3


def test_probe_changes_in_place_and_follows_the_vap_state(manager, switch, fake_hostapd):
    manager.create(vap_spec("v1", probe=PROBE))
    moved = {"source_ip": "10.61.1.250", "target_ip": "10.61.2.9", "interval_ms": 1000}
    result = manager.sync([vap_spec("v1", probe=moved)])
    assert result["kept"] == ["v1"] and "wlan0_1" in fake_hostapd.bss  # the BSS stays
    assert switch.probe_starts[-1][3:] == ("10.61.1.250", "10.61.2.9", 1_000_000) and len(switch.probes) == 1
    manager.vaps["v1"].state = "down"
    manager.probes.sync(manager.vaps)
    assert switch.probes == {}
    with pytest.raises(AgentError) as e:
        get_latency(manager, "v1")
    assert e.value.code == "internal" and "down" in e.value.message
    manager.vaps["v1"].state = "up"
    manager.probes.sync(manager.vaps)
    assert len(switch.probes) == 1
    assert manager.sync([vap_spec("v1")])["kept"] == ["v1"] and switch.probes == {}  # probe dropped


def test_update_vap_changes_class_and_probe_in_place(manager, switch, fake_hostapd, shaper):
    """updateVap as a slice's latency class changes: wmm_ac and probe in place, the rates and the BSS kept; a null
    probe stops it; an updateVap with only rate_limit leaves both alone."""
    table = Handlers("ap-1", manager).table
    manager.create(vap_spec("v1"))
    rates = manager.vaps["v1"].spec["rate_limit"]
    vap = table["updateVap"]({"vap_id": "v1", "wmm_ac": "vo", "probe": PROBE})["vap"]
    assert (vap["wmm_ac"], vap["probe"], vap["rate_limit"]) == ("vo", PROBE, rates)
    assert switch.probe_starts[-1][3:] == ("10.61.1.250", "10.61.1.1", 100_000) and "wlan0_1" in fake_hostapd.bss
    assert shaper.acs["wlan0_1"] == "vo"  # the downlink's access category applied
    new_rates = {**rates, "down_kbps": 4000}
    vap = table["updateVap"]({"vap_id": "v1", "rate_limit": new_rates})["vap"]
    assert (vap["wmm_ac"], vap["rate_limit"], len(switch.probes)) == ("vo", new_rates, 1)
    vap = table["updateVap"]({"vap_id": "v1", "wmm_ac": "be", "probe": None})["vap"]
    assert vap["wmm_ac"] == "be" and "probe" not in vap and switch.probes == {}
    with pytest.raises(AgentError) as e:
        table["updateVap"]({"vap_id": "v1", "probe": {"source_ip": "10.61.1.1", "target_ip": "10.61.1.1"}})
    assert e.value.code == "bad_request" and manager.vaps["v1"].spec["wmm_ac"] == "be"


def test_a_session_left_by_an_earlier_agent_is_made_again(manager, switch):
    switch.attach("wlan0_1")
    switch.probes[("wlan0_1", 1)] = ("02:00:00:00:00:99", "10.0.0.1", "10.0.0.2", 10_000)
    manager.create(vap_spec("v1", probe=PROBE))
    assert switch.probes[("wlan0_1", 1)] == (probe_mac("v1"), "10.61.1.250", "10.61.1.1", 100_000)


@pytest.mark.parametrize("probe, why", [
    ({"source_ip": "10.61.1.1", "target_ip": "10.61.1.1"}, "the same address"),
    ({"source_ip": "10.61.1.250", "target_ip": "224.0.0.1"}, "not a unicast"),
    ({"source_ip": "0.0.0.0", "target_ip": "10.61.1.1"}, "not a unicast"),
    ({"source_ip": "10.61.1.250", "target_ip": "10.61.1.01"}, "not allowed"),
    ({"source_ip": "10.61.1.250", "target_ip": "10.61.1.1", "interval_ms": 1}, "at least 10"),
])
def test_bad_probes_are_refused_before_anything_is_made(manager, switch, fake_hostapd, probe, why):
    with pytest.raises(AgentError) as e:
        manager.create(vap_spec("v1", probe=probe))
    assert e.value.code == "bad_request" and why in e.value.message, e.value.message
    assert "wlan0_1" not in fake_hostapd.bss and not switch.ports and not switch.probe_starts


def test_without_a_switch_probes_are_unsupported(fake_hostapd, sockdir, radio, shaper):
    h = HostapdControl(fake_hostapd.path, str(sockdir))
    try:
        m = VapManager(h, [radio], str(sockdir / "conf"), "/var/run/hostapd", shaper, NoSwitch())
        m.create(vap_spec("v1", probe=PROBE))
        with pytest.raises(AgentError) as e:
            get_latency(m, "v1")
        assert e.value.code == "unsupported" and "no pof-switch" in e.value.message
        assert "latency" not in m.stats_event(5.0)
    finally:
        h.close()


def test_the_agent_serves_getlatency_reports_latency_and_restarts_lost_sessions(run_agent, controller, switch,
                                                                                 monkeypatch):
    monkeypatch.setattr(agent_mod, "HOSTAPD_CHECK_S", 0.2)
    run_agent(controller)
    s = controller.next_session()
    assert s.request("createVap", {"vap": vap_spec("v1", probe=PROBE)})["ok"]
    switch.probe_readings[("wlan0_1", 1)] = READING
    assert s.request("getLatency", {"vap_id": "v1"})["result"] == {"vap_id": "v1", **READING}
    s.wait_event("stats", timeout=5, latency=[{"vap_id": "v1", **READING}])  # without polling, too
    switch.probes.clear()  # the switch restarted: the agent's loop starts the session again
    assert wait_until(lambda: ("wlan0_1", 1) in switch.probes, 5) and len(switch.probe_starts) == 2
    assert s.schema_errors == []
