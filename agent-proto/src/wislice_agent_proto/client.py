"""The agent's side of the controller connection (spec/agent/PROTOCOL.md, Session): dial out (TCP, optionally TLS),
answer the challenge with a hello, wait for welcome, then serve requests through the method table, send events,
keepalive pings and periodic stats. On any failure dial the next controller of the list at once (the nodes of a
controller cluster: the one that served us may be the one that died), and once a whole round of the list failed
back off (1 s doubling to 30 s, with jitter) before the next round; the controller's sync request after the next
welcome converges the agent's state.

One thread runs the loop (``run()``); ``stop()`` and ``emit()`` may be called from any thread. Two options fit the
loop to an agent:
- ``watch``: selectable objects of the agent's own that the loop waits on as well, also while disconnected (the
  ap-agent's hostapd event socket);
- ``worker=True``: requests and stats run one at a time on a second thread, so pings are answered while a long
  request runs (the mec-agent's createVnf).
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import queue
import random
import re
import select
import socket
import ssl
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from . import protocol, validate
from .errors import ProtocolError, Refused
from .methods import Table, serve

log = logging.getLogger("wislice_agent_proto")

SILENCE_LIMIT_S = 30.0  # a controller heard nothing from for this long is gone
HANDSHAKE_TIMEOUT_S = 10.0
SOCKET_TIMEOUT_S = 5.0  # connecting, and each blocking send
BACKOFF_MIN_S = 1.0
BACKOFF_MAX_S = 30.0
POLL_MAX_S = 1.0  # the loop looks at stop() and its timers at least this often
MAX_CONTROLLERS = 16
CONTROLLER = re.compile(r"^(?P<host>\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]{1,253}):(?P<port>\d{1,5})\Z")


def backoff_delays(rng: random.Random | None = None) -> Iterator[float]:
    """1, 2, 4 ... 30, 30 ... seconds, each with +-20 % jitter so a fleet of agents does not reconnect in step; at
    the cap the jitter only shortens, so no delay exceeds BACKOFF_MAX_S."""
    rng = rng or random.Random()
    base = BACKOFF_MIN_S
    while True:
        yield base * rng.uniform(0.8, 1.2 if base < BACKOFF_MAX_S else 1.0)
        base = min(base * 2, BACKOFF_MAX_S)


def parse_controllers(text: str) -> list[tuple[str, int]]:
    """``host:port[,host:port...]`` (an IPv6 host in brackets) as (host, port) pairs, in order; ValueError naming
    the bad item. The one parser of the agents' controller settings."""
    out = []
    for item in text.split(","):
        m = CONTROLLER.match(item.strip())
        if not m or not 1 <= int(m.group("port")) <= 65535:
            raise ValueError(f"controller {item.strip()!r}: expected host:port (port 1-65535)")
        out.append((m.group("host").strip("[]"), int(m.group("port"))))
    if len(out) > MAX_CONTROLLERS:
        raise ValueError(f"at most {MAX_CONTROLLERS} controllers")
    return out


def tls_context(ca_file: str | None, cert_file: str | None = None, key_file: str | None = None) -> ssl.SSLContext:
    """Checks the controller's certificate (against ca_file, else the system's CAs); presents cert_file when set
    (a controller requiring client certificates takes its CN as the agent_id)."""
    ctx = ssl.create_default_context(cafile=ca_file)
    if cert_file:
        ctx.load_cert_chain(cert_file, key_file)
    return ctx


@dataclass
class Identity:
    """What the hello says. ``capabilities`` is asked at each handshake (the radios as they are now)."""

    role: str
    agent_id: str
    software: str
    capabilities: Callable[[], dict[str, Any]]
    secret: bytes | None = None
    tls_client_cert: bool = False  # without a secret, the TLS client certificate names the agent
    firmware_version: str | None = None  # the hello's (an AP's firmware, for fleet upgrades)


class Watch(Protocol):
    def fds(self) -> list[Any]:
        """Selectable objects the loop waits on too."""

    def service(self, readable: list[Any]) -> None:
        """Called after each wait with those of fds() that are readable (maybe none)."""


