"""Bandwidth scheduling in the AP's kernel: the backends that carry out what radio_qos.py plans.

radio_qos.RadioScheduler decides the hierarchy (one HTB per radio on an IFB for the downlink, per-vAP uplink caps)
as a list of operations; a backend runs them:

- ``TcShaper``: the iproute2 commands, fed to ``tc -batch`` / ``ip -batch`` so that a change costs one or two
  process starts however many lines it has (each start takes ~100 ms on a slow AP CPU, and in the testbed's emulated
  one). Lines that may fail (an object that exists already, or is gone) run under ``-force`` and are told apart by
  the line number tc reports.
- ``Pyroute2Shaper``: the same operations over netlink (no process at all), when pyroute2 is importable. Every
  operation has both renderings side by side in radio_qos.py, so the backends cannot drift apart.
- ``NullShaper``: shaping disabled in the config; any rate is refused.

The nftables fallback classifier (kernels without act_skbedit) runs ``nft -f -`` in both backends.
"""

from __future__ import annotations

import itertools
import logging
import re
import shutil
import subprocess
from typing import Any, Protocol

from .radio_qos import (  # noqa: F401 - re-exported: the names the rest of the agent and the tests use
    Op,
    RadioScheduler,
    ShapingError,
    htb_burst_bytes,
    radio_ifb,
    uplink_ifb,
)

log = logging.getLogger(__name__)

_FAILED = re.compile(r"^Command failed \S*:(\d+)\s*$")


class Shaper(Protocol):
    name: str

    def add_radio(self, name: str, iface: str, capacity_kbps: int) -> None:
        """Build (or take over) the radio's downlink hierarchy, fed by its primary netdev iface."""

    def set_capacity(self, name: str, capacity_kbps: int) -> None:
        """Re-rate the radio's hierarchy (its root, default class and the classes that follow the capacity)."""

    def remove_radio(self, name: str) -> None:
        """Remove the radio's hierarchy and everything of its vAPs."""

    def apply(self, radio: str, ifname: str, slot: int, rate_limit: dict[str, Any], wmm_ac: str = "be") -> None:
        """Install or update the vAP's downlink class, WMM access category (be, vi, vo) and uplink cap (rate_limit
        as in the protocol)."""

    def remove(self, radio: str, ifname: str, slot: int) -> None:
        """Remove what apply() installed for the vAP; quiet if there is nothing."""


def wants_shaping(rate_limit: dict[str, Any]) -> bool:
    return any(rate_limit.get(k, 0) for k in ("down_kbps", "up_kbps", "down_guaranteed_kbps", "up_guaranteed_kbps"))


class NullShaper:
    name = "none"

    def add_radio(self, name: str, iface: str, capacity_kbps: int) -> None:
        return None

    def set_capacity(self, name: str, capacity_kbps: int) -> None:
        return None

    def remove_radio(self, name: str) -> None:
        return None

    def apply(self, radio: str, ifname: str, slot: int, rate_limit: dict[str, Any], wmm_ac: str = "be") -> None:
        if wants_shaping(rate_limit):
            raise ShapingError("bandwidth caps or guarantees requested but shaping is disabled in the agent config")
        if wmm_ac != "be":  # the access category is set by the shaping's egress filter (radio_qos.py)
            raise ShapingError(f"WMM access category {wmm_ac} requested but shaping is disabled in the agent config")

    def remove(self, radio: str, ifname: str, slot: int) -> None:
        return None


def failed_lines(stderr: str) -> dict[int, str]:
    """``tc``/``ip`` -batch stderr -> {line number: its error text} (each failure ends with "Command failed -:N")."""
    out: dict[int, str] = {}
    pending: list[str] = []
    for text in stderr.splitlines():
        m = _FAILED.match(text.strip())
        if m:
            out[int(m.group(1))] = " ".join(pending).strip() or "failed"
            pending = []
        elif text.strip():
            pending.append(text.strip())
    return out


def run_nft(op: Op, failed: set[str], nft: str = "nft") -> None:
    proc = subprocess.run([nft, "-f", "-"], input=op.line() + "\n", capture_output=True, text=True, timeout=10)
    if proc.returncode != 0:
        if op.feature:
            failed.add(op.feature)
        if not op.tolerant:
            raise ShapingError(f"nft [{op.line()!r}]: {proc.stderr.strip() or proc.returncode}")


class TcExecutor:
    def __init__(self, tc: str = "tc", ip: str = "ip", nft: str = "nft") -> None:
        self.programs = {"tc": tc, "ip": ip}
        self.nft = nft

    def __call__(self, ops: list[Op]) -> set[str]:
        failed: set[str] = set()
        for program, group in itertools.groupby(ops, key=lambda o: o.program):
            if program == "nft":
                for op in group:
                    run_nft(op, failed, self.nft)
            else:
                self._batch(program, list(group), failed)
        return failed

    def _batch(self, program: str, ops: list[Op], failed: set[str]) -> None:
        lenient = any(o.tolerant for o in ops)
        argv = [self.programs[program], *(["-force"] if lenient else []), "-batch", "-"]
        stdin = "".join(f"{o.line()}\n" for o in ops)
        proc = subprocess.run(argv, input=stdin, capture_output=True, text=True, timeout=20)
        if proc.returncode == 0:
            return
        errors = failed_lines(proc.stderr)
        if not errors:
            raise ShapingError(f"{' '.join(argv)} [{'; '.join(o.line() for o in ops)}]: "
                               f"{proc.stderr.strip() or proc.returncode}")
        for n, message in sorted(errors.items()):
            op = ops[n - 1] if 1 <= n <= len(ops) else None
            if op is None or not op.tolerant:
                what = op.line() if op else f"line {n}"
                raise ShapingError(f"{program} {what}: {message}")
            if op.feature:
                failed.add(op.feature)


class Netlink:
    """Operations over netlink; pyroute2 is imported here only (the core stays stdlib-only)."""

    def __init__(self, nft: str = "nft") -> None:
        from pyroute2 import IPRoute

        self.ipr = IPRoute()
        self.nft = nft

    def close(self) -> None:
        self.ipr.close()

    def index(self, name: str) -> int:
        found = self.ipr.link_lookup(ifname=name)
        if not found:
            raise ShapingError(f"no interface {name}")
        return found[0]

    def __call__(self, ops: list[Op]) -> set[str]:
        failed: set[str] = set()
        for op in ops:
            if op.program == "nft":
                run_nft(op, failed, self.nft)
                continue
            try:
                op.netlink(self)
            except Exception as e:  # pyroute2 raises NetlinkError and ValueError alike
                if op.feature:
                    failed.add(op.feature)
                if not op.tolerant:
                    raise ShapingError(f"{op.line()} (netlink): {e}") from e
        return failed


class TcShaper(RadioScheduler):
    name = "tc"

    def __init__(self, tc: str = "tc", ip: str = "ip", nft: str = "nft") -> None:
        super().__init__(TcExecutor(tc, ip, nft), lambda: shutil.which(nft) is not None)


class Pyroute2Shaper(RadioScheduler):
    name = "pyroute2"

    def __init__(self, nft: str = "nft") -> None:
        self.netlink = Netlink(nft)
        super().__init__(self.netlink, lambda: shutil.which(nft) is not None)

    def close(self) -> None:
        self.netlink.close()


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
