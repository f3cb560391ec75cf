"""vnf-chain: throughput through chains of 1, 2 and 4 vNFs wired to the real POF switch, in one run on one machine:
our DPDK vNF (dpdk-vnf: adaptive polling, macswap), testpmd (dpdk-fwd, io, busy-polls) and the kernel forwarder
(kernel-fwd), each at 1500-byte frames (Gbit/s) and 64-byte frames (Mpps), with the CPU each vNF used.

Both kinds go through the DPDK pofswitch (pof-switch/build/pofswitch, one lcore on CPU 1) in the node namespace,
under the pof-switch test controller (pofctl) listening in that namespace; the agent (VnfManager with its
MgmtSwitch) hot-adds each vNF's port. The controller installs one MM table keyed on the input-port metadata
(bits 16-23), one flow per hop.

DPDK (both images): switch ports src = net_null (frames of the size measured, as fast as the switch polls), sink =
tx-only net_null, and the vhost-user port (switch = vhost server, vNF = virtio-user client) of each of k vNFs.
Flows: src -> vNF1 -> ... -> vNFk -> sink. Throughput = the sink port's tx over the window, after a warm-up.
Kernel: k kernel-fwd vNFs whose host veths are net_af_packet ports (qdisc_bypass=0); namespaces src (10.10.0.1)
and dst (10.10.0.2) on af_packet ports by veths, offloads off everywhere. Flows: src -> vNF1 -> ... -> vNFk -> dst
and dst -> src (ACKs). Each vNF's neighbour for 10.10.0.2 is the next hop's MAC, src's is vNF1's; 1500 B: iperf3
TCP src -> dst (receiver goodput); 64 B: iperf3 UDP with 22-byte payloads, unlimited rate (the dst port's tx
packets over the window). Reference (same run): the switch alone, src -> sink (DPDK) and src <-> dst (kernel).
Every hop is checked on the switch's port counters. CPU of a vNF: its container cgroup's usage over the window,
percent of one core (a kernel vNF forwards in softirq, mostly charged to whoever sent: its number is a floor).
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import os
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))  # benchlib

from benchlib import write_result
from common import SWITCH_CPU, SteeredPofSwitch, bench_node

from wislice_mec_agent.cgroups import host
from wislice_mec_agent.switch import NoSwitch, SwitchPort
from wislice_mec_agent.wiring import iproute_in

FRAMES = (1500, 64)  # Gbit/s at 1500 B, Mpps at 64 B
UDP_PAYLOAD_64 = 22  # 14 Ethernet + 20 IPv4 + 8 UDP + 22 = a 64-byte frame, as net_null's size=64 (no FCS)
WARMUP = 2.0
SRC_IP, DST_IP = "10.10.0.1", "10.10.0.2"
OFFLOADS = ["tx", "off", "tso", "off", "gso", "off", "gro", "off"]  # AF_PACKET sees frames as sent
# kind -> (image, params, tenant): "dpdk" is our own vNF, "testpmd" the reference, "kernel" the Linux stack.
KINDS = {"dpdk": ("dpdk-vnf", {"mode": "fwd"}, 7), "testpmd": ("dpdk-fwd", {"mode": "io"}, 9),
         "kernel": ("kernel-fwd", {}, 8)}


@dataclass
class Measured:
    gbps: float
    mpps: float
    ports: dict[str, dict[str, int]]
    cpu_pct: list[float] = field(default_factory=list)  # each vNF's, percent of one core, in chain order
    vnf_stats: list[dict] = field(default_factory=list)  # dpdk-vnf's own stats.json, when it writes one


class Ids:
    """Fresh instance ids for every measurement, so a vNF that failed to go away can never collide."""

    def __init__(self) -> None:
        self.n = 0

    def take(self, k: int) -> list[int]:
        self.n += k
        return list(range(self.n - k + 1, self.n + 1))


def delta(after: dict[str, SwitchPort], before: dict[str, SwitchPort], name: str) -> dict[str, int]:
    a, b = after[name], before[name]
    return {"rx_packets": a.rx_packets - b.rx_packets, "tx_packets": a.tx_packets - b.tx_packets,
            "rx_bytes": a.rx_bytes - b.rx_bytes, "tx_bytes": a.tx_bytes - b.tx_bytes}


def check_hops(d: dict[str, dict[str, int]], hops: list[str], delivered: int, what: str) -> None:
    """Every vNF port moved at least ``share`` of what came out at the end, both ways (switch -> vNF = tx,
    vNF -> switch = rx): the traffic really went through each vNF, not around it."""
    if delivered <= 0:
        raise RuntimeError(f"{what}: nothing arrived at the end of the chain; port deltas {d}")
    for name in hops:
        if min(d[name]["tx_bytes"], d[name]["rx_bytes"]) < 0.9 * delivered:
            raise RuntimeError(f"{what}: vNF port {name} moved less than the {delivered} bytes delivered: {d}")


@contextlib.contextmanager
def chain_vnfs(m: Any, sw: SteeredPofSwitch, specs: list[dict]) -> Any:
    """Create the vNFs with the agent wired to ``sw``; delete them (before the switch goes) on the way out."""
    m.switch = sw.switch
    states: list[dict] = []
    try:
        for s in specs:
            states.append(m.create(s))
        yield states
    finally:
        errors = []
        for s in states:
            try:
                m.delete(s["vnf_id"])
            except Exception as exc:  # keep going: the others must go too (bench_node retries at the end)
                errors.append(f"{s['vnf_id']}: {exc}")
        m.switch = NoSwitch()
        if errors:
            print(f"vnf-chain: delete failed: {errors}", file=sys.stderr)


def specs_of(kind: str, ids: Ids, k: int) -> list[dict]:
    image, params, tenant = KINDS[kind]
    return [{"tenant_id": tenant, "instance_id": i, "image": image, "chain_position": pos, "cpu": 1.0,
             "memory_mib": 128 if kind != "kernel" else 32, "params": dict(params)}
            for pos, i in enumerate(ids.take(k))]


class CpuMeter:
    """CPU time of each vNF's container cgroup between start() and stop(), percent of one core."""

    def __init__(self, m: Any, states: list[dict]) -> None:
        self.cgroups = host()
        self.groups = []
        for s in states:
            pid = m.runtime.inspect(m.store.get(s["vnf_id"]).container_id).pid
            self.groups.append(self.cgroups.of_pid(pid))
        self.t0, self.used0 = 0.0, [0] * len(self.groups)

    def usage(self) -> list[int]:
        return [(self.cgroups.cpu_usage_ns(g) or 0) if g is not None else 0 for g in self.groups]

    def start(self) -> None:
        self.t0, self.used0 = time.monotonic(), self.usage()

    def stop(self) -> list[float]:
        dt = time.monotonic() - self.t0
        return [(u - u0) / 1e9 / dt * 100 for u, u0 in zip(self.usage(), self.used0, strict=True)]


