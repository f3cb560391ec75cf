"""NFVnice-style CPU sharing among the vNFs of a node (Kulkarni et al., IEEE/ACM ToN 2020).

- Rate-cost shares: every vNF gets a CPU weight proportional to load_i = arrival rate_i x cost per packet_i
  (cost = CPU ns spent per packet received, measured from its cgroup's CPU usage and port counters, smoothed), so
  a vNF that needs more CPU per packet at the same rate gets more of the shared core instead of an equal split.
  Weights are computed in cpu.shares units (1024 = the default) and written through the cgroups module: cgroup v1
  cpu.shares, or the equivalent v2 cpu.weight. A downstream vNF's arrival rate is at least what its upstream in
  the chain sent on (packets dropped at its full input are load it did not get to), and a throttled chain head
  gets the floor weight (its work would only be dropped). A latency slice's vNF (placement.wants_latency) gets the
  highest weight of the node.
- Per-chain backpressure with hysteresis: when a downstream vNF's queue passes the high watermark the chain head
  is throttled (drops at the head, so no upstream work is wasted on packets that would die downstream), and
  released only when every downstream queue is back under the low watermark. A chain is the running vNFs of one
  (tenant_id, chain_id) ordered by chain_position: chain_id is the slice, so one slice's queue never throttles
  another slice of the same tenant; vNFs without a chain_id (an older controller) are one chain per tenant. A
  chain of one vNF has no downstream and never throttles.
- Queue depth, in bytes, measured by the agent from outside the vNF: the receive queues of the sockets in the
  vNF's network namespace (rx_queue of /proc/<pid>/net/{udp,udp6,tcp,tcp6}; TCP listeners skipped) plus the
  backlog of its interfaces' root qdiscs. A vNF that knows better writes /run/vnf/queue (bytes), which wins.
- The drop at the head is done by the agent: a drop-everything filter on clsact egress of the head's host-side
  veth (wiring.TcHeadDrop), counted per chain; /run/vnf/throttle exists meanwhile for vNFs (DPDK) that read it.
  A chain of DPDK vNFs linked to a chain file (chainfile.py) does it in the data plane instead: its head drops at
  entry on every rx burst while a downstream ring is over its watermark (NFVnice; the 0.1 s throttle outlasted a
  ring's millisecond of work and cut throughput); the agent only reports the head's own counters.
The pure logic (``compute_shares``, ``Backpressure``, ``CostEstimator``, ``parse_proc_net_rx``, ``ThrottlePlan``)
is separate from the loop that measures and applies it.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .cgroups import CgroupFs, host
from .chainfile import data_plane, read_head_stats
from .placement import wants_latency
from .vnf_classes import vnf_class

log = logging.getLogger(__name__)
TOTAL_SHARES = 1024
MIN_SHARES = 2
EWMA = 0.3
PROC_NET_TABLES = ("udp", "udp6", "tcp", "tcp6")
TCP_LISTEN = "0A"
# A container's pid is asked of Docker at most this often: at the default 0.1 s interval an inspect per vNF per
# step kept dockerd busy. A pid outlives its container here by at most this long (reads of a gone pid's cgroup
# and /proc fail and count 0).
PID_TTL_S = 1.0


def compute_shares(loads: dict[int, float], total: int = TOTAL_SHARES, floor: int = MIN_SHARES) -> dict[int, int]:
    """cpu.shares proportional to load (rate x cost), averaging ``total`` per vNF; every vNF keeps at least
    ``floor``; an idle node gets the default ``total`` each."""
    if not loads:
        return {}
    positive = {k: max(0.0, v) for k, v in loads.items()}
    whole = sum(positive.values())
    if whole <= 0:
        return dict.fromkeys(loads, total)
    return {k: max(floor, round(total * len(loads) * v / whole)) for k, v in positive.items()}


def favour_latency(shares: dict[int, int], latency: set[int]) -> dict[int, int]:
    """Latency slices' vNFs get the highest weight of the node (at least the default), whatever their load: their
    packets must not wait behind a bulk vNF's slice."""
    if not latency & shares.keys():
        return shares
    top = max(TOTAL_SHARES, *shares.values())
    return {k: top if k in latency else v for k, v in shares.items()}


