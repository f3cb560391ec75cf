import time

import pytest
from conftest import vap_spec
from support.controller import wait_until
from wislice_agent_proto.errors import AgentError

from wislice_ap_agent.agent import Agent  # noqa: F401 - import check: the whole package loads
from wislice_ap_agent.events import parse_event
from wislice_ap_agent.hostapd_ctrl import CtrlConnection, HostapdControl
from wislice_ap_agent.vaps import VapManager


def test_create_renders_adds_shapes_attaches(manager, fake_hostapd, shaper, switch):
    spec = vap_spec("v1", security={"mode": "wpa2-psk", "passphrase": "secret123"},
                    rate_limit={"down_kbps": 5000, "up_kbps": 2000})
    vap = manager.create(spec)
    assert vap.ifname == "wlan0_1" and vap.bssid == "02:00:00:00:00:01" and vap.state == "up"
    assert fake_hostapd.bss["wlan0_1"].conf["wpa_passphrase"] == "secret123"
    assert shaper.caps["wlan0_1"] == (5000, 2000)
    assert vap.pof_port == switch.ports["wlan0_1"]
    public = vap.public()
    assert public["security"] == {"mode": "wpa2-psk"} and "secret123" not in repr(public)
    assert ("vapState", {"vap_id": "v1", "state": "up"}) in manager.emitted
    conf = manager.conf_dir / "wlan0_1.conf"
    assert conf.stat().st_mode & 0o777 == 0o600


def test_delete_undoes_everything(manager, fake_hostapd, shaper, switch):
    manager.create(vap_spec("v1", rate_limit={"down_kbps": 100, "up_kbps": 0}))
    fake_hostapd.associate("wlan0_1", "02:00:00:00:01:00")
    manager.vaps["v1"].clients["02:00:00:00:01:00"] = time.monotonic()
    manager.delete("v1")
    assert "wlan0_1" not in fake_hostapd.bss and not shaper.caps and not switch.ports
    assert list(manager.conf_dir.iterdir()) == []
    assert ("clientDisassociated", {"vap_id": "v1", "mac": "02:00:00:00:01:00"}) in manager.emitted
    with pytest.raises(AgentError) as e:
        manager.delete("v1")
    assert e.value.code == "not_found"


def test_capacity_conflict_unknown_radio(manager):
    for i in range(4):
        manager.create(vap_spec(f"v{i}"))
    with pytest.raises(AgentError) as e:
        manager.create(vap_spec("v9"))
    assert e.value.code == "capacity"
    with pytest.raises(AgentError) as e:
        manager.create(vap_spec("v0"))
    assert e.value.code == "conflict"
    manager.delete("v2")
    assert manager.create(vap_spec("v9")).slot == 3  # the freed slot is reused
    with pytest.raises(AgentError) as e:
        manager.create(vap_spec("vx", radio="phy7"))
    assert e.value.code == "not_found"
    assert manager.radio_list()[0]["vaps_used"] == 4


def test_bad_spec_touches_nothing(manager, fake_hostapd):
    with pytest.raises(AgentError) as e:
        manager.create(vap_spec("v1", ssid="x\nctrl_interface=/tmp"))
    assert e.value.code == "bad_request" and "ssid" in e.value.message
    assert fake_hostapd.commands_named("ADD") == []


def test_hostapd_refusal_and_shaping_failure_roll_back(manager, fake_hostapd, shaper):
    fake_hostapd.fail_next["ADD"] = "FAIL\n"
    with pytest.raises(AgentError, match="hostapd could not add"):
        manager.create(vap_spec("v1"))
    assert list(manager.conf_dir.iterdir()) == [] and not manager.vaps
    shaper.fail = True
    with pytest.raises(AgentError, match="tc exploded"):
        manager.create(vap_spec("v1", rate_limit={"down_kbps": 1, "up_kbps": 1}))
    assert "wlan0_1" not in fake_hostapd.bss and not manager.vaps


