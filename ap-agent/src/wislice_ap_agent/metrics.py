"""The ap-agent's GET /metrics (Prometheus text format 0.0.4, wislice_agent_proto.prometheus; README: the table
of metrics). It exports what the stats event gathered, no collection of its own: each stats event's data, with
the facts beside it that the event does not carry (the vAPs' slice, tenant, radio and rates, their netdev byte
counters, the stations' signal from the same station walk), is kept as one immutable Snapshot in the agent's
thread; the server's thread renders the last one. While no controller session asks for stats events the agent
makes them for /metrics alone (agent.py), so the values stay current; ``wislice_ap_stats_age_seconds`` says how
old they are.

Directions: tx/rx are the agent's counters (tx = from the AP to the stations, the downlink), down/up the
rate_limit's guarantees and caps.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from wislice_agent_proto.prometheus import Family, render

if TYPE_CHECKING:
    from .vaps import VapManager

VAP_LABELS = ("agent_id", "vap_id", "slice_id", "tenant_id", "radio")
CLIENT_LABELS = ("agent_id", "vap_id", "mac")


@dataclass(frozen=True)
class Snapshot:
    t: float  # monotonic time it was taken
    vaps: tuple[dict[str, Any], ...]  # the event's vAP entries plus slice_id, tenant_id, radio, rate_limit, bytes
    radios: tuple[dict[str, Any], ...]  # the event's radios
    clients: tuple[dict[str, Any], ...]  # the event's clients plus signal_dbm


def snapshot(vaps: VapManager, data: dict[str, Any], now: float) -> Snapshot:
    """Call in the agent's thread, right after ``vaps.stats_event()`` built ``data``."""
    out = []
    for entry in data["vaps"]:
        vap = vaps.vaps.get(entry["vap_id"])
        if vap is None:
            continue
        counters = vaps.meter.last.get(vap.ifname)  # the reading the entry's rates come from
        out.append({**entry, "slice_id": vap.spec["slice_id"], "tenant_id": vap.spec["tenant_id"],
                    "radio": vap.spec["radio"], "rate_limit": dict(vap.spec["rate_limit"]),
                    "tx_bytes": counters.tx_bytes if counters else None,
                    "rx_bytes": counters.rx_bytes if counters else None})
    signals = vaps.stations.meter.signals
    clients = tuple({**c, "signal_dbm": signals.get((c["vap_id"], c["mac"]))} for c in data["clients"])
    return Snapshot(now, tuple(out), tuple(dict(r) for r in data["radios"]), clients)


class ApMetrics:
    def __init__(self, agent_id: str, connected: Callable[[], bool],
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.agent_id = agent_id
        self.connected = connected
        self.clock = clock
        self.latest: Snapshot | None = None

    def record(self, vaps: VapManager, data: dict[str, Any]) -> None:
        self.latest = snapshot(vaps, data, self.clock())

    def age(self) -> float | None:
        latest = self.latest
        return None if latest is None else self.clock() - latest.t

    def render(self) -> str:
        return render(self.families())

    def families(self) -> list[Family]:
        me = self.agent_id
        connected = Family("wislice_ap_connected", "1 while the agent has a welcomed session with the WiFi controller",
                           labels=["agent_id"]).add([me], self.connected())
        age = Family("wislice_ap_stats_age_seconds", "Seconds since the values of this scrape were gathered (the "
                     "last stats event)", labels=["agent_id"])
        latest = self.latest
        if latest is None:
            return [connected, age]
        age.add([me], round(max(0.0, self.clock() - latest.t), 3))
        return [connected, age, *vap_families(me, latest), *radio_families(me, latest),
                *client_families(me, latest)]


def vap_families(me: str, s: Snapshot) -> list[Family]:
    way = [*VAP_LABELS, "direction"]
    sent = Family("wislice_ap_vap_bytes_total", "Bytes through the vAP's netdev (tx = to the stations)", "counter",
                  way)
    rate = Family("wislice_ap_vap_rate_bps", "vAP rate over the last stats interval (tx = to the stations)",
                  labels=way)
    clients = Family("wislice_ap_vap_clients", "Stations associated to the vAP", labels=VAP_LABELS)
    guaranteed = Family("wislice_ap_vap_guaranteed_kbps", "vAP guaranteed rate (rate_limit)", labels=way)
    cap = Family("wislice_ap_vap_cap_kbps", "vAP rate cap (rate_limit; 0 = uncapped)", labels=way)
    for v in s.vaps:
        ids = [me, v["vap_id"], v["slice_id"], v["tenant_id"], v["radio"]]
        for d in ("tx", "rx"):
            if v[f"{d}_bytes"] is not None:
                sent.add([*ids, d], v[f"{d}_bytes"])
            rate.add([*ids, d], v[f"{d}_bps"])
        clients.add(ids, v["clients"])
        rl = v["rate_limit"]
        for d in ("down", "up"):
            guaranteed.add([*ids, d], rl.get(f"{d}_guaranteed_kbps", 0))
            cap.add([*ids, d], rl[f"{d}_kbps"])
    return [sent, rate, clients, guaranteed, cap]


def radio_families(me: str, s: Snapshot) -> list[Family]:
    capacity = Family("wislice_ap_radio_capacity_kbps", "Radio capacity, the root of its downlink schedule "
                      "(source: operator, measured or default)", labels=["agent_id", "radio", "source"])
    for r in s.radios:
        capacity.add([me, r["name"], r["capacity_source"]], r["capacity_kbps"])
    return [capacity]


def client_families(me: str, s: Snapshot) -> list[Family]:
    way = [*CLIENT_LABELS, "direction"]
    sent = Family("wislice_ap_client_bytes_total", "hostapd's byte counters of the association (tx = to the "
                  "station)", "counter", way)
    rate = Family("wislice_ap_client_rate_bps", "Client rate over the last stats interval (from its second "
                  "reading of an association on)", labels=way)
    signal = Family("wislice_ap_client_signal_dbm", "Client signal as hostapd reports it", labels=CLIENT_LABELS)
    done: set[tuple[str, str]] = set()
    for c in s.clients:
        if (c["vap_id"], c["mac"]) in done:  # hostapd listed a station twice: one sample, not a failed scrape
            continue
        done.add((c["vap_id"], c["mac"]))
        ids = [me, c["vap_id"], c["mac"]]
        for d in ("tx", "rx"):
            sent.add([*ids, d], c[f"{d}_bytes"])
            if f"{d}_bps" in c:
                rate.add([*ids, d], c[f"{d}_bps"])
        if c["signal_dbm"] is not None:
            signal.add(ids, c["signal_dbm"])
    return [sent, rate, signal]
