"""Slice telemetry: a thread polls the controllers every TELEMETRY_INTERVAL_S and keeps time series per slice and
per client in memory (timeseries.py), and the latest values for /metrics.

Per poll: the live slices from the database (which vAPs and vNFs are whose), then through the controller client
one `wifi_stats` call (GET /onos/wifi/stats: every ap-agent's last stats event, i.e. each vAP's tx/rx bps and
client count, each radio's capacity_kbps, each client's tx/rx bps; tx = down, towards the stations; and each
probed vAP's latest latency, which latency_watch.py compares with the slice's budget) and
`vnf_stats` per running vNF (port byte counters). Client rates are the ones the agent reports (it measures them
from hostapd's counters between its stats events and leaves them out for a new association): a client without
them has no rate that poll. A slice with a vAP missing from the stats (its agent not connected, or not yet
reporting) has no rate and no client count that poll. vNF port byte counters become rates from the delta between
two polls; a counter that went backwards (reset), no elapsed time or a rate above MAX_RATE_BPS give no rate for
that poll, only a new baseline. A failed controller call (or a reply of the wrong shape) counts in `errors`
(wislice_telemetry_poll_errors_total) and leaves that part of the poll empty (null in the series); a failure is
logged when it starts and when it ends, not at every poll. Nothing raised stops the thread.

Memory: one ring of S = min(3600, ceil(TELEMETRY_WINDOW_S / TELEMETRY_INTERVAL_S)) slots (450 at the defaults);
a slice series is 5 float32 columns, a client series 2, so at most
8*S + 4*S*(5*TELEMETRY_MAX_SLICES + 2*TELEMETRY_MAX_CLIENTS) bytes (about 23.4 MB at the defaults: 1000 slices,
4000 clients; about 0.3 MB for 10 slices with 50 clients), plus the previous counters of the vNF ports seen at the
last poll. Slices and clients beyond the caps are left out of the series (logged), not of /metrics.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, selectinload, sessionmaker

from .controllers import Controllers
from .models import Slice
from .timeseries import Ring, SeriesSet, finite

log = logging.getLogger(__name__)

LIVE = ("creating", "active", "deleting")
MAX_SLOTS = 3600
# Above this a byte-counter delta is not a rate but a counter that restarted and grew past its old value.
MAX_RATE_BPS = 100e9
MAX_PROC_US = 10_000_000  # a vNF's reported p99 above 10 s is no measurement
# A switch's measured latency older than this (the controller's age_ms: its last reading of the switch) is not used.
SWITCH_LATENCY_MAX_AGE_MS = 15_000
SLICE_COLUMNS = ("down_bps", "up_bps", "clients", "guaranteed_down_kbps", "guaranteed_up_kbps")


@dataclass
class SliceInfo:
    """What the orchestrator knows about a live slice at a poll."""

    slice_id: int
    tenant_id: int
    guaranteed: tuple[int, int]  # down, up (kbps)
    cap: tuple[int, int]  # down, up (kbps, 0 = uncapped)
    vaps: list[tuple[str, str]]  # (agent_id, vap_id) of its up vAPs
    vnfs: list[int]  # vnf_id of its running vNFs
    budget_us: int | None = None  # the latency budget of a latency slice that asked for probes, else None


@dataclass
class WifiStats:
    """One wifi_stats answer, indexed: (agent_id, vap_id) -> (tx_bps, rx_bps, clients); (agent_id, radio) ->
    capacity_kbps; per client (agent_id, vap_id, mac, tx_bps, rx_bps), rates None where the agent gave none."""

    vaps: dict[tuple[str, str], tuple[float, float, int]] = field(default_factory=dict)
    radios: dict[tuple[str, str], int] = field(default_factory=dict)
    clients: list[tuple[str, str, str, float | None, float | None]] = field(default_factory=list)
    # (agent_id, vap_id) -> {p50_us, p99_us, lost, samples, updated}: a probed vAP's latest VapLatency, `updated`
    # the time (agent clock, unix s) of the stats event that carried it.
    latency: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)


@dataclass
class Latest:
    """The last poll's values (what /metrics shows). Rates are None where the controllers could not be read."""

    ts: float = 0.0
    slices: dict[int, dict[str, Any]] = field(default_factory=dict)
    clients: dict[tuple[int, str], tuple[float | None, float | None]] = field(default_factory=dict)
    radios: dict[tuple[str, str], int] = field(default_factory=dict)
    vnf_ports: dict[tuple[int, int, str], tuple[float | None, float | None]] = field(default_factory=dict)
    # vnf_id -> the p99 of the time a packet spent in it over its last report (us), from a vNF that measures it
    # (dpdk-vnf): latency admission's measured cost of that image on that node.
    vnf_proc_p99_us: dict[int, int] = field(default_factory=dict)
    # device id -> the p99 of the time packets stayed in that switch (us; its worst output port over the last 1-2 s),
    # from switches that measure it (pof-switch's PORT_LATENCY, via GET /onos/pof/switches `latency`), read fresh.
    switch_p99_us: dict[str, int] = field(default_factory=dict)
    # slice_id -> its measured latency (slice_latency), for the slices that asked for probes.
    latency: dict[int, dict[str, Any]] = field(default_factory=dict)


