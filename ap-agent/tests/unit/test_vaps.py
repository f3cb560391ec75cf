import time

import pytest
from conftest import vap_spec
from support.controller import wait_until

from wislice_ap_agent.agent import Agent  # noqa: F401 - import check: the whole package loads
from wislice_ap_agent.errors import AgentError
from wislice_ap_agent.events import parse_event
from wislice_ap_agent.hostapd_ctrl import CtrlConnection, HostapdControl
from wislice_ap_agent.vaps import VapManager


@pytest.fixture
def manager(fake_hostapd, sockdir, radio, shaper, switch):
    emitted = []
    h = HostapdControl(fake_hostapd.path, str(sockdir))
    m = VapManager(h, [radio], str(sockdir / "conf"), "/var/run/hostapd", shaper, switch,
                   emit=lambda name, data: emitted.append((name, data)))
    m.emitted = emitted
    yield m
    h.close()


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
    assert manager.clients()[0]["signal_dbm"] == -51 and manager.clients()[0]["connected_s"] == 3
    manager.remove_client("02:00:00:00:01:00", reason=3)
    assert fake_hostapd.commands_named("DEAUTHENTICATE") == ["DEAUTHENTICATE 02:00:00:00:01:00 reason=3"]
    assert wait_until(lambda: pump() and any(n == "clientDisassociated" for n, _ in manager.emitted), 3)
    assert len(manager.vaps["v1"].clients) == 0
    with pytest.raises(AgentError) as e:
        manager.remove_client("02:00:00:00:01:00")
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
