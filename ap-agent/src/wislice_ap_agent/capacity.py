"""A radio's usable capacity: one number for its shared air, the root of its downlink hierarchy and what the
controller's admission keeps the guarantees within (docs/guaranteed-slices.md).

- ``operator``: ``radios[].capacity_kbps`` in the agent config, used as it is;
- ``measured``: from the PHY rates the radio currently sends to its stations: a fraction (MAC and air overhead,
  retries, the half-duplex medium) of their median, smoothed so that one station's rate step does not re-rate the
  hierarchy on every sample;
- ``default``: ``default_capacity_kbps`` of the config, while the radio has no station to measure.

A station counts once it was sent some frames (MIN_TX_PACKETS): right after association its rate is where rate
control starts (the lowest rate), which would cut the whole radio's hierarchy to a fraction of a Mbit/s.

PHY rates come from hostapd's STA reply (``tx_rate_info``, in 100 kbit/s units: what nl80211 reports as the station's
tx bitrate), so measuring costs no process start; ``iw dev X station dump`` is the fallback for a hostapd that does
not report it.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from typing import Any

from wislice_agent_proto import validate as V

from .hostapd_ctrl import CtrlError

PHY_FRACTION = 0.5  # usable share of the PHY rate (a conservative figure for 802.11 MAC overhead)
SMOOTHING = 0.3  # weight of a new sample in the running average
MIN_CHANGE = 0.05  # relative change that is worth re-rating the hierarchy for
MIN_TX_PACKETS = 50  # before that, a station's rate is rate control's starting point (1 Mbit/s), not its rate
DEFAULT_CAPACITY_KBPS = 20000

_IW_STATION = re.compile(r"^Station ", re.M)
_IW_TX_BITRATE = re.compile(r"^\s*tx bitrate:\s*([0-9.]+)\s*MBit/s", re.M)
_IW_TX_PACKETS = re.compile(r"^\s*tx packets:\s*(\d+)", re.M)


def phy_rate_kbps(sta: dict[str, str]) -> int | None:
    """The tx PHY rate of one hostapd STA entry (``tx_rate_info=540 ...`` = 54 Mbit/s), or None while unknown:
    no rate yet, or too few frames sent to the station for rate control to have found its rate."""
    words = sta.get("tx_rate_info", "").split()
    packets = sta.get("tx_packets", "")
    if not words or not words[0].isdigit() or int(words[0]) == 0:
        return None
    if not packets.isdigit() or int(packets) < MIN_TX_PACKETS:
        return None
    return int(words[0]) * 100


def iw_phy_rates_kbps(ifname: str) -> list[int]:
    """tx bitrates of the stations of one netdev from ``iw dev IFNAME station dump``."""
    if shutil.which("iw") is None or not V.IFNAME.match(ifname):
        return []
    try:
        out = subprocess.run(["iw", "dev", ifname, "station", "dump"], capture_output=True, text=True,
                             timeout=5).stdout
    except (OSError, subprocess.TimeoutExpired):
        return []
    return parse_iw_station_dump(out)


def parse_iw_station_dump(text: str) -> list[int]:
    """tx bitrates (kbit/s) of the stations that were sent enough frames (see phy_rate_kbps)."""
    rates = []
    for block in _IW_STATION.split(text)[1:]:
        rate, packets = _IW_TX_BITRATE.search(block), _IW_TX_PACKETS.search(block)
        if rate and packets and float(rate.group(1)) > 0 and int(packets.group(1)) >= MIN_TX_PACKETS:
            rates.append(round(float(rate.group(1)) * 1000))
    return rates


def phy_rates(hostapd: Any, ifnames: list[str], iw_fallback: bool = True) -> list[int] | None:
    """tx PHY rates (kbit/s) of the stations of a radio's netdevs (its primary BSS and its vAPs): [] without
    stations, None when there are stations but none with a usable rate yet."""
    rates: list[int] = []
    stations = 0
    for ifname in ifnames:
        try:
            stas = hostapd.all_sta(ifname)
        except CtrlError:
            continue
        stations += len(stas)
        known = [r for r in (phy_rate_kbps(s) for s in stas) if r is not None]
        if stas and not known and iw_fallback and not any("tx_rate_info" in s for s in stas):
            known = iw_phy_rates_kbps(ifname)  # a hostapd that does not report rates
        rates += known
    return None if stations and not rates else rates


def median(values: list[int]) -> float:
    """(statistics.median, which pulls in decimal: a separate package on OpenWrt.)"""
    s = sorted(values)
    mid = len(s) // 2
    return float(s[mid]) if len(s) % 2 else (s[mid - 1] + s[mid]) / 2


class RadioCapacity:
    def __init__(self, operator_kbps: int | None = None, default_kbps: int = DEFAULT_CAPACITY_KBPS) -> None:
        self.operator = operator_kbps
        self.default = default_kbps
        self.average: float | None = None
        if operator_kbps:
            self.kbps, self.source = operator_kbps, "operator"
        else:
            self.kbps, self.source = default_kbps, "default"

    def report(self) -> dict[str, object]:
        return {"capacity_kbps": self.kbps, "capacity_source": self.source}

    def update(self, phy_rates_kbps: list[int] | None) -> bool:
        """Feed the stations' current PHY rates ([] = no station, None = none usable yet: no change); True when
        the reported capacity changed."""
        if self.operator or phy_rates_kbps is None:
            return False
        if not phy_rates_kbps:
            self.average = None
            kbps, source = self.default, "default"
        else:
            sample = PHY_FRACTION * median(phy_rates_kbps)
            self.average = sample if self.average is None else self.average + SMOOTHING * (sample - self.average)
            kbps, source = max(1, round(self.average)), "measured"
        if source == self.source and abs(kbps - self.kbps) <= MIN_CHANGE * self.kbps:
            return False
        self.kbps, self.source = kbps, source
        return True
