"""pof-switch-throughput: one forwarding core, the two-table POF pipeline (16-bit match at bit offset 99, GOTO,
EM match + METER + OUTPUT, 300 flows) against dpdk-testpmd io-forward on the same ports in the same run.

- vhost-user: a virtio-user traffic process (testpmd txonly, the path a DPDK vNF uses) feeds the switch's
  vhost-user port; the switch forwards to a net_null sink. 64 B and 1500 B frames.
- net_null: two null ports, I/O is free and the pipeline's own cost shows.
Each configuration runs RUNS times alternately (pof, testpmd); medians of per-second rates.
"""

from __future__ import annotations

import os
import statistics
import time

from harness import OTHER_CPU, SWITCH_CPU, Bench, program_pipeline, switch_rate, testpmd_tx_mpps

from benchlib import print_table, write_result  # noqa: E402  (bench/ is on sys.path via harness)

RUNS = 3
SECONDS = 4
PEER = bytes.fromhex("020000000002")
SINK = "net_null0,no-rx=1"  # a transmit-only sink: nothing comes back


def txonly_frame(size: int) -> bytes:
    """The first bytes of what testpmd txonly sends with --eth-peer=0,02:00:00:00:00:02 (Ether, IPv4, UDP)."""
    return PEER + bytes(6) + bytes.fromhex("0800") + bytes([0x45]) + bytes(max(0, size - 15))


def run_vhost(b: Bench, size: int, pof: bool) -> float:
    sock = b.dir / f"vh{b.n}.sock"
    vhost = f"net_vhost0,iface={sock},queues=1"
    if pof:
        proc, ctl, ports, mgmt = b.start_switch([("vh", vhost), ("sink", SINK)])
        program_pipeline(ctl, ports, txonly_frame(size))
    else:
        proc = b.start_testpmd([vhost, SINK], f"0@{OTHER_CPU},1@{SWITCH_CPU}",
                               ["--forward-mode=io"], "tp")
        time.sleep(1.5)
    gen = b.start_testpmd([f"net_virtio_user0,path={sock},queues=1"], f"0@{OTHER_CPU},1@{OTHER_CPU}",
                          ["--forward-mode=txonly", f"--txpkts={size}", "--eth-peer=0,02:00:00:00:00:02"], "gen")
    time.sleep(2)
    if pof:
        samples = switch_rate(mgmt, SECONDS, ["sink"])
        ctl.close()
        b.stop(gen)
        b.stop(proc)
    else:
        time.sleep(SECONDS)
        b.stop(gen)
        samples = testpmd_tx_mpps(b.stop(proc), [1])[-SECONDS:]
    return statistics.median(samples) if samples else 0.0


def run_null(b: Bench, pof: bool) -> float:
    if pof:
        proc, ctl, ports, mgmt = b.start_switch([("n0", "net_null0"), ("n1", "net_null1")])
        program_pipeline(ctl, ports, bytes(64))
        time.sleep(1)
        samples = switch_rate(mgmt, SECONDS, ["n0", "n1"])
        ctl.close()
        b.stop(proc)
    else:
        proc = b.start_testpmd(["net_null0", "net_null1"], f"0@{OTHER_CPU},1@{SWITCH_CPU}", ["--forward-mode=io"],
                               "tp")
        time.sleep(SECONDS + 2)
        samples = testpmd_tx_mpps(b.stop(proc))[-SECONDS:]
    return statistics.median(samples) if samples else 0.0


def main() -> None:
    b = Bench()
    res: dict[str, list[float]] = {}
    try:
        for _ in range(RUNS):
            for key, fn in (("mpps_pof", lambda: run_vhost(b, 64, True)),
                            ("mpps_testpmd", lambda: run_vhost(b, 64, False)),
                            ("mpps_pof_1500", lambda: run_vhost(b, 1500, True)),
                            ("mpps_testpmd_1500", lambda: run_vhost(b, 1500, False)),
                            ("mpps_pof_null", lambda: run_null(b, True)),
                            ("mpps_testpmd_null", lambda: run_null(b, False))):
                res.setdefault(key, []).append(fn())
                print(key, f"{res[key][-1]:.3f}", flush=True)
    finally:
        b.release()
    med = {k: statistics.median(v) for k, v in res.items()}
    metrics = {
        "mpps_pof": med["mpps_pof"], "mpps_testpmd": med["mpps_testpmd"],
        "ratio": med["mpps_pof"] / med["mpps_testpmd"] if med["mpps_testpmd"] else 0.0,
        "gbps_pof_1500": med["mpps_pof_1500"] * 1500 * 8 / 1000,
        "gbps_testpmd_1500": med["mpps_testpmd_1500"] * 1500 * 8 / 1000,
        "mpps_pof_null": med["mpps_pof_null"], "mpps_testpmd_null": med["mpps_testpmd_null"],
        "ratio_null": med["mpps_pof_null"] / med["mpps_testpmd_null"] if med["mpps_testpmd_null"] else 0.0,
    }
    units = {"mpps_pof": "Mpps", "mpps_testpmd": "Mpps", "ratio": "x", "gbps_pof_1500": "Gbit/s",
             "gbps_testpmd_1500": "Gbit/s", "mpps_pof_null": "Mpps", "mpps_testpmd_null": "Mpps", "ratio_null": "x"}
    notes = (f"medians of {RUNS} runs x {SECONDS} one-second samples; one forwarding core (CPU {SWITCH_CPU}) for "
             "both pofswitch and testpmd io; 64 B unless _1500. vhost-user: testpmd txonly on a virtio-user port "
             f"(CPU {OTHER_CPU}) -> vhost-user -> switch -> net_null sink. net_null: 2 null ports, both directions. "
             "POF pipeline: MM 0 (16 bits at bit 99) -> GOTO EM 0 (dst MAC + in_port metadata, 300 flows) -> METER "
             "(100 Gbit/s) + OUTPUT. Goal ratio >= 0.8. All runs per configuration: "
             + ", ".join(f"{k}={[round(x, 2) for x in v]}" for k, v in res.items()))
    notes += f" Load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs (other work shares the machine)."
    write_result("pof-switch-throughput", metrics, units, reference={"goal_ratio": 0.8}, notes=notes)
    print_table("pof-switch-throughput", metrics, units)


if __name__ == "__main__":
    main()
