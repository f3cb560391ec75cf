"""Last-resort cleanup: a process-wide registry of undo actions run at exit and on SIGTERM/SIGHUP.

Resources register an undo action when created and unregister it when they are released normally, so only what a
crashed or interrupted run left behind is undone here (in reverse creation order).
"""

from __future__ import annotations

import atexit
import itertools
import signal
import sys
import threading
from collections.abc import Callable
from types import FrameType

_lock = threading.RLock()
_actions: dict[int, tuple[str, Callable[[], object]]] = {}
_ids = itertools.count(1)
_installed = False


def register(what: str, undo: Callable[[], object]) -> int:
    """Remember ``undo`` (described by ``what``); returns a token for :func:`unregister`."""
    _install()
    with _lock:
        token = next(_ids)
        _actions[token] = (what, undo)
        return token


def unregister(token: int) -> None:
    with _lock:
        _actions.pop(token, None)


def pending() -> list[str]:
    with _lock:
        return [what for what, _ in _actions.values()]


def run_all() -> list[str]:
    """Run every pending undo action, newest first; returns descriptions of those that failed."""
    failed: list[str] = []
    while True:
        with _lock:
            if not _actions:
                return failed
            token = max(_actions)
            what, undo = _actions.pop(token)
        try:
            undo()
        except Exception as exc:  # keep going: the next resource still has to go
            failed.append(f"{what}: {exc}")
            print(f"[wislice_testbed] cleanup of {what} failed: {exc}", file=sys.stderr)


def _on_signal(signum: int, frame: FrameType | None) -> None:
    # Turn SIGTERM/SIGHUP into KeyboardInterrupt: pytest then runs fixture finalizers, and atexit runs the rest.
    raise KeyboardInterrupt(f"signal {signum}")


def _install() -> None:
    global _installed
    with _lock:
        if _installed:
            return
        _installed = True
        atexit.register(run_all)
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGTERM, signal.SIGHUP):
                if signal.getsignal(sig) in (signal.SIG_DFL, None):
                    signal.signal(sig, _on_signal)
