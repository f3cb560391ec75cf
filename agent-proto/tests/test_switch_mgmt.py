"""The management-socket client against spec/switch-mgmt/vectors, replayed by a fake switch on a unix socket: it sends
each vector's lines exactly, returns each reply as it is, and its typed calls parse them into the vectors' parsed
values (or raise MgmtError with the switch's reason); plus what it does when the switch is not there, says nothing,
says too much, and the lines it refuses to send."""

from __future__ import annotations

import contextlib
import socket
import tempfile
import threading
from collections.abc import Callable, Iterator
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest
from conftest import MGMT_VECTORS, load

from wislice_agent_proto.switch_mgmt import MgmtError, ProbeStats, SwitchMgmt, parse_ports, parse_probe_stats


class FakeSwitch:
    """Answers each connection's lines with the next step's reply, recording what it was sent."""

    def __init__(self, path: str, steps: list[dict[str, Any]], answer: Callable[[str], bytes] | None = None) -> None:
        self.steps, self.received = list(steps), []
        self.answer = answer or (lambda line: (self.steps.pop(0)["reply"] + "\n").encode())
        self.server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.server.bind(path)
        self.server.listen()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.server.accept()
            except OSError:
                return
            with conn, conn.makefile("rb") as lines:
                for raw in lines:
                    self.received.append(raw.decode())
                    reply = self.answer(raw.decode().rstrip("\n"))
                    if not reply:
                        break  # hang up without a word
                    try:
                        conn.sendall(reply)
                    except (BrokenPipeError, ConnectionResetError):
                        break  # the client hung up mid-reply (as it does after 64 KiB of one)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.server.shutdown(socket.SHUT_RDWR)
        self.server.close()
        self.thread.join(5)


@pytest.fixture
def sockdir() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="mgmt") as d:  # unix socket paths must stay under 108 bytes
        yield Path(d)


@pytest.fixture
def switch(sockdir: Path) -> Iterator[Callable[..., FakeSwitch]]:
    made: list[FakeSwitch] = []

    def make(steps: list[dict[str, Any]], answer: Callable[[str], bytes] | None = None) -> FakeSwitch:
        made.append(FakeSwitch(str(sockdir / f"s{len(made)}.sock"), steps, answer))
        return made[-1]

    yield make
    for s in made:
        s.close()


def typed_call(mgmt: SwitchMgmt, send: str) -> Callable[[], Any] | None:
    """The client's typed call that sends exactly this line, if it has one."""
    words = send.split(" ", 2)
    cmd, args = words[0], words[1:]
    calls: dict[tuple[str, int], Callable[[], Any]] = {
        ("port-add", 1): lambda: mgmt.port_add(args[0]),
        ("port-add", 2): lambda: mgmt.port_add(args[0], args[1]),
        ("port-del", 1): lambda: mgmt.port_del(args[0]),
        ("port-stats", 1): lambda: mgmt.port_stats(args[0]),
        ("ports", 0): mgmt.ports,
        ("stats", 0): mgmt.stats,
    }
    if cmd == "port-add" and len(args) == 2 and "id=" in args[1]:
        items = args[1].split(",")
        ids = [item[3:] for item in items if item.startswith("id=")]
        rest = ",".join(item for item in items if not item.startswith("id="))
        if len(ids) == 1 and ids[0].isdigit() and 1 <= int(ids[0]) <= 254:
            return lambda: mgmt.port_add(args[0], rest, port_id=int(ids[0]))
        return None
    if cmd == "port-rate" and len(args) == 2 and args[1].isdigit():
        return lambda: mgmt.port_rate(args[0], int(args[1]))
    if cmd == "on-connect" and (not args or (len(args) == 1 and args[0] in ("keep", "reset"))):
        return lambda: mgmt.on_connect(*args)
    if cmd == "latency" and len(args) == 2 and args[1] in ("on", "off"):
        return lambda: mgmt.latency(args[0], args[1] == "on")
    if cmd.startswith("probe-"):
        return probe_call(mgmt, send)
    return calls.get((cmd, len(args)))


