"""Downlink scheduling across the vAPs of one radio (docs/guaranteed-slices.md), planned as a list of operations
that either backend (``tc -batch`` or netlink through pyroute2, see shaping.py) carries out.

A radio's vAPs share one air, so their downlink is scheduled by ONE HTB hierarchy per radio, on an IFB fed by the
egress of every netdev of that radio (its primary BSS netdev and each vAP netdev)::

    ifbd<crc32(radio)>  qdisc 1: htb default 100
      class 1:1     rate = ceil = the radio's capacity
        class 1:100   traffic outside any slice (the primary BSS too): rate 1 % of the capacity, ceil the capacity,
                      prio 7 (borrows last)
        class 1:10N   the vAP in slot N: rate = max(guarantee, 8 kbit), ceil = its cap or the capacity, prio 1
      each leaf: fq_codel (per-flow fair queueing, as mac80211 does on an unsliced AP)

    each netdev of the radio: clsact; egress u32 match-all: skbedit priority 1:10N (1:100 for the primary), then
    mirred egress redirect to the IFB. HTB picks the class from skb->priority (no filter on the IFB); the IFB sends
    the packet back out of the netdev it came from, past the filter (tc_skip_classify).

Every leaf class has the same quantum, so what the guarantees leave free is shared equally between the slices that
want more (work-conserving, each up to its cap); the default class gets it only when no slice wants it.
Adding, updating or removing a vAP touches only its class and its netdev's filter; a capacity change only the
class rates (``class change``). Classes are keyed by the vAP's slot, so they are stable across agent restarts.

Uplink: scheduled by the AP's pof-switch (its uplink port runs at the radios' capacity: pofswitch.UplinkRate). The
per-vAP uplink cap stays in the kernel for the path without a switch: the vAP netdev's ingress is redirected to a
per-vAP IFB (``ifb<crc32(vap netdev)>``) with one HTB class at the cap (ingress policing undershoots for TCP). A switch
reads the netdev before the ingress hook (AF_PACKET), so with a switch that cap is the slice meter's job.

Kernels without act_skbedit (the project's CI kernel): the same class is chosen through an nftables netdev egress
chain per netdev (``meta priority set 1:10N``) and the tc filter only redirects. Kernels without fq_codel: leaves
keep HTB's default pfifo. Both are detected once, when a radio is set up, and logged.

A vi/vo vAP (VapSpec wmm_ac) gets skb->priority 256 + its 802.1d user priority and its class id as skb->mark, which
the IFB's handle-less fw filter turns back into the class (why: ap-agent/README.md, "WMM access category").
"""

from __future__ import annotations

import logging
import socket
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .qos_state import RadioQos, VapQos

log = logging.getLogger(__name__)

FLOOR_KBPS = 8  # an HTB class needs a rate; a vAP without a guarantee gets this much
DEFAULT_SHARE = 0.01  # of the capacity, for traffic outside any slice
QUANTUM = 1514  # equal for every class: the excess is shared equally (byte-fair DRR), not in proportion to rates
ROOT_MINOR = 0x1
DEFAULT_MINOR = 0x100  # "slot 0": the radio's primary BSS and anything else outside a slice
VAP_PRIO = 1
DEFAULT_PRIO = 7
UPLINK_MINOR = 0x10
EGRESS, INGRESS = "egress", "ingress"
# A filter priority per hook: u32 keeps one table space for both hooks of a clsact and lists a hook's filters by
# priority, so equal priorities would mix the two hooks up.
FILTER_PRIO = {EGRESS: 1, INGRESS: 2}
CLSACT_PARENT = {EGRESS: 0xFFFFFFF3, INGRESS: 0xFFFFFFF2}
WMM_PRIORITY = {"be": None, "vi": 0x100 + 5, "vo": 0x100 + 6}  # skb->priority mac80211 reads as 802.1d UP
NFT_TABLE = "wislice_qos"


class ShapingError(Exception):
    pass


def radio_ifb(radio: str) -> str:
    """The downlink IFB of a radio: a stable 12-character name (IFNAMSIZ is 16)."""
    return f"ifbd{zlib.crc32(radio.encode()):08x}"


def uplink_ifb(ifname: str) -> str:
    """The uplink IFB of a vAP netdev: a stable 11-character name that cannot collide with radio_ifb()."""
    return f"ifb{zlib.crc32(ifname.encode()):08x}"


def vap_minor(slot: int) -> int:
    if not 1 <= slot <= 0xFF:
        raise ShapingError(f"vAP slot {slot} out of range")
    return DEFAULT_MINOR + slot


