"""In-band latency probes of the vAPs' slices (issue 15): a vAP whose spec has ``probe`` gets a probe session on its
port of the AP's pof-switch (spec/switch-mgmt, "Probes"), which sends ICMP echo requests into the switch as if a
station of the vAP sent them, so they take the slice's flows, meters and queues, and measures their round trips.

The agent keeps the sessions where the vAPs are: ``sync`` (after every vAP change and every few seconds from the
agent's loop) starts the session of each up, attached vAP with a probe, starts it again when the switch no longer
has it (the switch restarted, or the vAP's port was removed and added again), and stops the sessions of vAPs that
went away, went down or dropped their probe. ``latency`` answers getLatency, ``report`` is the stats event's
``latency``. The switch resolves the next hop's MAC itself (DST_MAC ``auto``): the agent knows the tenant's
addresses from the slice's request, not the MACs behind them.
"""

from __future__ import annotations

import hashlib
import ipaddress
import logging
from dataclasses import dataclass
from typing import Any, Protocol

from wislice_agent_proto.errors import AgentError
from wislice_agent_proto.switch_mgmt import MgmtError, ProbeStats

from .vap import Vap

log = logging.getLogger(__name__)

DEFAULT_INTERVAL_MS = 100
LATENCY_KEYS = ("sent", "received", "lost", "p50_us", "p90_us", "p99_us", "max_us", "samples")


class ProbeSwitch(Protocol):
    """The switch's probe commands as the agent uses them (pofswitch.PofSwitchMgmt; a fake in the tests)."""

    def probe_start(self, port: str, probe_id: int, src_mac: str, src_ip: str, dst_ip: str,
                    interval_us: int) -> None: ...

    def probe_stats(self, port: str, probe_id: int) -> ProbeStats: ...

    def probe_stop(self, port: str, probe_id: int) -> bool: ...


@dataclass(frozen=True)
class Session:
    """A session as started on the switch: its port and id, and what it was started with."""

    port: str
    probe_id: int
    mac: str
    source_ip: str
    target_ip: str
    interval_ms: int


def probe_mac(vap_id: str) -> str:
    """The probe's own MAC: locally administered, unicast (02:...), the rest from a hash of the vAP id, so it is
    the same across agent restarts and differs between vAPs."""
    return ":".join(f"{b:02x}" for b in b"\x02" + hashlib.sha256(vap_id.encode()).digest()[:5])


def check_probe(probe: dict[str, Any] | None, path: str = "vap.probe") -> None:
    """What the schema cannot say: the two addresses differ and are unicast (AgentError bad_request)."""
    if probe is None:
        return
    if probe["source_ip"] == probe["target_ip"]:
        raise AgentError("bad_request", f"{path}: source_ip and target_ip are the same address")
    for key in ("source_ip", "target_ip"):
        ip = ipaddress.IPv4Address(probe[key])
        if ip.is_unspecified or ip.is_multicast or ip.is_loopback or ip == ipaddress.IPv4Address("255.255.255.255"):
            raise AgentError("bad_request", f"{path}.{key}: {ip} is not a unicast host address")


def wanted(vap: Vap) -> Session | None:
    """The session vap should have now, or None (no probe, not up, no switch port)."""
    probe = vap.spec.get("probe")
    if probe is None or vap.state != "up" or vap.pof_port is None:
        return None
    return Session(vap.ifname, vap.slot, probe_mac(vap.spec["vap_id"]), probe["source_ip"], probe["target_ip"],
                   probe.get("interval_ms", DEFAULT_INTERVAL_MS))


