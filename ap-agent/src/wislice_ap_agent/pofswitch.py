"""Attaching vAP netdevs to the AP's local pof-switch, and learning their pof_port numbers.

The switch is optional: without one, ``NoSwitch`` reports pof_port null. ``PofSwitchMgmt`` speaks pof-switch's
local management socket (pof-switch/src/ctl/pof_mgmt.h: unix stream, one text command per line, one reply line):
``port-add NAME ARGS`` -> ``OK <port id>``, ``port-del NAME`` -> ``OK``, ``port-rate NAME KBPS`` -> ``OK`` (the
port sends at KBPS, green first: the agent sets its uplink port to the radios' capacity), errors ``ERROR <reason>``.
"""

from __future__ import annotations

import logging
import re
import socket
from typing import Protocol

from . import validate as V

log = logging.getLogger(__name__)

# ARGS of port-add: the netdev for the AF_PACKET build (pofswitch-afp, the AP case), DPDK devargs otherwise.
ARGS_TEMPLATE = re.compile(r"^[A-Za-z0-9_.,=:{}/-]{1,200}\Z")


class SwitchError(Exception):
    pass


class PortAttacher(Protocol):
    present: bool

    def attach(self, ifname: str) -> int | None:
        """Add ifname as a switch port; returns its pof_port (None without a switch)."""

    def detach(self, ifname: str) -> None:
        """Remove the port of ifname; quiet if it is not attached."""

    def set_port_rate(self, name: str, kbps: int) -> None:
        """Make the switch's port NAME send at kbps (0 = line rate); SwitchError if the switch refuses."""


class NoSwitch:
    present = False

    def attach(self, ifname: str) -> int | None:
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
        self.path = path
        self.args_template = args_template
        self.timeout = timeout

    def command(self, line: str) -> str:
        """One command line -> the reply line without its newline; SwitchError on ``ERROR ...``."""
        if "\n" in line or "\r" in line:
            raise SwitchError("newline in a pof-switch command")
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
                s.settimeout(self.timeout)
                s.connect(self.path)
                s.sendall(line.encode() + b"\n")
                buf = b""
                while not buf.endswith(b"\n") and len(buf) < 65536:
                    chunk = s.recv(4096)
                    if not chunk:
                        break
                    buf += chunk
        except OSError as e:
            raise SwitchError(f"pof-switch management socket {self.path}: {e}") from e
        reply = buf.decode("utf-8", "replace").strip()
        if not reply.startswith("OK"):
            raise SwitchError(f"pof-switch refused {line.split(' ', 1)[0]}: {reply or 'no reply'}")
        return reply

    def port_of(self, ifname: str) -> int | None:
        """The port id of an attached netdev, from ``ports`` -> ``OK <id>:<name>:<enabled>:<rx_packets>:<tx_packets>:
        <rx_bytes>:<tx_bytes> ...`` (only the first two fields are read)."""
        for entry in self.command("ports").split()[1:]:
            fields = entry.split(":")
            if len(fields) >= 2 and fields[1] == ifname and fields[0].isdigit():
                return int(fields[0])
        return None

    def attach(self, ifname: str) -> int | None:
        V.string(ifname, "ifname", V.IFNAME)
        try:
            reply = self.command(f"port-add {ifname} {self.args_template.format(ifname=ifname)}")
        except SwitchError as e:
            # Already a port (an agent restart adopting its running vAPs): report the existing number.
            port = self.port_of(ifname) if f"port {ifname} exists" in str(e) else None
            if port is None:
                raise
            return port
        parts = reply.split()
        if len(parts) != 2 or not parts[1].isdigit() or not 1 <= int(parts[1]) <= 65535:
            raise SwitchError(f"pof-switch returned no valid port number: {reply!r}")
        return int(parts[1])

    def detach(self, ifname: str) -> None:
        try:
            self.command(f"port-del {V.string(ifname, 'ifname', V.IFNAME)}")
        except SwitchError as e:
            if f"no port {ifname}" not in str(e):
                raise

    def set_port_rate(self, name: str, kbps: int) -> None:
        V.string(name, "port", V.IFNAME)
        self.command(f"port-rate {name} {V.integer(kbps, 'kbps', 0, 4294967295)}")


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
