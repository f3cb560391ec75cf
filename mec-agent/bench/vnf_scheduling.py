"""vnf-scheduling: wasted work and throughput of a 3-vNF chain with uneven per-packet costs (1:2:4) sharing one
core, with the default CFS split and with the agent's NFVnice-style scheduler (rate x cost cpu.shares from
scheduler.compute_shares/CostEstimator + chain-head backpressure from scheduler.Backpressure), same run.

The stages are processes (not containers: the measurement is about CPU scheduling, and a stage must report its
queue depth), each in its own cgroup (v1 cpu and cpuacct groups, or one v2 group with the cpu controller, through
the agent's cgroups module), all pinned to CPU 0. They are chained by AF_UNIX datagram
socketpairs (bounded kernel queues, net.unix.max_dgram_qlen); a stage that finds the next queue full drops the
packet it already processed: that is wasted work. A generator on CPU 1 offers packets as fast as it can; the head
queue refusing them costs no work. Wasted % = CPU-cost units spent on packets later dropped / all units spent.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import secrets
import socket
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))  # benchlib

from benchlib import write_result

from wislice_mec_agent import cgroups
from wislice_mec_agent.scheduler import Backpressure, CostEstimator, Sample, compute_shares

COSTS = (1, 2, 4)  # relative per-packet cost of stages 1..3
UNIT_ITERS = 400  # busy-loop iterations per cost unit
RECV, PROC, DROP, SENT = range(4)
QLEN = 64  # net.unix.max_dgram_qlen inside the bench's own namespace  # counter slots per stage


def burn(n: int) -> int:
    x = 0
    for i in range(n):
        x ^= i
    return x


def stage(idx: int, cost: int, rx: socket.socket, tx: socket.socket | None, counters: Any, stop: Any) -> None:
    os.sched_setaffinity(0, {0})
    rx.settimeout(0.1)
    if tx is not None:
        tx.setblocking(False)
    base = idx * 4
    while not stop.value:
        try:
            data = rx.recv(64)
        except TimeoutError:
            continue
        counters[base + RECV] += 1
        burn(cost * UNIT_ITERS)
        counters[base + PROC] += 1
        if tx is None:
            continue
        try:
            tx.send(data)
            counters[base + SENT] += 1
        except BlockingIOError:
            counters[base + DROP] += 1


def generator(tx: socket.socket, offered: Any, head_drops: Any, counters: Any, bp: Backpressure | None,
              stop: Any) -> None:
    """The switch side, on its own core: offers packets to the chain head; with backpressure it checks the
    downstream queues before each packet and drops at the chain entry while the chain is throttled."""
    os.sched_setaffinity(0, {1})
    tx.setblocking(False)
    payload = b"x" * 60
    n = len(COSTS)
    while not stop.value:
        if bp is not None:
            queues = [counters[(i - 1) * 4 + SENT] - counters[i * 4 + RECV] for i in range(1, n)]
            if bp.update("chain", queues):
                head_drops.value += 1
                time.sleep(0.00002)
                continue
        try:
            tx.send(payload)
            offered.value += 1
        except BlockingIOError:
            time.sleep(0.00005)


class Cgroups:
    """One cgroup per stage under a group of the run's own, on whichever cgroup version the node has."""

    def __init__(self, n: int) -> None:
        self.fs = cgroups.host()
        missing = self.fs.lacks(*cgroups.SCHEDULER_NEEDS)
        if missing:
            raise RuntimeError(f"cannot schedule stages: no {', '.join(missing)} ({self.fs.describe()})")
        self.base = f"wislice-sched-{secrets.token_hex(3)}"
        # Each stage's group is known before it is made, so remove() also takes a half-made one.
        self.groups = [self.fs.at(f"{self.base}/s{i}", cgroups.SCHEDULER_NEEDS) for i in range(n)]
        try:
            for i in range(n):
                self.fs.create(f"{self.base}/s{i}", cgroups.SCHEDULER_NEEDS)
        except BaseException:
            self.remove()
            raise

    def add(self, i: int, pid: int) -> None:
        self.fs.attach(self.groups[i], pid)

    def shares(self, i: int, value: int) -> None:
        if not self.fs.set_cpu_shares(self.groups[i], value):
            raise RuntimeError(f"cannot set the CPU weight of stage {i}")

    def usage_ns(self, i: int) -> int:
        used = self.fs.cpu_usage_ns(self.groups[i])
        if used is None:
            raise RuntimeError(f"cannot read the CPU usage of stage {i}")
        return used

    def remove(self) -> None:
        for cg in self.groups:
            self.fs.remove(cg)
        self.fs.remove(self.fs.at(self.base, cgroups.SCHEDULER_NEEDS))


def socketpairs_in(ns: Any, n: int) -> list[tuple[socket.socket, socket.socket]]:
    """AF_UNIX datagram socketpairs created inside ``ns``: their queue length is that namespace's
    net.unix.max_dgram_qlen (the host's stays untouched)."""
    import ctypes
    import threading

    box: dict[str, Any] = {}

    def enter() -> None:
        fd = os.open(ns.path, os.O_RDONLY)
        try:
            if ctypes.CDLL(None, use_errno=True).setns(fd, 0x40000000) != 0:
                box["error"] = OSError(ctypes.get_errno(), "setns")
                return
        finally:
            os.close(fd)
        box["pairs"] = [socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM) for _ in range(n)]

    t = threading.Thread(target=enter)
    t.start()
    t.join()
    if "error" in box:
        raise box["error"]
    return box["pairs"]


