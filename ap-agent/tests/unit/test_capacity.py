"""Radio capacity: operator value, measured from PHY rates (median, fraction, smoothing), default without stations."""

import pytest
from wislice_agent_proto import validate as V

from wislice_ap_agent.capacity import RadioCapacity, parse_iw_station_dump, phy_rate_kbps

IW_DUMP = """Station 02:00:00:00:01:00 (on wlan0_1)
\tinactive time:\t120 ms
\ttx packets:\t5120
\trx bitrate:\t54.0 MBit/s
\ttx bitrate:\t65.0 MBit/s MCS 7
\tsignal:  \t-30 dBm
Station 02:00:00:00:02:00 (on wlan0_1)
\ttx packets:\t300
\ttx bitrate:\t6.5 MBit/s MCS 0
Station 02:00:00:00:03:00 (on wlan0_1)
\ttx packets:\t300
\ttx bitrate:\t0.0 MBit/s
Station 02:00:00:00:04:00 (on wlan0_1)
\ttx packets:\t4
\ttx bitrate:\t1.0 MBit/s
"""


def test_phy_rates_from_hostapd_and_iw():
    assert phy_rate_kbps({"tx_rate_info": "540", "tx_packets": "900"}) == 54000
    assert phy_rate_kbps({"tx_rate_info": "1300 mcs 15 shortGI", "tx_packets": "50"}) == 130000
    assert phy_rate_kbps({"tx_rate_info": "0", "tx_packets": "900"}) is None and phy_rate_kbps({}) is None
    # just associated: rate control still at its starting rate, which says nothing about the station
    assert phy_rate_kbps({"tx_rate_info": "10", "tx_packets": "3"}) is None
    assert parse_iw_station_dump(IW_DUMP) == [65000, 6500]  # unknown (0) and too-early rates are left out


class FakeHostapd:
    def __init__(self, stations):
        self.stations = stations

    def all_sta(self, ifname):
        return self.stations.get(ifname, [])


def test_radio_phy_rates():
    from wislice_ap_agent.capacity import phy_rates

    assert phy_rates(FakeHostapd({}), ["wlan0", "wlan0_1"]) == []
    early = {"tx_rate_info": "10", "tx_packets": "2"}
    assert phy_rates(FakeHostapd({"wlan0_1": [early]}), ["wlan0", "wlan0_1"]) is None  # wait for traffic
    busy = {"tx_rate_info": "540", "tx_packets": "2000"}
    assert phy_rates(FakeHostapd({"wlan0": [busy], "wlan0_1": [early, busy]}), ["wlan0", "wlan0_1"]) == [54000,
                                                                                                        54000]


def test_measured_is_a_smoothed_fraction_of_the_median():
    c = RadioCapacity(None, 20000)
    assert (c.kbps, c.source) == (20000, "default")
    assert c.update([54000, 65000, 6500])  # median 54 Mbit/s -> 27 Mbit/s usable
    assert (c.kbps, c.source) == (27000, "measured")
    assert not c.update([54000, 65000, 6500])
    assert not c.update([54000, 58000])  # 28 Mbit/s: smoothed to 27.3, under the 5 % worth re-rating
    assert c.kbps == 27000
    assert c.update([130000])  # a big step is followed, smoothed
    assert 27000 < c.kbps < 65000
    assert not c.update(None) and c.kbps > 27000  # stations, but none usable yet: unchanged
    assert c.update([]) and (c.kbps, c.source) == (20000, "default")
    assert c.report() == {"capacity_kbps": 20000, "capacity_source": "default"}


def test_operator_value_is_kept():
    c = RadioCapacity(54000, 20000)
    assert not c.update([6500]) and c.report() == {"capacity_kbps": 54000, "capacity_source": "operator"}


@pytest.mark.parametrize(("rates", "ok"), [
    ({"down_kbps": 0, "up_kbps": 0, "down_guaranteed_kbps": 10_000_000}, True),
    ({"down_kbps": 5000, "up_kbps": 0, "down_guaranteed_kbps": 5000}, True),
    ({"down_kbps": 5000, "up_kbps": 0, "down_guaranteed_kbps": 5001}, False),
    ({"down_kbps": 0, "up_kbps": 1, "up_guaranteed_kbps": 2}, False),
])
def test_guarantee_above_a_cap_is_the_semantic_check(rates, ok):
    V.rate_limit(rates)  # the schema's rules accept all of them
    if ok:
        V.rate_semantics(rates)
    else:
        with pytest.raises(V.ValidationError, match="guaranteed"):
            V.rate_semantics(rates)
