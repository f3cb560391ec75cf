"""The connection to the nfv-controller: dial out, challenge/hello/welcome, then requests (run one at a time on a
worker thread, so pings are answered while a createVnf runs), events and periodic stats; reconnect with
exponential backoff (1 s doubling to 30 s, with jitter). The controller's syncVnfs after welcome reconciles."""

from __future__ import annotations

import contextlib
import logging
import queue
import random
import socket
import ssl
import threading
import time
from typing import Any

from . import protocol
from .protocol import ProtocolError

log = logging.getLogger(__name__)
IDLE_TIMEOUT_S = 30.0
PING_EVERY_S = 10.0


class Backoff:
    def __init__(self, first: float = 1.0, cap: float = 30.0) -> None:
        self.first, self.cap, self.next = first, cap, first

    def delay(self) -> float:
        d = self.next * random.uniform(0.8, 1.2)
        self.next = min(self.cap, self.next * 2)
        return min(d, self.cap)

    def reset(self) -> None:
        self.next = self.first


class ControllerClient:
    def __init__(self, host: str, port: int, agent_id: str, secret: bytes | None, table: dict[str, Any],
                 capabilities: dict[str, Any], stats: Any = None, stats_interval_s: float = 10.0,
                 tls: ssl.SSLContext | None = None, tls_client_cert: bool = False) -> None:
        self.host, self.port = host, port
        self.agent_id, self.secret = agent_id, secret
        self.table, self.capabilities, self.stats = table, capabilities, stats
        self.stats_interval_s = stats_interval_s
        self.tls = tls
        self.tls_client_cert = tls_client_cert
        self.stop = threading.Event()
        self.sock: socket.socket | None = None
        self.send_lock = threading.Lock()
        self.connected = threading.Event()
        self.ping_id = 0

    # ---- sending ----------------------------------------------------------------------------------------------
    def send(self, msg: dict[str, Any]) -> bool:
        sock = self.sock
        if sock is None:
            return False
        data = protocol.encode(msg)
        with self.send_lock:
            try:
                sock.sendall(data)
            except OSError:
                return False
        return True

    def send_event(self, name: str, data: dict[str, Any]) -> None:
        if self.connected.is_set():
            self.send(protocol.event(name, data))

    def on_vnf_state(self, vnf_id: int, state: str) -> None:
        self.send_event("vnfState", {"vnf_id": vnf_id, "state": state})

    # ---- session ----------------------------------------------------------------------------------------------
    def run_forever(self) -> None:
        backoff = Backoff()
        while not self.stop.is_set():
            try:
                self.session()
                backoff.reset()
            except (OSError, ProtocolError) as exc:
                log.warning("controller %s:%d: %s", self.host, self.port, exc)
            finally:
                self.connected.clear()
                if self.sock is not None:
                    with contextlib.suppress(OSError):
                        self.sock.close()
                    self.sock = None
            self.stop.wait(backoff.delay())

    def session(self) -> None:
        raw = socket.create_connection((self.host, self.port), timeout=10)
        sock = self.tls.wrap_socket(raw, server_hostname=self.host) if self.tls else raw
        self.sock = sock
        reader = sock.makefile("rb")
        sock.settimeout(IDLE_TIMEOUT_S)
        nonce = protocol.check_challenge(self.read(reader))
        self.send(protocol.hello(self.agent_id, nonce, self.secret, **self.capabilities,
                                 tls_client_cert=self.tls_client_cert))
        answer = self.read(reader)
        if answer["type"] == "bye":
            raise ProtocolError(f"controller said bye: {answer.get('reason')}")
        if answer["type"] != "welcome":
            raise ProtocolError(f"expected welcome, got {answer['type']}")
        interval = answer.get("stats_interval_s", self.stats_interval_s)
        log.info("welcomed by %s", answer.get("controller_id"))
        self.connected.set()
        work: queue.Queue[dict[str, Any] | None] = queue.Queue()
        worker = threading.Thread(target=self.work, args=(work,), daemon=True)
        ticker = threading.Thread(target=self.tick, args=(float(interval),), daemon=True)
        worker.start()
        ticker.start()
        try:
            while not self.stop.is_set():
                msg = self.read(reader)
                kind = msg["type"]
                if kind == "request":
                    work.put(msg)
                elif kind == "ping":
                    self.send({"type": "pong", "id": msg.get("id")})
                elif kind == "bye":
                    raise ProtocolError(f"controller said bye: {msg.get('reason')}")
                elif kind not in ("pong", "reply"):
                    raise ProtocolError(f"unexpected message type {kind!r}")
        finally:
            self.connected.clear()
            work.put(None)

    def read(self, reader: Any) -> dict[str, Any]:
        line = reader.readline(protocol.MAX_LINE + 1)
        if not line:
            raise ProtocolError("connection closed")
        if not line.endswith(b"\n"):
            raise ProtocolError("line over 1 MiB or truncated")
        return protocol.decode(line)

    def work(self, work: queue.Queue[dict[str, Any] | None]) -> None:
        while (msg := work.get()) is not None:
            reply = protocol.handle_request(self.table, msg)
            if reply is None:
                log.warning("request without a usable id, closing")
                if self.sock is not None:
                    with contextlib.suppress(OSError):
                        self.sock.shutdown(socket.SHUT_RDWR)
                return
            self.send(reply)

    def tick(self, interval: float) -> None:
        last_stats = last_ping = time.monotonic()
        while self.connected.is_set() and not self.stop.wait(0.2):
            now = time.monotonic()
            if self.stats is not None and now - last_stats >= interval:
                last_stats = now
                try:
                    data = self.stats.collect()
                    self.send_event("stats", {"interval_s": interval, "vnfs": data["vnfs"], "node": data["node"]})
                except Exception as exc:
                    log.warning("stats: %s", exc)
            if now - last_ping >= PING_EVERY_S:
                last_ping = now
                self.ping_id += 1
                self.send({"type": "ping", "id": self.ping_id})
