"""hostapd control interface client, modelled on wpa_ctrl: unix datagram sockets, one bound client path per
connection, requests with a deadline on the monotonic clock, a second ATTACHed connection for events.

Works for the global interface (``hostapd -g PATH``) and for a per-BSS socket (``ctrl_interface=DIR`` -> DIR/IFNAME).
"""

from __future__ import annotations

import contextlib
import errno
import itertools
import os
import select
import socket
import tempfile
import time

# hostapd answers with at most a few KiB, but ALL_STA on a busy AP and STATUS of a multi-BSS radio grow: never
# truncate silently, read the whole datagram.
MAX_REPLY = 65536

_counter = itertools.count(1)


class CtrlError(Exception):
    """The control socket failed (connect, send, timeout) or hostapd answered FAIL / UNKNOWN COMMAND."""


class CtrlTimeout(CtrlError):
    pass


class CtrlGone(CtrlError):
    """The socket's peer is gone (hostapd exited or restarted): reconnecting may help."""


def default_client_dir() -> str:
    # /run is root-only and not world-writable, unlike /tmp (wpaspy's mistake); fall back for unprivileged tests.
    for d in ("/run/wislice-ap-agent", os.path.join(tempfile.gettempdir(), f"wislice-ap-agent-{os.getuid()}")):
        try:
            os.makedirs(d, mode=0o700, exist_ok=True)
            return d
        except OSError:
            continue
    raise CtrlError("no writable directory for control client sockets")


class CtrlConnection:
    """One connection to a hostapd control socket (request/reply, or events after attach())."""

    def __init__(self, path: str, client_dir: str | None = None, timeout: float = 5.0) -> None:
        self.path = path
        self.timeout = timeout
        self.attached = False
        client_dir = client_dir or default_client_dir()
        self.local_path = os.path.join(client_dir, f"c{os.getpid()}-{next(_counter)}")
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        try:
            self._bind()
            self.sock.connect(path)
        except OSError as e:
            self.close()
            raise CtrlError(f"cannot connect to hostapd control socket {path}: {e.strerror or e}") from e
        self.sock.setblocking(False)

    def _bind(self) -> None:
        try:
            self.sock.bind(self.local_path)
        except OSError as e:
            if e.errno != errno.EADDRINUSE:
                raise
            # A stale path from a crashed run with a recycled pid: unlink it once and retry.
            os.unlink(self.local_path)
            self.sock.bind(self.local_path)

    def fileno(self) -> int:
        return self.sock.fileno()

    def close(self) -> None:
        if self.sock.fileno() >= 0:
            if self.attached:
                with contextlib.suppress(OSError):
                    self.sock.send(b"DETACH")
            self.sock.close()
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.local_path)

    def __enter__(self) -> CtrlConnection:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def request(self, command: str, timeout: float | None = None) -> str:
        """Send one command and return hostapd's reply text. Unsolicited event datagrams that arrive on an
        attached connection in the meantime are skipped (as wpa_ctrl_request does)."""
        if "\n" in command or "\0" in command:
            raise CtrlError("control command contains a newline or NUL")
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        data = command.encode("utf-8")
        self._send(data, deadline)
        while True:
            reply = self._recv(deadline)
            if self.attached and reply.startswith(("<", "IFNAME=")):
                continue
            return reply

    def _send(self, data: bytes, deadline: float) -> None:
        while True:
            try:
                self.sock.send(data)
                return
            except (BlockingIOError, InterruptedError):
                self._wait(deadline, write=True)
            except OSError as e:
                raise CtrlGone(f"send to {self.path} failed: {e.strerror or e}") from e

    def _recv(self, deadline: float) -> str:
        while True:
            try:
                return self.sock.recv(MAX_REPLY).decode("utf-8", "replace")
            except (BlockingIOError, InterruptedError):
                self._wait(deadline)
            except OSError as e:
                raise CtrlGone(f"receive from {self.path} failed: {e.strerror or e}") from e

    def _wait(self, deadline: float, write: bool = False) -> None:
        left = deadline - time.monotonic()
        if left <= 0:
            raise CtrlTimeout(f"hostapd at {self.path} did not answer in time")
        if write:
            select.select([], [self.sock], [], left)
        else:
            select.select([self.sock], [], [], left)

    def attach(self) -> None:
        reply = self.request("ATTACH")
        if reply.strip() != "OK":
            raise CtrlError(f"ATTACH refused by {self.path}: {reply.strip()!r}")
        self.attached = True

    def pending(self) -> bool:
        r, _, _ = select.select([self.sock], [], [], 0)
        return bool(r)

    def wait_readable(self, timeout: float) -> bool:
        """True when a datagram arrived within timeout seconds."""
        r, _, _ = select.select([self.sock], [], [], max(0.0, timeout))
        return bool(r)

    def recv_event(self) -> str | None:
        """One event datagram if one is waiting, else None (never blocks)."""
        try:
            return self.sock.recv(MAX_REPLY).decode("utf-8", "replace")
        except (BlockingIOError, InterruptedError):
            return None


def expect_ok(reply: str, command: str) -> None:
    text = reply.strip()
    if text != "OK":
        raise CtrlError(f"hostapd refused {command.split(' ', 1)[0]}: {text or 'empty reply'}")