class Backpressure:
    """Hysteresis per chain: throttle when any downstream queue > high, release when all are < low."""

    def __init__(self, high: int, low: int) -> None:
        if not 0 <= low < high:
            raise ValueError("watermarks need 0 <= low < high")
        self.high, self.low = high, low
        self.throttled: set[Any] = set()

    def update(self, chain: Any, downstream_queues: list[int]) -> bool:
        """Returns whether the chain's head must drop now."""
        if chain in self.throttled:
            if all(q < self.low for q in downstream_queues):
                self.throttled.discard(chain)
        elif any(q > self.high for q in downstream_queues):
            self.throttled.add(chain)
        return chain in self.throttled

    def forget(self, chain: Any) -> None:
        """The chain is gone, or has no downstream left: not throttled, and starts over if it comes back."""
        self.throttled.discard(chain)


def parse_proc_net_rx(text: str) -> int:
    """Bytes waiting in receive queues, summed over a /proc/net/{udp,udp6,tcp,tcp6} table: the rx_queue half of
    the hex ``tx_queue:rx_queue`` column. UDP reports the memory charged to the socket (skb truesize, what
    SO_RCVBUF limits), TCP the unread payload bytes; a TCP listener reports its accept backlog (a count, not
    bytes) and is skipped."""
    total = 0
    for line in text.splitlines()[1:]:
        fields = line.split()
        if len(fields) < 5 or fields[3].upper() == TCP_LISTEN or ":" not in fields[4]:
            continue
        try:
            total += int(fields[4].split(":", 1)[1], 16)
        except ValueError:
            continue
    return total


@dataclass(frozen=True)
class Head:
    """Where a chain drops: its first vNF (host-side veth, empty for a DPDK vNF; config dir for the file)."""
    vnf_id: int
    ifname: str
    config_dir: str


class ThrottlePlan:
    """Which chain heads drop now, and the transitions to get there from what the loop wants. A head changes when
    the old head is deleted or a vNF with a lower chain_position joins: the old one is released, the new applied;
    a chain that vanished or stopped wanting a throttle is released."""

    def __init__(self) -> None:
        self.active: dict[Any, Head] = {}

    def decide(self, wanted: dict[Any, Head]) -> tuple[list[tuple[Any, Head]], list[tuple[Any, Head]]]:
        """(apply, release) lists; ``mark``/``unmark`` record what was done."""
        release = [(c, h) for c, h in self.active.items() if wanted.get(c) != h]
        apply = [(c, h) for c, h in wanted.items() if self.active.get(c) != h]
        return apply, release

    def mark(self, chain: Any, head: Head) -> None:
        self.active[chain] = head

    def unmark(self, chain: Any) -> None:
        self.active.pop(chain, None)


@dataclass
class Sample:
    t: float
    cpu_ns: int
    rx_packets: int  # arrivals (what reached the vNF's input)
    processed: int | None = None  # packets the vNF finished, when it reports them; else arrivals stand in
    # (upstream vNF id, packets it sent on): a downstream vNF's offered load. Its rate counts when higher than the
    # arrivals, and only while the upstream is the same vNF (another's counter has another origin).
    offered: tuple[int, int] | None = None


