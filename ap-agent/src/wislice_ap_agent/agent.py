"""The agent: one thread, one select loop over the controller connection and hostapd's event socket.

Dial the controller, answer its challenge with an HMAC hello, wait for welcome, then serve requests (Table II),
send events, pings and periodic stats. On any connection failure: back off (1 s doubling to 30 s, +-20 % jitter)
and dial again, still following hostapd's events meanwhile so the vAP/client view stays current; the controller's
syncVaps after the next welcome converges the vAPs without touching those that are already right.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import random
import select
import socket
import ssl
import time
from typing import Any

from . import protocol
from . import validate as V
from .config import AgentConfig
from .errors import AgentError
from .events import parse_event
from .handlers import Handlers
from .hostapd_ctrl import CtrlConnection, CtrlError, HostapdControl
from .pofswitch import PortAttacher, make_attacher
from .protocol import ProtocolError
from .radio import discover
from .shaping import Shaper, make_shaper
from .vaps import VapManager

log = logging.getLogger("wislice_ap_agent")

SILENCE_LIMIT_S = 30.0
HANDSHAKE_TIMEOUT_S = 10.0
BACKOFF_MIN_S = 1.0
BACKOFF_MAX_S = 30.0
HOSTAPD_CHECK_S = 5.0


class Refused(Exception):
    """The controller said bye."""


def backoff_delays(rng: random.Random | None = None):
    """1, 2, 4 ... 30, 30 ... seconds, each with +-20 % jitter so a fleet of APs does not reconnect in step."""
    rng = rng or random.Random()
    base = BACKOFF_MIN_S
    while True:
        yield base * rng.uniform(0.8, 1.2)
        base = min(base * 2, BACKOFF_MAX_S)


class Link:
    """One connection to the controller (TCP, optionally TLS)."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.lines = protocol.LineBuffer()
        self.last_heard = time.monotonic()
        self.backlog: list[Any] = []  # decoded lines not consumed yet (welcome and syncVaps can share a segment)

    def fileno(self) -> int:
        return self.sock.fileno()

    def buffered(self) -> bool:
        return isinstance(self.sock, ssl.SSLSocket) and self.sock.pending() > 0

    def send(self, msg: dict[str, Any]) -> None:
        self.sock.sendall(protocol.encode(msg))

    def read(self) -> list[bytes]:
        """Lines available now (call when select says readable or buffered() is true)."""
        try:
            data = self.sock.recv(65536)
        except ssl.SSLWantReadError:
            return []
        if not data:
            raise ProtocolError("controller closed the connection")
        self.last_heard = time.monotonic()
        return self.lines.feed(data)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.close()


