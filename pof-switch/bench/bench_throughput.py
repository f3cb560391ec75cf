"""pof-switch-throughput: one forwarding core, the two-table POF pipeline (16-bit match at bit offset 99, GOTO,
EM match + METER + OUTPUT, 300 flows) against dpdk-testpmd io-forward on the same ports in the same run.

- vhost-user: a virtio-user traffic process (testpmd txonly, the path a DPDK vNF uses) feeds the switch's
  vhost-user port; the switch forwards to a transmit-only net_null sink. 64 B and 1500 B frames.
- net_null: two null ports, I/O is free and the pipeline's own cost shows.
Each run measures pofswitch, then testpmd, back to back; ratios are per run, then the median.
This machine is shared (other sessions run builds and VMs on its 2 CPUs), so each rate is also given per
CPU-second the forwarder actually got (`*_per_cpu`): wall-clock rate / the process's CPU share in the window.
"""

from __future__ import annotations

import os
import statistics
import threading
import time

from harness import (OTHER_CPU, SWITCH_CPU, Bench, cpu_share, program_pipeline, switch_rate,
                     testpmd_tx_mpps)

from benchlib import print_table, write_result  # noqa: E402  (bench/ is on sys.path via harness)

RUNS = 3
SECONDS = 4
PEER = bytes.fromhex("020000000002")
SINK = "net_null0,no-rx=1"  # a transmit-only sink: nothing comes back


def txonly_frame(size: int) -> bytes:
    """The first bytes of what testpmd txonly sends with --eth-peer=0,02:00:00:00:00:02 (Ether, IPv4, UDP)."""
    return PEER + bytes(6) + bytes.fromhex("0800") + bytes([0x45]) + bytes(max(0, size - 15))


def measure(pid: int, rate_fn) -> tuple[float, float]:
    """(median wall-clock Mpps, CPU share) over the same SECONDS window."""
    share: list[float] = []
    t = threading.Thread(target=lambda: share.append(cpu_share(pid, SECONDS)))
    t.start()
    samples = rate_fn()
    t.join()
    return (statistics.median(samples) if samples else 0.0), share[0]


def run_vhost(b: Bench, size: int, pof: bool) -> tuple[float, float]:
    sock = b.dir / f"vh{b.n}.sock"
    vhost = f"net_vhost0,iface={sock},queues=1"
    if pof:
        proc, ctl, ports, mgmt = b.start_switch([("vh", vhost), ("sink", SINK)], ["--busy-poll"])
        program_pipeline(ctl, ports, txonly_frame(size))
    else:
        proc = b.start_testpmd([vhost, SINK], f"0@{OTHER_CPU},1@{SWITCH_CPU}", ["--forward-mode=io"], "tp")
        time.sleep(1.5)
    gen = b.start_testpmd([f"net_virtio_user0,path={sock},queues=1"], f"0@{OTHER_CPU},1@{OTHER_CPU}",
                          ["--forward-mode=txonly", f"--txpkts={size}", "--eth-peer=0,02:00:00:00:00:02"], "gen")
    time.sleep(2)
    if pof:
        rate, share = measure(proc.pid, lambda: switch_rate(mgmt, SECONDS, ["sink"]))
        ctl.close()
        b.stop(gen)
        b.stop(proc)
    else:
        _, share = measure(proc.pid, lambda: [time.sleep(SECONDS)])
        b.stop(gen)
        samples = testpmd_tx_mpps(b.stop(proc), [1])[-SECONDS - 1:-1]
        rate = statistics.median(samples) if samples else 0.0
    return rate, share


def run_null(b: Bench, pof: bool) -> tuple[float, float]:
    if pof:
        proc, ctl, ports, mgmt = b.start_switch([("n0", "net_null0"), ("n1", "net_null1")], ["--busy-poll"])
        program_pipeline(ctl, ports, bytes(64))
        time.sleep(1)
        rate, share = measure(proc.pid, lambda: switch_rate(mgmt, SECONDS, ["n0", "n1"]))
        ctl.close()
        b.stop(proc)
    else:
        proc = b.start_testpmd(["net_null0", "net_null1"], f"0@{OTHER_CPU},1@{SWITCH_CPU}", ["--forward-mode=io"],
                               "tp")
        time.sleep(2)
        _, share = measure(proc.pid, lambda: [time.sleep(SECONDS)])
        samples = testpmd_tx_mpps(b.stop(proc))[-SECONDS - 1:-1]
        rate = statistics.median(samples) if samples else 0.0
    return rate, share


