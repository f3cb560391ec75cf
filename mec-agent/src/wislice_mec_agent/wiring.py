"""Kernel vNF wiring through netlink (pyroute2): a veth whose host side lives in the node's namespace (the
agent's own, or ``node_netns`` from the config) and whose peer moves into the container's network namespace,
renamed ``in``, addressed with the vNF's /32 and a default route on-link. ``NetWiring`` is the boundary; unit
tests use a fake. Backpressure's netlink side lives here too: ``TcHeadDrop`` (drop everything at a chain head's
host veth) and ``PyrouteWiring.qdisc_backlog`` (bytes queued in a vNF's qdiscs)."""

from __future__ import annotations

import contextlib
import ctypes
import os
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol

from .ids import CONTAINER_IFNAME


@dataclass
class LinkStats:
    rx_packets: int = 0
    rx_bytes: int = 0
    tx_packets: int = 0
    tx_bytes: int = 0


class NetWiring(Protocol):
    def create_veth(self, host_ifname: str, pid: int, address: str, mac: str,
                    container_ifname: str = CONTAINER_IFNAME) -> None: ...
    def delete_link(self, ifname: str) -> bool: ...
    def exists(self, ifname: str) -> bool: ...
    def container_has_link(self, pid: int) -> bool: ...
    def list_links(self, prefix: str) -> list[str]: ...
    def stats(self, ifname: str) -> LinkStats | None: ...


CLONE_NEWNET = 0x40000000
_libc = ctypes.CDLL(None, use_errno=True)


def run_in_netns(ns_path: str, fn: Callable[[], Any]) -> Any:
    """Run ``fn`` on a short-lived thread that entered the network namespace at ``ns_path`` (setns is per thread;
    the process never leaves its own). Sockets ``fn`` opens stay in that namespace. No fork, unlike pyroute2's
    NetNS (~50 ms per call)."""
    box: dict[str, Any] = {}

    def enter() -> None:
        try:
            fd = os.open(ns_path, os.O_RDONLY)
            try:
                if _libc.setns(fd, CLONE_NEWNET) != 0:
                    raise OSError(ctypes.get_errno(), f"setns {ns_path}")
            finally:
                os.close(fd)
            box["result"] = fn()
        except BaseException as exc:
            box["error"] = exc

    t = threading.Thread(target=enter)
    t.start()
    t.join()
    if "error" in box:
        raise box["error"]
    return box["result"]


def iproute_in(ns_path: str) -> Any:
    """An IPRoute whose netlink socket lives in the namespace at ``ns_path``."""
    from pyroute2 import IPRoute

    return run_in_netns(ns_path, IPRoute)


# Legacy ethtool "set" commands (linux/ethtool.h), value 0 = off: tx checksum, TSO, GSO, GRO.
_ETHTOOL_OFF = (0x17, 0x1F, 0x24, 0x2C)
_SIOCETHTOOL = 0x8946


def offloads_off(ifname: str) -> None:
    """Frames as on the wire on one veth end, in the calling thread's namespace: the switch's AF_PACKET ports read
    what crosses the veth as is, so a checksum left to the hardware would stay unfinished (the receiver drops the
    datagram) and a GSO/GRO super-frame would exceed the MTU. Turning tx checksum off also turns TSO off."""
    import array
    import fcntl
    import socket
    import struct

    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        for cmd in _ETHTOOL_OFF:
            value = array.array("B", struct.pack("II", cmd, 0))
            with contextlib.suppress(OSError):  # a feature the device cannot change (EOPNOTSUPP) is fine as it is
                fcntl.ioctl(s, _SIOCETHTOOL, struct.pack("16sP", ifname.encode(), value.buffer_info()[0]))


def netns_path(name: str) -> str:
    return name if name.startswith("/") else f"/run/netns/{name}"


@contextlib.contextmanager
def node_iproute(node_netns: str) -> Iterator[Any]:
    """An IPRoute in the node's namespace (``node_netns``, or the agent's own when empty), closed afterwards."""
    from pyroute2 import IPRoute

    ipr = iproute_in(netns_path(node_netns)) if node_netns else IPRoute()
    try:
        yield ipr
    finally:
        ipr.close()