def probe_call(mgmt: SwitchMgmt, send: str) -> Callable[[], Any] | None:
    """probe-start/-stats/-stop as typed calls, where the line has their shape (a malformed one is sent as is). The
    call itself may refuse a value (ValueError): the test then expects the switch to refuse it too."""
    cmd, *words = send.split()
    if len(words) < 2 or not words[1].isdigit():
        return None
    name, pid = words[0], int(words[1])
    if cmd in ("probe-stats", "probe-stop") and len(words) == 2:
        return lambda: (mgmt.probe_stats if cmd == "probe-stats" else mgmt.probe_stop)(name, pid)
    opts = dict(w.split("=", 1) for w in words[6:] if "=" in w)
    if (cmd != "probe-start" or not 6 <= len(words) <= 9 or len(opts) != len(words) - 6
            or not set(opts) <= {"size", "interval_us", "count"} or not all(v.isdigit() for v in opts.values())):
        return None
    return lambda: mgmt.probe_start(name, pid, *words[2:6], **{k: int(v) for k, v in opts.items()})


def as_vector(result: Any) -> Any:
    """A typed call's result in the vectors' terms."""
    if isinstance(result, dict) and all(hasattr(p, "port_id") for p in result.values()):
        return [{"id": p.pop("port_id"), **p} for p in map(asdict, result.values())]
    if isinstance(result, ProbeStats):
        return {k: int(v) for k, v in asdict(result).items()}
    return result


@pytest.mark.parametrize("path", MGMT_VECTORS, ids=lambda p: p.stem)
def test_request_sends_the_lines_and_returns_the_replies(path, switch, sockdir):
    steps = load(path)["steps"]
    fake = switch(steps)
    mgmt = SwitchMgmt(str(sockdir / "s0.sock"))
    assert [mgmt.request(s["send"]) for s in steps] == [s["reply"] for s in steps]
    assert fake.received == [s["send"] + "\n" for s in steps]


@pytest.mark.parametrize("path", MGMT_VECTORS, ids=lambda p: p.stem)
def test_typed_calls_parse_the_replies(path, switch, sockdir):
    steps = load(path)["steps"]
    fake = switch(steps)
    mgmt = SwitchMgmt(str(sockdir / "s0.sock"))
    typed = 0
    for step in steps:
        call = typed_call(mgmt, step["send"])
        if call is None:  # no typed call sends this (a malformed command): sent as it is
            mgmt.request(step["send"])
            continue
        typed += 1
        reply = step["reply"]
        if step["send"].startswith("probe-start ") and reply.startswith("ERROR ") and "exists" not in reply \
                and "no port" not in reply and "too many" not in reply:
            with pytest.raises(ValueError):  # the client refuses, before the switch would, what the switch refuses
                call()
            mgmt.request(step["send"])
            continue
        if (reply.startswith("ERROR no port") and step["send"].startswith("port-del ")) or \
                (reply.startswith("ERROR no probe") and step["send"].startswith("probe-stop ")):
            assert call() is False
        elif reply.startswith("ERROR "):
            with pytest.raises(MgmtError) as e:
                call()
            assert e.value.reason == reply[6:] and reply in str(e.value)
        else:
            deleted = step["send"].startswith(("port-del", "probe-stop"))
            assert as_vector(call()) == step.get("parsed", True if deleted else None)
    assert fake.received == [s["send"] + "\n" for s in steps]
    assert typed > 0 or path.stem == "unknown-commands"


