"""AgentClient against a scripted controller on loopback: handshake with the HMAC hello, requests (also one sent in
the same write as welcome), events, keepalive both ways, stats, refusal and reconnects, a malformed line, a silent
controller, the worker that keeps answering pings during a long request, the watch hook, and the backoff."""

from __future__ import annotations

import contextlib
import json
import queue
import random
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import REFERENCE

from wislice_agent_proto import client as client_mod
from wislice_agent_proto import protocol
from wislice_agent_proto.client import AgentClient, Identity, backoff_delays, parse_controllers

SECRET = b"k3y"
CAPS = {"radios": [], "security": ["open"], "pof_switch": False}


class Conn:
    """One agent connection as the controller sees it; every line the agent sends is checked against the schema."""

    def __init__(self, sock: socket.socket, reader: Any, hello: dict[str, Any]) -> None:
        self.sock, self.reader, self.hello = sock, reader, hello

    def send(self, msg: dict[str, Any]) -> None:
        self.sock.sendall(protocol.encode(msg))

    def next(self, kind: str, timeout: float = 5.0) -> dict[str, Any]:
        """The next message of this type; others are dropped."""
        self.sock.settimeout(timeout)
        while True:
            line = self.reader.readline()
            if not line:
                raise EOFError("agent closed the connection")
            msg = json.loads(line)
            assert REFERENCE.is_valid(msg), msg
            if msg["type"] == kind:
                return msg

    def close(self) -> None:
        self.reader.close()
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)
        self.sock.close()

    def closed(self, timeout: float = 5.0) -> bool:
        self.sock.settimeout(timeout)
        try:
            return all(self.reader.readline() for _ in range(100)) is False
        except OSError:
            return True


class Controller:
    """Accepts agents: challenge, the hello's HMAC checked, then welcome (stats every second) and `with_welcome`
    in the same write; or bye to the first `refuse` agents."""

    def __init__(self, refuse: int = 0, with_welcome: list[dict[str, Any]] | None = None) -> None:
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        self.refuse, self.with_welcome = refuse, with_welcome or []
        self.conns: queue.Queue[Conn] = queue.Queue()
        self.all: list[Conn] = []
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self) -> None:
        while True:
            try:
                sock, _ = self.server.accept()
            except OSError:
                return
            reader = sock.makefile("rb")
            sock.sendall(protocol.encode(protocol.challenge("ctl", "ab" * 16)))
            conn = Conn(sock, reader, json.loads(reader.readline()))
            self.all.append(conn)
            if self.refuse > 0 or not protocol.mac_ok(SECRET, "ab" * 16, conn.hello):
                self.refuse -= 1
                conn.send({"type": "bye", "reason": "not you"})
                conn.close()
                continue
            sock.sendall(b"".join(protocol.encode(m) for m in [protocol.welcome("ctl", 1), *self.with_welcome]))
            self.conns.put(conn)

    def next_conn(self, timeout: float = 10.0) -> Conn:
        return self.conns.get(timeout=timeout)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.server.shutdown(socket.SHUT_RDWR)  # wakes the accept()
        self.server.close()
        self.thread.join(5)
        for conn in self.all:
            conn.close()


