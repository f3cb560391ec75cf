"""vnf-scheduling: wasted work and chain throughput of three real vNF containers sharing one core, with the default
CFS split and with the agent's NFVnice-style scheduler (scheduler.SchedulerLoop: CPU weights from arrival rate x
cost per packet, backpressure at the chain head), same run, interleaved.

DPDK: three of our dpdk-vnf containers (mode cost, per-packet costs 1:2:4 x UNIT_CYCLES TSC cycles) created by the
agent (VnfManager) on the real DPDK pofswitch (one lcore on CPU 1); placement puts all three on CPU 0 (shared).
Switch ports src = net_null (64-byte frames as fast as the switch polls: the chain is always overloaded) and sink
= tx-only net_null; flows src -> vNF1 -> vNF2 -> vNF3 -> sink. Kernel: three kernel-fwd vNFs (no cost knob: equal
costs) on af_packet ports, iperf3 UDP 64-byte frames at an unlimited rate from a src namespace to a dst namespace.

Wasted work, from the vNFs' own counters (dpdk-vnf's stats.json; a kernel vNF's 'in' interface counters in its
namespace): what vNF i processed that vNF i+1 never received (dropped by the switch at vNF i+1's full ring, or
refused to vNF i on send), weighted by the cost spent on it so far (vNF 1..i); wasted_pct = that / all cost spent.
Rates are per vNF over its own counter interval (dpdk-vnf writes stats every 500 ms), so they need no common clock.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))  # benchlib

from benchlib import write_result
from common import SWITCH_CPU, SteeredPofSwitch, bench_node
from vnf_chain import CpuMeter, Ids, chain_vnfs, iperf_udp, kernel_hosts, route_chain, wait_flowing

from wislice_mec_agent.scheduler import SchedulerLoop

COSTS = (1, 2, 4)  # relative per-packet cost of vNF 1..3
UNIT_CYCLES = 1500  # TSC cycles per cost unit
FRAME = 64
RING = 1024  # dpdk-vnf's rx ring (run.sh), packets
# The agent's watermarks are bytes (queue file = ring occupancy x mean packet size): half and an eighth of a ring
# of 64-byte frames (the default 128 KiB high never passes at 64 B, see vnfs/dpdk-vnf/README.md).
HIGH, LOW = RING // 2 * FRAME, RING // 8 * FRAME
WARMUP = 3.0
INTERVAL = [0.1]  # the scheduler's period: the agent's default, --interval
TENANT, CHAIN = 7, 1
MODES = ("default", "weights", "scheduled")


def dpdk_specs(ids: Ids) -> list[dict]:
    return [{"tenant_id": TENANT, "instance_id": i, "chain_id": CHAIN, "image": "dpdk-vnf", "chain_position": pos,
             "cpu": 1.0, "memory_mib": 128, "params": {"mode": "cost", "cost_cycles": c * UNIT_CYCLES}}
            for pos, (i, c) in enumerate(zip(ids.take(len(COSTS)), COSTS, strict=True))]


def kernel_specs(ids: Ids) -> list[dict]:
    return [{"tenant_id": TENANT + 1, "instance_id": i, "chain_id": CHAIN, "image": "kernel-fwd",
             "chain_position": pos, "cpu": 1.0, "memory_mib": 32, "params": {}}
            for pos, i in enumerate(ids.take(len(COSTS)))]


def dpdk_counters(m: Any, states: list[dict]) -> list[dict]:
    """Each vNF's stats.json (the one it wrote last); waits for a vNF that has not written one yet."""
    out = []
    for s in states:
        path = m.vnf_dir(s["vnf_id"]) / "stats.json"
        deadline = time.monotonic() + 5
        while True:
            try:
                st = json.loads(path.read_text())
                break
            except (OSError, ValueError):
                if time.monotonic() > deadline:
                    raise RuntimeError(f"vNF {s['vnf_id']} wrote no stats.json") from None
                time.sleep(0.1)
        head_drops = st["throttle_dropped"] + st.get("backpressure_dropped", 0)  # both: dropped before any work
        out.append({"t": st["uptime_ms"] / 1000, "rx": st["rx_packets"] - head_drops,
                    "tx": st["tx_packets"], "tx_dropped": st["tx_dropped"],
                    "throttle_dropped": head_drops, "raw": st})
    return out


def kernel_counters(pids: list[int]) -> list[dict]:
    """Each kernel vNF's 'in' interface counters, from its own namespace (/proc/<pid>/net/dev)."""
    out = []
    for pid in pids:
        for line in Path(f"/proc/{pid}/net/dev").read_text().splitlines():
            name, _, rest = line.partition(":")
            if name.strip() == "in":
                f = [int(x) for x in rest.split()]
                # rx: packets, dropped = f[1], f[3]; tx: packets, dropped = f[9], f[11]
                out.append({"t": time.monotonic(), "rx": f[1], "tx": f[9], "tx_dropped": f[11],
                            "throttle_dropped": 0, "rx_dropped": f[3]})
                break
        else:
            raise RuntimeError(f"kernel vNF pid {pid} has no 'in' interface")
    return out


