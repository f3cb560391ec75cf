"""Holding one call of the fake controllers (FakeControllers, also as served by fake_onos.py) until a test releases it,
so that a saga is provably mid-way: the calls before it answered, this one has arrived and not taken effect yet.

    hold = hold_on(fake, "create_path")      # the next create_path call waits
    assert hold.reached.wait(10)             # ... it arrived
    hold.release()                           # it takes effect (even if its caller died meanwhile)
    assert hold.done.wait(5)                 # ... and returned (or raised)
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

# A held call that nobody releases (a test that failed before its release) gives up waiting after this long.
HOLD_MAX_S = 60.0


@dataclass
class Hold:
    method: str
    reached: threading.Event = field(default_factory=threading.Event)
    released: threading.Event = field(default_factory=threading.Event)
    done: threading.Event = field(default_factory=threading.Event)

    def release(self) -> None:
        self.released.set()


def hold_on(fake: Any, method: str, nth: int = 1) -> Hold:
    """Hold the nth call of `fake.method` from now. The call waits before the fake's lock is taken, so every other
    call (other instances' reads and writes) is answered meanwhile. Other calls of the method pass unheld."""
    hold = Hold(method)
    original = getattr(fake, method)
    seen = 0
    count_lock = threading.Lock()

    def held(*args: Any, **kwargs: Any) -> Any:
        nonlocal seen
        with count_lock:
            seen += 1
            mine = seen == nth
        if not mine:
            return original(*args, **kwargs)
        hold.reached.set()
        hold.released.wait(HOLD_MAX_S)
        try:
            return original(*args, **kwargs)
        finally:
            hold.done.set()

    setattr(fake, method, held)  # an instance attribute: shadows the method for this fake only
    return hold