def test_sync_keeps_matching_untouched(manager, fake_hostapd, shaper):
    a, b, c = vap_spec("a"), vap_spec("b"), vap_spec("c")
    manager.create(a)
    manager.create(b)
    adds, removes = len(fake_hostapd.commands_named("ADD")), len(fake_hostapd.commands_named("REMOVE"))
    b2 = dict(b, rate_limit={"down_kbps": 3000, "up_kbps": 0})  # only the cap changes: applied in place
    result = manager.sync([dict(a), b2, c])
    assert result == {"created": ["c"], "removed": [], "kept": ["a", "b"], "failed": []}
    assert len(fake_hostapd.commands_named("ADD")) == adds + 1
    assert len(fake_hostapd.commands_named("REMOVE")) == removes
    assert shaper.caps["wlan0_2"] == (3000, 0)
    shaper.fail = True  # a labels-only change must not touch the qdiscs at all
    assert manager.sync([dict(a), dict(b2, slice_id="s-9"), c])["kept"] == ["a", "b", "c"]
    assert manager.vaps["b"].spec["slice_id"] == "s-9"
    shaper.fail = False
    # SSID change -> re-created; missing -> removed
    result = manager.sync([dict(a, ssid="new"), c])
    assert result["removed"] == ["a", "b"] and result["created"] == ["a"] and result["kept"] == ["c"]
    result = manager.sync([])
    assert sorted(result["removed"]) == ["a", "c"] and result["created"] == result["kept"] == []
    assert list(fake_hostapd.bss) == ["wlan0"]


def test_sync_reports_failures_and_duplicates(manager):
    specs = [vap_spec(f"v{i}") for i in range(5)]  # radio max is 4
    result = manager.sync(specs)
    assert len(result["created"]) == 4 and result["failed"][0]["error"]["code"] == "capacity"
    with pytest.raises(AgentError):
        manager.sync([vap_spec("d"), vap_spec("d")])


def test_events_become_protocol_events(manager, fake_hostapd, sockdir):
    ev = CtrlConnection(fake_hostapd.path, str(sockdir))
    ev.attach()
    manager.create(vap_spec("v1"))
    fake_hostapd.associate("wlan0_1", "02:00:00:00:01:00", signal=-51)
    fake_hostapd.associate("wlan0", "02:00:00:00:09:00")  # the primary BSS is not a vAP: ignored

    def pump():
        while (line := ev.recv_event()) is not None:
            manager.on_event(parse_event(line))
        return any(n == "clientAssociated" for n, _ in manager.emitted)

    assert wait_until(pump, 3)
    assert ("clientAssociated", {"vap_id": "v1", "mac": "02:00:00:00:01:00", "signal_dbm": -51}) in manager.emitted
    assert manager.stations.find()[0]["signal_dbm"] == -51 and manager.stations.find()[0]["connected_s"] == 3
    manager.stations.remove("02:00:00:00:01:00", reason=3)
    assert fake_hostapd.commands_named("DEAUTHENTICATE") == ["DEAUTHENTICATE 02:00:00:00:01:00 reason=3"]
    assert wait_until(lambda: pump() and any(n == "clientDisassociated" for n, _ in manager.emitted), 3)
    assert len(manager.vaps["v1"].clients) == 0
    with pytest.raises(AgentError) as e:
        manager.stations.remove("02:00:00:00:01:00")
    assert e.value.code == "not_found"
    ev.close()


def test_change_channel(manager, fake_hostapd):
    r = manager.change_channel("phy0", 11, 5)
    assert r["channel"] == 11 and fake_hostapd.commands_named("CHAN_SWITCH") == ["CHAN_SWITCH 5 2462"]
    manager.create(vap_spec("v1"))  # new vAPs follow the radio's new channel
    assert fake_hostapd.bss["wlan0_1"].conf["channel"] == "11"
    with pytest.raises(AgentError) as e:
        manager.change_channel("phy0", 36)
    assert e.value.code == "bad_request"


def test_adopt_existing_after_restart(manager, fake_hostapd, sockdir, radio, shaper, switch):
    manager.create(vap_spec("v1"))
    manager.create(vap_spec("v2"))
    fake_hostapd.remove_quietly = fake_hostapd.bss.pop("wlan0_2")  # hostapd lost v2 while we were away
    again = VapManager(HostapdControl(fake_hostapd.path, str(sockdir)), [radio], str(manager.conf_dir),
                       "/var/run/hostapd", shaper, switch)
    assert again.adopt_existing() == ["v1"]
    assert again.vaps["v1"].ifname == "wlan0_1" and again.vaps["v1"].state == "up"
    assert sorted(p.name for p in again.conf_dir.iterdir()) == ["wlan0_1.conf", "wlan0_1.json"]
    again.hostapd.close()