class CostEstimator:
    """Arrival rate and CPU ns per packet for one vNF from successive samples. The rate must be the ARRIVAL
    rate: weighting by the processed rate would feed back (more CPU -> more processed -> more CPU)."""

    def __init__(self) -> None:
        self.last: Sample | None = None
        self.rate = 0.0
        self.cost_ns = 0.0

    def add(self, s: Sample) -> None:
        if self.last is not None and s.t > self.last.t:
            taken = s.rx_packets - self.last.rx_packets
            da = taken
            if s.offered is not None and self.last.offered is not None and s.offered[0] == self.last.offered[0]:
                da = max(da, s.offered[1] - self.last.offered[1])
            # The cost is per packet the vNF took, never per packet offered: dividing a starved vNF's CPU by what
            # it was offered made it look cheap, and its weight sank the more it starved.
            dp = taken if s.processed is None or self.last.processed is None else s.processed - self.last.processed
            dc = s.cpu_ns - self.last.cpu_ns
            rate = max(0.0, da / (s.t - self.last.t))
            self.rate = rate if self.rate == 0 else (1 - EWMA) * self.rate + EWMA * rate
            if dp > 0 and dc >= 0:
                cost = dc / dp
                self.cost_ns = cost if self.cost_ns == 0 else (1 - EWMA) * self.cost_ns + EWMA * cost
        self.last = s

    @property
    def load(self) -> float:
        return self.rate * self.cost_ns


