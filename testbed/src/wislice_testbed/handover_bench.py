"""Handover interruption on the two-AP testbed: N station-initiated roams each way (wpa_cli roam, plain WPA2-PSK
reassociation), each measured as the largest gap in a 10 ms UDP echo stream (scenarios/roaming.py says what the
stream crosses). Writes bench/results/handover.json.

    python -m wislice_testbed.handover_bench [--roams N]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from typing import Any

from .scenarios.roaming import Roaming
from .topology.common import StepLog, repo_root


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--roams", type=int, default=20, help="roams each way (>= 20 for the issue's numbers)")
    args = parser.parse_args()
    from .topology.testbed import up

    log = StepLog("handover")
    gaps: dict[str, list[float]] = {"ap-1->ap-2": [], "ap-2->ap-1": []}
    load_before = os.getloadavg()[0]
    started = time.monotonic()
    with up(log, stations=1, aps=2) as tb:
        roam = Roaming(tb).open()
        try:
            ap1, ap2 = roam.vaps
            mac = roam.sta.mac()
            if roam.serving() == ap2.bssid:  # start from ap-1, not measured
                roam.roam(ap1)
                roam.release_old(mac, ap1)
            for i in range(args.roams):
                for source, target in ((ap1, ap2), (ap2, ap1)):
                    h = roam.roam(target)
                    roam.release_old(mac, target)
                    gaps[f"{source.agent_id}->{target.agent_id}"].append(h.interruption_ms)
                    log.say(f"roam {i + 1}/{args.roams} {source.agent_id}->{target.agent_id}: "
                            f"{h.interruption_ms} ms")
        finally:
            roam.close()
    every = [g for series in gaps.values() for g in series]
    result: dict[str, Any] = {
        "what": "station-initiated roaming between two APs (one AP VM, mac80211_hwsim, hostapd 2.10, "
                "wpa_supplicant), plain WPA2-PSK reassociation; interruption = largest gap in a 10 ms UDP echo "
                "stream station -> serving vAP -> veth -> echo namespace in the AP VM (not the POF path)",
        "roams_each_way": args.roams,
        "interruption_p50_ms": percentile(every, 0.5),
        "interruption_p99_ms": percentile(every, 0.99),
        "interruption_max_ms": max(every),
        "by_direction": {k: {"p50_ms": percentile(v, 0.5), "max_ms": max(v), "gaps_ms": v}
                         for k, v in gaps.items()},
        "anchor": "30-200 ms for LVAP handovers (Wi-5); issue 16's goal p50 <= 100 ms with controller-initiated FT",
        "load_avg_1m_before": round(load_before, 2),
        "load_avg_1m_after": round(os.getloadavg()[0], 2),
        "duration_s": round(time.monotonic() - started, 1),
        "host": platform.node(),
    }
    out = repo_root() / "bench" / "results" / "handover.json"
    out.write_text(json.dumps(result, indent=2) + "\n")
    log.say(f"wrote {out}: p50 {result['interruption_p50_ms']} ms, p99 {result['interruption_p99_ms']} ms")


if __name__ == "__main__":
    main()
