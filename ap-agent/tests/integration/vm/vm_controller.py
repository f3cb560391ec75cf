"""A minimal WiFi controller for the in-VM tests: speaks spec/agent (JSON lines over TCP) on the host's loopback.

The agent inside the AP VM dials 10.0.2.2:<port>, which qemu's user networking maps to 127.0.0.1:<port> here.
Every message the agent sends is checked against spec/agent/schema/message.schema.json; violations are kept in
``schema_errors`` for the tests to assert on.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import queue
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from wislice_agent_proto import protocol

SCHEMA = Path(__file__).resolve().parents[4] / "spec" / "agent" / "schema" / "message.schema.json"

Message = dict[str, Any]


def _validator() -> Callable[[Message], list[str]]:
    try:
        import jsonschema
    except ImportError:  # the schema check is an extra; the protocol tests still run
        return lambda msg: []
    schema = json.loads(SCHEMA.read_text())
    v = jsonschema.Draft202012Validator(schema)
    return lambda msg: [e.message for e in v.iter_errors(msg)]


class ControllerError(AssertionError):
    pass


class TestController:
    """Accepts one agent at a time; ``request()`` calls a method, ``wait_event()`` waits for an agent event."""

    __test__ = False  # not a pytest test class

    def __init__(self, secret: bytes, controller_id: str = "test-ctl", stats_interval_s: int = 5) -> None:
        self.secret = secret
        self.controller_id = controller_id
        self.stats_interval_s = stats_interval_s
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.hello: Message | None = None
        self.events: queue.Queue[Message] = queue.Queue()
        self.schema_errors: list[str] = []
        self.connected = threading.Event()
        self.sessions = 0
        self.sync_with_welcome: list[Message] | None = None
        self.sync_request_id: int | None = None
        self._check = _validator()
        self._conn: socket.socket | None = None
        self._ids = itertools.count(1)
        self._replies: dict[int, Message] = {}
        self._cond = threading.Condition()
        self._send_lock = threading.Lock()
        self._stopping = False
        self._thread = threading.Thread(target=self._serve, name="test-controller", daemon=True)
        self._thread.start()

    # --- server side ------------------------------------------------------------------------------------------

    def _serve(self) -> None:
        while not self._stopping:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            try:
                self._session(conn)
            except ControllerError as exc:
                self.schema_errors.append(f"session ended: {exc}")
            except (OSError, ValueError):
                pass  # the agent went away or sent garbage: it reconnects, tests see the missing replies
            finally:
                self.connected.clear()
                self._conn = None
                conn.close()

    def _session(self, conn: socket.socket) -> None:
        reader = conn.makefile("rb")
        try:
            challenge = protocol.challenge(self.controller_id)
            self._write(conn, challenge)
            hello = self._read(reader)
            if hello is None or hello.get("type") != "hello":
                raise ControllerError(f"expected hello, got {hello}")
            if not protocol.mac_ok(self.secret, challenge["nonce"], hello):
                self._write(conn, {"type": "bye", "reason": "bad hmac"})
                raise ControllerError("agent sent a wrong HMAC")
            self.hello = hello
            data = protocol.encode(protocol.welcome(self.controller_id, self.stats_interval_s))
            if self.sync_with_welcome is not None:
                # Protocol step 4 in the same TCP write as the welcome: the agent must not lose it.
                rid = next(self._ids)
                self.sync_request_id = rid
                data += protocol.encode(protocol.request(rid, "syncVaps", {"vaps": self.sync_with_welcome}))
                self.sync_with_welcome = None
            with self._send_lock:
                conn.sendall(data)
            self._conn = conn
            self.sessions += 1
            while True:
                msg = self._read(reader)
                if msg is None:
                    return
                self.connected.set()  # the agent talks: it is in its session loop
                kind = msg.get("type")
                if kind == "reply":
                    with self._cond:
                        self._replies[msg["id"]] = msg
                        self._cond.notify_all()
                elif kind == "event":
                    self.events.put(msg)
                elif kind == "ping":
                    self._write(conn, {"type": "pong", "id": msg["id"]})
        finally:
            reader.close()

    def _read(self, reader: Any) -> Message | None:
        line = reader.readline(1 << 20)
        if not line:
            return None
        msg = json.loads(line)
        errors = self._check(msg)
        if errors:
            self.schema_errors.append(f"{msg.get('type')} {msg.get('event', '')}: {errors}")
        return msg

    def _write(self, conn: socket.socket, msg: Message) -> None:
        with self._send_lock:
            conn.sendall(protocol.encode(msg))

    # --- test side --------------------------------------------------------------------------------------------

    def wait_connected(self, timeout: float = 60.0) -> Message:
        """Until an agent has been welcomed and has sent something since (its periodic stats, a ping)."""
        if not self.connected.wait(timeout):
            raise ControllerError(f"the agent did not connect within {timeout} s")
        assert self.hello is not None
        return self.hello

    def request(self, method: str, params: Message | None = None, timeout: float = 30.0) -> Message:
        """Send a request; returns the whole reply (check ``reply['ok']``)."""
        conn = self._conn
        if conn is None:
            raise ControllerError("no agent connected")
        rid = next(self._ids)
        self._write(conn, protocol.request(rid, method, params))
        try:
            return self.wait_reply(rid, timeout)
        except ControllerError:
            raise ControllerError(f"no reply to {method} within {timeout} s") from None

    def call(self, method: str, params: Message | None = None, timeout: float = 30.0) -> Message:
        """Like request() but expects success and returns the result."""
        reply = self.request(method, params, timeout)
        if not reply.get("ok"):
            raise ControllerError(f"{method} failed: {reply.get('error')}")
        return reply["result"]

    def wait_event(self, name: str, timeout: float = 30.0, **match: Any) -> Message:
        """The next event ``name`` whose data contains ``match``; other events are dropped."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise ControllerError(f"no {name} event matching {match} within {timeout} s")
            try:
                ev = self.events.get(timeout=left)
            except queue.Empty:
                continue
            data = ev.get("data", {})
            if ev.get("event") == name and all(data.get(k) == v for k, v in match.items()):
                return ev

    def wait_reply(self, rid: int, timeout: float = 30.0) -> Message:
        deadline = time.monotonic() + timeout
        with self._cond:
            while rid not in self._replies:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise ControllerError(f"no reply to request {rid} within {timeout} s")
                self._cond.wait(left)
            return self._replies.pop(rid)

    def drop_connection(self) -> None:
        """Close the agent's connection from this side: the agent must reconnect (with backoff)."""
        conn = self._conn
        self.connected.clear()
        if conn is not None:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)

    def drain_events(self) -> list[Message]:
        out = []
        while True:
            try:
                out.append(self.events.get_nowait())
            except queue.Empty:
                return out

    def close(self) -> None:
        self._stopping = True
        conn = self._conn
        if conn is not None:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
        with contextlib.suppress(OSError):
            self.listener.shutdown(socket.SHUT_RDWR)  # wakes the accept() of the server thread
        self.listener.close()
        self._thread.join(timeout=5)


def new_secret() -> bytes:
    return os.urandom(16).hex().encode()
