"""Per-client counters and rates in the stats event (clients.py), and getClient / removeClient errors."""

import pytest
from conftest import vap_spec
from support.controller import VALIDATOR
from wislice_agent_proto import validate as V
from wislice_agent_proto.errors import AgentError

from wislice_ap_agent.clients import ClientMeter, StationWalk
from wislice_ap_agent.hostapd_ctrl import HostapdControl

A, B = "02:00:00:00:01:00", "02:00:00:00:02:00"


class Clock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def sta(mac, tx, rx, connected=10):
    return {"mac": mac, "tx_bytes": str(tx), "rx_bytes": str(rx), "connected_time": str(connected)}


def test_rates_from_the_second_reading_of_an_association():
    clock = Clock()
    meter = ClientMeter(clock)
    first = meter.sample([("v1", sta(A, 1000, 500)), ("v1", sta(B, 0, 0))])
    assert first == [{"mac": A, "vap_id": "v1", "tx_bytes": 1000, "rx_bytes": 500},
                     {"mac": B, "vap_id": "v1", "tx_bytes": 0, "rx_bytes": 0}]
    clock.t += 5
    second = meter.sample([("v1", sta(A, 626_000, 3000, 15)), ("v1", sta(B, 0, 0, 15))])
    assert second[0] == {"mac": A, "vap_id": "v1", "tx_bytes": 626_000, "rx_bytes": 3000, "tx_bps": 1_000_000.0,
                         "rx_bps": 4000.0}
    assert (second[1]["tx_bps"], second[1]["rx_bps"]) == (0.0, 0.0)  # idle, still a rate
    for msg in (first, second):
        event = {"type": "event", "event": "stats", "ts": 1, "data": {"interval_s": 5, "clients": msg}}
        assert not list(VALIDATOR.iter_errors(event))
        V.message(event)


@pytest.mark.parametrize("again", [
    sta(A, 50, 50, 1),  # re-associated: counters and connected time restarted
    sta(A, 9000, 9000, 2),  # re-associated and already past the old counters: the connected time tells
    sta(A, 500, 9000, 20),  # a counter went backwards
])
def test_a_new_association_gives_counters_only(again):
    clock = Clock()
    meter = ClientMeter(clock)
    meter.sample([("v1", sta(A, 1000, 1000, 10))])
    clock.t += 5
    assert "tx_bps" not in meter.sample([("v1", again)])[0]
    clock.t += 5
    moved = dict(again, tx_bytes=str(int(again["tx_bytes"]) + 625), rx_bytes=again["rx_bytes"])
    assert meter.sample([("v1", moved)])[0]["tx_bps"] == 1000.0  # the new baseline counts from there


def test_a_station_that_moved_vap_or_left_starts_again():
    clock = Clock()
    meter = ClientMeter(clock)
    meter.sample([("v1", sta(A, 1000, 1000)), ("v1", sta(B, 1, 1))])
    clock.t += 5
    assert "tx_bps" not in meter.sample([("v2", sta(A, 2000, 2000))])[0]  # another vAP: another association
    assert set(meter.last) == {("v2", A)}  # B left: forgotten, the meter holds what the last sample saw
    assert meter.sample([]) == [] and meter.last == {}
    meter.sample([("v1", sta(A, 1, 1))])
    assert "tx_bps" not in meter.sample([("v1", sta(A, 9, 9))])[0]  # no time passed: no rate


def test_bounded_and_only_valid_macs(caplog):
    meter = ClientMeter(Clock())
    many = [("v1", sta(f"02:00:00:00:{i >> 8:02x}:{i & 255:02x}", i, i)) for i in range(V.MAX_STATS_CLIENTS + 5)]
    assert len(meter.sample([("v1", sta("not-a-mac", 1, 1)), *many])) == V.MAX_STATS_CLIENTS
    assert len(meter.last) == V.MAX_STATS_CLIENTS
    meter.sample(many)
    assert caplog.text.count("more than 2048 stations") == 1  # logged once while it lasts


