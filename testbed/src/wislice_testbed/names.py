"""Unique, short names for kernel objects created by tests (netns, veths, taps, private dockerds).

A name is ``ws<tag><pid><seq>``: the process id and a per-process sequence number, each in base 36 at a fixed width,
so the names are unique by construction, not by chance: two calls in one process differ in ``seq``; two processes
that live at the same time differ in ``pid`` (a forked child keeps its parent's sequence but not its pid). As
``<pid><seq>`` has a fixed length at the end, the tag (any length) cannot make two names alike either.

A process's sequence starts at a random point (and wraps once around the 46656 numbers), so that a later process
that gets a dead one's pid is unlikely to meet a name the dead one left behind (a killed run whose janitor never
ran): creating it would fail, not share it.
"""

from __future__ import annotations

import itertools
import os
import re
import secrets
import threading

PREFIX = "ws"
IFNAMSIZ = 15  # longest interface name Linux accepts (IFNAMSIZ - 1)
PID_DIGITS = 5  # base 36 up to 60466175: above Linux's largest pid_max (2**22)
SEQ_DIGITS = 3  # base 36: 46656 names per process
SEQ_COUNT = 36**SEQ_DIGITS
MIN_LEN = len(PREFIX) + PID_DIGITS + SEQ_DIGITS  # a name without tag
_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"
_TAG_OK = re.compile(r"[^a-zA-Z0-9]")

_calls = itertools.count()
_seq_start = secrets.randbelow(SEQ_COUNT)
_lock = threading.Lock()


def _fresh_lock() -> None:
    """A child forked while another thread held the lock would never get it: it starts with a new one."""
    global _lock
    _lock = threading.Lock()


os.register_at_fork(after_in_child=_fresh_lock)


def _base36(n: int, width: int, what: str) -> str:
    if not 0 <= n < 36**width:
        raise ValueError(f"{what} {n} does not fit {width} base-36 digits")
    out = ""
    for _ in range(width):
        n, d = divmod(n, 36)
        out = _DIGITS[d] + out
    return out


def compose(tag: str, pid: int, seq: int, *, max_len: int = IFNAMSIZ) -> str:
    """The name of call number ``seq`` of process ``pid``: ``ws<tag><pid><seq>``, at most ``max_len`` characters.

    The tag keeps its letters and digits and is cut to the room left (``max_len - MIN_LEN``, 5 for an interface).
    """
    if max_len < MIN_LEN:
        raise ValueError(f"max_len {max_len} too short: a name needs {MIN_LEN} characters without its tag")
    clean = _TAG_OK.sub("", tag)[:max_len - MIN_LEN]
    return f"{PREFIX}{clean}{_base36(pid, PID_DIGITS, 'pid')}{_base36(seq, SEQ_DIGITS, 'name number')}"


def unique_name(tag: str = "", *, max_len: int = IFNAMSIZ) -> str:
    """A name no other call, in this process or any other living one, returns (see the module's doc).

    Raises RuntimeError after 46656 names in one process (a forked child shares its parent's count).

    >>> len(unique_name("averyveryverylongtag")) <= 15
    True
    """
    with _lock:
        n = next(_calls)
    if n >= SEQ_COUNT:
        raise RuntimeError(f"this process used all {SEQ_COUNT} unique names")
    return compose(tag, os.getpid(), (_seq_start + n) % SEQ_COUNT, max_len=max_len)


def is_ours(name: str) -> bool:
    """True for names this package generates (used by leakcheck to spot leftovers)."""
    return name.startswith(PREFIX)