class Link:
    """One connection to the controller."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.lines = protocol.LineBuffer()
        self.last_heard = time.monotonic()
        self.backlog: list[dict[str, Any]] = []  # decoded, not consumed yet (welcome and a request may share a read)
        self.lock = threading.Lock()

    def fileno(self) -> int:
        return self.sock.fileno()

    def buffered(self) -> bool:
        return isinstance(self.sock, ssl.SSLSocket) and self.sock.pending() > 0

    def send(self, data: bytes) -> None:
        with self.lock:
            self.sock.sendall(data)

    def read(self) -> list[dict[str, Any]]:
        """Messages available now (call when select says readable or buffered() is true)."""
        try:
            data = self.sock.recv(65536)
        except ssl.SSLWantReadError:
            return []
        if not data:
            raise ProtocolError("controller closed the connection")
        self.last_heard = time.monotonic()
        return [protocol.decode(line) for line in self.lines.feed(data)]

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.close()


class AgentClient:
    def __init__(self, controllers: Sequence[tuple[str, int]], identity: Identity, table: Table, *,
                 tls: Callable[[], ssl.SSLContext] | None = None, server_hostname: str | None = None,
                 stats: Callable[[float], dict[str, Any]] | None = None, stats_interval_s: float = 10.0,
                 keepalive_s: float = 10.0, watch: Watch | None = None, worker: bool = False) -> None:
        """``controllers``: (host, port) of each node the agent may dial, tried in turn. ``tls()`` gives the TLS
        context for each dial (None: plain TCP); the controller's certificate is checked for server_hostname
        (default: the host dialled). ``stats(interval_s)`` gives a stats event's data, every stats_interval_s or as
        the welcome says."""
        if not controllers:
            raise ValueError("no controller to dial")
        self.controllers = list(controllers)
        self.current = 0  # index of the controller dialled last
        self.identity = identity
        self.table = table
        self.tls, self.server_hostname = tls, server_hostname
        self.stats, self.default_stats_interval_s = stats, stats_interval_s
        self.stats_interval_s = stats_interval_s
        self.keepalive_s = keepalive_s
        self.watch = watch
        self.worker = worker
        self.link: Link | None = None
        self.welcomed = False
        self.sessions = 0  # welcomes so far
        self.ids = itertools.count(1)
        self._stopping = False  # a plain flag: stop() may run in a signal handler
        self._stats_queued = threading.Event()

    # ---- control ----------------------------------------------------------------------------------------------
    @property
    def stopping(self) -> bool:
        return self._stopping

    def stop(self) -> None:
        """Ends run() within POLL_MAX_S; safe from a signal handler and from other threads."""
        self._stopping = True

    @property
    def controller(self) -> tuple[str, int]:
        """The controller dialled last (or next, before the first dial)."""
        return self.controllers[self.current]

    def run(self) -> None:
        """Dial, serve, reconnect, until stop(): after a failure the next controller at once, and a backoff only
        after a round of the whole list without a welcome."""
        delays = backoff_delays()
        failed_in_a_row = 0
        while not self.stopping:
            welcomed_before = self.sessions
            host, port = self.controller
            try:
                self.run_session()
            except Refused as e:
                log.warning("controller %s:%d refused us: %s", host, port, e)
            except (OSError, ProtocolError, ValueError) as e:
                log.warning("controller %s:%d: %s", host, port, e)
            if self.stopping:
                break
            if self.sessions != welcomed_before:
                delays, failed_in_a_row = backoff_delays(), 0  # a welcomed session resets the backoff
            else:
                failed_in_a_row += 1
            self.current = (self.current + 1) % len(self.controllers)
            if failed_in_a_row < len(self.controllers) and len(self.controllers) > 1:
                continue  # the next node of the list, at once
            failed_in_a_row = 0
            until = time.monotonic() + next(delays)
            while not self.stopping and time.monotonic() < until:
                self._poll(until - time.monotonic())

    def run_session(self) -> None:
        """One connection: dial, handshake, serve until it fails (raises why: Refused, ProtocolError, OSError) or
        stop() (returns)."""
        link = self.link = self._connect()
        try:
            self._handshake(link)
            self._session(link)
        finally:
            self.welcomed = False
            self.link = None
            link.close()

    # ---- sending ----------------------------------------------------------------------------------------------
    def emit(self, name: str, data: dict[str, Any]) -> None:
        """An event, sent only within a welcomed session (the controller resyncs after reconnecting)."""
        link = self.link
        if link is not None and self.welcomed:
            with contextlib.suppress(OSError):  # a broken link shows in the loop, which reconnects
                self._send(link, protocol.event(name, data))

    def _send(self, link: Link, msg: dict[str, Any]) -> None:
        """Never puts an invalid message on the wire (an agent bug); a reply still answers its request."""
        try:
            data = protocol.encode(validate.message(msg))
        except (validate.ValidationError, ProtocolError) as e:
            log.error("refusing to send invalid %s: %s", msg.get("type"), e)
            if msg.get("type") != "reply":
                return
            data = protocol.encode(protocol.reply_error(msg["id"], "internal", f"agent produced an invalid reply: {e}"))
        link.send(data)

    # ---- the connection ---------------------------------------------------------------------------------------
    def _connect(self) -> Link:
        host, port = self.controller
        sock = socket.create_connection((host, port), timeout=SOCKET_TIMEOUT_S)
        try:
            if self.tls is not None:
                sock = self.tls().wrap_socket(sock, server_hostname=self.server_hostname or host)
            sock.settimeout(SOCKET_TIMEOUT_S)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        except BaseException:
            sock.close()
            raise
        return Link(sock)

    def _poll(self, timeout: float) -> list[dict[str, Any]]:
        """Waits up to timeout (at most POLL_MAX_S) for controller messages or the watch's objects; services the
        watch and returns the decoded messages."""
        link = self.link
        if link is not None and link.backlog:
            out, link.backlog = link.backlog, []
            return out
        fds = list(self.watch.fds()) if self.watch is not None else []
        if link is not None:
            fds.append(link)
            if link.buffered():
                timeout = 0
        timeout = max(0.0, min(timeout, POLL_MAX_S))
        readable = select.select(fds, [], [], timeout)[0] if fds else []
        if not fds:
            time.sleep(timeout)
        if self.watch is not None:
            self.watch.service([f for f in readable if f is not link])
        if link is None or (link not in readable and not link.buffered()):
            return []
        return link.read()

    def _expect(self, link: Link, types: tuple[str, ...], deadline: float) -> dict[str, Any]:
        while time.monotonic() < deadline and not self.stopping:
            msgs = self._poll(deadline - time.monotonic())
            if msgs:
                link.backlog = msgs[1:] + link.backlog
                return protocol.expect(msgs[0], *types)
        raise ProtocolError(f"no {' or '.join(types)} from the controller in time")

    def _handshake(self, link: Link) -> None:
        deadline = time.monotonic() + HANDSHAKE_TIMEOUT_S
        nonce = self._expect(link, ("challenge",), deadline)["nonce"]
        me = self.identity
        self._send(link, protocol.hello(me.role, me.agent_id, me.software, nonce, me.capabilities(), me.secret,
                                        me.tls_client_cert, me.firmware_version))
        answer = self._expect(link, ("welcome", "bye"), deadline)
        if answer["type"] == "bye":
            raise Refused(answer["reason"])
        self.stats_interval_s = answer.get("stats_interval_s", self.default_stats_interval_s)
        self.welcomed = True
        self.sessions += 1
        log.info("welcomed by controller %s", answer["controller_id"])

    def _session(self, link: Link) -> None:
        work: queue.Queue[Callable[[], None] | None] | None = None
        if self.worker:
            work = queue.Queue()
            threading.Thread(target=self._work, args=(work,), name="agent-requests", daemon=True).start()
        try:
            now = time.monotonic()
            next_ping, next_stats = now + self.keepalive_s, now + self.stats_interval_s
            while not self.stopping:
                for m in self._poll(min(next_ping, next_stats) - time.monotonic()):
                    self._handle(link, m, work)
                now = time.monotonic()
                if now - link.last_heard > SILENCE_LIMIT_S:
                    raise ProtocolError(f"controller silent for {SILENCE_LIMIT_S:.0f} s")
                if now >= next_ping:
                    self._send(link, {"type": "ping", "id": next(self.ids)})
                    next_ping = now + self.keepalive_s
                if now >= next_stats:
                    self._stats_due(link, work)
                    next_stats = now + self.stats_interval_s
        finally:
            if work is not None:
                work.put(None)

    def _handle(self, link: Link, m: dict[str, Any], work: queue.Queue[Any] | None) -> None:
        if m.get("type") == "request":
            if protocol.usable_request_id(m) is None:
                raise ProtocolError("a request without a usable id")
            if work is not None:
                work.put(lambda: self._answer(link, m))
            else:
                self._answer(link, m)
            return
        try:
            validate.message(m)
        except validate.ValidationError as e:
            raise ProtocolError(f"malformed message: {e}") from e
        kind = m["type"]
        if kind == "ping":
            self._send(link, {"type": "pong", "id": m["id"]})
        elif kind == "bye":
            raise Refused(m["reason"])
        elif kind not in ("pong", "reply"):
            raise ProtocolError(f"unexpected {kind} message in a session")

    def _answer(self, link: Link, m: dict[str, Any]) -> None:
        reply = serve(self.table, m)
        if reply is not None:
            self._send(link, reply)

    def _stats_due(self, link: Link, work: queue.Queue[Any] | None) -> None:
        if self.stats is None:
            return
        if work is None:
            self._send_stats(link)
        elif not self._stats_queued.is_set():  # one at a time: a long request must not pile them up
            self._stats_queued.set()
            work.put(lambda: self._send_stats(link))

    def _send_stats(self, link: Link) -> None:
        self._stats_queued.clear()
        assert self.stats is not None
        try:
            data = self.stats(self.stats_interval_s)
        except Exception as e:  # stats are best effort; the session goes on
            log.warning("stats: %s", e)
            return
        self._send(link, protocol.event("stats", data))

    def _work(self, work: queue.Queue[Callable[[], None] | None]) -> None:
        while (job := work.get()) is not None:
            with contextlib.suppress(OSError):  # the link broke: the loop sees it too and reconnects
                job()