def counter_rate(prev: tuple[float, int] | None, ts: float, value: int) -> float | None:
    """bit/s of a byte counter between two readings (ts, bytes), or None without a sound previous reading."""
    if prev is None:
        return None
    prev_ts, prev_value = prev
    elapsed = ts - prev_ts
    if elapsed <= 0 or value < prev_value:
        return None
    rate = (value - prev_value) * 8 / elapsed
    return rate if rate <= MAX_RATE_BPS else None


def _num(value: float) -> int | None:
    """A stored float32 as JSON: an integer, or None where there was no value."""
    kept = finite(value)
    return None if kept is None else round(kept)


def switch_latencies(switches: Any) -> dict[str, int]:
    """device id -> measured p99 (us, rounded up) of the switches in GET /onos/pof/switches that report a fresh
    `latency` ({p99_us, age_ms, ...}); switches without it (an older controller or switch) are left out.
    ValueError for a reply that is not a list."""
    if not isinstance(switches, list):
        raise ValueError(f"switches: {type(switches).__name__}, not a list")
    out: dict[str, int] = {}
    for sw in switches:
        lat = sw.get("latency") if isinstance(sw, dict) else None
        if not isinstance(lat, dict) or not isinstance(sw.get("device_id"), str):
            continue
        p99, age = lat.get("p99_us"), lat.get("age_ms")
        if not _number(p99) or not 0 <= p99 <= MAX_PROC_US:
            continue
        if not _number(age) or not 0 <= age <= SWITCH_LATENCY_MAX_AGE_MS:
            continue  # stale, or no age to judge it by
        out[sw["device_id"]] = int(math.ceil(p99))
    return out


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _count(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"bad count {value!r}")
    return value


def _tx_rx(rates: dict[str, Any]) -> tuple[float, float]:
    tx, rx = float(rates["tx_bps"]), float(rates["rx_bps"])
    if not (math.isfinite(tx) and math.isfinite(rx) and tx >= 0 and rx >= 0):
        raise ValueError(f"bad rates {rates}")
    return tx, rx


def _client_rates(client: dict[str, Any]) -> tuple[float | None, float | None]:
    """The reported (tx_bps, rx_bps) of a stats client, (None, None) when it has none (or not numbers >= 0)."""
    try:
        return _tx_rx(client)
    except (KeyError, TypeError, ValueError):
        return None, None


