"""An in-test WiFi controller: the controller side of spec/agent/PROTOCOL.md on a TCP port (framing and the HMAC
from wislice_agent_proto), checking every message the agent sends against the real JSON Schema. Used by unit tests
and by the integration tests."""

from __future__ import annotations

import contextlib
import json
import queue
import socket
import ssl
import threading
import time
from pathlib import Path
from typing import Any

from wislice_agent_proto import protocol
from wislice_agent_proto import validate as stdlib_validate

SCHEMA_PATH = Path(__file__).resolve().parents[3] / "spec" / "agent" / "schema" / "message.schema.json"
try:
    import jsonschema

    VALIDATOR = jsonschema.Draft202012Validator(json.loads(SCHEMA_PATH.read_text()))
except (ImportError, OSError):  # e.g. inside the AP VM: no jsonschema, maybe no spec/ checkout
    VALIDATOR = None


def schema_errors(msg: Any) -> list[str]:
    """Violations of the agent protocol schema; without jsonschema, wislice_agent_proto's stdlib validator."""
    if VALIDATOR is not None:
        return [e.message for e in VALIDATOR.iter_errors(msg)]
    try:
        stdlib_validate.message(msg)
    except stdlib_validate.ValidationError as e:
        return [str(e)]
    return []


class Session:
    def __init__(self, sock: socket.socket, hello: dict[str, Any], reader: Any) -> None:
        self.sock = sock
        self.hello = hello
        self.reader = reader
        self.ids = iter(range(1, 1 << 30))
        self.cond = threading.Condition()
        self.replies: dict[int, dict[str, Any]] = {}
        self.events: list[dict[str, Any]] = []
        self.pings = 0
        self.pongs: list[int] = []
        self.answer_pings = True
        self.closed = False
        self.schema_errors: list[str] = []
        self.thread = threading.Thread(target=self._read_loop, daemon=True)
        self.thread.start()

    def send(self, msg: dict[str, Any]) -> None:
        self.sock.sendall(protocol.encode(msg))

    def send_raw(self, data: bytes) -> None:
        self.sock.sendall(data)

    def request(self, method: str, params: dict[str, Any] | None = None, timeout: float = 10.0) -> dict[str, Any]:
        rid = next(self.ids)
        self.send(protocol.request(rid, method, params))
        return self.wait_reply(rid, timeout)

    def wait_reply(self, rid: int, timeout: float = 10.0) -> dict[str, Any]:
        with self.cond:
            if not self.cond.wait_for(lambda: rid in self.replies or self.closed, timeout):
                raise TimeoutError(f"no reply to request {rid}")
            if rid not in self.replies:
                raise ConnectionError("agent closed the connection")
            return self.replies.pop(rid)

    def wait_event(self, name: str, timeout: float = 10.0, **match: Any) -> dict[str, Any]:
        def find() -> dict[str, Any] | None:
            for ev in self.events:
                if ev["event"] == name and all(ev["data"].get(k) == v for k, v in match.items()):
                    return ev
            return None

        with self.cond:
            if not self.cond.wait_for(lambda: find() is not None, timeout):
                raise TimeoutError(f"no {name} event matching {match}; got {[e['event'] for e in self.events]}")
            ev = find()
            self.events.remove(ev)
            return ev

    def discard(self, name: str) -> None:
        """Forget received events of this kind (so a later wait_event sees only new ones)."""
        with self.cond:
            self.events = [e for e in self.events if e["event"] != name]

    def wait_closed(self, timeout: float = 10.0) -> bool:
        with self.cond:
            return self.cond.wait_for(lambda: self.closed, timeout)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)
        self.sock.close()

    def _read_loop(self) -> None:
        try:
            for line in self.reader:
                msg = json.loads(line)
                errors = schema_errors(msg)
                with self.cond:
                    if errors:
                        self.schema_errors.append(f"{line[:300]!r}: {errors[:3]}")
                    if msg.get("type") == "reply":
                        self.replies[msg["id"]] = msg
                    elif msg.get("type") == "event":
                        self.events.append(msg)
                    elif msg.get("type") == "ping":
                        self.pings += 1
                        if self.answer_pings:
                            self.send({"type": "pong", "id": msg["id"]})
                    elif msg.get("type") == "pong":
                        self.pongs.append(msg["id"])
                    self.cond.notify_all()
        except (OSError, ValueError):
            pass
        with self.cond:
            self.closed = True
            self.cond.notify_all()


