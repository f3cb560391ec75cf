"""The part of VapManager that puts vAPs back after something restarted: the agent (adopt what hostapd still runs,
sweep creations a crash cut short), hostapd (add again the BSSes it lost) and the pof-switch (its vAP ports again,
with their numbers). A mixin, so that vaps.py keeps the lifecycle and this file the recovery."""

from __future__ import annotations

import json
import logging
import time
from typing import Any

from wislice_agent_proto import validate as V

from . import bssconf
from .clients import counter
from .hostapd_ctrl import CtrlError
from .pofswitch import SwitchError
from .shaping import ShapingError
from .vap import Vap, normalized

log = logging.getLogger(__name__)


class VapRecovery:
    """Needs VapManager's state (vaps, radios, hostapd, shaper, attacher, meter, uplink, emit, conf_dir) and its
    helpers (_paths, _hostapd_add, _bss_state, _teardown, by_ifname, update_uplink_rate)."""

    vaps: dict[str, Vap]
    radios: dict[str, Any]
    hostapd: Any
    shaper: Any
    attacher: Any
    meter: Any
    uplink: Any
    emit: Any
    conf_dir: Any

    def adopt_existing(self) -> list[str]:
        """After an agent restart: take over the vAPs of our previous run that hostapd still runs (from the state
        files), so the controller's syncVaps keeps them; forget files of vAPs hostapd no longer has."""
        adopted = []
        for state_path in sorted(self.conf_dir.glob("*.json")):
            ifname = state_path.stem
            try:
                spec = V.vap_spec(json.loads(state_path.read_text()))
                radio = self.radios[spec["radio"]]
                slot = int(ifname.rsplit("_", 1)[1])
                if bssconf.vap_ifname(radio.iface, slot) != ifname or spec["vap_id"] in self.vaps:
                    raise ValueError("inconsistent state file")
                status = self.hostapd.status(ifname)
            except (ValueError, KeyError, IndexError, CtrlError, V.ValidationError) as e:
                log.info("not adopting %s: %s", ifname, e)
                for p in self._paths(ifname):
                    p.unlink(missing_ok=True)
                continue
            vap = Vap(normalized(spec), slot, ifname, bssconf.derive_bssid(radio.mac, slot))
            vap.state = "up" if status.get("state") == "ENABLED" else "down"
            self._reshape(vap)
            vap.pof_port = self._reattach(ifname)
            for sta in self.hostapd.all_sta(ifname):
                vap.clients[sta["mac"]] = time.monotonic() - counter(sta.get("connected_time"))
            self.vaps[spec["vap_id"]] = vap
            self.meter.start(ifname)
            adopted.append(spec["vap_id"])
        self._sweep_unfinished()
        return adopted

    def _sweep_unfinished(self) -> None:
        """A creation cut short by a crash left a config file without a state file (written last): hostapd may
        run its BSS, the radio's hierarchy may hold its class, the switch its port. Nobody holds that vAP (the
        controller's createVap failed with us), so undo all of it."""
        for conf_path in sorted(self.conf_dir.glob("*.conf")):
            ifname = conf_path.stem
            if self.by_ifname(ifname) is not None:
                continue
            slot_of = {bssconf.vap_ifname(r.iface, s): (r, s) for r in self.radios.values()
                       for s in range(1, r.max_vaps + 1)}
            if ifname in slot_of:
                radio, slot = slot_of[ifname]
                # pof_port 0: try the switch too (detach is quiet when it has no such port)
                orphan = Vap({"radio": radio.name}, slot, ifname, "", pof_port=0)
                if self._bss_state(ifname) != "failed":
                    log.warning("removing %s: a vAP whose creation a crash cut short", ifname)
                errors = self._teardown(orphan)
                log.info("unfinished vAP %s swept%s", ifname, f" ({'; '.join(errors)})" if errors else "")
            conf_path.unlink(missing_ok=True)

    def recover(self) -> list[str]:
        """After hostapd came back (a crash and restart): add again the vAPs it lost, from their config files,
        with their caps and switch ports; vAPs it still runs are left alone."""
        restored = []
        for vap_id, vap in list(self.vaps.items()):
            try:
                self.hostapd.status(vap.ifname)
                continue
            except CtrlError:
                pass
            radio = self.radios[vap.spec["radio"]]
            conf_path = self._paths(vap.ifname)[0]
            try:
                self._hostapd_add(radio, vap.ifname, str(conf_path))
                # a new netdev: its filters went with the old one, and the switch's port is bound to the old one
                self.shaper.remove(radio.name, vap.ifname, vap.slot)
                self.shaper.apply(radio.name, vap.ifname, vap.slot, vap.spec["rate_limit"],
                                  vap.spec.get("wmm_ac", "be"))
                self._rebind_port(vap)
                state = self._bss_state(vap.ifname)
            except (CtrlError, ShapingError) as e:
                log.warning("could not restore vAP %s: %s", vap_id, e)
                state = "failed"
            vap.clients.clear()
            if state != vap.state:
                vap.state = state
                self.emit("vapState", {"vap_id": vap_id, "state": state})
            restored.append(vap_id)
        return restored

    def _reshape(self, vap: Vap) -> None:
        """After an agent restart: the vAP's class and filters again, as its state file says (idempotent)."""
        try:
            self.shaper.apply(vap.spec["radio"], vap.ifname, vap.slot, vap.spec["rate_limit"],
                              vap.spec.get("wmm_ac", "be"))
        except ShapingError as e:
            log.warning("vAP %s: rates and access category not re-applied: %s", vap.spec["vap_id"], e)

    def _rebind_port(self, vap: Vap) -> None:
        """The vAP's switch port again, on its new netdev, with the number the controller's flows use."""
        try:
            self.attacher.detach(vap.ifname)
            vap.pof_port = self.attacher.attach(vap.ifname, vap.pof_port)
        except SwitchError as e:
            log.warning("pof-switch port for %s: %s", vap.ifname, e)

    def _reattach(self, ifname: str) -> int | None:
        try:
            return self.attacher.attach(ifname)
        except SwitchError as e:
            log.warning("pof-switch port for %s: %s", ifname, e)
            return None

    def reattach_lost_ports(self) -> list[str]:
        """A restarted pof-switch has only its command-line ports: add the vAPs' ports again, each as the number
        it had (the controller's flows name ports by number), and rate its uplink again. Quiet while the switch is
        away (the next check retries). Returns the vAPs whose ports were added."""
        if not self.attacher.present or not self.vaps:
            return []
        try:
            present = self.attacher.port_names()
        except SwitchError:
            return []
        readded = []
        for vap in sorted(self.vaps.values(), key=lambda v: v.pof_port or 0):
            if vap.ifname in present or vap.pof_port is None:
                continue
            try:
                self.attacher.attach(vap.ifname, vap.pof_port)
            except SwitchError as e:
                log.warning("pof-switch lost the port of vAP %s and refused it again: %s", vap.spec["vap_id"], e)
                continue
            readded.append(vap.spec["vap_id"])
        if readded:
            self.uplink.rate = None  # the restarted switch forgot it too
            self.update_uplink_rate()
        return readded