def read_vnf_stats(m: Any, states: list[dict]) -> list[dict]:
    out = []
    for s in states:
        with contextlib.suppress(OSError, ValueError):
            out.append(json.loads((m.vnf_dir(s["vnf_id"]) / "stats.json").read_text()))
    return out


def dpdk_chain(m: Any, node: Any, hp: Any, ids: Ids, kind: str, k: int, frame: int, seconds: float) -> Measured:
    """Sink rate for a chain of k DPDK vNFs of ``kind`` (k = 0: src -> sink directly through the switch)."""
    ports = [("src", f"net_null0,size={frame}"), ("sink", "net_null1,no-rx=1")]
    with (SteeredPofSwitch(node, str(hp.mount), Path(m.config.state_dir), ports, tag="chd") as sw,
          chain_vnfs(m, sw, specs_of(kind, ids, k)) as states):
        names = [s["ports"][0]["name"] for s in states]
        path = [sw.port_ids["src"], *(s["ports"][0]["pof_port"] for s in states), sw.port_ids["sink"]]
        sw.steer(list(itertools.pairwise(path)))
        what = f"{kind} chain of {k} at {frame} B"
        wait_flowing(sw, "sink", 30, what)
        time.sleep(WARMUP)
        cpu = CpuMeter(m, states)
        before, t0 = sw.counters(), time.monotonic()
        cpu.start()
        time.sleep(seconds)
        after, t1 = sw.counters(), time.monotonic()
        cpu_pct = cpu.stop()
        d = {n: delta(after, before, n) for n in ["src", *names, "sink"]}
        check_hops(d, names, d["sink"]["tx_bytes"], what)
        return Measured(d["sink"]["tx_bytes"] * 8 / (t1 - t0) / 1e9, d["sink"]["tx_packets"] / (t1 - t0) / 1e6,
                        d, cpu_pct, read_vnf_stats(m, states))


