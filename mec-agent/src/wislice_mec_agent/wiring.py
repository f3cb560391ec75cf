"""Kernel vNF wiring through netlink (pyroute2): a veth whose peer moves into the container's network
namespace, renamed ``in``, addressed with the vNF's /32 and a default route on-link. ``NetWiring`` is the
boundary; unit tests use a fake."""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from typing import Protocol

from .ids import CONTAINER_IFNAME


@dataclass
class LinkStats:
    rx_packets: int = 0
    rx_bytes: int = 0
    tx_packets: int = 0
    tx_bytes: int = 0


class NetWiring(Protocol):
    def create_veth(self, host_ifname: str, pid: int, address: str) -> None: ...
    def delete_link(self, ifname: str) -> bool: ...
    def exists(self, ifname: str) -> bool: ...
    def container_has_link(self, pid: int) -> bool: ...
    def list_links(self, prefix: str) -> list[str]: ...
    def stats(self, ifname: str) -> LinkStats | None: ...


class PyrouteWiring:
    def create_veth(self, host_ifname: str, pid: int, address: str) -> None:
        """Create host_ifname <-> peer, move the peer into /proc/<pid>/ns/net as ``in``, address it, bring both up.
        On failure the host side is deleted (which deletes the peer too)."""
        from pyroute2 import IPRoute, NetNS

        peer = f"{host_ifname[:13]}_c"
        ns_path = f"/proc/{pid}/ns/net"
        with IPRoute() as ipr:
            ipr.link("add", ifname=host_ifname, kind="veth", peer=peer)
            try:
                peer_idx = ipr.link_lookup(ifname=peer)[0]
                fd = os.open(ns_path, os.O_RDONLY)
                try:
                    ipr.link("set", index=peer_idx, net_ns_fd=fd)
                finally:
                    os.close(fd)
                with NetNS(ns_path) as ns:
                    idx = ns.link_lookup(ifname=peer)[0]
                    ns.link("set", index=idx, ifname=CONTAINER_IFNAME)
                    ns.addr("add", index=idx, address=address, prefixlen=32)
                    ns.link("set", index=idx, state="up")
                    ns.route("add", dst="0.0.0.0/0", oif=idx, scope="link")
                host_idx = ipr.link_lookup(ifname=host_ifname)[0]
                ipr.link("set", index=host_idx, state="up")
            except BaseException:
                with contextlib.suppress(Exception):
                    ipr.link("del", ifname=host_ifname)
                raise

    def delete_link(self, ifname: str) -> bool:
        from pyroute2 import IPRoute
        from pyroute2.netlink.exceptions import NetlinkError

        with IPRoute() as ipr:
            try:
                ipr.link("del", ifname=ifname)
            except NetlinkError as exc:
                if exc.code == 19:  # ENODEV: already gone (the peer's namespace died with its container)
                    return False
                raise
        return True

    def exists(self, ifname: str) -> bool:
        return os.path.exists(f"/sys/class/net/{ifname}")

    def container_has_link(self, pid: int) -> bool:
        from pyroute2 import NetNS

        try:
            with NetNS(f"/proc/{pid}/ns/net") as ns:
                return bool(ns.link_lookup(ifname=CONTAINER_IFNAME))
        except OSError:
            return False

    def list_links(self, prefix: str) -> list[str]:
        return sorted(n for n in os.listdir("/sys/class/net") if n.startswith(prefix))

    def stats(self, ifname: str) -> LinkStats | None:
        base = f"/sys/class/net/{ifname}/statistics"
        try:
            def read(name: str) -> int:
                with open(f"{base}/{name}") as f:
                    return int(f.read())
            return LinkStats(read("rx_packets"), read("rx_bytes"), read("tx_packets"), read("tx_bytes"))
        except OSError:
            return None