class PyrouteWiring:
    def __init__(self, node_netns: str = "") -> None:
        self.node_netns = node_netns

    def _node(self) -> contextlib.AbstractContextManager[Any]:
        return node_iproute(self.node_netns)

    def create_veth(self, host_ifname: str, pid: int, address: str, mac: str,
                    container_ifname: str = CONTAINER_IFNAME) -> None:
        """Create host_ifname <-> peer with the peer born in /proc/<pid>/ns/net as ``container_ifname`` with
        ``mac`` (one request: creating it in the node's namespace, then moving and renaming it, took three, and the
        move waits for the kernel's network synchronisation), address it (a /32 and the default route on-link),
        bring both up, both ends without offloads; an empty address or mac leaves that out (a vNF's further ports).
        On failure the host side is deleted (which deletes the peer too)."""
        peer: dict[str, Any] = {"ifname": container_ifname, "net_ns_pid": pid}
        if mac:
            peer["address"] = mac
        with self._node() as ipr:
            ipr.link("add", ifname=host_ifname, kind="veth", peer=peer)
            try:
                with contextlib.closing(iproute_in(f"/proc/{pid}/ns/net")) as ns:
                    idx = ns.link_lookup(ifname=container_ifname)[0]
                    if address:
                        ns.addr("add", index=idx, address=address, prefixlen=32)
                    ns.link("set", index=idx, state="up")
                    if address:
                        ns.route("add", dst="0.0.0.0/0", oif=idx, scope="link")
                run_in_netns(f"/proc/{pid}/ns/net", lambda: offloads_off(container_ifname))
                if self.node_netns:
                    run_in_netns(netns_path(self.node_netns), lambda: offloads_off(host_ifname))
                else:
                    offloads_off(host_ifname)
                ipr.link("set", index=ipr.link_lookup(ifname=host_ifname)[0], state="up")
            except BaseException:
                with contextlib.suppress(Exception):
                    ipr.link("del", ifname=host_ifname)
                raise

    def delete_link(self, ifname: str) -> bool:
        from pyroute2.netlink.exceptions import NetlinkError

        with self._node() as ipr:
            try:
                ipr.link("del", ifname=ifname)
            except NetlinkError as exc:
                if exc.code == 19:  # ENODEV: already gone (the peer's namespace died with its container)
                    return False
                raise
        return True

    def exists(self, ifname: str) -> bool:
        if not self.node_netns:
            return os.path.exists(f"/sys/class/net/{ifname}")
        with self._node() as ipr:
            return bool(ipr.link_lookup(ifname=ifname))

    def container_has_link(self, pid: int) -> bool:
        try:
            with contextlib.closing(iproute_in(f"/proc/{pid}/ns/net")) as ns:
                return bool(ns.link_lookup(ifname=CONTAINER_IFNAME))
        except Exception:
            return False

    def list_links(self, prefix: str) -> list[str]:
        if not self.node_netns:
            return sorted(n for n in os.listdir("/sys/class/net") if n.startswith(prefix))
        with self._node() as ipr:
            names = [link.get_attr("IFLA_IFNAME") for link in ipr.get_links()]
        return sorted(n for n in names if n and n.startswith(prefix))

    def stats(self, ifname: str) -> LinkStats | None:
        with self._node() as ipr:
            idx = ipr.link_lookup(ifname=ifname)
            if not idx:
                return None
            s = ipr.get_links(idx[0])[0].get_attr("IFLA_STATS64")
        if s is None:
            return None
        return LinkStats(s["rx_packets"], s["rx_bytes"], s["tx_packets"], s["tx_bytes"])

    # ---- backpressure (scheduler.py) ---------------------------------------------------------------------------
    @property
    def head_drop(self) -> TcHeadDrop:
        """The chain-head drop on this node's host veths."""
        return TcHeadDrop(self.node_netns)

    def qdisc_backlog(self, pid: int) -> int:
        """Bytes queued in the root qdiscs of every interface in the network namespace of ``pid`` (0 for the
        default noqueue of a veth). Root qdiscs only: a classful root already counts its children's backlog."""
        total = 0
        with contextlib.closing(iproute_in(f"/proc/{pid}/ns/net")) as ns:
            for q in ns.get_qdiscs():
                if q["parent"] != TC_H_ROOT:
                    continue
                total += _stats_queue(q).get("backlog", 0)
        return total


TC_H_ROOT = 0xFFFFFFFF
CLSACT_EGRESS = 0xFFFFFFF3  # parent ffff:fff3: clsact's egress hook
DROP_PRIO = 1  # our filter's preference on clsact egress: first, before anything else there
DROP_NAME = "wislice_drop"
TC_ACT_SHOT = 2
_BPF_SYSCALL = {"x86_64": 321, "aarch64": 280, "armv7l": 386, "ppc64le": 361, "s390x": 351, "riscv64": 280}


def _stats_queue(msg: Any) -> dict[str, int]:
    stats = msg.get_attr("TCA_STATS2")
    queue = stats.get_attr("TCA_STATS_QUEUE") if stats is not None else None
    return dict(queue) if queue is not None else {}