def test_no_switch_no_reply_and_too_much(switch, sockdir):
    with pytest.raises(MgmtError, match="management socket .*nothing.sock") as e:
        SwitchMgmt(str(sockdir / "nothing.sock")).ports()
    assert e.value.reason is None
    switch([], answer=lambda line: b"")
    with pytest.raises(MgmtError, match="refused ports: no reply"):
        SwitchMgmt(str(sockdir / "s0.sock")).ports()
    switch([], answer=lambda line: b"OK " + b"1:a:1:0:0:0:0 " * 6000 + b"\n")
    with pytest.raises(MgmtError, match="longer than 65536"):
        SwitchMgmt(str(sockdir / "s1.sock")).ports()
    switch([], answer=lambda line: b"OK 1:a:yes:0:0:0:0\n" if line == "ports" else b"OK x\n")
    mgmt = SwitchMgmt(str(sockdir / "s2.sock"))
    with pytest.raises(MgmtError, match="unparsable port entry"):
        mgmt.ports()
    with pytest.raises(MgmtError, match="no valid port number"):
        mgmt.port_add("a")


@pytest.mark.parametrize("call", [
    lambda m: m.request("ports\nport-del up"),
    lambda m: m.request("x" * 511),
    lambda m: m.port_add("two words"),
    lambda m: m.port_add("a", "eth1", port_id=0),
    lambda m: m.port_add("a", port_id=255),
    lambda m: m.port_del(""),
    lambda m: m.port_rate("up", -1),
    lambda m: m.port_rate("up", True),
    lambda m: m.probe_start("a", 65536, "02:00:00:00:00:65", "auto", "10.9.0.1", "10.9.0.2"),
    lambda m: m.probe_start("a", 1, "01:00:00:00:00:65", "auto", "10.9.0.1", "10.9.0.2"),
    lambda m: m.probe_start("a", 1, "00:00:00:00:00:00", "auto", "10.9.0.1", "10.9.0.2"),
    lambda m: m.probe_start("a", 1, "02:00:00:00:00:65", "AUTO", "10.9.0.1", "10.9.0.2"),
    lambda m: m.probe_start("a", 1, "02:00:00:00:00:65", "auto", "10.9.0.01", "10.9.0.2"),
    lambda m: m.probe_start("a", 1, "02:00:00:00:00:65", "auto", "10.9.0.1", "fe80::1"),
    lambda m: m.probe_start("a", 1, "02:00:00:00:00:65", "auto", "10.9.0.1", "10.9.0.2", interval_us=999),
    lambda m: m.probe_start("a", 1, "02:00:00:00:00:65", "auto", "10.9.0.1", "10.9.0.2", count=0),
    lambda m: m.probe_start("a", 1, "02:00:00:00:00:65", "auto", "10.9.0.1", "10.9.0.2", size=True),
    lambda m: m.probe_stats("a", -1),
    lambda m: m.probe_stop("a b", 1),
])
def test_lines_the_switch_would_misread_are_not_sent(call, sockdir):
    with pytest.raises(ValueError):
        call(SwitchMgmt(str(sockdir / "never-dialled.sock")))


def test_parse_ports():
    ports = parse_ports("3:wlan0_1:0:1:2:3:4")
    assert asdict(ports["wlan0_1"]) == {"name": "wlan0_1", "port_id": 3, "enabled": False, "rx_packets": 1,
                                        "tx_packets": 2, "rx_bytes": 3, "tx_bytes": 4}


def test_parse_probe_stats():
    st = parse_probe_stats("sent=9 received=7 lost=1 p50_us=80 p90_us=95 p99_us=120 max_us=130 samples=7 "
                           "arp_replies=2 arp_requests=1 resolved=0 later_key=5")
    assert st == ProbeStats(9, 7, 1, 80, 95, 120, 130, 7, arp_replies=2, arp_requests=1, resolved=False)
    # a switch from before DST_MAC auto: known MAC, no ARP requests
    old = parse_probe_stats("sent=1 received=1 lost=0 p50_us=5 p90_us=5 p99_us=5 max_us=5 samples=1 arp_replies=0")
    assert old.resolved is True and old.arp_requests == 0
    with pytest.raises(MgmtError, match="without lost"):
        parse_probe_stats("sent=1 received=1 p50_us=5 p90_us=5 p99_us=5 max_us=5 samples=1")