def waste(before: list[dict], after: list[dict], costs: tuple[int, ...]) -> dict[str, float]:
    """Rates (packets/s) per vNF over its own interval, and the wasted work of the chain."""
    rate = [{k: (a[k] - b[k]) / (a["t"] - b["t"]) for k in ("rx", "tx", "tx_dropped", "throttle_dropped")}
            for b, a in zip(before, after, strict=True)]
    n = len(costs)
    # What vNF i processed (rx after throttle drops) that vNF i+1 never received: lost after i's work.
    lost = [max(0.0, rate[i]["rx"] - rate[i + 1]["rx"]) for i in range(n - 1)] + [rate[-1]["tx_dropped"]]
    spent = sum(rate[i]["rx"] * costs[i] for i in range(n))
    wasted = sum(lost[i] * sum(costs[: i + 1]) for i in range(n))
    return {"wasted_pct": 100.0 * wasted / spent if spent else 0.0, "wasted_mpps": sum(lost) / 1e6,
            "head_drop_mpps": rate[0]["throttle_dropped"] / 1e6, "vnf_rx_mpps": [r["rx"] / 1e6 for r in rate],
            "lost_mpps": [x / 1e6 for x in lost]}


@contextlib.contextmanager
def scheduler(m: Any, mode: str, interval: float) -> Any:
    """The agent's own SchedulerLoop over the manager's vNFs (None for "default"; "weights": CPU weights only, no
    queue ever passes its high watermark); stopped (heads released) after."""
    if mode == "default":
        yield None
        return
    loop = SchedulerLoop(m, interval, high=HIGH if mode == "scheduled" else 2**62, low=LOW)
    loop.start()
    try:
        yield loop
    finally:
        loop.stop()


def measure(m: Any, states: list[dict], counters: Any, out_rate: Any, mode: str, seconds: float,
            costs: tuple[int, ...]) -> dict[str, Any]:
    with scheduler(m, mode, INTERVAL[0]) as loop:
        time.sleep(WARMUP)
        cpu = CpuMeter(m, states)
        c0, (o0, t0) = counters(), out_rate()
        cpu.start()
        trace = []
        for _ in range(int(seconds / 0.5)):
            time.sleep(0.5)
            if loop is not None and os.environ.get("VNF_SCHED_TRACE"):  # the loop's view, to stderr
                trace.append((loop.report(), dict(loop.last_shares)))
        time.sleep(seconds - int(seconds / 0.5) * 0.5)
        for t in trace:
            print("trace", t, file=sys.stderr)
        c1, (o1, t1) = counters(), out_rate()
        cpu_pct = cpu.stop()
        report = loop.report() if loop else {}
        weights = [loop.last_shares.get(s["vnf_id"]) for s in states] if loop else []
    r = waste(c0, c1, costs)
    r.update(mpps=(o1 - o0) / (t1 - t0) / 1e6, cpu_pct=cpu_pct, weights=weights,
             episodes=sum(c.get("episodes", 0) for c in report.values()))
    return r


def dpdk_run(m: Any, node: Any, hp: Any, ids: Ids, mode: str, seconds: float) -> dict[str, Any]:
    ports = [("src", f"net_null0,size={FRAME}"), ("sink", "net_null1,no-rx=1")]
    # scheduled: the chain's backpressure is in the data plane (the agent's chain file, the head drops at entry on
    # every burst while a downstream ring is over its watermark); default and weights: none, as before
    m.config.dataplane_backpressure = mode == "scheduled"
    with (SteeredPofSwitch(node, str(hp.mount), Path(m.config.state_dir), ports, tag="sch") as sw,
          chain_vnfs(m, sw, dpdk_specs(ids)) as states):
        path = [sw.port_ids["src"], *(s["ports"][0]["pof_port"] for s in states), sw.port_ids["sink"]]
        sw.steer(list(itertools.pairwise(path)))
        wait_flowing(sw, "sink", 30, "dpdk chain of 3")
        placed = {s.get("cpus") for s in states}
        if placed != {"0"}:
            raise RuntimeError(f"the three vNFs should share CPU 0, placement gave {placed}")

        def sink() -> tuple[int, float]:
            return sw.counters()["sink"].tx_packets, time.monotonic()

        return measure(m, states, lambda: dpdk_counters(m, states), sink, mode, seconds, COSTS)