def wait_flowing(sw: SteeredPofSwitch, port: str, timeout: float, what: str) -> None:
    """Until the switch transmits on ``port`` (the vNFs' virtio-user may still be connecting)."""
    deadline = time.monotonic() + timeout
    first = sw.counters()[port].tx_packets
    while sw.counters()[port].tx_packets == first:
        if time.monotonic() > deadline:
            raise RuntimeError(f"{what}: nothing reached {port} in {timeout:g} s; ports {sw.counters()}\n"
                               f"{sw.tails()}")
        time.sleep(0.2)


def in_ns(pid: int, *argv: str) -> None:
    subprocess.run(["nsenter", f"--net=/proc/{pid}/ns/net", *argv], check=True, capture_output=True, timeout=30)


def mac_of(ns: Any, ifname: str) -> str:
    return ns.exec(["cat", f"/sys/class/net/{ifname}/address"]).stdout.strip()


@contextlib.contextmanager
def kernel_hosts(node: Any) -> Any:
    """Namespaces src (SRC_IP) and dst (DST_IP) on veths into ``node``, offloads off: (src, dst, [src pair, dst
    pair]), the pairs' b ends in the node. Removed on the way out."""
    from wislice_testbed.netns import Namespace
    from wislice_testbed.veth import create_veth

    src = dst = None
    pairs = []
    try:
        src, dst = Namespace.create("cs"), Namespace.create("cd")
        pairs.append(create_veth(src, node, addr_a=f"{SRC_IP}/24"))
        pairs.append(create_veth(dst, node, addr_a=f"{DST_IP}/24"))
        for pair, ns in zip(pairs, (src, dst), strict=True):
            ns.exec(["ethtool", "-K", pair.a, *OFFLOADS])
            node.exec(["ethtool", "-K", pair.b, *OFFLOADS])
        yield src, dst, pairs
    finally:
        # Veths first: a VethPair left to the testbed janitor would reopen (and so recreate, pyroute2 NetNS
        # uses O_CREAT) the namespaces deleted here.
        for pair in pairs:
            pair.delete()
        for ns in (src, dst):
            if ns is not None:
                ns.delete()


def route_chain(sw: SteeredPofSwitch, node: Any, src: Any, dst: Any, pairs: list[Any], states: list[dict],
                pids: list[int]) -> None:
    """src -> kernel vNF 1 -> ... -> k -> dst and dst -> src through the switch (k = 0: directly): offloads off on
    each vNF's veth, each vNF sends what it forwards to the next hop's MAC; returns once src reaches dst."""
    k = len(states)
    macs = []
    for s, pid in zip(states, pids, strict=True):
        node.exec(["ethtool", "-K", s["ports"][0]["name"], *OFFLOADS])
        in_ns(pid, "ethtool", "-K", "in", *OFFLOADS)
        with contextlib.closing(iproute_in(f"/proc/{pid}/ns/net")) as ipr:
            macs.append(ipr.get_links(ipr.link_lookup(ifname="in")[0])[0].get_attr("IFLA_ADDRESS"))
    dst_mac, src_mac = mac_of(dst, pairs[1].a), mac_of(src, pairs[0].a)
    for i, pid in enumerate(pids):
        nxt = macs[i + 1] if i + 1 < k else dst_mac
        in_ns(pid, "ip", "neigh", "replace", DST_IP, "lladdr", nxt, "dev", "in", "nud", "permanent")
    src.exec(["ip", "neigh", "replace", DST_IP, "lladdr", macs[0] if k else dst_mac, "dev", pairs[0].a,
              "nud", "permanent"])
    dst.exec(["ip", "neigh", "replace", SRC_IP, "lladdr", src_mac, "dev", pairs[1].a, "nud", "permanent"])
    path = [sw.port_ids["src"], *(s["ports"][0]["pof_port"] for s in states), sw.port_ids["dst"]]
    sw.steer([*itertools.pairwise(path), (sw.port_ids["dst"], sw.port_ids["src"])])
    # The first frames may go while the switch still brings a just added port up.
    deadline = time.monotonic() + 15
    while src.exec(["ping", "-c", "1", "-W", "1", DST_IP], check=False).returncode != 0:
        if time.monotonic() > deadline:
            raise RuntimeError(f"kernel chain of {k}: {DST_IP} unreachable through the switch; "
                               f"ports {sw.counters()}\n{sw.tails()}")


