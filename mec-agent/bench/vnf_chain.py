"""vnf-chain: throughput through chains of 1, 2 and 4 vNFs, DPDK (vhost-user/virtio-user) vs kernel (veth), in
one run on one machine.

DPDK: k dpdk-fwd vNFs (testpmd io, virtio-user in server mode) created by the agent; one host dpdk-testpmd
plays the switch (the pof-switch only forwards along flows a POF controller installs): ports net_null0 (source
and sink, 1500-byte frames) + one vhost-user client port per vNF, --port-topology=chained, so a frame goes
null -> vNF1 -> vNF2 ... -> vNFk -> null. Throughput = the null port's Tx-pps x 1500 B.
Kernel: k kernel-fwd vNFs created by the agent; the node namespace routes src -> vNF1 -> ... -> vNFk -> dst with
per-interface policy routes; iperf3 TCP from a src namespace to a dst namespace. Both on a 2-vCPU VM where the
vNFs share the cores with the generator: numbers compare only within this run.
"""

from __future__ import annotations

import argparse
import re
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))  # benchlib

from benchlib import write_result
from common import bench_node

from wislice_mec_agent.switch import SwitchPort
from wislice_mec_agent.wiring import iproute_in

FRAME = 1500


class Sockets:
    """Switch attachment for the bench: remembers each vNF's vhost-user socket; the host testpmd attaches later."""

    present = True

    def __init__(self) -> None:
        self.sockets: dict[str, str] = {}

    def add_vhost(self, name: str, socket_path: str) -> int | None:
        self.sockets[name] = socket_path
        return len(self.sockets)

    def add_veth(self, name: str, ifname: str) -> int | None:
        return None

    def remove(self, name: str) -> bool:
        return self.sockets.pop(name, None) is not None

    def ports(self) -> dict[str, SwitchPort]:
        return {}


def sh(ns: Any, *argv: str) -> str:
    res = ns.exec(list(argv), check=True)
    return res.stdout if isinstance(res.stdout, str) else res.stdout.decode()


def dpdk_chain(k: int, hugepages: Any, seconds: float) -> float:
    sockets = Sockets()
    with bench_node(hugepages_dir=str(hugepages.mount)) as (m, _d, _ns):
        m.switch = sockets
        for i in range(k):
            m.create({"tenant_id": 7, "instance_id": i + 1, "image": "dpdk-fwd", "chain_position": i, "cpu": 1.0,
                      "memory_mib": 128, "params": {"mode": "io", "vhost_server": True}})
        paths = [sockets.sockets[n] for n in sorted(sockets.sockets)]
        deadline = time.monotonic() + 20
        while not all(Path(p).exists() for p in paths):
            if time.monotonic() > deadline:
                raise TimeoutError("vNF vhost sockets did not appear")
            time.sleep(0.05)
        argv = ["dpdk-testpmd", "-l", "0,1", "--in-memory", "--no-pci", "--file-prefix", "chainhost",
                "--vdev", f"net_null0,size={FRAME}"]
        for i, p in enumerate(paths):
            argv += ["--vdev", f"net_vhost{i},iface={p},client=1,queues=1"]
        argv += ["--", "--forward-mode=io", "--port-topology=chained", "--auto-start", "--stats-period", "1",
                 "--nb-cores", "1", "--total-num-mbufs", "16384"]
        log = Path(m.config.state_dir) / "host-testpmd.log"
        with open(log, "wb") as out:
            proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        try:
            time.sleep(seconds + 2)
        finally:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        text = log.read_text(errors="replace")
        # Per-period blocks, port 0 = net_null: its Tx-pps is what came out of the last vNF.
        pps = [int(x) for x in re.findall(r"NIC statistics for port 0\s+#+\s.*?Tx-pps:\s+(\d+)", text, re.S)]
        samples = pps[2:] or pps  # skip warm-up
        if not samples:
            raise RuntimeError(f"no statistics from the host testpmd:\n{text[-2000:]}")
        return statistics.median(samples) * FRAME * 8 / 1e9