class Probes:
    def __init__(self, switch: ProbeSwitch | None) -> None:
        self.switch = switch  # None: the AP has no pof-switch
        self.running: dict[str, Session] = {}  # vap_id -> the session started for it

    def sync(self, vaps: dict[str, Vap]) -> None:
        """Sessions for exactly the vAPs that want one; a session the switch lost is started again. Failures are
        logged and retried on the next call."""
        if self.switch is None:
            return
        for vap_id in [v for v in self.running if v not in vaps or wanted(vaps[v]) != self.running[v]]:
            self.stop(vap_id)
        for vap_id, vap in vaps.items():
            want = wanted(vap)
            if want is None:
                continue
            if vap_id in self.running:
                try:
                    self.switch.probe_stats(want.port, want.probe_id)
                    continue
                except MgmtError as e:
                    if not _lost(e, want):
                        log.warning("probe of vAP %s: %s", vap_id, e)
                        continue
                log.warning("the pof-switch lost the probe of vAP %s (restarted, or its port made again): started "
                            "again", vap_id)
                del self.running[vap_id]
            self._start(vap_id, want)

    def _start(self, vap_id: str, s: Session) -> bool:
        assert self.switch is not None
        start = (s.port, s.probe_id, s.mac, s.source_ip, s.target_ip, s.interval_ms * 1000)
        try:
            try:
                self.switch.probe_start(*start)
            except MgmtError as e:
                if e.reason != f"probe {s.port} {s.probe_id} exists":
                    raise
                # left by an earlier run of the agent, maybe with other addresses: made again as wanted now
                self.switch.probe_stop(s.port, s.probe_id)
                self.switch.probe_start(*start)
        except MgmtError as e:
            log.warning("probe of vAP %s not started: %s", vap_id, e)
            return False
        self.running[vap_id] = s
        log.info("probe of vAP %s on port %s: %s -> %s every %d ms", vap_id, s.port, s.source_ip, s.target_ip,
                 s.interval_ms)
        return True

    def stop(self, vap_id: str) -> None:
        """Ends the vAP's session (quiet if the switch no longer has it or cannot be reached)."""
        s = self.running.pop(vap_id, None)
        if s is None or self.switch is None:
            return
        try:
            self.switch.probe_stop(s.port, s.probe_id)
        except MgmtError as e:
            log.warning("probe of vAP %s not stopped: %s", vap_id, e)

    def latency(self, vap: Vap) -> dict[str, Any]:
        """getLatency: the vAP's session now (started first if it should run and does not)."""
        vap_id = vap.spec["vap_id"]
        if self.switch is None:
            raise AgentError("unsupported", "this AP has no pof-switch: no latency probes")
        if vap.spec.get("probe") is None:
            raise AgentError("unsupported", f"vAP {vap_id} has no probe")
        want = wanted(vap)
        if want is None:
            raise AgentError("internal", f"vAP {vap_id} is {vap.state}, no switch port: its probe does not run")
        if self.running.get(vap_id) != want:
            self.stop(vap_id)
        if vap_id not in self.running and not self._start(vap_id, want):
            raise AgentError("internal", f"vAP {vap_id}: the pof-switch did not start its probe")
        try:
            return _item(vap_id, self.switch.probe_stats(want.port, want.probe_id))
        except MgmtError as e:
            if not _lost(e, want):
                raise AgentError("internal", f"vAP {vap_id}: {e}") from e
        del self.running[vap_id]  # the switch lost it: a new session, which has sent nothing yet
        if not self._start(vap_id, want):
            raise AgentError("internal", f"vAP {vap_id}: the pof-switch lost its probe and did not start it again")
        return _item(vap_id, ProbeStats(0, 0, 0, 0, 0, 0, 0, 0))

    def report(self, vaps: dict[str, Vap]) -> list[dict[str, Any]]:
        """The stats event's ``latency``: the running sessions that can be read now (the next sync restarts a lost
        one)."""
        out = []
        for vap_id, s in self.running.items():
            if vap_id not in vaps or self.switch is None:
                continue
            try:
                out.append(_item(vap_id, self.switch.probe_stats(s.port, s.probe_id)))
            except MgmtError as e:
                log.info("probe of vAP %s not read: %s", vap_id, e)
        return out


def _lost(e: MgmtError, s: Session) -> bool:
    return e.reason == f"no probe {s.port} {s.probe_id}"


def _item(vap_id: str, st: ProbeStats) -> dict[str, Any]:
    return {"vap_id": vap_id, **{k: getattr(st, k) for k in LATENCY_KEYS}}
