"""Small helpers shared by the node modules: repository paths, free ports, waiting, a timed step log."""

from __future__ import annotations

import os
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
    """n distinct TCP ports free on 127.0.0.1 right now (all bound at once, so they differ)."""
    socks = [socket.socket() for _ in range(n)]
    try:
        for s in socks:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in socks]
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
