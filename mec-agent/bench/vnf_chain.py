"""vnf-chain: throughput through chains of 1, 2 and 4 vNFs wired to the real POF switch, DPDK (vhost-user /
virtio-user) vs kernel (veth), in one run on one machine.

Both kinds go through the DPDK pofswitch (pof-switch/build/pofswitch, one lcore on CPU 1) in the node namespace,
under the pof-switch test controller (pofctl) listening in that namespace; the agent (VnfManager with its
MgmtSwitch) hot-adds each vNF's port. The controller installs one MM table keyed on the input-port metadata
(bits 16-23), one flow per hop.

DPDK: switch ports src = net_null (1500-byte frames, as fast as the switch polls), sink = tx-only net_null, and
the vhost-user port (switch = vhost server, vNF testpmd io = virtio-user client) of each of k dpdk-fwd vNFs.
Flows: src -> vNF1 -> ... -> vNFk -> sink. Throughput = the sink port's tx bytes over the window, after a warm-up.
Kernel: k kernel-fwd vNFs whose host veths are net_af_packet ports (qdisc_bypass=0); namespaces src (10.10.0.1)
and dst (10.10.0.2) on af_packet ports by veths, offloads off everywhere. Flows: src -> vNF1 -> ... -> vNFk -> dst
and dst -> src (ACKs). Each vNF's neighbour for 10.10.0.2 is the next hop's MAC, src's is vNF1's; iperf3 TCP
src -> dst. Reference (same run): the switch alone, src -> sink (DPDK) and src <-> dst (kernel), no vNF.
Every hop is checked on the switch's port counters.
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
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))  # benchlib

from benchlib import write_result
from common import SWITCH_CPU, SteeredPofSwitch, bench_node

from wislice_mec_agent.switch import NoSwitch, SwitchPort
from wislice_mec_agent.wiring import iproute_in

FRAME = 1500
WARMUP = 2.0
SRC_IP, DST_IP = "10.10.0.1", "10.10.0.2"
OFFLOADS = ["tx", "off", "tso", "off", "gso", "off", "gro", "off"]  # AF_PACKET sees frames as sent
DPDK_TENANT, KERNEL_TENANT = 7, 8


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


def dpdk_chain(m: Any, node: Any, hp: Any, ids: Ids, k: int, seconds: float) -> tuple[float, dict]:
    """Gbit/s out of the sink for a chain of k dpdk-fwd vNFs (k = 0: src -> sink directly through the switch)."""
    ports = [("src", f"net_null0,size={FRAME}"), ("sink", "net_null1,no-rx=1")]
    with SteeredPofSwitch(node, str(hp.mount), Path(m.config.state_dir), ports, tag="chd") as sw:
        specs = [{"tenant_id": DPDK_TENANT, "instance_id": i, "image": "dpdk-fwd", "chain_position": pos,
                  "cpu": 1.0, "memory_mib": 128, "params": {"mode": "io"}} for pos, i in enumerate(ids.take(k))]
        with chain_vnfs(m, sw, specs) as states:
            names = [s["ports"][0]["name"] for s in states]
            path = [sw.port_ids["src"], *(s["ports"][0]["pof_port"] for s in states), sw.port_ids["sink"]]
            sw.steer(list(itertools.pairwise(path)))
            wait_flowing(sw, "sink", 30, f"DPDK chain of {k}")
            time.sleep(WARMUP)
            before, t0 = sw.counters(), time.monotonic()
            time.sleep(seconds)
            after, t1 = sw.counters(), time.monotonic()
            d = {n: delta(after, before, n) for n in ["src", *names, "sink"]}
            check_hops(d, names, d["sink"]["tx_bytes"], f"DPDK chain of {k}")
            return d["sink"]["tx_bytes"] * 8 / (t1 - t0) / 1e9, d


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


def kernel_chain(m: Any, node: Any, hp: Any, ids: Ids, k: int, seconds: float) -> tuple[float, dict]:
    """iperf3 TCP Gbit/s src -> dst through k kernel-fwd vNFs (k = 0: src -> dst directly through the switch)."""
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
        ports = [("src", f"net_af_packet0,iface={pairs[0].b},qdisc_bypass=0"),
                 ("dst", f"net_af_packet1,iface={pairs[1].b},qdisc_bypass=0")]
        with SteeredPofSwitch(node, str(hp.mount), Path(m.config.state_dir), ports, tag="chk") as sw:
            specs = [{"tenant_id": KERNEL_TENANT, "instance_id": i, "image": "kernel-fwd", "chain_position": pos,
                      "cpu": 1.0, "memory_mib": 32, "params": {}} for pos, i in enumerate(ids.take(k))]
            with chain_vnfs(m, sw, specs) as states:
                names = [s["ports"][0]["name"] for s in states]
                pids = [m.runtime.inspect(m.store.get(s["vnf_id"]).container_id).pid for s in states]
                macs = []
                for name, pid in zip(names, pids, strict=True):
                    node.exec(["ethtool", "-K", name, *OFFLOADS])
                    in_ns(pid, "ethtool", "-K", "in", *OFFLOADS)
                    with contextlib.closing(iproute_in(f"/proc/{pid}/ns/net")) as ipr:
                        macs.append(ipr.get_links(ipr.link_lookup(ifname="in")[0])[0].get_attr("IFLA_ADDRESS"))
                dst_mac, src_mac = mac_of(dst, pairs[1].a), mac_of(src, pairs[0].a)
                for i, pid in enumerate(pids):  # each vNF sends what it forwards to the next hop's MAC
                    nxt = macs[i + 1] if i + 1 < k else dst_mac
                    in_ns(pid, "ip", "neigh", "replace", DST_IP, "lladdr", nxt, "dev", "in", "nud", "permanent")
                src.exec(["ip", "neigh", "replace", DST_IP, "lladdr", macs[0] if k else dst_mac, "dev", pairs[0].a,
                          "nud", "permanent"])
                dst.exec(["ip", "neigh", "replace", SRC_IP, "lladdr", src_mac, "dev", pairs[1].a, "nud",
                          "permanent"])
                path = [sw.port_ids["src"], *(s["ports"][0]["pof_port"] for s in states), sw.port_ids["dst"]]
                sw.steer([*itertools.pairwise(path), (sw.port_ids["dst"], sw.port_ids["src"])])
                # The first frames may go while the switch still brings a just added port up.
                deadline = time.monotonic() + 15
                while src.exec(["ping", "-c", "1", "-W", "1", DST_IP], check=False).returncode != 0:
                    if time.monotonic() > deadline:
                        raise RuntimeError(f"kernel chain of {k}: {DST_IP} unreachable through the switch; "
                                           f"ports {sw.counters()}\n{sw.tails()}")
                before = sw.counters()
                out = iperf(src, dst, seconds)
                after = sw.counters()
                d = {n: delta(after, before, n) for n in ["src", *names, "dst"]}
                end = json.loads(out)["end"]
                check_hops(d, names, int(end["sum_received"]["bytes"]), f"kernel chain of {k}")
                return end["sum_received"]["bits_per_second"] / 1e9, d
    finally:
        # Veths first: a VethPair left to the testbed janitor would reopen (and so recreate, pyroute2 NetNS
        # uses O_CREAT) the namespaces deleted here.
        for pair in pairs:
            pair.delete()
        for ns in (src, dst):
            if ns is not None:
                ns.delete()


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
        if server.poll() is None:
            server.terminate()
        try:
            server.wait(5)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def hops_note(d: dict[str, dict[str, int]]) -> str:
    return " ".join(f"{n}:rx{v['rx_packets']}/tx{v['tx_packets']}" for n, v in d.items())


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=5)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--chains", default="1,2,4", help="chain lengths, comma-separated")
    args = ap.parse_args()
    from wislice_testbed.hugepages import Hugepages

    chains = [int(x) for x in args.chains.split(",")]
    raw: dict[str, list[float]] = {}
    last: dict[str, str] = {}
    ids = Ids()
    hp = Hugepages.reserve(384)
    try:
        with bench_node(hugepages_dir=str(hp.mount)) as (m, _dockerd, node):
            for run in range(args.runs):
                for k in (0, *chains):
                    for kind, fn in (("dpdk", dpdk_chain), ("kernel", kernel_chain)):
                        gbps, d = fn(m, node, hp, ids, k, args.seconds)
                        key = f"{kind}_gbps_{k}" if k else f"{kind}_switch_only_gbps"
                        raw.setdefault(key, []).append(gbps)
                        last[key] = hops_note(d)
                        print(f"run {run + 1} {key} {gbps:.3f} Gbit/s  ports: {last[key]}", flush=True)
    finally:
        hp.release()
    med = {key: statistics.median(v) for key, v in raw.items()}
    metrics = {f"{kind}_gbps_{k}": med[f"{kind}_gbps_{k}"] for k in chains for kind in ("dpdk", "kernel")}
    reference = {"dpdk_switch_only_gbps": med["dpdk_switch_only_gbps"],
                 "kernel_switch_only_gbps": med["kernel_switch_only_gbps"]}
    notes = (
        f"medians of {args.runs} runs of {args.seconds:g} s, chains of {chains} vNFs, all on one 2-CPU machine. "
        f"Both kinds go through the real DPDK pofswitch (one lcore on CPU {SWITCH_CPU}, adaptive polling) in the "
        "node namespace, steered by the pof-switch test controller (pofctl): MM table 0 on the input-port metadata "
        "(bits 16-23), one flow per hop; the vNFs' ports are hot-added by the agent (MgmtSwitch). "
        f"DPDK: switch ports src = net_null ({FRAME}-byte frames, generated as fast as the switch polls) and "
        "sink = tx-only net_null, plus one vhost-user port per dpdk-fwd vNF (switch = vhost server, vNF = testpmd "
        "io on virtio-user client; each vNF pins both its lcores to CPU 0, so the k vNFs busy-poll the one shared "
        "CPU 0 with dockerd and the bench). Flows src -> vNF1 -> ... -> vNFk -> sink; throughput = sink port tx "
        f"bytes x 8 / window, after {WARMUP:g} s of warm-up. Kernel: k kernel-fwd vNFs whose host veths are "
        "net_af_packet ports (qdisc_bypass=0); src and dst namespaces on af_packet ports by veths; tx/tso/gso/gro "
        "off on every veth end; flows src -> vNF1 -> ... -> vNFk -> dst and dst -> src (ACKs); each vNF forwards "
        "out of its 'in' to the next hop's MAC (static neighbour); iperf3 TCP "
        f"(1 stream, MSS 1448) src -> dst, first {WARMUP:g} s omitted, receiver goodput. The kernel forwarding "
        "runs in softirq on whichever CPU sent the frame (the switch's AF_PACKET sends run on CPU 1), iperf3 is "
        "not pinned. Every hop is checked on the switch's port counters (each vNF port's rx and tx >= 90% of "
        "what left the chain). reference = the switch alone in the same run (src -> sink, resp. src <-> dst, no "
        "vNF), so chain numbers read as ratios of it. Per-port packet deltas of the last run (switch side: rx = "
        "from the port, tx = to it; DPDK over the measuring window, kernel over the whole iperf3 run): "
        + "; ".join(f"{k}: {v}" for k, v in last.items())
        + f". Load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs.")
    path = write_result("vnf-chain", metrics, {k: "Gbit/s" for k in metrics}, reference=reference, notes=notes)
    print(path, metrics, reference)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