def load_drop_program() -> int:
    """A 2-instruction eBPF sched_cls program, ``return TC_ACT_SHOT``, loaded with bpf(2); returns its fd (the
    filter keeps the program alive, so the caller closes the fd once the filter holds it). Used when the kernel has
    no cls_matchall / act_gact (CONFIG_NET_CLS_MATCHALL, CONFIG_NET_ACT_GACT) but has cls_bpf."""
    import platform
    import struct

    nr = _BPF_SYSCALL.get(platform.machine())
    if nr is None:
        raise OSError(95, f"bpf(2) syscall number unknown on {platform.machine()}")
    insns = struct.pack("<BBhi", 0xB7, 0, 0, TC_ACT_SHOT) + struct.pack("<BBhi", 0x95, 0, 0, 0)  # r0 = 2; exit
    ibuf = ctypes.create_string_buffer(insns, len(insns))
    lic = ctypes.create_string_buffer(b"GPL")
    logbuf = ctypes.create_string_buffer(4096)
    # union bpf_attr, BPF_PROG_LOAD: prog_type (3 = BPF_PROG_TYPE_SCHED_CLS), insn_cnt, insns, license, log_level,
    # log_size, log_buf, kern_version, prog_flags, prog_name[16]; the rest zero.
    attr = struct.pack("<IIQQIIQII16s", 3, 2, ctypes.addressof(ibuf), ctypes.addressof(lic), 1, len(logbuf),
                       ctypes.addressof(logbuf), 0, 0, DROP_NAME.encode())
    abuf = ctypes.create_string_buffer(attr, 128)
    fd = _libc.syscall(nr, 5, abuf, len(abuf))  # 5 = BPF_PROG_LOAD
    if fd < 0:
        err = ctypes.get_errno()
        raise OSError(err, f"bpf(BPF_PROG_LOAD): {os.strerror(err)} {logbuf.value.decode(errors='replace')}")
    return int(fd)


class TcHeadDrop:
    """Backpressure's drop at a chain head, done by the agent: a filter on the clsact egress hook of the head vNF's
    host-side veth (packets leaving the node towards the vNF) that drops everything, IPv4, ARP and all.
    cls_matchall + act_gact drop where the kernel has them; otherwise cls_bpf direct-action with a program that
    returns TC_ACT_SHOT. Either way the clsact qdisc's drop counter counts the drops. Everything lives on the
    veth: deleting the veth (the vNF) removes qdisc, filter and program, so a crashed agent leaves nothing
    that outlives its vNF; ``release`` removes our filter and the clsact once no filter is left on it."""

    def __init__(self, node_netns: str = "") -> None:
        self.node_netns = node_netns

    def _node(self) -> contextlib.AbstractContextManager[Any]:
        return node_iproute(self.node_netns)

    @staticmethod
    def _ours(ipr: Any, idx: int) -> list[Any]:
        return [f for f in ipr.get_filters(index=idx, parent=CLSACT_EGRESS) if f["info"] >> 16 == DROP_PRIO]

    @staticmethod
    def _clsact(ipr: Any, idx: int) -> Any:
        return next((q for q in ipr.get_qdiscs(index=idx) if q.get_attr("TCA_KIND") == "clsact"), None)

    def apply(self, ifname: str) -> bool:
        """Start dropping (idempotent). False when the link does not exist."""
        from pyroute2.netlink.exceptions import NetlinkError

        with self._node() as ipr:
            idx = ipr.link_lookup(ifname=ifname)
            if not idx:
                return False
            idx = idx[0]
            if self._clsact(ipr, idx) is None:
                try:
                    ipr.tc("add", "clsact", idx)
                except NetlinkError as exc:
                    if exc.code != 17:  # EEXIST: raced with another writer
                        raise
            if self._ours(ipr, idx):
                return True
            try:
                ipr.tc("add-filter", "matchall", idx, parent=CLSACT_EGRESS, prio=DROP_PRIO,
                       action={"kind": "gact", "action": "drop"})
            except NetlinkError as exc:
                if exc.code not in (2, 95, 22):  # ENOENT / EOPNOTSUPP / EINVAL: no cls_matchall or act_gact
                    raise
                fd = load_drop_program()
                try:
                    ipr.tc("add-filter", "bpf", idx, ":1", fd=fd, name=DROP_NAME, parent=CLSACT_EGRESS,
                           prio=DROP_PRIO, direct_action=True)
                finally:
                    os.close(fd)
        return True

    def release(self, ifname: str) -> bool:
        """Stop dropping: delete our filter, then the clsact qdisc if no filter is left on it. False when there
        was nothing to remove (no link, or no filter of ours)."""
        from pyroute2.netlink.exceptions import NetlinkError

        with self._node() as ipr:
            idx = ipr.link_lookup(ifname=ifname)
            if not idx:
                return False
            idx = idx[0]
            ours = self._ours(ipr, idx)
            if ours:
                try:
                    ipr.tc("del-filter", ours[0].get_attr("TCA_KIND"), idx, parent=CLSACT_EGRESS, prio=DROP_PRIO)
                except NetlinkError as exc:
                    if exc.code not in (2, 19):  # already gone
                        raise
            if self._clsact(ipr, idx) is not None and not any(
                    ipr.get_filters(index=idx, parent=p) for p in (CLSACT_EGRESS, 0xFFFFFFF2)):
                with contextlib.suppress(NetlinkError):
                    ipr.tc("del", "clsact", idx)
            return bool(ours)

    def active(self, ifname: str) -> bool:
        with self._node() as ipr:
            idx = ipr.link_lookup(ifname=ifname)
            return bool(idx) and bool(self._ours(ipr, idx[0]))

    def dropped(self, ifname: str) -> int | None:
        """Packets dropped by the clsact qdisc of ``ifname`` since it was added; None without link or clsact."""
        with self._node() as ipr:
            idx = ipr.link_lookup(ifname=ifname)
            q = self._clsact(ipr, idx[0]) if idx else None
            return None if q is None else int(_stats_queue(q).get("drops", 0))