class Agent:
    def __init__(self, cfg: AgentConfig, shaper: Shaper | None = None,
                 attacher: PortAttacher | None = None) -> None:
        self.cfg = cfg
        self.stopping = False
        self.link: Link | None = None
        self.welcomed = False
        self.ids = itertools.count(1)
        self.stats_interval = cfg.stats_interval_s
        self.hostapd = HostapdControl(cfg.hostapd_global, cfg.client_dir)
        self.events: CtrlConnection | None = None
        self.hostapd_checked_at = time.monotonic()
        self.hostapd_generation = 0
        self._attach_events()
        radios = [discover(r, self.hostapd) for r in cfg.radios]
        shaper = shaper or make_shaper(cfg.shaping)
        attacher = attacher or make_attacher(cfg.pof_switch_socket, cfg.pof_switch_port_args)
        self.vaps = VapManager(self.hostapd, radios, cfg.conf_dir, cfg.hostapd_ctrl_dir, shaper, attacher,
                               emit=self.emit, default_capacity_kbps=cfg.default_capacity_kbps,
                               uplink_port=cfg.pof_switch_uplink)
        self.vaps.setup_radios()
        adopted = self.vaps.adopt_existing()
        if adopted:
            log.info("took over running vAPs %s", ", ".join(adopted))
        self.vaps.refresh_capacity()
        self.handlers = Handlers(cfg.agent_id, self.vaps)

    # ---- hostapd events --------------------------------------------------------------------------------------

    def _attach_events(self, recover: bool = False) -> None:
        try:
            conn = CtrlConnection(self.cfg.hostapd_global, self.cfg.client_dir)
            conn.attach()
            self.events = conn
            if recover:
                restored = self.vaps.recover()
                if restored:
                    log.warning("hostapd had lost vAPs %s: added again", ", ".join(restored))
        except CtrlError as e:
            log.warning("hostapd events unavailable (retrying): %s", e)
            self.events = None

    def _drain_hostapd(self) -> None:
        if self.events is None:
            return
        while True:
            try:
                line = self.events.recv_event()
            except OSError as e:
                log.warning("hostapd event socket failed (%s); re-attaching", e)
                self.events.close()
                self.events = None
                return
            if line is None:
                return
            ev = parse_event(line)
            if ev is not None:
                self.vaps.on_event(ev)

    def _check_hostapd(self) -> None:
        """A restarted hostapd is invisible on the event socket (datagrams just stop): PING it, and when the
        request connection had to reconnect, attach again and restore the vAPs it lost."""
        self.hostapd_checked_at = time.monotonic()
        if not self.hostapd.ping():
            return
        if self.events is None or self.hostapd.generation != self.hostapd_generation:
            self.hostapd_generation = self.hostapd.generation
            if self.events is not None:
                self.events.close()
            self._attach_events(recover=True)

    # ---- sending ---------------------------------------------------------------------------------------------

    def emit(self, name: str, data: dict[str, Any]) -> None:
        """Events go out only within a welcomed session; the controller resyncs after reconnecting."""
        if self.link is not None and self.welcomed:
            self._send(protocol.event(name, data))

    def _send(self, msg: dict[str, Any]) -> None:
        assert self.link is not None
        try:
            V.message(msg)
        except V.ValidationError as e:
            # Our own bug: never put an invalid message on the wire; a reply still must answer its request.
            log.error("refusing to send invalid %s: %s", msg.get("type"), e)
            if msg.get("type") != "reply":
                return
            msg = protocol.reply_error(msg["id"], "internal", f"agent produced an invalid reply: {e}")
        self.link.send(msg)

    # ---- controller session ---------------------------------------------------------------------------------

    def _connect(self) -> Link:
        sock = socket.create_connection((self.cfg.controller_host, self.cfg.controller_port), timeout=5)
        if self.cfg.tls:
            ctx = ssl.create_default_context(cafile=self.cfg.tls_ca_file)
            if self.cfg.tls_cert_file:
                ctx.load_cert_chain(self.cfg.tls_cert_file, self.cfg.tls_key_file)
            sock = ctx.wrap_socket(sock, server_hostname=self.cfg.tls_server_name or self.cfg.controller_host)
        sock.settimeout(5)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return Link(sock)

    def _poll(self, timeout: float) -> list[dict[str, Any]]:
        """Wait up to timeout for controller lines or hostapd events; handles the events, returns decoded lines."""
        if self.link is not None and self.link.backlog:
            out, self.link.backlog = self.link.backlog, []
            return out
        if time.monotonic() - self.hostapd_checked_at >= HOSTAPD_CHECK_S:
            self._check_hostapd()
        fds: list[Any] = [self.events] if self.events is not None else []
        if self.link is not None:
            fds.append(self.link)
            if self.link.buffered():
                timeout = 0
        readable, _, _ = select.select(fds, [], [], max(0.0, min(timeout, 1.0)))
        if self.events is not None and self.events in readable:
            self._drain_hostapd()
        if self.link is None or (self.link not in readable and not self.link.buffered()):
            return []
        return [protocol.decode(line) for line in self.link.read()]

    def _handshake(self) -> None:
        deadline = time.monotonic() + HANDSHAKE_TIMEOUT_S
        challenge = self._expect(("challenge",), deadline)
        radios = self.vaps.radio_list()
        tls_cert = self.cfg.tls and self.cfg.tls_cert_file is not None
        self._send(protocol.hello(self.cfg.agent_id, challenge["nonce"], self.cfg.secret, tls_cert, radios,
                                  self.vaps.attacher.present))
        welcome = self._expect(("welcome", "bye"), deadline)
        if welcome["type"] == "bye":
            raise Refused(welcome["reason"])
        self.stats_interval = welcome.get("stats_interval_s", self.cfg.stats_interval_s)
        self.welcomed = True
        log.info("welcomed by controller %s", welcome["controller_id"])

    def _expect(self, types: tuple[str, ...], deadline: float) -> dict[str, Any]:
        while time.monotonic() < deadline and not self.stopping:
            msgs = self._poll(deadline - time.monotonic())
            if msgs:
                m = msgs[0]
                V.message(m)
                if m.get("type") not in types:
                    raise ProtocolError(f"expected {' or '.join(types)}, got {m.get('type')}")
                assert self.link is not None
                self.link.backlog = msgs[1:] + self.link.backlog
                return m
        raise ProtocolError(f"no {' or '.join(types)} from the controller in time")

    def _session(self) -> None:
        assert self.link is not None
        now = time.monotonic()
        next_ping = now + self.cfg.keepalive_s
        next_stats = now + self.stats_interval
        while not self.stopping:
            for m in self._poll(min(next_ping, next_stats) - time.monotonic()):
                self._handle(m)
            now = time.monotonic()
            if now - self.link.last_heard > SILENCE_LIMIT_S:
                raise ProtocolError(f"controller silent for {SILENCE_LIMIT_S:.0f} s")
            if now >= next_ping:
                self._send({"type": "ping", "id": next(self.ids)})
                next_ping = now + self.cfg.keepalive_s
            if now >= next_stats:
                self._send(protocol.event("stats", self.vaps.stats_event(self.stats_interval)))
                next_stats = now + self.stats_interval

    def _handle(self, m: Any) -> None:
        try:
            V.message(m)
        except V.ValidationError as e:
            rid = protocol.usable_request_id(m)
            if rid is None:
                raise ProtocolError(f"malformed message: {e}") from e
            code = "unknown_method" if isinstance(e, V.UnknownMethod) else "bad_request"
            self._send(protocol.reply_error(rid, code, str(e)))
            return
        kind = m["type"]
        if kind == "request":
            self._send(self.serve(m))
        elif kind == "ping":
            self._send({"type": "pong", "id": m["id"]})
        elif kind == "bye":
            raise Refused(m["reason"])
        elif kind in ("pong", "reply"):
            return
        else:
            raise ProtocolError(f"unexpected {kind} message in a session")

    def serve(self, req: dict[str, Any]) -> dict[str, Any]:
        """One validated request -> its reply; never raises (a failure is an error reply)."""
        try:
            return protocol.reply_ok(req["id"], self.handlers.call(req["method"], req["params"]))
        except AgentError as e:
            return protocol.reply_error(req["id"], e.code, e.message)
        except Exception as e:  # a bug must not kill the agent: report it and keep serving
            log.exception("request %s failed", req["method"])
            return protocol.reply_error(req["id"], "internal", f"{type(e).__name__}: {e}")

    # ---- main loop ---------------------------------------------------------------------------------------------

    def run(self) -> None:
        delays = backoff_delays()
        while not self.stopping:
            try:
                self.link = self._connect()
                self._handshake()
                delays = backoff_delays()  # a welcomed session resets the backoff
                self._session()
            except Refused as e:
                log.warning("controller refused us: %s", e)
            except (OSError, ProtocolError, ValueError) as e:
                log.warning("controller connection: %s", e)
            finally:
                self.welcomed = False
                if self.link is not None:
                    self.link.close()
                    self.link = None
            if self.stopping:
                break
            until = time.monotonic() + next(delays)
            while not self.stopping and time.monotonic() < until:
                self._poll(until - time.monotonic())

    def stop(self) -> None:
        self.stopping = True

    def close(self) -> None:
        self.vaps.shutdown(self.cfg.remove_vaps_on_exit)
        if self.events is not None:
            self.events.close()
        self.hostapd.close()
        close = getattr(self.vaps.shaper, "close", None)
        if close is not None:
            close()