def test_a_creation_cut_short_by_a_crash_is_swept_at_restart(manager, fake_hostapd, sockdir, radio, shaper,
                                                              switch):
    manager.create(vap_spec("v1"))
    manager.create(vap_spec("v2", rate_limit={"down_kbps": 100, "up_kbps": 0}))
    (manager.conf_dir / "wlan0_2.json").unlink()  # killed after hostapd, shaping and the switch, before its state
    again = VapManager(HostapdControl(fake_hostapd.path, str(sockdir)), [radio], str(manager.conf_dir),
                       "/var/run/hostapd", shaper, switch)
    assert again.adopt_existing() == ["v1"]
    assert "wlan0_2" not in fake_hostapd.bss and "wlan0_2" not in shaper.caps and "wlan0_2" not in switch.ports
    assert "wlan0_1" in fake_hostapd.bss and "wlan0_1" in switch.ports
    assert sorted(p.name for p in again.conf_dir.iterdir()) == ["wlan0_1.conf", "wlan0_1.json"]
    again.hostapd.close()


def test_ports_a_restarted_switch_lost_come_back_with_their_numbers(manager, switch):
    manager.create(vap_spec("v1"))
    manager.create(vap_spec("v2"))
    numbers = dict(switch.ports)
    switch.ports.clear()  # the switch restarted with its command-line ports only
    switch.port_rates.clear()
    assert manager.reattach_lost_ports() == ["v1", "v2"]
    assert switch.ports == numbers and switch.port_rates  # the uplink is rated again too
    assert manager.reattach_lost_ports() == []  # nothing lost: nothing asked of the switch