def kernel_run(m: Any, node: Any, hp: Any, ids: Ids, mode: str, seconds: float) -> dict[str, Any]:
    with kernel_hosts(node) as (src, dst, pairs):
        ports = [("src", f"net_af_packet0,iface={pairs[0].b},qdisc_bypass=0"),
                 ("dst", f"net_af_packet1,iface={pairs[1].b},qdisc_bypass=0")]
        with (SteeredPofSwitch(node, str(hp.mount), Path(m.config.state_dir), ports, tag="sck") as sw,
              chain_vnfs(m, sw, kernel_specs(ids)) as states):
            pids = [m.runtime.inspect(m.store.get(s["vnf_id"]).container_id).pid for s in states]
            route_chain(sw, node, src, dst, pairs, states, pids)

            def dst_out() -> tuple[int, float]:
                return sw.counters()["dst"].tx_packets, time.monotonic()

            with iperf_udp(src, dst, seconds + WARMUP):
                return measure(m, states, lambda: kernel_counters(pids), dst_out, mode, seconds,
                               (1,) * len(states))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=6)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--kinds", default="dpdk,kernel")
    ap.add_argument("--interval", type=float, default=INTERVAL[0], help="the scheduler's period, s")
    args = ap.parse_args()
    INTERVAL[0] = args.interval
    from wislice_testbed.hugepages import Hugepages

    kinds = args.kinds.split(",")
    runs: dict[tuple[str, str], list[dict]] = {}
    ids = Ids()
    load_start = os.getloadavg()
    hp = Hugepages.reserve(384)
    try:
        with bench_node(hugepages_dir=str(hp.mount), switch_cpus=str(SWITCH_CPU)) as (m, _dockerd, node):
            for run, kind in itertools.product(range(args.runs), kinds):
                fn = dpdk_run if kind == "dpdk" else kernel_run
                for mode in MODES:  # interleaved so machine noise hits them alike
                    r = fn(m, node, hp, ids, mode, args.seconds)
                    runs.setdefault((kind, mode), []).append(r)
                    print(f"run {run + 1} {kind} {mode}: "
                          f"{json.dumps(r, default=lambda x: round(x, 4))}", flush=True)
    finally:
        hp.release()
    load_end = os.getloadavg()
    metrics: dict[str, float] = {}
    units: dict[str, str] = {}
    details = []
    for (kind, mode), rs in runs.items():
        prefix = "" if kind == "dpdk" else "kernel_"
        for key, unit in (("wasted_pct", "%"), ("mpps", "Mpps"), ("wasted_mpps", "Mpps")):
            metrics[f"{prefix}{key}_{mode}"] = statistics.median(r[key] for r in rs)
            units[f"{prefix}{key}_{mode}"] = unit
        last = rs[-1]
        details.append(f"{kind} {mode} (last run): vNF rx Mpps {[round(x, 4) for x in last['vnf_rx_mpps']]}, "
                       f"lost after each {[round(x, 4) for x in last['lost_mpps']]}, head throttle drops "
                       f"{last['head_drop_mpps']:.4f} Mpps, CPU % {[round(x) for x in last['cpu_pct']]}"
                       + (f", weights (cpu.shares units) {last['weights']}, backpressure episodes "
                          f"{last['episodes']}" if mode != "default" else ""))
    if metrics.get("mpps_default"):
        metrics["mpps_scheduled_over_default"] = metrics["mpps_scheduled"] / metrics["mpps_default"]
        units["mpps_scheduled_over_default"] = "ratio (NFVnice: up to 2)"
    notes = (
        f"medians of {args.runs} interleaved runs of {args.seconds:g} s after {WARMUP:g} s warm-up, kinds {kinds}; "
        f"load average (1/5/15 min) {load_start[0]:.2f}/{load_start[1]:.2f}/{load_start[2]:.2f} at the start and "
        f"{load_end[0]:.2f}/{load_end[1]:.2f}/{load_end[2]:.2f} at the end (other jobs share this 2-CPU machine). "
        f"dpdk: three dpdk-vnf containers (mode cost, {COSTS} x {UNIT_CYCLES} TSC cycles a packet, burst 32, ring "
        f"{RING}, rx-interrupt sleep when idle) placed by the agent on CPU 0 together, on the real DPDK pofswitch "
        f"(CPU {SWITCH_CPU}); src = net_null {FRAME}-byte frames as fast as the switch polls, sink = tx-only "
        "net_null; mpps = the sink port's tx. kernel: three kernel-fwd containers (no cost knob: equal costs) on "
        "af_packet ports, iperf3 UDP 64-byte frames unlimited rate, mpps = the dst port's tx. "
        f"scheduled = the agent's SchedulerLoop every {INTERVAL[0]:g} s: CPU weights from arrival rate x CPU ns a "
        "packet (compute_shares, written as cpu.weight / cpu.shares) and backpressure: dpdk in the data plane "
        "(the agent's chain file: each dpdk-vnf publishes whether its rx ring is over 80 % until under 20 %, the "
        "head reads the flags on every rx burst and while one is set drops what it takes at entry, counted in "
        "backpressure_dropped, pausing 20 us between bursts); kernel by the loop (the chain's downstream queues "
        f"over {HIGH} bytes throttle the head on its host veth until all are under {LOW}); "
        "weights = the same loop with backpressure off (CPU weights only); default = no scheduler (equal CFS "
        "weights). wasted = what vNF i processed that "
        "vNF i+1 never received, from the vNFs' own counters, "
        "weighted by the cost spent on it so far; wasted_pct = of all cost units spent. Anchor NFVnice "
        "(Kulkarni et al., ToN 2020): up to 2x chain throughput, wasted work 3 Mpps -> 0.01 Mpps. "
        + "; ".join(details))
    path = write_result("vnf-scheduling", metrics, units, notes=notes)
    print(path, json.dumps(metrics, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