class TestController:
    """Listens on 127.0.0.1 (or `host`); each accepted agent goes through challenge/hello/welcome and becomes a
    Session in `sessions` (a queue)."""

    __test__ = False  # not a pytest test class

    def __init__(self, secret: bytes | None = b"test-secret", host: str = "127.0.0.1", port: int = 0,
                 controller_id: str = "ctl-test", stats_interval_s: float = 1, tls: ssl.SSLContext | None = None,
                 refuse: bool = False, sync_on_welcome: list[dict[str, Any]] | None = None) -> None:
        self.secret = secret
        self.controller_id = controller_id
        self.stats_interval_s = stats_interval_s
        self.tls = tls
        self.refuse = refuse
        # When set: a syncVaps request (id 1000) goes out in the same write as welcome, as a real controller may.
        self.sync_on_welcome = sync_on_welcome
        self.listener = socket.create_server((host, port))
        self.host, self.port = self.listener.getsockname()[:2]
        self.sessions: queue.Queue[Session] = queue.Queue()
        self.rejected: list[str] = []
        self.all_sessions: list[Session] = []
        self.stopping = False
        self.thread = threading.Thread(target=self._accept_loop, daemon=True)
        self.thread.start()

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"

    def next_session(self, timeout: float = 15.0) -> Session:
        return self.sessions.get(timeout=timeout)

    def close(self) -> None:
        self.stopping = True
        # shutdown() wakes the thread blocked in accept(); a bare close() would leave it accepting on whatever
        # socket reuses the file descriptor next (another test's controller).
        with contextlib.suppress(OSError):
            self.listener.shutdown(socket.SHUT_RDWR)
        self.thread.join(5)
        self.listener.close()
        for s in self.all_sessions:
            s.close()

    def _accept_loop(self) -> None:
        while not self.stopping:
            try:
                sock, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._handshake, args=(sock,), daemon=True).start()

    def _handshake(self, sock: socket.socket) -> None:
        try:
            if self.tls is not None:
                sock = self.tls.wrap_socket(sock, server_side=True)
            sock.settimeout(None)
            reader = sock.makefile("rb")
            challenge = protocol.challenge(self.controller_id)
            sock.sendall(protocol.encode(challenge))
            hello = json.loads(reader.readline())
            errors = schema_errors(hello)
            reason = None
            if errors or hello.get("type") != "hello":
                reason = f"bad hello: {errors}"
            elif self.refuse:
                reason = "refused by test"
            elif self.secret is not None and not protocol.mac_ok(self.secret, challenge["nonce"], hello):
                reason = "bad hmac"
            if reason is not None:
                self.rejected.append(reason)
                sock.sendall(protocol.encode({"type": "bye", "reason": reason}))
                reader.close()
                sock.close()
                return
            data = protocol.encode(protocol.welcome(self.controller_id, self.stats_interval_s))
            if self.sync_on_welcome is not None:
                data += protocol.encode(protocol.request(1000, "syncVaps", {"vaps": self.sync_on_welcome}))
            sock.sendall(data)
            session = Session(sock, hello, reader)
            self.all_sessions.append(session)
            self.sessions.put(session)
        except (OSError, ValueError, ssl.SSLError) as e:
            self.rejected.append(f"handshake failed: {e}")
            sock.close()


def wait_until(pred: Any, timeout: float = 10.0, interval: float = 0.05) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return True
        time.sleep(interval)
    return bool(pred())