def test_stats_event_walks_each_bss_once(manager, fake_hostapd):
    manager.create(vap_spec("v1"))
    manager.create(vap_spec("v2"))
    fake_hostapd.associate("wlan0_1", A)
    fake_hostapd.associate("wlan0_2", B)
    fake_hostapd.associate("wlan0", "02:00:00:00:09:00")  # the primary BSS: capacity only, not a vAP's client
    fake_hostapd.bss["wlan0_1"].stations[A].update(tx_rate_info="540", tx_packets="800")
    fake_hostapd.commands.clear()
    data = manager.stats_event(5)
    # one STA-FIRST per BSS (wlan0, wlan0_1, wlan0_2), for both the capacity and the clients
    assert len(fake_hostapd.commands_named("STA-FIRST")) == 3
    assert data["radios"] == [{"name": "phy0", "capacity_kbps": 27000, "capacity_source": "measured"}]
    assert data["clients"] == [{"mac": A, "vap_id": "v1", "tx_bytes": 1000, "rx_bytes": 2000},
                               {"mac": B, "vap_id": "v2", "tx_bytes": 1000, "rx_bytes": 2000}]
    assert [v["vap_id"] for v in data["vaps"]] == ["v1", "v2"] and data["interval_s"] == 5
    fake_hostapd.bss["wlan0_1"].stations[A].update(tx_bytes="2000", connected_time="8")
    data = manager.stats_event(5)
    assert data["clients"][0]["tx_bps"] > 0 and data["clients"][0]["rx_bps"] == 0


def test_get_and_remove_client_errors(manager, fake_hostapd):
    manager.create(vap_spec("v1"))
    fake_hostapd.associate("wlan0_1", A)
    assert [c["mac"] for c in manager.stations.find(vap_id="v1")] == [A]
    assert manager.stations.find(B) == []
    with pytest.raises(AgentError) as e:
        manager.stations.find(vap_id="nope")
    assert e.value.code == "not_found"
    with pytest.raises(AgentError) as e:
        manager.stations.remove(A, vap_id="nope")
    assert e.value.code == "not_found"
    fake_hostapd.fail_next["DEAUTHENTICATE"] = "FAIL\n"
    with pytest.raises(AgentError) as e:
        manager.stations.remove(A)
    assert e.value.code == "internal"


def test_station_walk_keeps_no_failure(fake_hostapd, sockdir):
    h = HostapdControl(fake_hostapd.path, str(sockdir))
    fake_hostapd.associate("wlan0", A)
    walk = StationWalk(h)
    assert walk.all_sta("wlan0") == walk.all_sta("wlan0") and len(fake_hostapd.commands_named("STA-FIRST")) == 1
    h.close()


def test_a_station_hostapd_keeps_after_it_left_is_no_client(manager, fake_hostapd):
    """After a roam hostapd prunes the old BSS's entry to unassociated flags but keeps it a while."""
    manager.create(vap_spec("v1"))
    manager.create(vap_spec("v2"))
    fake_hostapd.associate("wlan0_1", A)
    fake_hostapd.associate("wlan0_2", A)
    fake_hostapd.bss["wlan0_1"].stations[A]["flags"] = "[AUTH][WMM]"
    fake_hostapd.bss["wlan0_2"].stations[A]["flags"] = "[AUTH][ASSOC][AUTHORIZED][WMM]"
    assert [c["vap_id"] for c in manager.stations.find(A)] == ["v2"]
    assert [c["vap_id"] for c in manager.stats_event(5)["clients"]] == ["v2"]
    fake_hostapd.bss["wlan0_2"].stations[A]["flags"] = "[AUTH][AUTHORIZED]"  # a wired 802.1X station
    assert [c["vap_id"] for c in manager.stations.find(A)] == ["v2"]