def wifi_view(agents: Any) -> WifiStats:
    """wifi_stats' answer indexed; ValueError (or KeyError/TypeError) for a reply of the wrong shape. A radio
    without an integer capacity and a client without a MAC are left out, not an error."""
    if not isinstance(agents, list):
        raise ValueError("wifi_stats: a list of agents expected")
    view = WifiStats()
    for a in agents:
        agent_id = str(a["agent_id"])
        for v in a.get("vaps") or []:
            view.vaps[(agent_id, str(v["vap_id"]))] = (*_tx_rx(v), _count(v["clients"]))
        for r in a.get("radios") or []:
            capacity = r.get("capacity_kbps")
            if isinstance(capacity, int) and not isinstance(capacity, bool):
                view.radios[(agent_id, str(r["name"]))] = capacity
        for c in a.get("clients") or []:
            mac = str(c.get("mac") or "").lower()
            if mac:
                view.clients.append((agent_id, str(c.get("vap_id")), mac, *_client_rates(c)))
        for item in a.get("latency") or []:
            view.latency[(agent_id, str(item["vap_id"]))] = {
                "p50_us": _count(item["p50_us"]), "p99_us": _count(item["p99_us"]), "lost": _count(item["lost"]),
                "samples": _count(item["samples"]), "updated": float(item.get("ts", a.get("ts", 0)))}
    return view


def slice_latency(wifi: WifiStats | None, vaps: list[tuple[str, str]], budget_us: int) -> dict[str, Any]:
    """A probed slice's measured latency: per vAP its latest numbers (None where its agent reported none yet) and
    the worst p99 over the vAPs that have samples (None while none has)."""
    rows = []
    for agent_id, vap_id in vaps:
        got = wifi.latency.get((agent_id, vap_id)) if wifi is not None else None
        rows.append({"agent_id": agent_id, "vap_id": vap_id, **(got or dict.fromkeys(
            ("p50_us", "p99_us", "lost", "samples", "updated")))})
    measured = [r["p99_us"] for r in rows if r["samples"]]
    return {"budget_us": budget_us, "worst_p99_us": max(measured) if measured else None, "vaps": rows}


def _bytes(entry: dict[str, Any], key: str) -> int | None:
    value = entry.get(key)
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) and value >= 0 else None


def _slice_sums(wifi: WifiStats | None, vaps: list[tuple[str, str]]) -> tuple[float | None, float | None, int | None]:
    """A slice's down bit/s (its vAPs' tx: towards the stations), up bit/s and client count; all None when the
    stats or one of its vAPs are unknown."""
    if wifi is None:
        return None, None, None
    known = [r for r in (wifi.vaps.get(vap) for vap in vaps) if r is not None]
    if len(known) < len(vaps):
        return None, None, None
    return sum(r[0] for r in known), sum(r[1] for r in known), sum(r[2] for r in known)


