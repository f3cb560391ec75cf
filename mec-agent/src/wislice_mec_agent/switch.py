"""The node's pof-switch, as the agent sees it: hot-add and remove a vNF's port, list ports.

``SwitchAttachment`` is the boundary. ``MgmtSwitch`` speaks the pof-switch's local management socket
(pof-switch/src/ctl/pof_mgmt.h: unix stream, one text line per command, one reply line: ``port-add NAME ARGS`` ->
``OK <id>``, ``port-del NAME`` -> ``OK``, ``ports`` -> ``OK <id>:<name>:<enabled>:<rx_packets>:<tx_packets>:
<rx_bytes>:<tx_bytes> ...`` (the switch's side of each port), errors ``ERROR <reason>``). ARGS come from templates
in the agent config because they depend on the switch build: pofswitch-afp wants the netdev (``{ifname}``), the
DPDK pofswitch wants devargs (``net_af_packet_{name},iface={ifname}`` or ``net_vhost_{name},iface={socket}``).
``NoSwitch`` is for a node without a switch (ports report pof_port null; kernel vNFs are still reachable on their
host veth).
"""

from __future__ import annotations

import socket
from dataclasses import dataclass
from typing import Protocol

from .errors import AgentError

MAX_REPLY = 65536


@dataclass
class SwitchPort:
    name: str
    port_id: int
    enabled: bool = True
    rx_packets: int = 0  # the switch's side of the port: rx = what the switch received from it
    tx_packets: int = 0
    rx_bytes: int = 0
    tx_bytes: int = 0


class SwitchAttachment(Protocol):
    present: bool

    def add_veth(self, name: str, ifname: str) -> int | None: ...
    def add_vhost(self, name: str, socket_path: str) -> int | None: ...
    def remove(self, name: str) -> bool: ...
    def ports(self) -> dict[str, SwitchPort]: ...


class NoSwitch:
    present = False

    def add_veth(self, name: str, ifname: str) -> int | None:
        return None

    def add_vhost(self, name: str, socket_path: str) -> int | None:
        raise AgentError("unsupported", "this node has no pof-switch, DPDK vNFs need one for their vhost-user port")

    def remove(self, name: str) -> bool:
        return False

    def ports(self) -> dict[str, SwitchPort]:
        return {}


class MgmtSwitch:
    present = True

    def __init__(self, path: str, veth_args: str = "{ifname}", vhost_args: str = "net_vhost_{name},iface={socket}",
                 timeout: float = 5.0) -> None:
        self.path = path
        self.veth_args = veth_args
        self.vhost_args = vhost_args
        self.timeout = timeout

    def command(self, line: str) -> str:
        """One request, one reply line; returns what follows ``OK`` or raises AgentError with the switch's reason."""
        if "\n" in line or len(line) > 500:
            raise ValueError("a management command is one line under 512 bytes")
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(self.timeout)
            try:
                s.connect(self.path)
                s.sendall(line.encode() + b"\n")
                buf = b""
                while not buf.endswith(b"\n"):
                    chunk = s.recv(4096)
                    if not chunk:
                        break
                    buf += chunk
                    if len(buf) > MAX_REPLY:
                        raise AgentError("internal", "pof-switch reply too long")
            except OSError as exc:
                raise AgentError("internal", f"pof-switch management socket {self.path}: {exc}") from exc
        reply = buf.decode(errors="replace").strip()
        if reply == "OK" or reply.startswith("OK "):
            return reply[3:]
        raise AgentError("internal", f"pof-switch: {line.split()[0]}: {reply or 'no reply'}")

    def add_veth(self, name: str, ifname: str) -> int | None:
        return int(self.command(f"port-add {name} {self.veth_args.format(name=name, ifname=ifname)}"))

    def add_vhost(self, name: str, socket_path: str) -> int | None:
        return int(self.command(f"port-add {name} {self.vhost_args.format(name=name, socket=socket_path)}"))

    def remove(self, name: str) -> bool:
        try:
            self.command(f"port-del {name}")
        except AgentError as exc:
            if "no port" in exc.message or "no such" in exc.message:
                return False
            raise
        return True

    def ports(self) -> dict[str, SwitchPort]:
        return parse_ports(self.command("ports"))


def parse_ports(text: str) -> dict[str, SwitchPort]:
    """``<id>:<name>:<enabled>:<rx_packets>:<tx_packets>:<rx_bytes>:<tx_bytes>`` items separated by spaces."""
    out = {}
    for item in text.split():
        fields = item.split(":")
        if len(fields) != 7 or not all(f.isdigit() for f in (fields[0], *fields[2:])):
            raise AgentError("internal", f"pof-switch: unparsable port entry {item!r}")
        pid, name, enabled, rx, tx, rx_bytes, tx_bytes = fields
        out[name] = SwitchPort(name=name, port_id=int(pid), enabled=enabled == "1", rx_packets=int(rx),
                               tx_packets=int(tx), rx_bytes=int(rx_bytes), tx_bytes=int(tx_bytes))
    return out
