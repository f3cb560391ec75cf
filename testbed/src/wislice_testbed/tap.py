"""Persistent host tap devices (a VM's NIC on the host side, e.g. the AP VM's uplink), through pyroute2."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from . import janitor
from .names import unique_name


def _delete(name: str) -> None:
    from pyroute2 import IPRoute

    with IPRoute() as ipr:
        for index in ipr.link_lookup(ifname=name):
            ipr.link("del", index=index)


@contextmanager
def tap_device(mtu: int | None = None, tag: str = "tap") -> Iterator[str]:
    """A tap device named ``ws<tag><hex>``, up, removed on exit (and by the janitor if the process dies)."""
    from pyroute2 import IPRoute

    name = unique_name(tag)
    with IPRoute() as ipr:
        ipr.link("add", ifname=name, kind="tuntap", mode="tap")
        token = janitor.register(f"tap {name}", lambda: _delete(name))
        try:
            ipr.link("set", index=ipr.link_lookup(ifname=name)[0], state="up", **({"mtu": mtu} if mtu else {}))
        except Exception:
            _delete(name)
            janitor.unregister(token)
            raise
    try:
        yield name
    finally:
        _delete(name)
        janitor.unregister(token)