def htb_burst_bytes(kbps: int) -> int:
    # 10 ms of traffic, at least a few MTU-sized (GSO) frames: small bursts keep TCP's rate close to the cap.
    return max(kbps * 1000 // 8 // 100, 16 * 1514)


def netdev_exists(name: str) -> bool:
    """In this process's network namespace (an ioctl, no process start)."""
    try:
        socket.if_nametoindex(name)
        return True
    except OSError:
        return False


# ---- class parameters -----------------------------------------------------------------------------------------


def vap_class_rates(capacity_kbps: int, rate_limit: dict[str, Any]) -> tuple[int, int]:
    """(rate, ceil) of a vAP's downlink class."""
    rate = max(rate_limit.get("down_guaranteed_kbps", 0), FLOOR_KBPS)
    return rate, max(rate_limit["down_kbps"] or capacity_kbps, rate)


def default_class_rates(capacity_kbps: int) -> tuple[int, int]:
    rate = max(int(capacity_kbps * DEFAULT_SHARE), FLOOR_KBPS)
    return rate, max(capacity_kbps, rate)


# ---- operations: one tc/ip/nft line each, or the same change over netlink ----------------------------------------
# A tolerant operation may fail (an object that already exists, or is already gone); a probe is a tolerant one
# whose failure means the kernel lacks a feature.


@dataclass(frozen=True)
class Op:
    program = "tc"
    tolerant: bool = field(default=False, kw_only=True)
    feature: str | None = field(default=None, kw_only=True)

    def line(self) -> str:
        raise NotImplementedError

    def netlink(self, nl: Any) -> None:
        raise NotImplementedError


@dataclass(frozen=True)
class LinkAdd(Op):
    name: str
    program = "ip"

    def line(self) -> str:
        return f"link add {self.name} up type ifb"

    def netlink(self, nl: Any) -> None:
        nl.ipr.link("add", ifname=self.name, kind="ifb")
        nl.ipr.link("set", index=nl.index(self.name), state="up")


@dataclass(frozen=True)
class LinkDel(Op):
    name: str
    program = "ip"

    def line(self) -> str:
        return f"link del {self.name}"

    def netlink(self, nl: Any) -> None:
        nl.ipr.link("del", index=nl.index(self.name))


@dataclass(frozen=True)
class HtbRoot(Op):
    dev: str
    default_minor: int

    def line(self) -> str:
        return f"qdisc add dev {self.dev} root handle 1: htb default {self.default_minor:x}"

    def netlink(self, nl: Any) -> None:
        nl.ipr.tc("add", "htb", nl.index(self.dev), 0x10000, default=self.default_minor)


@dataclass(frozen=True)
class HtbClass(Op):
    verb: str  # replace (creates or changes) | change (must exist)
    dev: str
    minor: int
    parent: int | None  # minor of the parent class; None = the qdisc root
    rate: int
    ceil: int
    prio: int | None = None

    def line(self) -> str:
        parent = f"1:{self.parent:x}" if self.parent else "1:"
        prio = f" prio {self.prio}" if self.prio is not None else ""
        return (f"class {self.verb} dev {self.dev} parent {parent} classid 1:{self.minor:x} htb rate {self.rate}kbit "
                f"ceil {self.ceil}kbit burst {htb_burst_bytes(self.rate)} cburst {htb_burst_bytes(self.ceil)}{prio} "
                f"quantum {QUANTUM}")

    def netlink(self, nl: Any) -> None:
        nl.ipr.tc(f"{self.verb}-class", "htb", nl.index(self.dev), 0x10000 | self.minor,
                  parent=0x10000 | (self.parent or 0), rate=f"{self.rate}kbit", ceil=f"{self.ceil}kbit",
                  burst=htb_burst_bytes(self.rate), cburst=htb_burst_bytes(self.ceil), prio=self.prio or 0,
                  quantum=QUANTUM)


@dataclass(frozen=True)
class ClassDel(Op):
    dev: str
    minor: int

    def line(self) -> str:
        return f"class del dev {self.dev} classid 1:{self.minor:x}"

    def netlink(self, nl: Any) -> None:
        nl.ipr.tc("del-class", "htb", nl.index(self.dev), 0x10000 | self.minor)


@dataclass(frozen=True)
class Leaf(Op):
    dev: str
    minor: int

    def line(self) -> str:
        return f"qdisc replace dev {self.dev} parent 1:{self.minor:x} handle {self.minor:x}: fq_codel"

    def netlink(self, nl: Any) -> None:
        nl.ipr.tc("replace", "fq_codel", nl.index(self.dev), self.minor << 16, parent=0x10000 | self.minor)


@dataclass(frozen=True)
class Clsact(Op):
    dev: str

    def line(self) -> str:
        return f"qdisc add dev {self.dev} clsact"

    def netlink(self, nl: Any) -> None:
        nl.ipr.tc("add", "clsact", nl.index(self.dev))


@dataclass(frozen=True)
class ClsactDel(Op):
    dev: str

    def line(self) -> str:
        return f"qdisc del dev {self.dev} clsact"

    def netlink(self, nl: Any) -> None:
        nl.ipr.tc("del", "clsact", nl.index(self.dev))


@dataclass(frozen=True)
class Redirect(Op):
    """Everything leaving (egress) or entering (ingress) dev goes to the IFB target, with skb->priority set first
    when ``priority`` is given (the HTB class id, e.g. 0x10101 for 1:101). Added after a FilterDel of the same
    hook rather than replaced by handle: a u32 handle of a clsact may belong to either hook."""

    dev: str
    hook: str
    target: str
    priority: int | None = None
    mark: int | None = None  # the class id, when priority is a WMM user priority instead

    def line(self) -> str:
        mark = f" mark {self.mark:#x}" if self.mark is not None else ""
        edit = f" action skbedit priority {self.priority >> 16:x}:{self.priority & 0xFFFF:x}{mark} pipe" \
            if self.priority is not None else ""
        return (f"filter add dev {self.dev} {self.hook} protocol all prio {FILTER_PRIO[self.hook]} u32 match u32 0 0"
                f"{edit} action mirred egress redirect dev {self.target}")

    def netlink(self, nl: Any) -> None:
        actions: list[dict[str, Any]] = []
        if self.priority is not None:
            actions.append({"kind": "skbedit", "priority": self.priority,
                            **({"mark": self.mark} if self.mark is not None else {})})
        actions.append({"kind": "mirred", "direction": "egress", "action": "redirect",
                        "ifindex": nl.index(self.target)})
        nl.ipr.tc("add-filter", "u32", nl.index(self.dev), parent=CLSACT_PARENT[self.hook],
                  prio=FILTER_PRIO[self.hook], protocol=0x0003, target=0, keys=["0x0/0x0+0"], action=actions)


@dataclass(frozen=True)
class MarkFilter(Op):
    """The IFB's handle-less fw filter: a packet whose priority names no class goes to the class its mark names."""

    dev: str

    def line(self) -> str:
        return f"filter add dev {self.dev} parent 1: protocol all prio 1 fw"

    def netlink(self, nl: Any) -> None:
        # By hand: IPRoute.tc() always sends a TCA_OPTIONS nest, and fw takes one without a handle as an error.
        from pyroute2.netlink import NLM_F_ACK, NLM_F_CREATE, NLM_F_REQUEST
        from pyroute2.netlink.rtnl import RTM_NEWTFILTER
        from pyroute2.netlink.rtnl.tcmsg import tcmsg

        msg = tcmsg()
        msg["index"], msg["parent"], msg["info"] = nl.index(self.dev), 0x10000, (1 << 16) | socket.htons(0x0003)
        msg["attrs"] = [["TCA_KIND", "fw"]]
        nl.ipr.nlm_request(msg, msg_type=RTM_NEWTFILTER, msg_flags=NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE)


@dataclass(frozen=True)
class FilterDel(Op):
    dev: str
    hook: str

    def line(self) -> str:
        return f"filter del dev {self.dev} {self.hook} prio {FILTER_PRIO[self.hook]}"

    def netlink(self, nl: Any) -> None:
        nl.ipr.tc("del-filter", "u32", nl.index(self.dev), parent=CLSACT_PARENT[self.hook],
                  prio=FILTER_PRIO[self.hook], protocol=0x0003)


def _nft_chain(dev: str) -> str:
    return f"eg{zlib.crc32(dev.encode()):08x}"


@dataclass(frozen=True)
class NftPriority(Op):
    """The fallback classifier: an nftables netdev egress chain on dev that sets skb->priority. One nft run."""

    dev: str
    priority: int
    mark: int | None = None
    program = "nft"

    def line(self) -> str:
        chain = f"netdev {NFT_TABLE} {_nft_chain(self.dev)}"
        mark = f" meta mark set {self.mark:#x}" if self.mark is not None else ""
        return "\n".join([
            f"add table netdev {NFT_TABLE}",
            f"add chain {chain}",  # exists now: the delete below cannot fail, so a stale chain is replaced
            f"flush chain {chain}",
            f"delete chain {chain}",
            f'add chain {chain} {{ type filter hook egress device "{self.dev}" priority 0; policy accept; }}',
            f"add rule {chain} meta priority set {self.priority >> 16:x}:{self.priority & 0xFFFF:x}{mark}",
        ])


@dataclass(frozen=True)
class NftPriorityDel(Op):
    dev: str
    program = "nft"

    def line(self) -> str:
        chain = f"netdev {NFT_TABLE} {_nft_chain(self.dev)}"
        return f"flush chain {chain}\ndelete chain {chain}"


Executor = Callable[[list[Op]], set[str]]  # runs ops in order; returns the features of failed probes


def nft_last(ops: list[Op]) -> list[Op]:
    """nft operations depend on nothing tc does: run them after the rest, so the tc lines stay one batch."""
    return [o for o in ops if o.program != "nft"] + [o for o in ops if o.program == "nft"]


# ---- the hierarchies of this AP's radios ------------------------------------------------------------------------


class RadioScheduler:
    """Keeps what is installed per radio and plans the smallest change for each request; ``execute`` runs the
    planned operations (tc -batch, or netlink). Methods raise ShapingError."""

    def __init__(self, execute: Executor, nft_available: Callable[[], bool]) -> None:
        self.execute = execute
        self.nft_available = nft_available
        self.radios: dict[str, RadioQos] = {}
        self.fq_codel = True
        self.skbedit = True

    # -- radios

    def add_radio(self, name: str, iface: str, capacity_kbps: int) -> None:
        """Build (or take over, after an agent restart) the radio's hierarchy; idempotent. A failure is logged and
        retried by the next vAP operation on that radio."""
        self.radios[name] = RadioQos(name, iface, capacity_kbps, radio_ifb(name))
        try:
            self._ready(name)
        except ShapingError as e:
            log.warning("radio %s: downlink hierarchy not set up yet: %s", name, e)

    def _ready(self, name: str) -> RadioQos:
        r = self.radios.get(name)
        if r is None:
            raise ShapingError(f"radio {name} has no downlink hierarchy")
        if r.ready:
            return r
        rate, ceil = default_class_rates(r.capacity_kbps)
        ops: list[Op] = [] if netdev_exists(r.ifb) else [LinkAdd(r.ifb)]
        ops += [HtbRoot(r.ifb, DEFAULT_MINOR, tolerant=True),
                HtbClass("replace", r.ifb, ROOT_MINOR, None, r.capacity_kbps, r.capacity_kbps),
                HtbClass("replace", r.ifb, DEFAULT_MINOR, ROOT_MINOR, rate, ceil, DEFAULT_PRIO)]
        if self.fq_codel:
            ops.append(Leaf(r.ifb, DEFAULT_MINOR, tolerant=True, feature="fq_codel"))
        ops.append(MarkFilter(r.ifb, tolerant=True, feature="fw"))  # also there after a restart: tolerated
        ops += self._classify(r.iface, r.ifb, DEFAULT_MINOR, probe=True)
        failed = self.execute(ops)
        r.marks = "fw" not in failed
        if not r.marks:
            log.warning("radio %s: no fw filter on %s (cls_fw): vi/vo vAPs are refused", name, r.ifb)
        if "fq_codel" in failed:
            self.fq_codel = False
            log.warning("this kernel has no fq_codel qdisc: HTB leaves keep their default pfifo")
        if "skbedit" in failed:
            if not netdev_exists(r.iface):
                raise ShapingError(f"radio {name}: no netdev {r.iface}")
            if not self.nft_available():
                raise ShapingError("this kernel has no act_skbedit and nft is not installed: vAP traffic cannot be "
                                   "classified into the radio's hierarchy")
            self.skbedit = False
            log.warning("this kernel has no act_skbedit: classifying with nftables netdev egress chains instead")
            self.execute(nft_last(self._classify(r.iface, r.ifb, DEFAULT_MINOR)))
        r.ready = True
        log.info("radio %s: downlink hierarchy on %s at %d kbit/s", name, r.ifb, r.capacity_kbps)
        return r

    def _classify(self, dev: str, ifb: str, minor: int, probe: bool = False, wmm_ac: str = "be") -> list[Op]:
        classid = 0x10000 | minor
        priority, mark = (classid, None) if WMM_PRIORITY[wmm_ac] is None else (WMM_PRIORITY[wmm_ac], classid)
        ops: list[Op] = [Clsact(dev, tolerant=True), FilterDel(dev, EGRESS, tolerant=True)]
        if self.skbedit:
            return [*ops, Redirect(dev, EGRESS, ifb, priority, mark, tolerant=probe,
                                   feature="skbedit" if probe else None)]
        return [*ops, Redirect(dev, EGRESS, ifb), NftPriority(dev, priority, mark)]

    def set_capacity(self, name: str, capacity_kbps: int) -> None:
        """New root/class rates only (``class change``); the tree, its queues and filters stay."""
        r = self.radios[name]
        if capacity_kbps == r.capacity_kbps:
            return
        r.capacity_kbps = capacity_kbps
        if not r.ready:
            return
        rate, ceil = default_class_rates(capacity_kbps)
        ops: list[Op] = [HtbClass("change", r.ifb, ROOT_MINOR, None, capacity_kbps, capacity_kbps),
                         HtbClass("change", r.ifb, DEFAULT_MINOR, ROOT_MINOR, rate, ceil, DEFAULT_PRIO)]
        changed = {}
        for slot, v in sorted(r.vaps.items()):
            down = vap_class_rates(capacity_kbps, v.rate_limit)
            if down != v.down:
                changed[slot] = down
                ops.append(HtbClass("change", r.ifb, vap_minor(slot), ROOT_MINOR, *down, VAP_PRIO))
        self.execute(ops)
        for slot, down in changed.items():
            r.vaps[slot].down = down

    def remove_radio(self, name: str) -> None:
        r = self.radios.pop(name, None)
        if r is None:
            return
        ops: list[Op] = []
        for slot, v in sorted(r.vaps.items()):
            ops += self._vap_removal(r, v.ifname, slot)
        ops.append(ClsactDel(r.iface, tolerant=True))
        if not self.skbedit:
            ops.append(NftPriorityDel(r.iface, tolerant=True))
        ops.append(LinkDel(r.ifb, tolerant=True))
        self.execute(nft_last(ops))

    # -- vAPs

    def apply(self, radio: str, ifname: str, slot: int, rate_limit: dict[str, Any], wmm_ac: str = "be") -> None:
        """Install or update the vAP's class, its netdev's filter (with its WMM access category) and its uplink
        cap; only what changed is sent."""
        r = self._ready(radio)
        if WMM_PRIORITY[wmm_ac] is not None and not r.marks:
            raise ShapingError(f"radio {radio}: this kernel has no cls_fw: {wmm_ac} vAPs are not supported")
        minor = vap_minor(slot)
        down = vap_class_rates(r.capacity_kbps, rate_limit)
        up = rate_limit["up_kbps"]
        known = r.vaps.get(slot)
        if known is not None and known.ifname != ifname:
            known = None
        ops: list[Op] = []
        if known is None or known.down != down:
            ops.append(HtbClass("replace", r.ifb, minor, ROOT_MINOR, *down, VAP_PRIO))
        if known is None and self.fq_codel:
            ops.append(Leaf(r.ifb, minor))
        if known is None or known.wmm_ac != wmm_ac:
            ops += self._classify(ifname, r.ifb, minor, wmm_ac=wmm_ac)
        ifb = uplink_ifb(ifname)
        if up and (known is None or known.up_kbps != up):
            if not netdev_exists(ifb):
                ops.insert(0, LinkAdd(ifb))
            ops += [HtbRoot(ifb, UPLINK_MINOR, tolerant=True), HtbClass("replace", ifb, UPLINK_MINOR, None, up, up),
                    FilterDel(ifname, INGRESS, tolerant=True), Redirect(ifname, INGRESS, ifb)]
        elif not up and (known.up_kbps if known is not None else netdev_exists(ifb)):
            ops += [FilterDel(ifname, INGRESS, tolerant=True), LinkDel(ifb, tolerant=True)]
        r.vaps.pop(slot, None)  # unknown until the operations went through
        if ops:
            self.execute(nft_last(ops))
        r.vaps[slot] = VapQos(ifname, dict(rate_limit), down, up, wmm_ac)

    def remove(self, radio: str, ifname: str, slot: int) -> None:
        """Take the vAP's class, filters and uplink IFB away; quiet about what is already gone."""
        r = self.radios.get(radio)
        if r is None:
            return
        r.vaps.pop(slot, None)
        self.execute(nft_last(self._vap_removal(r, ifname, slot)))

    def _vap_removal(self, r: RadioQos, ifname: str, slot: int) -> list[Op]:
        ops: list[Op] = [ClsactDel(ifname, tolerant=True)]
        if not self.skbedit:
            ops.append(NftPriorityDel(ifname, tolerant=True))
        ops.append(ClassDel(r.ifb, vap_minor(slot), tolerant=True))
        if netdev_exists(uplink_ifb(ifname)):
            ops.append(LinkDel(uplink_ifb(ifname), tolerant=True))
        return ops
