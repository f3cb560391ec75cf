"""The vAPs' stations as hostapd reports them: getClient and removeClient (Table II), and the per-client byte
counters and rates of the stats event.

A stats event reads each BSS's stations once, through a StationWalk (STA-FIRST / STA-NEXT on the control socket
the agent already has open: no process start); the radios' capacity measurement (capacity.phy_rates) reads the same
walk, so the clients' counters cost no extra hostapd request.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from wislice_agent_proto import validate as V
from wislice_agent_proto.errors import AgentError

from .hostapd_ctrl import CtrlError, HostapdControl

if TYPE_CHECKING:
    from .vap import Vap

log = logging.getLogger(__name__)


def signal_of(sta: dict[str, str] | None) -> int | None:
    if not sta:
        return None
    try:
        value = int(sta.get("signal", ""))
    except ValueError:
        return None
    return value if -127 <= value <= 0 else None


def counter(text: str | None) -> int:
    """A hostapd counter (connected_time, tx_bytes, ...) as an integer >= 0; 0 when missing or garbled."""
    try:
        return max(0, int(text or 0))
    except ValueError:
        return 0


def is_associated(sta: dict[str, str]) -> bool:
    """hostapd keeps a station's entry for a while after it left (disassociated, or pruned when it roamed to
    another BSS of the same hostapd), with [ASSOC] and [AUTHORIZED] cleared: such an entry is no client. A wired
    802.1X station is [AUTHORIZED] without [ASSOC]; an entry without flags (no hostapd prints none) counts."""
    flags = sta.get("flags")
    return flags is None or "[ASSOC]" in flags or "[AUTHORIZED]" in flags


class StationWalk:
    """hostapd's stations per BSS, each BSS walked at most once: what one stats event reads. A failed walk is not
    kept (the next reader asks again and gets the error)."""

    def __init__(self, hostapd: HostapdControl) -> None:
        self.hostapd = hostapd
        self.walked: dict[str, list[dict[str, str]]] = {}

    def all_sta(self, ifname: str) -> list[dict[str, str]]:
        if ifname not in self.walked:
            self.walked[ifname] = self.hostapd.all_sta(ifname)
        return self.walked[ifname]


@dataclass(frozen=True)
class Reading:
    t: float
    connected_s: int
    tx_bytes: int
    rx_bytes: int


class ClientMeter:
    """Per-client rates from hostapd's byte counters between two stats events. A client's first reading, or one
    whose counters or connected time went backwards (a new association), gives counters only. Keeps the readings
    of the last sample only, so it holds at most the stats event's bound of entries; ``signals`` has the stations'
    signal in that sample (for /metrics: the stats event does not carry it)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.last: dict[tuple[str, str], Reading] = {}
        self.signals: dict[tuple[str, str], int | None] = {}
        self.truncated = False

    def sample(self, stations: Iterable[tuple[str, dict[str, str]]]) -> list[dict[str, Any]]:
        """(vap_id, hostapd STA entry) pairs -> the stats event's ``clients``."""
        now = self.clock()
        out: list[dict[str, Any]] = []
        seen: dict[tuple[str, str], Reading] = {}
        signals: dict[tuple[str, str], int | None] = {}
        for vap_id, sta in stations:
            mac = sta.get("mac", "")
            if not V.MAC.match(mac):
                continue
            if len(out) >= V.MAX_STATS_CLIENTS:
                if not self.truncated:
                    log.warning("more than %d stations: the stats event lists the first ones only",
                                V.MAX_STATS_CLIENTS)
                self.truncated = True
                break
            r = Reading(now, counter(sta.get("connected_time")), counter(sta.get("tx_bytes")),
                        counter(sta.get("rx_bytes")))
            entry: dict[str, Any] = {"mac": mac, "vap_id": vap_id, "tx_bytes": r.tx_bytes, "rx_bytes": r.rx_bytes}
            prev = self.last.get((vap_id, mac))
            if prev is not None and _same_association(prev, r):
                dt = r.t - prev.t
                entry["tx_bps"] = round((r.tx_bytes - prev.tx_bytes) * 8 / dt, 1)
                entry["rx_bps"] = round((r.rx_bytes - prev.rx_bytes) * 8 / dt, 1)
            seen[(vap_id, mac)] = r
            signals[(vap_id, mac)] = signal_of(sta)
            out.append(entry)
        else:
            self.truncated = False
        self.last, self.signals = seen, signals
        return out


def _same_association(a: Reading, b: Reading) -> bool:
    return b.t > a.t and b.connected_s >= a.connected_s and b.tx_bytes >= a.tx_bytes and b.rx_bytes >= a.rx_bytes


class Stations:
    """The stations of the vAPs in ``vaps`` (the VapManager's own dict, shared)."""

    def __init__(self, hostapd: HostapdControl, vaps: dict[str, Vap]) -> None:
        self.hostapd = hostapd
        self.vaps = vaps
        self.meter = ClientMeter()

    def _of(self, vap_id: str | None) -> list[Vap]:
        if vap_id is None:
            return list(self.vaps.values())
        vap = self.vaps.get(vap_id)
        if vap is None:
            raise AgentError("not_found", f"no vAP {vap_id}")
        return [vap]

    def find(self, mac: str | None = None, vap_id: str | None = None) -> list[dict[str, Any]]:
        """getClient: Client objects, of one vAP and/or one MAC when given."""
        out = []
        for vap in self._of(vap_id):
            try:
                stas = [self.hostapd.sta(vap.ifname, mac)] if mac else self.hostapd.all_sta(vap.ifname)
            except CtrlError as e:
                raise AgentError("internal", f"hostapd STA on {vap.ifname}: {e}") from e
            for sta in stas:
                if sta is None or not is_associated(sta):
                    continue
                out.append({"mac": sta["mac"], "vap_id": vap.spec["vap_id"], "signal_dbm": signal_of(sta),
                            "connected_s": counter(sta.get("connected_time")),
                            "tx_bytes": counter(sta.get("tx_bytes")), "rx_bytes": counter(sta.get("rx_bytes"))})
        return out

    def remove(self, mac: str, vap_id: str | None = None, reason: int | None = None) -> None:
        """removeClient: deauthenticate the station from every vAP (or the one given) it is on."""
        found = self.find(mac, vap_id)
        if not found:
            raise AgentError("not_found", f"no client {mac}" + (f" on vAP {vap_id}" if vap_id else ""))
        for c in found:
            vap = self.vaps[c["vap_id"]]
            try:
                self.hostapd.deauthenticate(vap.ifname, mac, reason)
            except CtrlError as e:
                raise AgentError("internal", f"hostapd could not remove {mac}: {e}") from e

    def signal(self, vap: Vap, mac: str) -> int | None:
        try:
            info = self.hostapd.sta(vap.ifname, mac)
        except CtrlError:
            return None
        return signal_of(info)

    def report(self, walk: StationWalk) -> list[dict[str, Any]]:
        """The stats event's ``clients``: every vAP's stations from ``walk`` (a vAP hostapd cannot list is left
        out of this event)."""
        return self.meter.sample(self._walk(walk))

    def _walk(self, walk: StationWalk) -> Iterator[tuple[str, dict[str, str]]]:
        for vap in list(self.vaps.values()):
            try:
                stas = walk.all_sta(vap.ifname)
            except CtrlError as e:
                log.debug("stations of %s: %s", vap.ifname, e)
                continue
            for sta in stas:
                if is_associated(sta):
                    yield vap.spec["vap_id"], sta
