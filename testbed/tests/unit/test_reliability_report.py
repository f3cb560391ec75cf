"""bench/reliability.py sums the reliability parts into the report issue #13 asks for."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

from wislice_testbed.topology.common import repo_root


def load_reliability() -> Any:
    spec = importlib.util.spec_from_file_location("reliability", Path(repo_root()) / "bench" / "reliability.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_counts_add_up_and_times_take_the_worst_part() -> None:
    rel = load_reliability()
    parts = [{"name": "reliability-faults", "metrics": {"faults_injected": 16, "faults_survived": 15,
                                                        "converge_p50_s": 4.0, "converge_max_s": 30.0,
                                                        "leaks_found": 1}},
             {"name": "reliability-rest", "metrics": {"inputs_tried": 5200, "server_errors": 0}},
             {"name": "reliability-pof-abuse", "metrics": {"inputs_tried": 300, "server_errors": 2,
                                                           "converge_max_s": 45.0}}]
    metrics, units, notes = rel.combine(parts)
    assert metrics == {"faults_injected": 16, "faults_survived": 15, "converge_p50_s": 4.0, "converge_max_s": 45.0,
                       "leaks_found": 1, "inputs_tried": 5500, "server_errors": 2}
    assert units["converge_max_s"] == "s" and "reliability-rest" in notes


def test_ping_summary_finds_the_longest_silence_in_busybox_and_iputils_output() -> None:
    from wislice_testbed.scenarios.faults import ping_summary

    busybox = "\n".join(["PING 10.61.2.10 (10.61.2.10): 56 data bytes"]
                        + [f"64 bytes from 10.61.2.10: seq={n} ttl=63 time=1.2 ms" for n in (0, 1, 2, 7, 8, 9)]
                        + ["", "--- 10.61.2.10 ping statistics ---",
                           "10 packets transmitted, 6 packets received, 40% packet loss"])
    assert ping_summary(busybox) == (10, 6, 0.8)  # seq 3-6 lost: 4 x 0.2 s
    iputils = "\n".join([f"64 bytes from 10.61.2.10: icmp_seq={n} ttl=63 time=1 ms" for n in (1, 2, 3)]
                        + ["5 packets transmitted, 3 received, 40% packet loss, time 800ms"])
    assert ping_summary(iputils) == (5, 3, 0.4)  # the last two lost
    assert ping_summary("ping: sendto: Network unreachable") == (0, 0, 0.0)


def test_soak_growth_compares_late_cycles_with_early_ones_after_the_warm_up() -> None:
    from wislice_testbed.scenarios.soak import Sample, growth_pct, summary

    flat_after_warmup = [50.0] * 5 + [100.0] * 95  # the first cycles fill caches: not a leak
    assert growth_pct(flat_after_warmup) == 0.0
    leaking = [100.0 + n for n in range(100)]  # one unit per cycle
    assert growth_pct(leaking) > 50
    samples = [Sample(n, {"a": 1000, "b": 1000 + 10 * n}, {"a": 9, "b": 9 + (n > 50)}, 4096) for n in range(101)]
    s = summary(samples)
    assert s["soak_cycles"] == 100 and s["worst"] == "b" and s["rss_growth"]["a"] == 0.0
    assert s["soak_rss_growth_pct"] > 40 and s["fd_growth"] == {"a": 0, "b": 1} and s["soak_db_growth_pct"] == 0.0
    # A database that fills to its history retention within the first half and stays: growth over the run, none late.
    filling = [Sample(n, {"a": 1000}, {"a": 9}, 4096 * min(n, 50)) for n in range(1, 101)]
    s = summary(filling)
    assert s["soak_db_growth_pct"] > 10 and s["soak_db_late_growth_pct"] == 0.0
    growing = [Sample(n, {"a": 1000}, {"a": 9}, 4096 * n) for n in range(1, 101)]
    assert summary(growing)["soak_db_late_growth_pct"] > 10