def main() -> None:
    b = Bench()
    raw: dict[str, list[tuple[float, float]]] = {}
    configs = {"": lambda pof: run_vhost(b, 64, pof), "_1500": lambda pof: run_vhost(b, 1500, pof),
               "_null": lambda pof: run_null(b, pof)}
    try:
        for _ in range(RUNS):
            for suffix, fn in configs.items():
                for who in ("pof", "testpmd"):
                    key = f"mpps_{who}{suffix}"
                    raw.setdefault(key, []).append(fn(who == "pof"))
                    print(key, "Mpps %.3f, CPU share %.2f" % raw[key][-1], flush=True)
    finally:
        b.release()

    def med(key: str, per_cpu: bool = False) -> float:
        return statistics.median([r / s if per_cpu and s > 0 else r for r, s in raw[key]])

    def ratio(suffix: str, per_cpu: bool = False) -> float:
        pairs = zip(raw[f"mpps_pof{suffix}"], raw[f"mpps_testpmd{suffix}"])
        vals = [(p / ps if per_cpu else p) / (t / ts if per_cpu else t) for (p, ps), (t, ts) in pairs if t and ts]
        return statistics.median(vals) if vals else 0.0

    metrics = {
        "mpps_pof": med("mpps_pof"), "mpps_testpmd": med("mpps_testpmd"), "ratio": ratio(""),
        "gbps_pof_1500": med("mpps_pof_1500") * 1500 * 8 / 1000,
        "gbps_testpmd_1500": med("mpps_testpmd_1500") * 1500 * 8 / 1000, "ratio_1500": ratio("_1500"),
        "mpps_pof_null": med("mpps_pof_null"), "mpps_testpmd_null": med("mpps_testpmd_null"),
        "ratio_null": ratio("_null"),
        "mpps_pof_null_per_cpu": med("mpps_pof_null", True), "mpps_testpmd_null_per_cpu": med("mpps_testpmd_null", True),
        "ratio_null_per_cpu": ratio("_null", True),
        "mpps_pof_per_cpu": med("mpps_pof", True), "mpps_testpmd_per_cpu": med("mpps_testpmd", True),
        "ratio_per_cpu": ratio("", True),
    }
    units = {k: ("x" if k.startswith("ratio") else "Gbit/s" if k.startswith("gbps") else
                 "Mpps per CPU-second" if k.endswith("per_cpu") else "Mpps") for k in metrics}
    notes = (f"{RUNS} runs x {SECONDS} one-second samples; pofswitch (--busy-poll, like testpmd) and testpmd io each "
             f"forward on one core (CPU {SWITCH_CPU}). vhost-user: testpmd txonly on a virtio-user port "
             f"(CPU {OTHER_CPU}) -> vhost-user -> forwarder -> tx-only net_null; 64 B unless _1500. net_null: two null "
             "ports, both directions. POF pipeline: MM 0 (16 bits at bit 99) -> GOTO EM 0 (dst MAC + in_port "
             "metadata, 300 flows) -> METER (100 Gbit/s, never limits) + OUTPUT. Goal ratio >= 0.8. When the "
             "traffic generator is starved of CPU the vhost-user rates measure the generator, not the forwarder. "
             "Raw (Mpps, CPU share) per run: "
             + ", ".join(f"{k}={[(round(r, 2), round(s, 2)) for r, s in v]}" for k, v in raw.items()))
    notes += f" Load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs (other work shares the machine)."
    write_result("pof-switch-throughput", metrics, units, reference={"goal_ratio": 0.8}, notes=notes)
    print_table("pof-switch-throughput", metrics, units)


if __name__ == "__main__":
    main()