class TelemetryCollector:
    def __init__(self, session_factory: sessionmaker[Session], controllers: Controllers, interval_s: float = 2.0,
                 window_s: float = 900.0, max_slices: int = 1000, max_clients: int = 4000,
                 clock: Callable[[], float] = time.time) -> None:
        if interval_s <= 0:
            raise ValueError("TELEMETRY_INTERVAL_S must be > 0")
        self.session_factory = session_factory
        self.controllers = controllers
        self.interval_s = interval_s
        self.clock = clock
        self.ring = Ring(max(2, min(MAX_SLOTS, math.ceil(window_s / interval_s))))
        self.slice_series = SeriesSet(self.ring, len(SLICE_COLUMNS), max_slices)
        self.client_series = SeriesSet(self.ring, 2, max_clients)
        self.latest = Latest()
        self.errors = 0
        self.polls = 0
        self.lock = threading.Lock()  # the series and `latest`: written by the thread, read by requests
        # Previous counter readings: (vnf_id, port) -> (ts, rx_bytes, tx_bytes). Only what the last poll saw is kept.
        self._ports_prev: dict[tuple[int, str], tuple[float, int, int]] = {}
        self._failing: set[str] = set()  # calls failing since an earlier poll (logged once)
        self._asked: set[str] = set()  # calls made in the current poll
        self._refused_logged = False
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        # Called with each poll's Latest after it is recorded (the policy engine); an observer's failure is logged
        # and counted, never stops the polls.
        self.observers: list[Callable[[Latest], None]] = []

    # --- the thread --------------------------------------------------------------------------------------------
    def start(self) -> None:
        if self._thread is None:
            self._stop.clear()
            self._thread = threading.Thread(target=self._run, name="wislice-telemetry", daemon=True)
            self._thread.start()

    def stop(self, timeout_s: float = 30.0) -> None:
        """Ends the thread after its current poll (which may wait on a controller call up to its timeout)."""
        thread, self._thread = self._thread, None
        if thread is not None:
            self._stop.set()
            thread.join(timeout_s)

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def _run(self) -> None:
        next_at = time.monotonic()
        while not self._stop.is_set():
            try:
                self.poll_once()
            except Exception:  # a bug or the database: counted and logged, the thread goes on
                self.errors += 1
                log.exception("telemetry poll failed")
            next_at += self.interval_s
            now = time.monotonic()
            if next_at < now:  # the poll overran: skip the missed ticks
                next_at = now + self.interval_s
            self._stop.wait(next_at - now)

    # --- one poll ----------------------------------------------------------------------------------------------
    def _call(self, what: str, fn: Callable[[], Any]) -> Any:
        """A controller call and the reading of its reply; None (counted, logged when it starts failing) if either
        fails."""
        self._asked.add(what)
        try:
            result = fn()
        except Exception as exc:  # ControllerError, or a reply of the wrong shape
            self.errors += 1
            if what not in self._failing:
                self._failing.add(what)
                log.warning("telemetry: %s failed: %s", what, exc)
            return None
        if what in self._failing:
            self._failing.discard(what)
            log.info("telemetry: %s answers again", what)
        return result

    def load_slices(self) -> list[SliceInfo]:
        with self.session_factory() as db:
            rows = db.scalars(select(Slice).where(Slice.status.in_(LIVE)).order_by(Slice.id)
                              .options(selectinload(Slice.vaps), selectinload(Slice.vnfs)))
            return [SliceInfo(s.id, s.tenant_id, (s.bandwidth.down.guaranteed_kbps, s.bandwidth.up.guaranteed_kbps),
                              (s.bandwidth.down.cap_kbps, s.bandwidth.up.cap_kbps),
                              [(v.agent_id, v.vap_id) for v in s.vaps if v.state == "up"],
                              [v.vnf_id for v in s.vnfs if v.state == "running"],
                              s.latency_budget_us if s.probe and s.latency_budget_us else None) for s in rows]

    def poll_once(self, now: float | None = None) -> None:
        ts = self.clock() if now is None else now
        slices = self.load_slices()
        ctl = self.controllers
        latest = Latest(ts=ts)
        wifi: WifiStats | None = self._call("wifi_stats", lambda: wifi_view(ctl.wifi_stats()))
        latest.radios = wifi.radios if wifi is not None else {}
        switches = self._call("list_switches", lambda: switch_latencies(ctl.list_switches()))
        latest.switch_p99_us = switches or {}
        owner = {vap: s.slice_id for s in slices for vap in s.vaps}
        client_rows = self._client_rates(wifi, owner, latest)
        slice_rows = {}
        for s in slices:
            down, up, count = _slice_sums(wifi, s.vaps)
            slice_rows[s.slice_id] = (down, up, count, *s.guaranteed)
            latest.slices[s.slice_id] = {"tenant_id": s.tenant_id, "down_bps": down, "up_bps": up, "clients": count,
                                         "guaranteed": s.guaranteed, "cap": s.cap}
            self._vnf_rates(ts, s, latest)
            if s.budget_us is not None:
                latest.latency[s.slice_id] = slice_latency(wifi, s.vaps, s.budget_us)
        running = {vnf for s in slices for vnf in s.vnfs}
        self._ports_prev = {k: v for k, v in self._ports_prev.items() if k[0] in running}
        self._failing &= self._asked
        self._asked = set()
        with self.lock:
            slot = self.ring.advance(ts)
            refused = self.slice_series.record(slot, slice_rows) + self.client_series.record(slot, client_rows)
            live = {s.slice_id for s in slices}
            self.slice_series.discard(k for k in self.slice_series.series if k not in live)
            self.client_series.discard(k for k in self.client_series.series if k[0] not in live)
            self.latest = latest
            self.polls += 1
        for observer in self.observers:
            try:
                observer(latest)
            except Exception:
                self.errors += 1
                log.exception("telemetry observer %s failed", observer)
        if refused and not self._refused_logged:
            self._refused_logged = True
            log.warning("telemetry: series full (TELEMETRY_MAX_SLICES/TELEMETRY_MAX_CLIENTS); not kept: %s",
                        refused[:10])

    @staticmethod
    def _client_rates(wifi: WifiStats | None, owner: dict[tuple[str, str], int],
                      latest: Latest) -> dict[tuple[int, str], tuple[float | None, float | None]]:
        """(slice_id, mac) -> (down, up) bit/s of the clients on the slices' vAPs, as their agents report them."""
        if wifi is None:
            return {}
        rows: dict[tuple[int, str], tuple[float | None, float | None]] = {}
        for agent_id, vap_id, mac, tx, rx in wifi.clients:
            slice_id = owner.get((agent_id, vap_id))
            if slice_id is not None:
                rows[(slice_id, mac)] = (tx, rx)  # the AP's tx = towards the station
        latest.clients = rows
        return rows

    def _vnf_rates(self, ts: float, s: SliceInfo, latest: Latest) -> None:
        for vnf_id in s.vnfs:
            stats = self._call(f"vnf_stats {vnf_id}", lambda v=vnf_id: dict(self.controllers.vnf_stats(v)))
            if stats is None:
                continue
            p99 = stats.get("proc_p99_us")
            if isinstance(p99, int | float) and not isinstance(p99, bool) and 0 <= p99 <= MAX_PROC_US:
                latest.vnf_proc_p99_us[vnf_id] = int(math.ceil(p99))
            ports = stats.get("ports")
            for port in ports if isinstance(ports, list) else []:
                if not isinstance(port, dict):
                    continue
                rx, tx = _bytes(port, "rx_bytes"), _bytes(port, "tx_bytes")
                if rx is None or tx is None:
                    continue
                key = (vnf_id, str(port.get("name")))
                prev = self._ports_prev.get(key)
                rates = (None, None) if prev is None else (counter_rate((prev[0], prev[1]), ts, rx),
                                                           counter_rate((prev[0], prev[2]), ts, tx))
                self._ports_prev[key] = (ts, rx, tx)
                latest.vnf_ports[(s.slice_id, vnf_id, key[1])] = rates

    # --- reading -----------------------------------------------------------------------------------------------
    def series(self, slice_id: int, since: float = 0.0) -> dict[str, Any]:
        """A slice's points and its clients' points later than `since` (epoch s), oldest first."""
        with self.lock:
            slots = self.ring.order(since)
            points = [{"ts": t, **{name: _num(v) for name, v in zip(SLICE_COLUMNS, row, strict=True)}}
                      for t, row in self.slice_series.read(slice_id, slots)]
            clients = {}
            for key in [k for k in self.client_series.series if k[0] == slice_id]:
                rows = self.client_series.read(key, slots)
                if rows:
                    clients[key[1]] = [{"ts": t, "down_bps": _num(d), "up_bps": _num(u)} for t, (d, u) in rows]
        return {"slice_id": slice_id, "interval_s": self.interval_s, "points": points, "clients": clients}

    def snapshot(self) -> Latest:
        with self.lock:
            return self.latest

    def measured_switch_us(self) -> dict[str, int]:
        """The switches' measured p99 of the last poll, if that poll is recent (at most 3 intervals old: else the
        poller has stopped or stalls, and the values may be from another load); {} otherwise."""
        latest = self.snapshot()
        fresh = latest.ts > 0 and self.clock() - latest.ts <= 3 * self.interval_s
        return dict(latest.switch_p99_us) if fresh else {}
