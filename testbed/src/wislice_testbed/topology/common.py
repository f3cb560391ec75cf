"""Small helpers shared by the node modules: repository paths, free ports, waiting, a timed step log."""

from __future__ import annotations

import os
import random
import socket
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")


def repo_root() -> Path:
    env = os.environ.get("WISLICE_ROOT")
    return Path(env) if env else Path(__file__).resolve().parents[4]


def cache_dir() -> Path:
    return Path(os.environ.get("WISLICE_CACHE", Path.home() / ".cache" / "wislice"))


def free_ports(n: int) -> list[int]:
    """n distinct TCP ports free on 127.0.0.1 now, below the kernel's ephemeral range: a port picked now and bound
    later (a cluster node started a minute after the others) must not meanwhile become the source port of some
    connection, which ephemeral ports do (seen: "port already in use" for the third ONOS node)."""
    try:
        low = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        low = 32768
    socks: list[socket.socket] = []
    try:
        for port in random.sample(range(10000, max(low, 10000 + 4 * n)), 4 * n):
            s = socket.socket()
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                s.close()
                continue
            socks.append(s)
            if len(socks) == n:
                return [s.getsockname()[1] for s in socks]
        raise RuntimeError(f"no {n} free TCP ports below {low} on 127.0.0.1")
    finally:
        for s in socks:
            s.close()


def wait_for(what: str, check: Callable[[], T], timeout: float = 30.0, period: float = 0.25) -> T:
    """Call ``check`` until it returns something truthy; raise TimeoutError naming ``what`` and the last value."""
    deadline = time.monotonic() + timeout
    last: Any = None
    while True:
        try:
            last = check()
        except Exception as exc:  # the thing may not answer yet
            last = exc
        if last and not isinstance(last, Exception):
            return last
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out after {timeout:.0f} s waiting for {what} (last: {last!r})")
        time.sleep(period)


class StepLog:
    """Prints numbered, timed steps and keeps their durations (seconds) for the results file."""

    def __init__(self, prefix: str = "demo") -> None:
        self.prefix = prefix
        self.t0 = time.monotonic()
        self.durations: dict[str, float] = {}

    def say(self, msg: str) -> None:
        print(f"[{self.prefix} {time.monotonic() - self.t0:6.1f}s] {msg}", flush=True)

    @contextmanager
    def step(self, key: str, title: str) -> Iterator[None]:
        self.say(f"-> {title}")
        started = time.monotonic()
        try:
            yield
        except BaseException:
            self.say(f"!! {title}: FAILED after {time.monotonic() - started:.1f} s")
            raise
        took = time.monotonic() - started
        self.durations[key] = round(took, 3)
        self.say(f"   {title}: done in {took:.1f} s")
