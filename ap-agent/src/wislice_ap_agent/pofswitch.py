"""Attaching vAP netdevs to the AP's local pof-switch, and learning their pof_port numbers.

The switch is optional: without one, ``NoSwitch`` reports pof_port null. ``PofSwitchMgmt`` speaks the switch's
local management socket (unix stream, one JSON object per line each way) for run-time port add/remove.
"""

from __future__ import annotations

import json
import socket
from typing import Protocol


class SwitchError(Exception):
    pass


class PortAttacher(Protocol):
    present: bool

    def attach(self, ifname: str) -> int | None:
        """Add ifname as a switch port; returns its pof_port (None without a switch)."""

    def detach(self, ifname: str) -> None:
        """Remove the port of ifname; quiet if it is not attached."""


class NoSwitch:
    present = False

    def attach(self, ifname: str) -> int | None:
        return None

    def detach(self, ifname: str) -> None:
        return None


class PofSwitchMgmt:
    """Client of pof-switch's management socket: ``{"cmd":"port-add","name":IF,"type":"af_packet"}`` ->
    ``{"ok":true,"port":N}``; ``{"cmd":"port-del","name":IF}`` -> ``{"ok":true}``; errors ``{"ok":false,"error":S}``.
    """

    present = True

    def __init__(self, path: str, timeout: float = 5.0) -> None:
        self.path = path
        self.timeout = timeout

    def _call(self, request: dict[str, object]) -> dict[str, object]:
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
                s.settimeout(self.timeout)
                s.connect(self.path)
                s.sendall(json.dumps(request).encode() + b"\n")
                buf = b""
                while not buf.endswith(b"\n"):
                    chunk = s.recv(65536)
                    if not chunk:
                        break
                    buf += chunk
                    if len(buf) > 1 << 20:
                        raise SwitchError("pof-switch reply too long")
        except OSError as e:
            raise SwitchError(f"pof-switch management socket {self.path}: {e}") from e
        try:
            reply = json.loads(buf)
        except ValueError as e:
            raise SwitchError(f"pof-switch sent a malformed reply: {buf[:200]!r}") from e
        if not isinstance(reply, dict) or reply.get("ok") is not True:
            err = reply.get("error") if isinstance(reply, dict) else reply
            raise SwitchError(f"pof-switch refused {request['cmd']}: {err}")
        return reply

    def attach(self, ifname: str) -> int | None:
        reply = self._call({"cmd": "port-add", "name": ifname, "type": "af_packet"})
        port = reply.get("port")
        if isinstance(port, bool) or not isinstance(port, int) or not 1 <= port <= 65535:
            raise SwitchError(f"pof-switch returned an invalid port number {port!r}")
        return port

    def detach(self, ifname: str) -> None:
        try:
            self._call({"cmd": "port-del", "name": ifname})
        except SwitchError as e:
            if "no such port" not in str(e):
                raise


def make_attacher(mgmt_socket: str | None) -> PortAttacher:
    return PofSwitchMgmt(mgmt_socket) if mgmt_socket else NoSwitch()
