"""vAP lifecycle on one hostapd: create, delete, reconcile to a desired set, track clients from hostapd events
(their counters and getClient / removeClient: clients.py).

Each vAP is one extra BSS: ``ADD bss_config=<phy>:<file>`` on the global control socket (driver=nl80211), or,
for radio-less hosts (driver=wired on a veth, used by the host integration tests), ``ADD <ifname> config=<file>``
followed by ENABLE. hostapd is never restarted, so other vAPs' clients stay associated.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from wislice_agent_proto import validate as V
from wislice_agent_proto.errors import AgentError

from . import bssconf
from .bssconf import RadioConfig
from .capacity import DEFAULT_CAPACITY_KBPS, RadioCapacity, phy_rates
from .clients import Stations, StationWalk
from .events import BssDisabled, BssEnabled, ChannelSwitched, Event, StaConnected, StaDisconnected
from .hostapd_ctrl import CtrlError, HostapdControl, channel_to_freq, freq_to_channel
from .pofswitch import NoSwitch, PortAttacher, SwitchError, UplinkRate
from .probes import Probes, check_probe
from .radio import radio_dict
from .shaping import NullShaper, Shaper, ShapingError, wants_shaping
from .stats import RateMeter
from .vap import Vap, normalized, same_bss
from .vap_recovery import VapRecovery

log = logging.getLogger(__name__)

EmitFn = Callable[[str, dict[str, Any]], None]


class VapManager(VapRecovery):
    def __init__(
        self,
        hostapd: HostapdControl,
        radios: list[RadioConfig],
        conf_dir: str,
        ctrl_dir: str,
        shaper: Shaper | None = None,
        attacher: PortAttacher | None = None,
        emit: EmitFn | None = None,
        meter: RateMeter | None = None,
        default_capacity_kbps: int = DEFAULT_CAPACITY_KBPS,
        uplink_port: str = "up",
    ) -> None:
        self.hostapd = hostapd
        self.radios = {r.name: r for r in radios}
        self.capacity = {r.name: RadioCapacity(r.capacity_kbps, default_capacity_kbps) for r in radios}
        self.conf_dir = Path(conf_dir)
        self.ctrl_dir = ctrl_dir
        self.shaper = shaper or NullShaper()
        self.attacher = attacher or NoSwitch()
        self.uplink = UplinkRate(self.attacher, uplink_port)
        self.emit: EmitFn = emit or (lambda name, data: None)
        self.meter = meter or RateMeter()
        self.vaps: dict[str, Vap] = {}
        self.stations = Stations(hostapd, self.vaps)
        # a present switch has the probe commands (PofSwitchMgmt; the tests' fake); NoSwitch: no probes
        self.probes = Probes(self.attacher if self.attacher.present else None)  # type: ignore[arg-type]
        self.conf_dir.mkdir(parents=True, exist_ok=True, mode=0o700)

    # ---- queries --------------------------------------------------------------------------------------------

    def by_ifname(self, ifname: str | None) -> Vap | None:
        for vap in self.vaps.values():
            if vap.ifname == ifname:
                return vap
        return None

    def on_radio(self, radio: str) -> list[Vap]:
        return [v for v in self.vaps.values() if v.spec["radio"] == radio]

    def radio_list(self) -> list[dict[str, Any]]:
        return [radio_dict(r, len(self.on_radio(r.name)), self.capacity[r.name].report())
                for r in self.radios.values()]

    def radio_capacities(self) -> list[dict[str, Any]]:
        """The stats event's ``radios``."""
        return [{"name": name, **c.report()} for name, c in self.capacity.items()]

    def get(self, vap_id: str) -> Vap:
        vap = self.vaps.get(vap_id)
        if vap is None:
            raise AgentError("not_found", f"no vAP {vap_id}")
        return vap

    # ---- create / delete ------------------------------------------------------------------------------------

    def _free_slot(self, radio: RadioConfig) -> int:
        used = {v.slot for v in self.on_radio(radio.name)}
        if len(used) >= radio.max_vaps:
            raise AgentError("capacity", f"radio {radio.name} already has its maximum of {radio.max_vaps} vAPs")
        return next(s for s in range(1, radio.max_vaps + 1) if s not in used)

    def _paths(self, ifname: str) -> tuple[Path, Path]:
        return self.conf_dir / f"{ifname}.conf", self.conf_dir / f"{ifname}.json"

    def _check_rates(self, rate_limit: dict[str, Any], path: str) -> None:
        try:
            V.rate_semantics(V.rate_limit(rate_limit, path), path)
        except V.ValidationError as e:
            raise AgentError("bad_request", str(e)) from e
        if wants_shaping(rate_limit) and isinstance(self.shaper, NullShaper):
            raise AgentError("unsupported", "bandwidth caps or guarantees requested but shaping is disabled on "
                                            "this AP")

    def create(self, spec: dict[str, Any]) -> Vap:
        try:
            V.vap_spec(spec, "vap")
        except V.ValidationError as e:
            raise AgentError("bad_request", str(e)) from e
        check_probe(spec.get("probe"))
        vap_id = spec["vap_id"]
        if vap_id in self.vaps:
            raise AgentError("conflict", f"vAP {vap_id} already exists")
        radio = self.radios.get(spec["radio"])
        if radio is None:
            raise AgentError("not_found", f"no radio {spec['radio']} on this AP")
        rl = spec["rate_limit"]
        self._check_rates(rl, "vap.rate_limit")
        slot = self._free_slot(radio)
        ifname = bssconf.vap_ifname(radio.iface, slot)
        vap = Vap(normalized(spec), slot, ifname, bssconf.derive_bssid(radio.mac, slot))
        conf_path, state_path = self._paths(ifname)
        text = bssconf.render(spec, radio, ifname, vap.bssid, self.ctrl_dir)
        _write_private(conf_path, text)
        t0 = time.monotonic()
        try:
            self._hostapd_add(radio, ifname, str(conf_path))
        except CtrlError as e:
            conf_path.unlink(missing_ok=True)
            raise AgentError("internal", f"hostapd could not add vAP {vap_id}: {e}") from e
        t_added = time.monotonic()
        try:
            self.shaper.apply(radio.name, ifname, slot, rl, vap.spec["wmm_ac"])
            t_shaped = time.monotonic()
            vap.pof_port = self.attacher.attach(ifname)
            log.info("vAP %s (%s) up in %.0f ms: hostapd %.0f, shaping %.0f, switch port %.0f", vap_id, ifname,
                     (time.monotonic() - t0) * 1e3, (t_added - t0) * 1e3, (t_shaped - t_added) * 1e3,
                     (time.monotonic() - t_shaped) * 1e3)
        except (ShapingError, SwitchError) as e:
            self._teardown(vap)
            raise AgentError("internal", f"vAP {vap_id} removed again: {e}") from e
        _write_private(state_path, json.dumps(vap.spec))
        self.vaps[vap_id] = vap
        self.meter.start(ifname)
        vap.state = self._bss_state(ifname)
        self.emit("vapState", {"vap_id": vap_id, "state": vap.state})
        self.probes.sync(self.vaps)
        return vap

    def _hostapd_add(self, radio: RadioConfig, ifname: str, conf_path: str) -> None:
        if radio.driver == "wired":
            self.hostapd.add_interface(ifname, conf_path)
            reply = self.hostapd.raw("ENABLE", ifname).strip()
            if reply != "OK":
                self.hostapd.remove(ifname)
                raise CtrlError(f"ENABLE {ifname}: {reply}")
        else:
            self.hostapd.add_bss(radio.name, conf_path)

    def _bss_state(self, ifname: str) -> str:
        try:
            return "up" if self.hostapd.status(ifname).get("state") == "ENABLED" else "down"
        except CtrlError:
            return "failed"

    def _teardown(self, vap: Vap) -> list[str]:
        """Undo everything create() did; collects errors instead of stopping half-way."""
        errors = []
        steps = (
            ("pof-switch", lambda: self.attacher.detach(vap.ifname) if vap.pof_port is not None else None),
            ("shaping", lambda: self.shaper.remove(vap.spec["radio"], vap.ifname, vap.slot)),
            ("hostapd", lambda: self.hostapd.remove(vap.ifname)),
        )
        for what, step in steps:
            try:
                step()
            except (CtrlError, ShapingError, SwitchError) as e:
                errors.append(f"{what}: {e}")
        for p in self._paths(vap.ifname):
            p.unlink(missing_ok=True)
        self.meter.forget(vap.ifname)
        return errors

    def delete(self, vap_id: str) -> None:
        vap = self.get(vap_id)
        del self.vaps[vap_id]
        self.probes.stop(vap_id)
        errors = self._teardown(vap)
        for mac in list(vap.clients):
            self.emit("clientDisassociated", {"vap_id": vap_id, "mac": mac})
        self.emit("vapState", {"vap_id": vap_id, "state": "removed"})
        if errors:
            raise AgentError("internal", f"vAP {vap_id} removed with errors: {'; '.join(errors)}")

    def update_rate(self, vap: Vap, spec: dict[str, Any]) -> None:
        """Apply new rates and access category (and tenant/slice labels) without touching the BSS: its clients
        stay associated."""
        rl, ac = spec["rate_limit"], normalized(spec)["wmm_ac"]
        self._check_rates(rl, "rate_limit")
        check_probe(spec.get("probe"))
        if rl != vap.spec["rate_limit"] or ac != vap.spec["wmm_ac"]:  # labels-only changes leave the qdiscs alone
            try:
                self.shaper.apply(vap.spec["radio"], vap.ifname, vap.slot, rl, ac)
            except ShapingError as e:
                raise AgentError("internal", f"vAP {vap.spec['vap_id']}: {e}") from e
        vap.spec = normalized(spec)
        _write_private(self._paths(vap.ifname)[1], json.dumps(vap.spec))  # an agent restart re-applies them
        self.probes.sync(self.vaps)  # a probe added, changed or dropped

    def update(self, vap_id: str, changes: dict[str, Any]) -> Vap:
        """updateVap: new rates, access category and/or probe (None: no probe) for a running vAP, in place
        (hostapd untouched); what changes does not carry stays."""
        vap = self.get(vap_id)
        spec = {**vap.spec, **changes}
        if spec.get("probe") is None:
            spec.pop("probe", None)
        self.update_rate(vap, spec)
        return vap

    # ---- reconcile ------------------------------------------------------------------------------------------

    def sync(self, specs: list[dict[str, Any]]) -> dict[str, list[Any]]:
        """Converge to exactly ``specs``: remove extra or changed vAPs, create missing ones, keep matching ones
        untouched (a change of rate caps only is applied in place and counts as kept)."""
        wanted: dict[str, dict[str, Any]] = {}
        for s in specs:
            if s["vap_id"] in wanted:
                raise AgentError("bad_request", f"vAP {s['vap_id']} appears twice in syncVaps")
            wanted[s["vap_id"]] = s
        result: dict[str, list[Any]] = {"created": [], "removed": [], "kept": [], "failed": []}
        for vap_id, vap in list(self.vaps.items()):
            want = wanted.get(vap_id)
            if want is not None and same_bss(vap.spec, want):
                continue
            try:
                self.delete(vap_id)
                result["removed"].append(vap_id)
            except AgentError as e:
                result["removed"].append(vap_id)
                log.warning("sync: %s", e.message)
        for vap_id, want in wanted.items():
            vap = self.vaps.get(vap_id)
            try:
                if vap is None:
                    self.create(want)
                    result["created"].append(vap_id)
                else:
                    if normalized(want) != vap.spec:
                        self.update_rate(vap, want)
                    result["kept"].append(vap_id)
            except AgentError as e:
                result["failed"].append({"vap_id": vap_id, "error": {"code": e.code, "message": e.message}})
        return result

    # ---- hostapd events ------------------------------------------------------------------------------------

    def on_event(self, ev: Event) -> None:
        vap = self.by_ifname(ev.ifname)
        if isinstance(ev, ChannelSwitched):
            self._on_channel_switched(ev)
            return
        if vap is None:
            return
        vap_id = vap.spec["vap_id"]
        if isinstance(ev, StaConnected):
            if ev.mac not in vap.clients:
                vap.clients[ev.mac] = time.monotonic()
                signal = self.stations.signal(vap, ev.mac)
                self.emit("clientAssociated", {"vap_id": vap_id, "mac": ev.mac, "signal_dbm": signal})
        elif isinstance(ev, StaDisconnected):
            if vap.clients.pop(ev.mac, None) is not None:
                self.emit("clientDisassociated", {"vap_id": vap_id, "mac": ev.mac})
        elif isinstance(ev, BssEnabled | BssDisabled):
            state = "up" if isinstance(ev, BssEnabled) else "down"
            if state != vap.state:
                vap.state = state
                self.emit("vapState", {"vap_id": vap_id, "state": state})

    def _on_channel_switched(self, ev: ChannelSwitched) -> None:
        if ev.freq is None:
            return
        for name, r in self.radios.items():
            if r.iface == ev.ifname or self.by_ifname(ev.ifname) in self.on_radio(name):
                self.radios[name] = dataclasses.replace(r, channel=freq_to_channel(ev.freq))

    # ---- Table II helpers ----------------------------------------------------------------------------------

    def change_channel(self, radio_name: str, channel: int, cs_count: int = 5) -> dict[str, Any]:
        radio = self.radios.get(radio_name)
        if radio is None:
            raise AgentError("not_found", f"no radio {radio_name}")
        band_ok = channel <= 14 if radio.hw_mode in ("b", "g") else channel >= 32
        if not band_ok:
            raise AgentError("bad_request", f"channel {channel} is not in band {radio.hw_mode} of {radio_name}")
        try:
            self.hostapd.chan_switch(radio.iface, cs_count, channel_to_freq(channel))
        except (CtrlError, ValueError) as e:
            raise AgentError("unsupported", f"channel switch on {radio_name} failed: {e}") from e
        self.radios[radio_name] = dataclasses.replace(radio, channel=channel)
        return radio_dict(self.radios[radio_name], len(self.on_radio(radio_name)))

    def rate(self, vap_id: str, direction: str) -> dict[str, Any]:
        vap = self.get(vap_id)
        r = self.meter.sample(vap.ifname)
        if r is None:
            raise AgentError("internal", f"no counters for {vap.ifname}")
        bps, pps = (r.tx_bps, r.tx_pps) if direction == "tx" else (r.rx_bps, r.rx_pps)
        return {"vap_id": vap_id, "bps": round(bps, 1), "packets_per_s": round(pps, 1),
                "interval_s": round(r.interval_s, 3)}

    def stats_event(self, interval_s: float) -> dict[str, Any]:
        """The stats event's data. hostapd's stations are walked once per BSS, for both the radios' measured
        capacity (re-rating their hierarchies when it changed) and the clients' counters and rates."""
        walk = StationWalk(self.hostapd)
        self.refresh_capacity(walk)
        data = {"interval_s": interval_s, "vaps": self.stats(), "radios": self.radio_capacities(),
                "clients": self.stations.report(walk)}
        latency = self.probes.report(self.vaps)
        if latency:  # only with probed vAPs: a controller from before probes sends none, and gets no latency
            data["latency"] = latency
        return data

    def stats(self) -> list[dict[str, Any]]:
        out = []
        for vap_id, vap in self.vaps.items():
            r = self.meter.sample(vap.ifname)
            out.append({"vap_id": vap_id, "tx_bps": round(r.tx_bps, 1) if r else 0.0,
                        "rx_bps": round(r.rx_bps, 1) if r else 0.0, "clients": len(vap.clients)})
        return out

    def shutdown(self, remove_vaps: bool) -> None:
        """On agent exit: by default leave the vAPs running (clients stay; adopt_existing() takes them back) and
        their radios' hierarchies with them; otherwise remove both."""
        if remove_vaps:
            for vap_id in list(self.vaps):
                try:
                    self.delete(vap_id)
                except AgentError as e:
                    log.warning("%s", e.message)
            for name in self.radios:
                try:
                    self.shaper.remove_radio(name)
                except ShapingError as e:
                    log.warning("radio %s: %s", name, e)

    # ---- radio capacity -------------------------------------------------------------------------------------

    def setup_radios(self) -> None:
        """Each radio's downlink hierarchy at its current capacity (taken over if an earlier run left it)."""
        for name, radio in self.radios.items():
            self.shaper.add_radio(name, radio.iface, self.capacity[name].kbps)
        self.update_uplink_rate()

    def refresh_capacity(self, stations: HostapdControl | StationWalk | None = None) -> list[str]:
        """Measure the radios without an operator capacity (from ``stations``, default: ask hostapd); re-rate the
        hierarchies (and the switch's uplink port) whose capacity changed. Returns their names."""
        changed = []
        for name, radio in self.radios.items():
            cap = self.capacity[name]
            ifnames = [radio.iface, *(v.ifname for v in self.on_radio(name))]
            rates = None if cap.operator else phy_rates(stations or self.hostapd, ifnames, radio.driver == "nl80211")
            if not cap.update(rates):
                continue
            changed.append(name)
            log.info("radio %s: capacity %d kbit/s (%s)", name, cap.kbps, cap.source)
            try:
                self.shaper.set_capacity(name, cap.kbps)
            except ShapingError as e:
                log.warning("radio %s: hierarchy not re-rated: %s", name, e)
        self.update_uplink_rate()
        return changed

    def update_uplink_rate(self) -> None:
        """The pof-switch's uplink port sends at the sum of the radios' capacities (docs/guaranteed-slices.md)."""
        self.uplink.set(sum(c.kbps for c in self.capacity.values()))


def _write_private(path: Path, text: str) -> None:
    """Write a file only the agent can read (it holds the passphrase), atomically."""
    tmp = path.with_suffix(path.suffix + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.replace(tmp, path)