def check_reply(reply: str, command: str) -> str:
    text = reply.strip()
    if text in ("FAIL", "UNKNOWN COMMAND") or text.startswith("FAIL-"):
        raise CtrlError(f"hostapd refused {command.split(' ', 1)[0]}: {text}")
    return reply


def parse_kv(text: str) -> dict[str, str]:
    """``key=value`` lines (STATUS, STA) into a dict; lines without '=' are ignored."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep:
            out[key.strip()] = value.strip()
    return out


def parse_sta_block(text: str) -> dict[str, str] | None:
    """One STA reply: first line is the MAC, then key=value lines. None for an empty/FAIL reply."""
    lines = text.strip().splitlines()
    if not lines or lines[0] in ("FAIL", "UNKNOWN COMMAND") or "=" in lines[0]:
        return None
    info = parse_kv("\n".join(lines[1:]))
    info["mac"] = lines[0].strip().lower()
    return info


class HostapdControl:
    """Typed commands over a request connection: the global socket, with per-BSS commands via ``IFNAME=``."""

    def __init__(self, global_path: str, client_dir: str | None = None, timeout: float = 5.0) -> None:
        self.global_path = global_path
        self.client_dir = client_dir
        self.timeout = timeout
        self.conn = CtrlConnection(global_path, client_dir, timeout)
        self.generation = 0  # counts reconnects: a change means hostapd restarted

    def close(self) -> None:
        self.conn.close()

    def raw(self, command: str, ifname: str | None = None, timeout: float | None = None) -> str:
        if ifname is not None:
            command = f"IFNAME={ifname} {command}"
        try:
            return self.conn.request(command, timeout)
        except CtrlGone:
            # hostapd restarted: its socket is a new inode; connect again once and retry.
            self.conn.close()
            self.conn = CtrlConnection(self.global_path, self.client_dir, self.timeout)
            self.generation += 1
            return self.conn.request(command, timeout)

    def ping(self) -> bool:
        try:
            return self.raw("PING", timeout=1.0).strip() == "PONG"
        except CtrlError:
            return False

    def add_bss(self, phy: str, conf_path: str, timeout: float | None = None) -> None:
        cmd = f"ADD bss_config={phy}:{conf_path}"
        expect_ok(self.raw(cmd, timeout=timeout), cmd)

    def add_interface(self, ifname: str, conf_path: str, timeout: float | None = None) -> None:
        """``ADD <ifname> config=<path>``: a whole interface (e.g. driver=wired), not a BSS on a phy."""
        cmd = f"ADD {ifname} config={conf_path}"
        expect_ok(self.raw(cmd, timeout=timeout), cmd)

    def remove(self, ifname: str, timeout: float | None = None) -> None:
        cmd = f"REMOVE {ifname}"
        expect_ok(self.raw(cmd, timeout=timeout), cmd)

    def status(self, ifname: str) -> dict[str, str]:
        return parse_kv(check_reply(self.raw("STATUS", ifname), "STATUS"))

    def sta(self, ifname: str, mac: str) -> dict[str, str] | None:
        return parse_sta_block(self.raw(f"STA {mac}", ifname))

    def all_sta(self, ifname: str) -> list[dict[str, str]]:
        """Every station on a BSS, walking STA-FIRST / STA-NEXT (ALL_STA is truncated by hostapd's 4 KB buffer
        on some builds)."""
        out: list[dict[str, str]] = []
        info = parse_sta_block(self.raw("STA-FIRST", ifname))
        while info is not None and len(out) < 4096:
            out.append(info)
            info = parse_sta_block(self.raw(f"STA-NEXT {info['mac']}", ifname))
        return out

    def disassociate(self, ifname: str, mac: str, reason: int | None = None) -> None:
        cmd = f"DISASSOCIATE {mac}" + (f" reason={reason}" if reason else "")
        expect_ok(self.raw(cmd, ifname), cmd)

    def deauthenticate(self, ifname: str, mac: str, reason: int | None = None) -> None:
        cmd = f"DEAUTHENTICATE {mac}" + (f" reason={reason}" if reason else "")
        expect_ok(self.raw(cmd, ifname), cmd)

    def chan_switch(self, ifname: str, cs_count: int, freq_mhz: int) -> None:
        """CHAN_SWITCH with a channel-switch announcement of cs_count beacons."""
        cmd = f"CHAN_SWITCH {cs_count} {freq_mhz}"
        expect_ok(self.raw(cmd, ifname), cmd)


def channel_to_freq(channel: int) -> int:
    if 1 <= channel <= 13:
        return 2407 + 5 * channel
    if channel == 14:
        return 2484
    if 32 <= channel <= 177:
        return 5000 + 5 * channel
    raise ValueError(f"no frequency for channel {channel}")


def freq_to_channel(freq: int) -> int:
    if freq == 2484:
        return 14
    if 2412 <= freq <= 2472:
        return (freq - 2407) // 5
    if 5160 <= freq <= 5885:
        return (freq - 5000) // 5
    raise ValueError(f"no channel for frequency {freq}")