def run_chain(ns: Any, seconds: float, scheduled: bool, interval: float = 0.05) -> dict[str, float]:
    ctx = mp.get_context("fork")
    n = len(COSTS)
    pairs = socketpairs_in(ns, n)  # pair i feeds stage i
    counters = ctx.Array("q", 4 * n, lock=False)
    stop, offered, head_drops = (ctx.Value("b", 0, lock=False), ctx.Value("q", 0, lock=False),
                                 ctx.Value("q", 0, lock=False))
    cg = Cgroups(n)
    procs = []
    bp = Backpressure(high=int(QLEN * 0.75), low=int(QLEN * 0.25)) if scheduled else None
    try:
        for i, cost in enumerate(COSTS):
            tx = pairs[i + 1][0] if i + 1 < n else None
            p = ctx.Process(target=stage, args=(i, cost, pairs[i][1], tx, counters, stop), daemon=True)
            p.start()
            cg.add(i, p.pid)
            procs.append(p)
        gen = ctx.Process(target=generator, args=(pairs[0][0], offered, head_drops, counters, bp, stop), daemon=True)
        gen.start()
        procs.append(gen)
        est = [CostEstimator() for _ in range(n)]
        t0 = time.monotonic()
        start_counts = None
        while time.monotonic() - t0 < seconds + 1:
            time.sleep(interval)
            if start_counts is None and time.monotonic() - t0 >= 1:  # 1 s warm-up, then measure
                start_counts = (list(counters), time.monotonic())
            if not scheduled:
                continue
            now = time.monotonic()
            for i in range(n):
                # Arrivals at stage i = what stage i-1 processed and tried to pass on (the head: what it received).
                arrived = counters[RECV] if i == 0 else counters[(i - 1) * 4 + PROC]
                est[i].add(Sample(now, cg.usage_ns(i), arrived, counters[i * 4 + PROC]))
            for i, value in compute_shares({i: est[i].load for i in range(n)}).items():
                cg.shares(i, value)
        end = list(counters)
        elapsed = time.monotonic() - start_counts[1]
    finally:
        stop.value = 1
        for p in procs:
            p.join(2)
            if p.is_alive():
                p.kill()
                p.join()
        for a, b in pairs:
            a.close()
            b.close()
        cg.remove()
    d = [end[j] - start_counts[0][j] for j in range(4 * n)]
    spent = sum(d[i * 4 + PROC] * COSTS[i] for i in range(n))
    wasted = sum(d[i * 4 + DROP] * sum(COSTS[: i + 1]) for i in range(1, n))  # drops after processing at stage i
    delivered = d[(n - 1) * 4 + PROC]
    return {"wasted_pct": 100.0 * wasted / spent if spent else 0.0, "mpps": delivered / elapsed / 1e6}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=5)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    from wislice_testbed.netns import Namespace

    default, scheduled = [], []
    ns = Namespace.create("sch")
    try:
        ns.exec(["sysctl", "-qw", f"net.unix.max_dgram_qlen={QLEN}"])
        for _ in range(args.runs):  # interleaved so machine noise hits both alike
            default.append(run_chain(ns, args.seconds, scheduled=False))
            scheduled.append(run_chain(ns, args.seconds, scheduled=True))
            print(default[-1], scheduled[-1], flush=True)
    finally:
        ns.delete()
    metrics = {
        "wasted_pct_default": statistics.median(r["wasted_pct"] for r in default),
        "wasted_pct_scheduled": statistics.median(r["wasted_pct"] for r in scheduled),
        "mpps_default": statistics.median(r["mpps"] for r in default),
        "mpps_scheduled": statistics.median(r["mpps"] for r in scheduled),
    }
    notes = (f"medians of {args.runs} interleaved runs of {args.seconds:g} s (+1 s warm-up). Chain of 3 stage "
             f"processes with per-packet costs {COSTS} x {UNIT_ITERS} Python loop iterations, all pinned to CPU 0 "
             "in their own cgroups (cpu.shares on v1, the equivalent cpu.weight on v2), AF_UNIX datagram queues "
             "between them; generator on CPU 1. "
             "scheduled = the agent's compute_shares (rate x cost from CostEstimator on the cgroup CPU usage) "
             "written every 50 ms + Backpressure (high 48, low 16 of a 64-packet queue) checked by the generator "
             "(the switch side, CPU 1) before each packet, dropping at the chain entry. "
             "Processes, not containers: the agent's SchedulerLoop does the same on vNF cgroups but catalog vNFs "
             "do not report queue depths yet. Absolute Mpps is Python-bound; compare default vs scheduled.")
    units = {"wasted_pct_default": "%", "wasted_pct_scheduled": "%", "mpps_default": "Mpps",
             "mpps_scheduled": "Mpps"}
    path = write_result("vnf-scheduling", metrics, units, notes=notes)
    print(path, metrics)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