class SchedulerLoop:
    """Every interval: measure each running vNF (its cgroup's CPU usage + port rx counters), recompute and write
    its CPU weight (``apply``, default: through ``cgroup_fs``, the node's detected cgroups); measure the queues
    of every downstream vNF and throttle / release chain heads.

    Queue of a downstream vNF (bytes): /run/vnf/queue if the vNF writes it, else the socket receive queues of its
    network namespace (/proc/<pid>/net/*, read from outside, works on a paused vNF too) plus its qdisc backlog
    (``wiring.qdisc_backlog``, when the wiring has one). Throttle: ``dropper`` (default ``wiring.head_drop``, a
    TcHeadDrop; None on a wiring without one) drops on the head's host veth, and /run/vnf/throttle exists in the
    head's directory. ``stop`` releases every head; the first step removes drop filters a crashed agent left on
    heads that are not throttled now."""

    def __init__(self, manager: Any, interval_s: float, high: int | None = None, low: int | None = None,
                 apply: Callable[[int, int], bool] | None = None, dropper: Any = None,
                 socket_queue: Callable[[int], int] | None = None, cgroup_fs: CgroupFs | None = None) -> None:
        self.m = manager
        self.cgroups = cgroup_fs if cgroup_fs is not None else host()
        self.interval_s = interval_s
        self.estimators: dict[int, CostEstimator] = {}
        cfg = manager.config
        self.backpressure = Backpressure(high if high is not None else cfg.backpressure_high_bytes,
                                         low if low is not None else cfg.backpressure_low_bytes)
        self.apply = apply if apply is not None else self.write_shares
        self.dropper = dropper if dropper is not None else getattr(manager.wiring, "head_drop", None)
        self.socket_queue = socket_queue if socket_queue is not None else socket_rx_bytes
        self.qdisc_backlog: Callable[[int], int] | None = getattr(manager.wiring, "qdisc_backlog", None)
        self.plan = ThrottlePlan()
        self.queues: dict[Any, dict[int, int]] = {}  # chain -> downstream vnf_id -> bytes, at the last step
        self.heads: dict[Any, int] = {}  # chain -> vnf_id of its head, at the last step (chains of 2 or more)
        self.data_plane: dict[Any, str] = {}  # chain -> its head's config dir, for chains whose head drops itself
        self.drops_done: dict[Any, int] = {}  # chain -> packets dropped at its head in finished episodes
        self.drops_now: dict[Any, int] = {}  # chain -> packets dropped in the current episode
        self.episodes: dict[Any, int] = {}
        self._base: dict[Any, int] = {}  # chain -> clsact drop counter when the current episode began
        self._swept = False
        self.lock = threading.RLock()
        self.halt = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.last_shares: dict[int, int] = {}
        self._pids: dict[str, tuple[int, float]] = {}  # container_id -> (init pid, when Docker said so)

    def start(self) -> None:
        self.thread.start()

    def stop(self, timeout: float = 10.0) -> None:
        """Stop the loop and release every throttled head (filters removed, throttle files deleted)."""
        self.halt.set()
        if self.thread.is_alive() and self.thread is not threading.current_thread():
            self.thread.join(timeout)
        self.release_all()

    def run(self) -> None:
        while not self.halt.wait(self.interval_s):
            try:
                self.step()
            except Exception as exc:
                log.warning("scheduler step: %s", exc)

    def step(self) -> dict[int, int]:
        with self.lock:
            pids: dict[int, int] = {}
            chains: dict[Any, list[Any]] = {}  # (tenant_id, chain_id or None) -> its running vNFs
            recs = self.m.store.all()
            known = {r.container_id for r in recs}
            self._pids = {cid: v for cid, v in self._pids.items() if cid in known}
            switch = self._switch_ports(recs)
            measured: dict[int, tuple[int, int, int]] = {}  # vnf_id -> (cpu ns, arrived, sent on)
            for rec in recs:
                pid = self._pid_of(rec.container_id) if rec.state == "running" and rec.container_id else 0
                if not pid:
                    continue  # (a paused vNF keeps its pid and stays in: a stalled downstream is what we look for)
                pids[rec.vnf_id] = pid
                cg = self.cgroups.of_pid(pid)
                cpu = (self.cgroups.cpu_usage_ns(cg) if cg is not None else None) or 0
                if rec.host_ifname:  # the host veth: tx = towards the vNF, rx = what it sent
                    stats = self.m.wiring.stats(rec.host_ifname)
                    rx, sent = (stats.tx_packets, stats.rx_packets) if stats else (0, 0)
                else:  # no host veth (DPDK): the switch's port, tx = what it sent the vNF
                    port = switch.get(self.m.port_name(rec.vnf_id))
                    rx, sent = (port.tx_packets, port.rx_packets) if port else (0, 0)
                measured[rec.vnf_id] = (cpu, rx, sent)
                chains.setdefault(rec.spec.chain, []).append(rec)
            now = time.monotonic()
            for members in chains.values():
                members.sort(key=lambda r: (r.spec.chain_position, r.vnf_id))
                upstream: Any = None
                for rec in members:
                    # Offered = what the upstream vNF sent on: the switch's enqueue into a full ring drops without
                    # counting, so arrivals alone would read a starved vNF as idle and starve it further.
                    offered = (upstream.vnf_id, measured[upstream.vnf_id][2]) if upstream is not None else None
                    cpu, rx, _ = measured[rec.vnf_id]
                    self.estimators.setdefault(rec.vnf_id, CostEstimator()).add(Sample(now, cpu, rx, offered=offered))
                    upstream = rec
            self._backpressure(chains, pids, recs)
            latency = {r.vnf_id for r in recs if r.vnf_id in pids and wants_latency(r.spec)}
            shares = favour_latency(compute_shares({v: self.load_of(v) for v in pids}), latency)
            for vnf_id, value in shares.items():
                if self.last_shares.get(vnf_id) != value and self.apply(pids[vnf_id], value):
                    self.last_shares[vnf_id] = value
            return shares

    def load_of(self, vnf_id: int) -> float:
        """rate x cost; 0 (the floor weight) for a throttled chain head: all it would do now is drop, and the CPU
        it leaves goes to the downstream vNFs that must drain (NFVnice does not wake a throttled NF)."""
        if any(h.vnf_id == vnf_id for h in self.plan.active.values()):
            return 0.0
        return self.estimators[vnf_id].load

    def _switch_ports(self, recs: list[Any]) -> dict[str, Any]:
        """The switch's ports (counters), asked once per step and only when a running vNF has no host veth;
        without this a DPDK vNF's arrival rate, hence its load, would read 0 and its weight sink to the floor."""
        if not self.m.switch.present or all(r.host_ifname or r.state != "running" for r in recs):
            return {}
        try:
            return dict(self.m.switch.ports())
        except Exception as exc:  # a switch restarting: no rates this step
            log.debug("switch ports: %s", exc)
            return {}

    def _pid_of(self, container_id: str) -> int:
        """The container's init pid (0: none), from Docker at most once per PID_TTL_S."""
        now = time.monotonic()
        known = self._pids.get(container_id)
        if known is not None and now - known[1] < PID_TTL_S:
            return known[0]
        info = self.m.runtime.inspect(container_id)
        pid = info.pid if info is not None else 0
        self._pids[container_id] = (pid, now)
        return pid

    def write_shares(self, pid: int, shares: int) -> bool:
        """The default ``apply``: ``shares`` (cpu.shares units) as the weight of the cgroup of ``pid``."""
        cg = self.cgroups.of_pid(pid)
        return cg is not None and self.cgroups.set_cpu_shares(cg, shares)

    # ---- backpressure ------------------------------------------------------------------------------------------
    def queue_of(self, rec: Any, pid: int) -> int:
        """Bytes waiting for the vNF: its own /run/vnf/queue when present, else measured from outside."""
        reported = read_queue_file(Path(rec.config_dir))
        if reported is not None:
            return reported
        total = self.socket_queue(pid)
        if self.qdisc_backlog is not None and vnf_class(rec.vnf_class).host_links:
            try:
                total += self.qdisc_backlog(pid)
            except Exception as exc:  # the vNF may be exiting; its sockets were still counted
                log.debug("qdisc backlog of pid %d: %s", pid, exc)
        return total

    def _backpressure(self, chains: dict[Any, list[Any]], pids: dict[int, int], recs: Iterable[Any]) -> None:
        wanted: dict[Any, Head] = {}
        for chain in list(self.backpressure.throttled):
            if chain not in chains:
                self.backpressure.forget(chain)
        self.queues = {c: q for c, q in self.queues.items() if c in chains}
        self.data_plane = {c: d for c, d in self.data_plane.items() if c in chains}
        self.heads = {}
        for chain, members in chains.items():
            members.sort(key=lambda r: (r.spec.chain_position, r.vnf_id))
            if len(members) < 2:  # no downstream: never throttles
                self.backpressure.forget(chain)
                self.queues.pop(chain, None)
                continue
            queues = {r.vnf_id: self.queue_of(r, pids[r.vnf_id]) for r in members[1:]}
            self.queues[chain] = queues
            self.heads[chain] = members[0].vnf_id
            if data_plane(members):  # the head itself drops on every burst (chainfile.py): no 0.1 s throttle
                self.backpressure.forget(chain)
                self.data_plane[chain] = members[0].config_dir
                continue
            self.data_plane.pop(chain, None)
            if self.backpressure.update(chain, list(queues.values())):
                h = members[0]
                wanted[chain] = Head(h.vnf_id, h.host_ifname, h.config_dir)
        apply, release = self.plan.decide(wanted)
        for chain, head in release:
            self._release(chain, head)
        for chain, head in apply:
            self._apply(chain, head)
        heads = {h.vnf_id for h in self.plan.active.values()}
        for chain, head in self.plan.active.items():
            _touch(Path(head.config_dir) / "throttle")
            self._count(chain, head)
        for rec in recs:  # no throttle file (and, once after start, no drop filter) anywhere else
            if rec.vnf_id in heads:
                continue
            _unlink(Path(rec.config_dir) / "throttle")
            if not self._swept and rec.host_ifname and self.dropper is not None:
                try:
                    if self.dropper.release(rec.host_ifname):
                        log.info("backpressure: removed a leftover drop filter from %s", rec.host_ifname)
                except Exception as exc:
                    log.warning("backpressure: sweeping %s: %s", rec.host_ifname, exc)
        self._swept = True

    def _apply(self, chain: Any, head: Head) -> None:
        if self.dropper is not None and head.ifname:
            try:
                base = self.dropper.dropped(head.ifname)
                if not self.dropper.apply(head.ifname):
                    log.warning("backpressure: head %s of chain %s is gone", head.ifname, chain)
                self._base[chain] = base or 0
            except Exception as exc:
                log.warning("backpressure: cannot drop at %s: %s", head.ifname, exc)
                return  # not marked: the next step tries again
        _touch(Path(head.config_dir) / "throttle")
        self.plan.mark(chain, head)
        self.drops_now[chain] = 0
        self.episodes[chain] = self.episodes.get(chain, 0) + 1
        log.info("backpressure: chain %s throttled at vNF %d (downstream queues %s bytes)", chain, head.vnf_id,
                 self.queues.get(chain))

    def _release(self, chain: Any, head: Head) -> None:
        if self.dropper is not None and head.ifname:
            try:
                self._count(chain, head)
                self.dropper.release(head.ifname)  # False when the veth is gone: it took the filter with it
            except Exception as exc:
                log.warning("backpressure: cannot release %s: %s", head.ifname, exc)
        _unlink(Path(head.config_dir) / "throttle")
        self.plan.unmark(chain)
        self.drops_done[chain] = self.drops_done.get(chain, 0) + self.drops_now.pop(chain, 0)
        self._base.pop(chain, None)
        log.info("backpressure: chain %s released at vNF %d (%d packets dropped)", chain, head.vnf_id,
                 self.drops_done[chain])

    def _count(self, chain: Any, head: Head) -> None:
        if self.dropper is None or not head.ifname:
            return
        try:
            n = self.dropper.dropped(head.ifname)
        except Exception:
            n = None
        if n is not None:
            self.drops_now[chain] = max(self.drops_now.get(chain, 0), n - self._base.get(chain, 0))

    def release_all(self) -> None:
        with self.lock:
            for chain, head in list(self.plan.active.items()):
                self._release(chain, head)
            self.backpressure.throttled.clear()

    def report(self) -> dict[Any, dict[str, Any]]:
        """Per chain ((tenant_id, chain_id); chain_id None for vNFs sent without one): whether its head drops, which
        vNF that is, the downstream queues (bytes) seen at the last step, and the packets dropped at the head by
        backpressure (all episodes, the current one live)."""
        with self.lock:
            for chain, head in self.plan.active.items():
                self._count(chain, head)
            chains = set(self.queues) | set(self.drops_done) | set(self.plan.active)
            out: dict[Any, dict[str, Any]] = {}
            for c in chains:
                head = self.plan.active.get(c)
                out[c] = {"throttled": head is not None, "head": head.vnf_id if head else self.heads.get(c),
                          "queues": dict(self.queues.get(c, {})), "episodes": self.episodes.get(c, 0),
                          "drops": self.drops_done.get(c, 0) + self.drops_now.get(c, 0)}
                if c in self.data_plane:  # the head's own counters (dpdk-vnf stats.json), not the agent's
                    st = read_head_stats(Path(self.data_plane[c]))
                    out[c]["throttled"] = bool(st.get("backpressure", False))
                    out[c]["drops"] = int(st.get("backpressure_dropped", 0))
                    out[c]["data_plane"] = True
            return out


# ---- measuring (outside the pure logic) ---------------------------------------------------------------------------
def read_queue_file(cdir: Path) -> int | None:
    """The queue a vNF reports itself in /run/vnf/queue (an integer, bytes); None when it does not."""
    try:
        return max(0, int((cdir / "queue").read_text().split()[0]))
    except (OSError, ValueError, IndexError):
        return None


def socket_rx_bytes(pid: int) -> int:
    """Receive-queue bytes of every UDP/TCP socket in the network namespace of ``pid`` (/proc/<pid>/net shows
    the process's namespace; no setns needed, and a frozen process can be read)."""
    total = 0
    for table in PROC_NET_TABLES:
        try:
            total += parse_proc_net_rx(Path(f"/proc/{pid}/net/{table}").read_text())
        except OSError:
            continue
    return total


def _touch(path: Path) -> None:
    try:
        path.touch()
    except OSError as exc:  # the vNF's directory went away with it
        log.debug("touch %s: %s", path, exc)


def _unlink(path: Path) -> None:
    try:
        path.unlink(missing_ok=True)
    except OSError as exc:
        log.debug("unlink %s: %s", path, exc)