def until(pred: Any, timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while not pred() and time.monotonic() < deadline:
        time.sleep(0.02)
    return bool(pred())


@pytest.fixture
def fast(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(client_mod, "BACKOFF_MIN_S", 0.05)


@pytest.fixture
def controller() -> Iterator[Any]:
    made: list[Controller] = []

    def make(**kw: Any) -> Controller:
        made.append(Controller(**kw))
        return made[-1]

    yield make
    for ctl in made:
        ctl.close()


@contextlib.contextmanager
def running(c: AgentClient) -> Iterator[AgentClient]:
    """c.run() on a thread for the block; stop() ends it."""
    t = threading.Thread(target=c.run, daemon=True)
    t.start()
    try:
        yield c
    finally:
        c.stop()
        t.join(5)
        assert not t.is_alive(), "stop() did not end run()"


@pytest.fixture
def start() -> Iterator[Any]:
    with contextlib.ExitStack() as stack:
        yield lambda ctl, table=None, **kw: stack.enter_context(running(AgentClient(
            [("127.0.0.1", ctl.port)], Identity("ap", "ap-1", "test 1", lambda: CAPS, SECRET), table or {}, **kw)))


def test_session(start: Any, controller: Any) -> None:
    ctl = controller(with_welcome=[protocol.request(1, "getVaps")])
    c = start(ctl, {"getVaps": lambda p: {"vaps": []}}, keepalive_s=0.3,
              stats=lambda interval: {"interval_s": interval, "vaps": []})
    conn = ctl.next_conn()
    assert conn.hello["agent_id"] == "ap-1" and conn.hello["capabilities"] == CAPS
    assert conn.next("reply") == protocol.reply_ok(1, {"vaps": []})  # the request that came with the welcome
    conn.send({"type": "ping", "id": 9})
    assert conn.next("pong")["id"] == 9
    assert conn.next("ping")["id"] >= 1  # keepalive_s
    assert conn.next("event")["data"] == {"interval_s": 1, "vaps": []}  # the welcome's stats_interval_s
    c.emit("vapState", {"vap_id": "v", "state": "up"})
    assert conn.next("event", timeout=2)["event"] in ("vapState", "stats")
    conn.send(protocol.request(2, "delVap", {"vap_id": "v"}))
    assert conn.next("reply")["error"]["code"] == "unsupported"


def test_refused_then_welcomed_then_redialled(start: Any, controller: Any, fast: None) -> None:
    ctl = controller(refuse=2)
    c = start(ctl)
    conn = ctl.next_conn()
    assert until(lambda: c.sessions == 1)
    conn.close()  # the controller restarts
    ctl.next_conn()
    assert until(lambda: c.sessions == 2)


def test_a_list_of_controllers_is_dialled_in_turn_without_waiting(controller: Any) -> None:
    """A cluster's nodes: the first is down, the agent is welcomed by the second at once (no backoff, which is
    1 s here); when that node goes, it tries the next (the first, still down) and is back on the second."""
    down = socket.create_server(("127.0.0.1", 0))
    dead_port = down.getsockname()[1]
    down.close()  # nothing listens there
    ctl = controller()
    c = AgentClient([("127.0.0.1", dead_port), ("127.0.0.1", ctl.port)],
                    Identity("ap", "ap-1", "test 1", lambda: CAPS, SECRET), {})
    started = time.monotonic()
    with running(c):
        conn = ctl.next_conn()
        assert until(lambda: c.sessions == 1) and time.monotonic() - started < 0.9, "waited before the next node"
        assert c.controller == ("127.0.0.1", ctl.port)
        conn.close()  # that node is gone: the first is tried (down), then this one again, after a backoff
        ctl.next_conn()
        assert until(lambda: c.sessions == 2, timeout=5)


def test_controller_lists_parse_strictly() -> None:
    assert parse_controllers("10.0.0.1:6690") == [("10.0.0.1", 6690)]
    assert parse_controllers("a.example:1, [2001:db8::1]:6690") == [("a.example", 1), ("2001:db8::1", 6690)]
    for bad in ("", "host", "host:0", "host:65536", "h:1,", "h:1;x:2", "[::1:6690", "-h:1 x", ",".join(["h:1"] * 17)):
        with pytest.raises(ValueError):
            parse_controllers(bad)


def test_malformed_line_or_silence_closes_and_redials(start: Any, controller: Any, fast: None,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(client_mod, "SILENCE_LIMIT_S", 0.5)
    ctl = controller()
    start(ctl, keepalive_s=5)
    conn = ctl.next_conn()
    conn.sock.sendall(b"this is not json\n")
    assert conn.closed()
    conn = ctl.next_conn()
    assert conn.closed(timeout=5)  # it says nothing: gone after SILENCE_LIMIT_S
    ctl.next_conn()


def test_invalid_reply_is_replaced_by_an_internal_error(start: Any, controller: Any) -> None:
    ctl = controller(with_welcome=[protocol.request(4, "getVaps")])
    start(ctl, {"getVaps": lambda p: {"rate": float("nan")}})
    reply = ctl.next_conn().next("reply")
    assert reply["error"]["code"] == "internal" and "invalid reply" in reply["error"]["message"]


def test_worker_answers_pings_during_a_long_request(start: Any, controller: Any) -> None:
    release = threading.Event()
    ctl = controller(with_welcome=[protocol.request(1, "getVaps")])
    start(ctl, {"getVaps": lambda p: {"done": release.wait(10)}}, worker=True)
    conn = ctl.next_conn()
    conn.send({"type": "ping", "id": 5})
    assert conn.next("pong")["id"] == 5  # while getVaps still runs
    release.set()
    assert conn.next("reply")["result"] == {"done": True}


def test_watch_is_serviced_while_disconnected(fast: None) -> None:
    a, b = socket.socketpair()
    seen: list[bytes] = []

    class Watch:
        def fds(self) -> list[Any]:
            return [a]

        def service(self, readable: list[Any]) -> None:
            if readable:
                seen.append(a.recv(100))

    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    listener.close()  # nobody listens: the agent keeps redialling, and still services the watch
    with running(AgentClient([("127.0.0.1", port)], Identity("ap", "ap-1", "t", lambda: CAPS), {}, watch=Watch())):
        b.sendall(b"event")
        assert until(lambda: seen)
    assert seen == [b"event"]
    a.close()
    b.close()


def test_backoff_doubles_to_thirty_seconds_with_jitter() -> None:
    delays = backoff_delays(random.Random(1))
    got = [next(delays) for _ in range(9)]
    for d, base in zip(got, [1, 2, 4, 8, 16, 30, 30, 30, 30], strict=True):
        assert 0.8 * base <= d <= min(1.2 * base, 30)
    assert len({round(d, 6) for d in got[5:]}) == 4  # jittered at the cap too, not in step
    assert next(backoff_delays()) <= 1.2  # a new series starts at 1 s again
