"""Unique, short names for kernel objects created by tests (netns, interfaces)."""

from __future__ import annotations

import re
import secrets

PREFIX = "ws"
IFNAMSIZ = 15  # longest interface name Linux accepts (IFNAMSIZ - 1)
_TAG_OK = re.compile(r"[^a-zA-Z0-9]")


def unique_name(tag: str = "", *, rand_hex: int = 6, max_len: int = IFNAMSIZ) -> str:
    """Return ``ws<tag><random hex>``, at most ``max_len`` characters; the tag is sanitised and shortened first.

    >>> len(unique_name("averyveryverylongtag")) <= 15
    True
    """
    if rand_hex < 4:
        raise ValueError("rand_hex must be >= 4 to keep names unique")
    room = max_len - len(PREFIX) - rand_hex
    if room < 0:
        raise ValueError(f"max_len {max_len} too short for prefix and {rand_hex} random digits")
    clean = _TAG_OK.sub("", tag)[:room]
    return f"{PREFIX}{clean}{secrets.token_hex((rand_hex + 1) // 2)[:rand_hex]}"


def is_ours(name: str) -> bool:
    """True for names this package generates (used by leakcheck to spot leftovers)."""
    return name.startswith(PREFIX)