def kernel_chain(m: Any, node: Any, hp: Any, ids: Ids, kind: str, k: int, frame: int, seconds: float) -> Measured:
    """src -> dst through k kernel-fwd vNFs (k = 0: directly through the switch): iperf3 TCP goodput at 1500 B,
    UDP 64-byte frames counted at the dst port otherwise."""
    with kernel_hosts(node) as (src, dst, pairs):
        ports = [("src", f"net_af_packet0,iface={pairs[0].b},qdisc_bypass=0"),
                 ("dst", f"net_af_packet1,iface={pairs[1].b},qdisc_bypass=0")]
        with (SteeredPofSwitch(node, str(hp.mount), Path(m.config.state_dir), ports, tag="chk") as sw,
              chain_vnfs(m, sw, specs_of(kind, ids, k)) as states):
            names = [s["ports"][0]["name"] for s in states]
            pids = [m.runtime.inspect(m.store.get(s["vnf_id"]).container_id).pid for s in states]
            route_chain(sw, node, src, dst, pairs, states, pids)
            cpu = CpuMeter(m, states)
            if frame >= 1500:
                before = sw.counters()
                cpu.start()
                out = iperf(src, dst, seconds)
                cpu_pct, after = cpu.stop(), sw.counters()
                d = {n: delta(after, before, n) for n in ["src", *names, "dst"]}
                end = json.loads(out)["end"]
                check_hops(d, names, int(end["sum_received"]["bytes"]), f"kernel chain of {k}")
                gbps = end["sum_received"]["bits_per_second"] / 1e9
                return Measured(gbps, gbps * 1e9 / 8 / (frame - 52) / 1e6, d, cpu_pct)  # MSS 1448 a frame
            with iperf_udp(src, dst, seconds):
                time.sleep(WARMUP)
                before, t0 = sw.counters(), time.monotonic()
                cpu.start()
                time.sleep(seconds)
                after, t1 = sw.counters(), time.monotonic()
                cpu_pct = cpu.stop()
            d = {n: delta(after, before, n) for n in ["src", *names, "dst"]}
            check_hops(d, names, d["dst"]["tx_bytes"], f"kernel chain of {k} at {frame} B")
            return Measured(d["dst"]["tx_bytes"] * 8 / (t1 - t0) / 1e9, d["dst"]["tx_packets"] / (t1 - t0) / 1e6,
                            d, cpu_pct)


