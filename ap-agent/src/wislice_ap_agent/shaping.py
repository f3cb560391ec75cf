"""Per-vAP access bandwidth caps, enforced in the AP's kernel.

Downlink (AP -> station) leaves through the vAP netdev: an HTB root with one class at the cap.
Uplink (station -> AP) arrives on the vAP netdev: ingress policing undershoots badly for TCP (testbed facts:
police 3 Mbit/s -> 1.5), so the ingress traffic is redirected (u32 match-all + mirred) to a per-vAP IFB device and
shaped there by the same HTB as downlink.

Two backends with one interface, picked at startup: pyroute2 (netlink, no fork per call) when it is importable,
else the ``tc``/``ip`` commands (OpenWrt has them, not pyroute2). ``NullShaper`` when caps are disabled.
"""

from __future__ import annotations

import contextlib
import logging
import shutil
import subprocess
import zlib
from typing import Protocol

log = logging.getLogger(__name__)

ROOT_HANDLE = "1:"
CLASS_ID = "1:10"


class ShapingError(Exception):
    pass


class Shaper(Protocol):
    name: str

    def apply(self, ifname: str, down_kbps: int, up_kbps: int) -> None:
        """Install (or replace) the caps on ifname; 0 = uncapped in that direction."""

    def remove(self, ifname: str) -> None:
        """Remove every qdisc and the IFB this shaper installed for ifname; quiet if there is nothing."""


def ifb_name(ifname: str) -> str:
    """IFB device for a vAP: a stable 11-character name (IFNAMSIZ is 16) that cannot collide between vAPs."""
    return f"ifb{zlib.crc32(ifname.encode()):08x}"