def kernel_chain(k: int, seconds: float) -> float:
    from wislice_testbed.netns import Namespace
    from wislice_testbed.veth import create_veth

    with bench_node() as (m, _d, node):
        src, dst = Namespace.create("cs"), Namespace.create("cd")
        pairs = []
        try:
            pairs.append(create_veth(src, node, addr_a="10.10.1.2/24", addr_b="10.10.1.1/24"))
            pairs.append(create_veth(dst, node, addr_a="10.10.2.2/24", addr_b="10.10.2.1/24"))
            sh(src, "ip", "route", "add", "default", "via", "10.10.1.1")
            sh(dst, "ip", "route", "add", "default", "via", "10.10.2.1")
            sh(node, "sysctl", "-qw", "net.ipv4.ip_forward=1")
            states = [m.create({"tenant_id": 8, "instance_id": i + 1, "image": "kernel-fwd", "chain_position": i,
                                "cpu": 1.0, "memory_mib": 32, "params": {}}) for i in range(k)]
            hosts = [s["ports"][0]["name"] for s in states]
            src_if = sh(node, "ip", "-o", "route", "get", "10.10.1.2").split(" dev ")[1].split()[0]
            for i, s in enumerate(states):
                sh(node, "ip", "route", "add", f"{s['address']}/32", "dev", hosts[i])
                mac = sh(node, "cat", f"/sys/class/net/{hosts[i]}/address").strip()
                rec = m.store.get(s["vnf_id"])
                pid = m.runtime.inspect(rec.container_id).pid
                with iproute_in(f"/proc/{pid}/ns/net") as ipr:  # the vNF sends everything back to its host veth
                    idx = ipr.link_lookup(ifname="in")[0]
                    ipr.neigh("add", dst="10.10.2.2", lladdr=mac, ifindex=idx, state=0x80)  # NUD_PERMANENT
                iif = src_if if i == 0 else hosts[i - 1]
                sh(node, "ip", "route", "add", "default", "via", s["address"], "dev", hosts[i], "onlink",
                   "table", str(100 + i))
                sh(node, "ip", "rule", "add", "iif", iif, "to", "10.10.2.0/24", "lookup", str(100 + i),
                   "pref", str(100 + i))
            server = subprocess.Popen(["ip", "netns", "exec", dst.name, "iperf3", "-s", "-1"],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            try:
                time.sleep(0.5)
                out = sh(src, "iperf3", "-c", "10.10.2.2", "-t", str(int(seconds)), "-O", "1", "-J")
            finally:
                server.wait(10) if server.poll() is None and _stop(server) else None
            import json

            gbps = json.loads(out)["end"]["sum_received"]["bits_per_second"] / 1e9
            # Prove the chain was really traversed: the last vNF's host veth sent the data back into the node.
            last = m.wiring.stats(hosts[-1])
            if last is None or last.rx_bytes < 1_000_000:
                raise RuntimeError("traffic bypassed the vNF chain")
            return gbps
        finally:
            # Veths first: a VethPair left to the testbed janitor would reopen (and so recreate, pyroute2 NetNS
            # uses O_CREAT) the namespaces deleted here.
            for pair in pairs:
                pair.delete()
            src.delete()
            dst.delete()


def _stop(proc: subprocess.Popen[bytes]) -> bool:
    proc.terminate()
    return True


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=5)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    from wislice_testbed.hugepages import Hugepages

    metrics: dict[str, float] = {}
    hp = Hugepages.reserve(384)
    try:
        for k in (1, 2, 4):
            metrics[f"dpdk_gbps_{k}"] = statistics.median(dpdk_chain(k, hp, args.seconds) for _ in range(args.runs))
            metrics[f"kernel_gbps_{k}"] = statistics.median(kernel_chain(k, args.seconds) for _ in range(args.runs))
            print(k, metrics[f"dpdk_gbps_{k}"], metrics[f"kernel_gbps_{k}"], flush=True)
    finally:
        hp.release()
    notes = (f"medians of {args.runs} runs of {args.seconds:g} s. DPDK: {FRAME}-byte frames from a host testpmd "
             "(net_null source/sink, vhost-user client ports, chained topology = stand-in for the pof-switch, "
             "which needs controller flows to forward) through k dpdk-fwd vNFs (testpmd io on virtio-user, both "
             "lcores pinned to CPU 0, so the k vNFs busy-poll one shared core). Kernel: iperf3 TCP (veth GSO/TSO "
             "on) src ns -> node ns policy routes -> k kernel-fwd vNFs -> dst ns. 2 vCPUs shared by generator, "
             "switch stand-in and vNFs; other engineers' jobs were running.")
    path = write_result("vnf-chain", metrics, {k: "Gbit/s" for k in metrics}, notes=notes)
    print(path, metrics)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