def stop_proc(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.terminate()
    try:
        proc.wait(5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def iperf(src: Any, dst: Any, seconds: float) -> str:
    server = dst.popen(["iperf3", "-s", "-1", "-B", DST_IP], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(0.5)
        res = src.exec(["iperf3", "-c", DST_IP, "-t", str(max(1, round(seconds))), "-O", str(round(WARMUP)), "-J"],
                       check=False, timeout=seconds + WARMUP + 30)
        if res.returncode != 0:
            raise RuntimeError(f"iperf3 failed ({res.returncode}): {res.stdout[-2000:]} {res.stderr[-2000:]}")
        return res.stdout
    finally:
        stop_proc(server)


@contextlib.contextmanager
def iperf_udp(src: Any, dst: Any, seconds: float) -> Any:
    """iperf3 UDP src -> dst, 64-byte frames at an unlimited rate, running for the warm-up and ``seconds``."""
    server = dst.popen(["iperf3", "-s", "-1", "-B", DST_IP], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    client = None
    try:
        time.sleep(0.5)
        client = src.popen(["iperf3", "-c", DST_IP, "-u", "-b", "0", "-l", str(UDP_PAYLOAD_64), "-t",
                            str(round(seconds + WARMUP + 2))], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        yield
    finally:
        if client is not None:
            stop_proc(client)
        stop_proc(server)


def hops_note(d: dict[str, dict[str, int]]) -> str:
    return " ".join(f"{n}:rx{v['rx_packets']}/tx{v['tx_packets']}" for n, v in d.items())


def vnf_note(stats: list[dict]) -> str:
    """What our vNFs said about themselves: wake mode, burst (set, mean), idle and paced sleeps, packets, tx drops,
    drops at the chain head for backpressure, most in the ring."""
    return " ".join(f"[wake {s['wake']} burst {s['burst']} mean {s['mean_burst']:.1f} sleeps {s['idle_sleeps']} "
                    f"paced {s.get('paced_sleeps', 0)} rx {s['rx_packets']} tx_dropped {s['tx_dropped']} "
                    f"backpressure_dropped {s.get('backpressure_dropped', 0)} ring_max {s['occupancy_max']}]"
                    for s in stats)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=5)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--chains", default="1,2,4", help="chain lengths, comma-separated")
    ap.add_argument("--kinds", default="dpdk,testpmd,kernel", help=f"of {', '.join(KINDS)}, comma-separated")
    ap.add_argument("--frames", default=",".join(map(str, FRAMES)), help="frame sizes: 1500 (Gbit/s), 64 (Mpps)")
    args = ap.parse_args()
    from wislice_testbed.hugepages import Hugepages

    chains = [int(x) for x in args.chains.split(",")]
    kinds = args.kinds.split(",")
    frames = [int(x) for x in args.frames.split(",")]
    raw: dict[str, list[float]] = {}
    cpu_raw: dict[str, list[list[float]]] = {}
    last: dict[str, str] = {}
    ids = Ids()
    load_start = os.getloadavg()
    hp = Hugepages.reserve(384)
    try:
        # switch_cpus: placement keeps the vNFs off the switch's lcore (all of them on CPU 0 on a 2-CPU machine)
        with bench_node(hugepages_dir=str(hp.mount), switch_cpus=str(SWITCH_CPU)) as (m, _dockerd, node):
            for run in range(args.runs):
                for k, frame in itertools.product((0, *chains), frames):
                    unit = "gbps" if frame >= 1500 else "mpps"
                    # k = 0 is the switch alone: one reference per backend (DPDK ports, AF_PACKET ports)
                    todo = kinds if k else sorted({"kernel" if kd == "kernel" else "dpdk" for kd in kinds})
                    for kind in todo:
                        fn = kernel_chain if kind == "kernel" else dpdk_chain
                        r = fn(m, node, hp, ids, kind, k, frame, args.seconds)
                        key = f"{kind}_{unit}_{k}" if k else f"{kind}_switch_only_{unit}"
                        raw.setdefault(key, []).append(r.gbps if unit == "gbps" else r.mpps)
                        if k:
                            cpu_raw.setdefault(key, []).append(r.cpu_pct)
                        last[key] = hops_note(r.ports) + (" " + vnf_note(r.vnf_stats) if r.vnf_stats else "")
                        print(f"run {run + 1} {key} {raw[key][-1]:.3f}  cpu% {[round(c) for c in r.cpu_pct]}  "
                              f"ports: {last[key]}", flush=True)
    finally:
        hp.release()
    load_end = os.getloadavg()
    med = {key: statistics.median(v) for key, v in raw.items()}
    metrics: dict[str, float] = {}
    units: dict[str, str] = {}
    cpu_notes = []
    for key in sorted(cpu_raw):
        # each vNF's CPU: the median over runs, position by position; the metric is their mean
        per_vnf = [statistics.median(run[i] for run in cpu_raw[key]) for i in range(len(cpu_raw[key][0]))]
        kind, unit, k = key.rsplit("_", 2)
        metrics[key] = med[key]
        units[key] = "Gbit/s" if unit == "gbps" else "Mpps"
        metrics[f"{kind}_cpu_pct_{unit}_{k}"] = statistics.fmean(per_vnf)
        units[f"{kind}_cpu_pct_{unit}_{k}"] = "% of a core per vNF"
        cpu_notes.append(f"{key}: {', '.join(f'{c:.0f}' for c in per_vnf)}")
    if {"dpdk_gbps_4", "kernel_gbps_4"} <= med.keys():
        metrics["goal_dpdk4_over_kernel4"] = med["dpdk_gbps_4"] / med["kernel_gbps_4"]
        units["goal_dpdk4_over_kernel4"] = "ratio (goal >= 5)"
    if {"dpdk_gbps_1", "dpdk_gbps_2"} <= med.keys():
        metrics["goal_dpdk2_over_dpdk1"] = med["dpdk_gbps_2"] / med["dpdk_gbps_1"]
        units["goal_dpdk2_over_dpdk1"] = "ratio (goal >= 0.4)"
    reference = {key: v for key, v in med.items() if "switch_only" in key}
    notes = (
        f"medians of {args.runs} runs of {args.seconds:g} s, chains of {chains} vNFs, kinds {kinds}, frames "
        f"{frames} B, all on one 2-CPU machine; load average (1/5/15 min) {load_start[0]:.2f}/{load_start[1]:.2f}/"
        f"{load_start[2]:.2f} at the start and {load_end[0]:.2f}/{load_end[1]:.2f}/{load_end[2]:.2f} at the end "
        "(other engineers' jobs share the machine). "
        "dpdk = our vNF (vnfs/dpdk-vnf, mode fwd = macswap, burst 32, ring 1024, adaptive polling with rx "
        "interrupts); testpmd = dpdk-fwd (testpmd io, busy-polls: the reference); kernel = kernel-fwd. "
        f"All go through the real DPDK pofswitch (one lcore on CPU {SWITCH_CPU}, adaptive polling) in the node "
        "namespace, steered by the pof-switch test controller (pofctl): MM table 0 on the input-port metadata "
        "(bits 16-23), one flow per hop; the vNFs' ports are hot-added by the agent (MgmtSwitch). "
        "DPDK kinds: switch ports src = net_null (frames generated as fast as the switch polls) and sink = tx-only "
        "net_null, plus one vhost-user port per vNF (switch = vhost server, vNF = virtio-user client; every vNF "
        "has one lcore pinned to CPU 0 (both of testpmd's), so the k vNFs share CPU 0 with dockerd and the bench). "
        "Flows src -> vNF1 -> ... -> vNFk -> sink; rate = sink port tx x 8 / window (Gbit/s) or tx packets / "
        f"window (Mpps), after {WARMUP:g} s of warm-up. Kernel: k kernel-fwd vNFs whose host veths are "
        "net_af_packet ports (qdisc_bypass=0); src and dst namespaces on af_packet ports by veths; tx/tso/gso/gro "
        "off on every veth end; flows src -> vNF1 -> ... -> vNFk -> dst and dst -> src; each vNF forwards out of "
        "its 'in' to the next hop's MAC (static neighbour); 1500 B: iperf3 TCP (1 stream, MSS 1448), first "
        f"{WARMUP:g} s omitted, receiver goodput; 64 B: iperf3 UDP, 22-byte payloads, unlimited rate, the dst "
        "port's tx over the window. Every hop is checked on the switch's port counters (each vNF port's rx and tx "
        ">= 90% of what left the chain). CPU: each vNF container cgroup's CPU time over the window, % of one "
        "core, median over runs per chain position (*_cpu_pct_* = their mean); kernel vNFs forward in softirq, "
        "charged mostly outside their cgroup, so theirs is a floor. Per vNF: " + "; ".join(cpu_notes)
        + ". reference = the switch alone in the same run (src -> sink, resp. src <-> dst, no vNF). Per-port "
        "packet deltas of the last run (switch side: rx = from the port, tx = to it; kernel 1500 B over the whole "
        "iperf3 run), with our vNFs' own stats (stats.json): " + "; ".join(f"{k}: {v}" for k, v in last.items()))
    path = write_result("vnf-chain", metrics, units, reference=reference, notes=notes)
    print(path, json.dumps(metrics, indent=1), reference)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
