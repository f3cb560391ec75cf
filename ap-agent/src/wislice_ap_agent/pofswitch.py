"""Attaching vAP netdevs to the AP's local pof-switch, and learning their pof_port numbers.

The switch is optional: without one, ``NoSwitch`` reports pof_port null. ``PofSwitchMgmt`` uses the switch's
management socket (spec/switch-mgmt, through wislice_agent_proto's client): ``port-add`` for a vAP's netdev,
``port-del``, ``port-rate`` for the uplink port (the port sends at KBPS, green first: the agent sets it to the
radios' capacity), and ``probe-start``/``probe-stats``/``probe-stop`` for the vAPs' latency probes (probes.py).
"""

from __future__ import annotations

import logging
import re
from typing import Protocol

from wislice_agent_proto import validate as V
from wislice_agent_proto.switch_mgmt import MgmtError, ProbeStats, SwitchMgmt

log = logging.getLogger(__name__)

# ARGS of port-add: the netdev for the AF_PACKET build (pofswitch-afp, the AP case), DPDK devargs otherwise.
ARGS_TEMPLATE = re.compile(r"^[A-Za-z0-9_.,=:{}/-]{1,200}\Z")

# What the switch's refusals and failures raise here: its message names the command and the switch's reason.
SwitchError = MgmtError


class PortAttacher(Protocol):
    present: bool

    def attach(self, ifname: str, port_id: int | None = None) -> int | None:
        """Add ifname as a switch port (as number port_id when given); returns its pof_port (None without a
        switch)."""

    def detach(self, ifname: str) -> None:
        """Remove the port of ifname; quiet if it is not attached."""

    def port_names(self) -> set[str]:
        """The names of the switch's ports now."""

    def set_port_rate(self, name: str, kbps: int) -> None:
        """Make the switch's port NAME send at kbps (0 = line rate); SwitchError if the switch refuses."""


class NoSwitch:
    present = False

    def port_names(self) -> set[str]:
        return set()

    def attach(self, ifname: str, port_id: int | None = None) -> int | None:
        return None

    def detach(self, ifname: str) -> None:
        return None

    def set_port_rate(self, name: str, kbps: int) -> None:
        return None


class PofSwitchMgmt:
    present = True

    def __init__(self, path: str, args_template: str = "{ifname}", timeout: float = 5.0) -> None:
        if not ARGS_TEMPLATE.match(args_template):
            raise SwitchError(f"bad pof-switch port args template {args_template!r}")
        self.mgmt = SwitchMgmt(path, timeout)
        self.args_template = args_template

    def attach(self, ifname: str, port_id: int | None = None) -> int | None:
        V.string(ifname, "ifname", V.IFNAME)
        try:
            return self.mgmt.port_add(ifname, self.args_template.format(ifname=ifname), port_id)
        except SwitchError as e:
            if e.reason != f"port {ifname} exists":
                raise
        # Already a port (an agent restart adopting its running vAPs): report the existing number.
        port = self.mgmt.ports().get(ifname)
        if port is None:
            raise SwitchError(f"pof-switch: port {ifname} exists but is not listed")
        return port.port_id

    def detach(self, ifname: str) -> None:
        self.mgmt.port_del(V.string(ifname, "ifname", V.IFNAME))  # False when not attached: quiet

    def port_names(self) -> set[str]:
        return set(self.mgmt.ports())

    def set_port_rate(self, name: str, kbps: int) -> None:
        self.mgmt.port_rate(V.string(name, "port", V.IFNAME), V.integer(kbps, "kbps", 0, 4294967295))

    def probe_start(self, port: str, probe_id: int, src_mac: str, src_ip: str, dst_ip: str,
                    interval_us: int) -> None:
        """A probe session on port; the switch finds the next hop's MAC by ARP (DST_MAC auto)."""
        self.mgmt.probe_start(port, probe_id, src_mac, "auto", src_ip, dst_ip, interval_us=interval_us)

    def probe_stats(self, port: str, probe_id: int) -> ProbeStats:
        return self.mgmt.probe_stats(port, probe_id)

    def probe_stop(self, port: str, probe_id: int) -> bool:
        return self.mgmt.probe_stop(port, probe_id)


class UplinkRate:
    """Keeps the switch's port towards the wire (config ``pof_switch_uplink``) at a rate: the uplink of the radios
    is scheduled there (docs/guaranteed-slices.md). Quiet without a switch or without that port (retried on the
    next call); one warning if the switch is too old for port-rate, then no more attempts."""

    def __init__(self, attacher: PortAttacher, port: str) -> None:
        self.attacher = attacher
        self.port = port
        self.rate: int | None = None  # as last set on the switch
        self.problem: str | None = None

    def set(self, kbps: int) -> None:
        if not self.attacher.present or kbps == self.rate or self.problem == "unsupported":
            return
        try:
            self.attacher.set_port_rate(self.port, kbps)
        except SwitchError as e:
            text = str(e)
            if "unknown command" in text:
                self.problem = "unsupported"
                log.warning("the pof-switch has no port-rate command: its uplink port is not rated (%s)", text)
            elif f"no port {self.port}" in text:
                self.problem = "no port"
            elif text != self.problem:
                self.problem = text
                log.warning("pof-switch uplink port %s not rated: %s", self.port, text)
            return
        self.rate, self.problem = kbps, None
        log.info("pof-switch uplink port %s rated at %d kbit/s", self.port, kbps)


def make_attacher(mgmt_socket: str | None, args_template: str = "{ifname}") -> PortAttacher:
    return PofSwitchMgmt(mgmt_socket, args_template) if mgmt_socket else NoSwitch()