def htb_burst_bytes(kbps: int) -> int:
    # 10 ms of traffic, at least a few MTU-sized (GSO) frames: small bursts keep TCP's rate close to the cap.
    return max(kbps * 1000 // 8 // 100, 16 * 1514)


class NullShaper:
    name = "none"

    def apply(self, ifname: str, down_kbps: int, up_kbps: int) -> None:
        if down_kbps or up_kbps:
            raise ShapingError("bandwidth caps requested but shaping is disabled in the agent config")

    def remove(self, ifname: str) -> None:
        return None


class TcShaper:
    """Shaping through the iproute2 commands, fed to `tc -batch` so that a vAP costs a few process starts instead
    of one per command (each start takes ~100 ms on a slow AP CPU, and on the testbed's emulated one)."""

    name = "tc"

    def __init__(self, tc: str = "tc", ip: str = "ip") -> None:
        self.tc = tc
        self.ip = ip

    def _run(self, argv: list[str], batch: list[str] | None = None,
             check: bool = True) -> subprocess.CompletedProcess[str]:
        stdin = "".join(f"{line}\n" for line in batch) if batch else None
        proc = subprocess.run(argv, input=stdin, capture_output=True, text=True, timeout=10)
        if check and proc.returncode != 0:
            what = " ".join(argv) + (f" [{'; '.join(batch)}]" if batch else "")
            raise ShapingError(f"{what}: {proc.stderr.strip() or proc.returncode}")
        return proc

    @staticmethod
    def _htb(dev: str, kbps: int) -> list[str]:
        burst = htb_burst_bytes(kbps)
        return [f"qdisc replace dev {dev} root handle {ROOT_HANDLE} htb default 10",
                f"class replace dev {dev} parent {ROOT_HANDLE} classid {CLASS_ID} htb rate {kbps}kbit "
                f"ceil {kbps}kbit burst {burst} cburst {burst}"]

    def apply(self, ifname: str, down_kbps: int, up_kbps: int) -> None:
        self.remove(ifname)
        commands = self._htb(ifname, down_kbps) if down_kbps else []
        try:
            if up_kbps:
                ifb = ifb_name(ifname)
                self._run([self.ip, "link", "add", ifb, "up", "type", "ifb"])
                commands += [*self._htb(ifb, up_kbps), f"qdisc add dev {ifname} handle ffff: ingress",
                             f"filter add dev {ifname} parent ffff: protocol all u32 match u32 0 0 "
                             f"action mirred egress redirect dev {ifb}"]
            if commands:
                self._run([self.tc, "-batch", "-"], commands)
        except ShapingError:
            self.remove(ifname)
            raise

    def remove(self, ifname: str) -> None:
        # -force: go on past a qdisc that is not there; nothing to remove is fine.
        self._run([self.tc, "-force", "-batch", "-"],
                  [f"qdisc del dev {ifname} root", f"qdisc del dev {ifname} ingress"], check=False)
        self._run([self.ip, "link", "del", ifb_name(ifname)], check=False)


class Pyroute2Shaper:
    """The same qdiscs over netlink with pyroute2 (imported lazily: the core stays stdlib-only)."""

    name = "pyroute2"

    def __init__(self) -> None:
        from pyroute2 import IPRoute

        self.ipr = IPRoute()

    def close(self) -> None:
        self.ipr.close()

    def _index(self, ifname: str) -> int | None:
        found = self.ipr.link_lookup(ifname=ifname)
        return found[0] if found else None

    def _htb(self, index: int, kbps: int) -> None:
        burst = htb_burst_bytes(kbps)
        self.ipr.tc("replace", "htb", index, 0x10000, default=0x10)
        self.ipr.tc("add-class", "htb", index, 0x10010, parent=0x10000, rate=f"{kbps}kbit", ceil=f"{kbps}kbit",
                    burst=burst, cburst=burst)

    def apply(self, ifname: str, down_kbps: int, up_kbps: int) -> None:
        self.remove(ifname)
        index = self._index(ifname)
        if index is None:
            raise ShapingError(f"no interface {ifname}")
        try:
            if down_kbps:
                self._htb(index, down_kbps)
            if up_kbps:
                ifb = ifb_name(ifname)
                self.ipr.link("add", ifname=ifb, kind="ifb")
                ifb_index = self._index(ifb)
                self.ipr.link("set", index=ifb_index, state="up")
                self._htb(ifb_index, up_kbps)
                self.ipr.tc("add", "ingress", index, 0xFFFF0000)
                action = {"kind": "mirred", "direction": "egress", "action": "redirect", "ifindex": ifb_index}
                self.ipr.tc("add-filter", "u32", index, parent=0xFFFF0000, protocol=0x0003, prio=1, target=0x10010,
                            keys=["0x0/0x0+0"], action=[action])
        except Exception as e:  # pyroute2 raises NetlinkError and ValueError alike
            self.remove(ifname)
            raise ShapingError(f"shaping {ifname} over netlink failed: {e}") from e

    def remove(self, ifname: str) -> None:
        index = self._index(ifname)
        if index is not None:
            for kind, handle in (("htb", 0x10000), ("ingress", 0xFFFF0000)):
                with contextlib.suppress(Exception):
                    self.ipr.tc("del", kind, index, handle)
        ifb_index = self._index(ifb_name(ifname))
        if ifb_index is not None:
            self.ipr.link("del", index=ifb_index)


def make_shaper(kind: str) -> Shaper:
    """``auto``: pyroute2 when importable, else tc; ``pyroute2``, ``tc`` or ``none`` explicitly."""
    if kind == "none":
        return NullShaper()
    if kind in ("auto", "pyroute2"):
        try:
            return Pyroute2Shaper()
        except ImportError:
            if kind == "pyroute2":
                raise ShapingError("shaping backend pyroute2 requested but pyroute2 is not installed") from None
            log.info("pyroute2 not installed: shaping with the tc command")
    if kind in ("auto", "tc"):
        if shutil.which("tc") is None:
            raise ShapingError("the tc command is not installed (iproute2)")
        return TcShaper()
    raise ShapingError(f"unknown shaping backend {kind!r}")