def test_rates_from_sysfs(manager, tmp_path):
    from wislice_ap_agent.stats import RateMeter

    stats = tmp_path / "wlan0_1" / "statistics"
    stats.mkdir(parents=True)

    def write(tx, rx):
        for name, v in (("tx_bytes", tx), ("rx_bytes", rx), ("tx_packets", tx // 100), ("rx_packets", rx // 100)):
            (stats / name).write_text(f"{v}\n")

    write(0, 0)
    manager.meter = RateMeter(tmp_path)
    manager.create(vap_spec("v1"))
    time.sleep(0.6)
    write(125_000, 12_500)
    tx = manager.rate("v1", "tx")
    assert tx["bps"] * tx["interval_s"] == pytest.approx(1.0e6, rel=0.01) and tx["vap_id"] == "v1"
    rx = manager.rate("v1", "rx")
    assert rx["bps"] == pytest.approx(tx["bps"] / 10, rel=1e-6)
    assert manager.stats()[0]["vap_id"] == "v1"


# ---- guarantees, updateVap, radio capacity ------------------------------------------------------------------


def test_guarantees_reach_the_shaper_and_survive_a_restart(manager, fake_hostapd, sockdir, radio, shaper, switch):
    rates = {"down_kbps": 0, "up_kbps": 4000, "down_guaranteed_kbps": 8000, "up_guaranteed_kbps": 1000}
    vap = manager.create(vap_spec("v1", rate_limit=rates))
    assert shaper.calls[-1] == ("apply", "phy0", "wlan0_1", 1, rates)
    assert vap.public()["rate_limit"] == rates
    new = {"down_kbps": 20000, "up_kbps": 0, "down_guaranteed_kbps": 12000}
    adds = len(fake_hostapd.commands_named("ADD"))
    assert manager.update("v1", {"rate_limit": new}).public()["rate_limit"] == new
    assert shaper.rates["wlan0_1"] == new
    assert len(fake_hostapd.commands_named("ADD")) == adds and fake_hostapd.commands_named("REMOVE") == []
    # the agent restarts: the state file has the new rates, and they are applied again
    again_shaper = type(shaper)()
    again = VapManager(HostapdControl(fake_hostapd.path, str(sockdir)), [radio], str(manager.conf_dir),
                       "/var/run/hostapd", again_shaper, switch)
    again.setup_radios()
    assert again.adopt_existing() == ["v1"]
    assert again.vaps["v1"].spec["rate_limit"] == new
    assert again_shaper.calls == [("add_radio", "phy0", "wlan0", 20000), ("apply", "phy0", "wlan0_1", 1, new)]
    again.hostapd.close()


@pytest.mark.parametrize("rates", [
    {"down_kbps": 5000, "up_kbps": 0, "down_guaranteed_kbps": 5001},
    {"down_kbps": 0, "up_kbps": 100, "up_guaranteed_kbps": 200},
])
def test_guarantee_above_cap_is_a_bad_request(manager, fake_hostapd, rates):
    with pytest.raises(AgentError) as e:
        manager.create(vap_spec("v1", rate_limit=rates))
    assert e.value.code == "bad_request" and "guarantee" in e.value.message
    assert fake_hostapd.commands_named("ADD") == []
    manager.create(vap_spec("v1"))
    with pytest.raises(AgentError) as e:
        manager.update("v1", {"rate_limit": rates})
    assert e.value.code == "bad_request"
    result = manager.sync([vap_spec("v1", rate_limit=rates)])
    assert result["failed"][0]["error"]["code"] == "bad_request" and result["kept"] == []
    assert manager.vaps["v1"].spec["rate_limit"] == {"down_kbps": 0, "up_kbps": 0}
    # equal to the cap, or any guarantee with no cap, is fine
    manager.update("v1", {"rate_limit": {"down_kbps": 5000, "up_kbps": 0, "down_guaranteed_kbps": 5000}})
    manager.update("v1", {"rate_limit": {"down_kbps": 0, "up_kbps": 0, "up_guaranteed_kbps": 9000}})


def test_update_unknown_vap_and_disabled_shaping(manager, fake_hostapd, sockdir, radio):
    with pytest.raises(AgentError) as e:
        manager.update("nope", {"rate_limit": {"down_kbps": 0, "up_kbps": 0}})
    assert e.value.code == "not_found"
    plain = VapManager(HostapdControl(fake_hostapd.path, str(sockdir)), [radio], str(sockdir / "c2"),
                       "/var/run/hostapd")
    plain.create(vap_spec("p1"))
    with pytest.raises(AgentError) as e:
        plain.update("p1", {"rate_limit": {"down_kbps": 0, "up_kbps": 0, "down_guaranteed_kbps": 100}})
    assert e.value.code == "unsupported"
    plain.hostapd.close()


def test_radio_capacity_default_operator_measured(fake_hostapd, sockdir, radio, shaper, switch):
    import dataclasses

    h = HostapdControl(fake_hostapd.path, str(sockdir))
    m = VapManager(h, [radio], str(sockdir / "conf"), "/var/run/hostapd", shaper, switch, default_capacity_kbps=15000)
    m.setup_radios()
    assert shaper.radios == {"phy0": 15000} and switch.port_rates == [("up", 15000)]
    assert m.radio_list()[0]["capacity_kbps"] == 15000 and m.radio_list()[0]["capacity_source"] == "default"
    m.create(vap_spec("v1"))
    fake_hostapd.associate("wlan0_1", "02:00:00:00:01:00")
    fake_hostapd.associate("wlan0", "02:00:00:00:02:00")
    fake_hostapd.bss["wlan0_1"].stations["02:00:00:00:01:00"].update(tx_rate_info="540 mcs 7", tx_packets="800")
    fake_hostapd.bss["wlan0"].stations["02:00:00:00:02:00"].update(tx_rate_info="650", tx_packets="800")
    assert m.refresh_capacity() == ["phy0"]  # median 59.5 Mbit/s, half of it usable
    assert m.radio_capacities() == [{"name": "phy0", "capacity_kbps": 29750, "capacity_source": "measured"}]
    assert shaper.calls[-1] == ("set_capacity", "phy0", 29750) and switch.port_rates[-1] == ("up", 29750)
    assert m.refresh_capacity() == []  # steady: nothing re-rated
    fake_hostapd.bss["wlan0_1"].stations.clear()
    fake_hostapd.bss["wlan0"].stations.clear()
    assert m.refresh_capacity() == ["phy0"] and m.radio_capacities()[0]["capacity_source"] == "default"
    h.close()
    op = VapManager(HostapdControl(fake_hostapd.path, str(sockdir)), [dataclasses.replace(radio, capacity_kbps=9000)],
                    str(sockdir / "conf2"), "/var/run/hostapd", shaper, switch)
    op.setup_radios()
    assert op.radio_list()[0]["capacity_kbps"] == 9000 and op.radio_list()[0]["capacity_source"] == "operator"
    assert op.refresh_capacity() == []
    op.hostapd.close()


def test_switch_uplink_rate_problems(fake_hostapd, sockdir, radio, shaper, switch, caplog):
    h = HostapdControl(fake_hostapd.path, str(sockdir))
    m = VapManager(h, [radio], str(sockdir / "conf"), "/var/run/hostapd", shaper, switch, uplink_port="wan")
    switch.port_rate_error = "ERROR no port wan"
    m.setup_radios()
    assert switch.port_rates == [] and "wan" not in caplog.text  # quiet: the switch has no such port (yet)
    switch.port_rate_error = None
    m.update_uplink_rate()  # retried: the port came
    assert switch.port_rates == [("wan", 20000)]
    m.uplink.rate = None
    switch.port_rate_error = "ERROR unknown command port-rate"
    m.update_uplink_rate()
    m.update_uplink_rate()
    assert caplog.text.count("no port-rate command") == 1  # one warning, then no more attempts
    h.close()
