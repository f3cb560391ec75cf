"""veth pairs between namespaces (or the host), with addresses, MTU and link up, through pyroute2."""

from __future__ import annotations

import contextlib
import ipaddress
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from . import janitor
from .names import unique_name
from .netns import Namespace

NsRef = Namespace | str | None  # a Namespace, a namespace name, or None for the host


def ns_name(ns: NsRef) -> str | None:
    return ns.name if isinstance(ns, Namespace) else ns


def parse_addr(addr: str) -> tuple[str, int]:
    """'10.9.0.1/24' -> ('10.9.0.1', 24); a bare address gets a host prefix (/32 or /128)."""
    iface = ipaddress.ip_interface(addr)
    return str(iface.ip), iface.network.prefixlen


@contextlib.contextmanager
def iproute(ns: NsRef) -> Iterator[Any]:
    """An IPRoute socket in the host (None) or inside the named namespace, which must exist: pyroute2's default
    flags would create a namespace that was already deleted (and leak it)."""
    from pyroute2 import IPRoute, NetNS

    name = ns_name(ns)
    sock = NetNS(name, flags=0) if name else IPRoute()
    try:
        yield sock
    finally:
        sock.close()


def configure(ns: NsRef, ifname: str, addr: str | None = None, mtu: int | None = None, up: bool = True) -> None:
    with iproute(ns) as ipr:
        idx = ipr.link_lookup(ifname=ifname)[0]
        if mtu is not None:
            ipr.link("set", index=idx, mtu=mtu)
        if addr is not None:
            ip, plen = parse_addr(addr)
            ipr.addr("add", index=idx, address=ip, prefixlen=plen)
        if up:
            ipr.link("set", index=idx, state="up")


@dataclass
class VethPair:
    a: str
    b: str
    ns_a: str | None = None
    ns_b: str | None = None
    _token: int | None = field(default=None, repr=False)

    def delete(self) -> None:
        """Remove the pair (deleting one end removes both); fine if it or its namespace is already gone."""
        if self._token is not None:
            janitor.unregister(self._token)
            self._token = None
        for ns, name in ((self.ns_a, self.a), (self.ns_b, self.b)):
            try:
                with iproute(ns) as ipr:
                    idx = ipr.link_lookup(ifname=name)
                    if idx:
                        ipr.link("del", index=idx[0])
                        return
            except Exception:  # namespace gone: its end went with it
                continue


def create_veth(ns_a: NsRef = None, ns_b: NsRef = None, *, addr_a: str | None = None, addr_b: str | None = None,
                mtu: int | None = None, name_a: str | None = None, name_b: str | None = None,
                tag: str = "") -> VethPair:
    """Create a veth pair with end ``a`` in ``ns_a`` and end ``b`` in ``ns_b`` (None = host), both up."""
    pair = VethPair(name_a or unique_name(f"{tag}a"), name_b or unique_name(f"{tag}b"), ns_name(ns_a), ns_name(ns_b))
    from pyroute2 import IPRoute

    with IPRoute() as ipr:
        ipr.link("add", ifname=pair.a, kind="veth", peer=pair.b)
        pair._token = janitor.register(f"veth {pair.a}/{pair.b}", pair.delete)
        try:
            for ns, name in ((pair.ns_a, pair.a), (pair.ns_b, pair.b)):
                if ns:
                    ipr.link("set", index=ipr.link_lookup(ifname=name)[0], net_ns_fd=ns)
        except Exception:
            pair.delete()
            raise
    try:
        configure(pair.ns_a, pair.a, addr_a, mtu)
        configure(pair.ns_b, pair.b, addr_b, mtu)
    except Exception:
        pair.delete()
        raise
    return pair
