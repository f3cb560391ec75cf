"""Handover interruption on the two-AP testbed: N station-initiated roams each way (wpa_cli roam) and N
controller-initiated ones each way (the wifi-controller's 802.11v BTM steer), all 802.11r FT-PSK transitions, each
measured as the largest gap in a 10 ms UDP echo stream (scenarios/roaming.py says what the stream crosses); then a
few steers with Linux's default neighbour eviction on carrier loss, for comparison; then steers inside a slice with
vAPs on both APs, through its POF path and vNF, with the controllers' path switch and a TCP download's dip
(handover_slice.py); then a slice with vnf_follow whose transcoder follows the station between the two MEC nodes
(scenarios/vnf_follow.py): vnf_follow_s. Writes bench/results/handover.json.

    python -m wislice_testbed.handover_bench [--roams N] [--evicting N] [--slice-moves N] [--follows N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

from .handover_slice import SliceHandovers, slice_phase
from .scenarios.roaming import Roaming
from .scenarios.vnf_follow import Follow, VnfFollowRoaming
from .topology.common import StepLog, repo_root

FOLLOW_HOLD_S = 5.0  # WISLICE_VNF_FOLLOW_HOLD_S of the testbed's orchestrator (topology/orchestrator.py)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--roams", type=int, default=20, help="roams each way (>= 20 for the issue's numbers)")
    parser.add_argument("--evicting", type=int, default=5,
                        help="steers each way with Linux's default neighbour eviction on carrier loss, for comparison")
    parser.add_argument("--slice-moves", type=int, default=10,
                        help="steers each way inside a slice (interruption, path switch), before its TCP download")
    parser.add_argument("--follows", type=int, default=5,
                        help="vNF follows each way (a steer to the other AP, the chain following to its MEC node)")
    args = parser.parse_args()
    from .topology.testbed import up

    log = StepLog("handover")
    gaps: dict[str, list[float]] = {f"{kind} {d}": [] for kind in ("roam", "steer", "steer-evicting")
                                    for d in ("ap-1->ap-2", "ap-2->ap-1")}
    not_ft = 0
    load_before = os.getloadavg()[0]
    started = time.monotonic()
    with up(log, stations=1, aps=2, mecs=2, keep_logs=False) as tb:
        roam = Roaming(tb).open()
        try:
            ap1, ap2 = roam.vaps
            mac = roam.sta.mac()
            if roam.serving() == ap2.bssid:  # start from ap-1, not measured
                roam.roam(ap1)
                roam.release_old(mac, ap1)

            def move(kind: str, i: int, n: int) -> None:
                nonlocal not_ft
                for source, target in ((ap1, ap2), (ap2, ap1)):
                    steer = None if kind == "roam" else lambda t=target: roam.steer_accepted(mac, t)
                    h = roam.roam(target, start=steer)
                    roam.release_old(mac, target)
                    gaps[f"{kind} {source.agent_id}->{target.agent_id}"].append(h.interruption_ms)
                    not_ft += h.key_mgmt != "FT-PSK"
                    log.say(f"{kind} {i + 1}/{n} {source.agent_id}->{target.agent_id}: {h.interruption_ms} ms "
                            f"({h.key_mgmt})")

            for i in range(args.roams):
                move("roam", i, args.roams)
                move("steer", i, args.roams)
            roam.sta.evict_neighbours_on_carrier_loss(True)  # Linux's default from here on
            for i in range(args.evicting):
                move("steer-evicting", i, args.evicting)
        finally:
            roam.close()
        sliced = slice_phase(tb, log, args.slice_moves) if args.slice_moves else None
        follows = follow_phase(tb, log, args.follows) if args.follows else []
    write(gaps, args.roams, not_ft, load_before, os.getloadavg()[0], time.monotonic() - started, sliced, follows)


def follow_phase(tb: object, log: StepLog, n: int) -> list[Follow]:
    """n follows each way: the station steered to the other AP, the chain following it to that AP's MEC node."""
    roam = VnfFollowRoaming(tb, log).open()
    out: list[Follow] = []
    try:
        home, away = roam.start_near_chain()
        for i in range(n):
            for target in (away, home):
                time.sleep(FOLLOW_HOLD_S)  # the testbed orchestrator's hold since the previous follow started
                out.append(roam.follow(target))
                log.say(f"vNF follow {i + 1}/{n}: {out[-1]}")
    finally:
        roam.close()
    return out


def write(gaps: dict[str, list[float]], roams: int, not_ft: int, load_before: float, load_after: float,
          duration_s: float, sliced: SliceHandovers | None = None, follows: list[Follow] | None = None) -> None:
    """bench/results/handover.json in the benchmarks' format (bench/benchlib.py), each roam's gap in the notes."""
    sys.path.insert(0, str(repo_root() / "bench"))
    import benchlib

    every = [g for k, series in gaps.items() if not k.startswith("steer-evicting") for g in series]
    steered = [g for k, series in gaps.items() if k.startswith("steer ") for g in series]
    evicting = [g for k, series in gaps.items() if k.startswith("steer-evicting") for g in series]
    metrics = {"interruption_p50_ms": benchlib.percentile(every, 50),
               "interruption_p99_ms": benchlib.percentile(every, 99), "interruption_max_ms": max(every),
               "interruption_p50_ms_steered": benchlib.percentile(steered, 50),
               "roams_each_way": roams, "moves_not_ft": not_ft,
               "load_avg_1m": (load_before + load_after) / 2}
    if evicting:
        metrics["interruption_p50_ms_steered_evicting"] = benchlib.percentile(evicting, 50)
    for direction, series in gaps.items():
        if not series:
            continue
        metrics[f"interruption_p50_ms_{direction.replace(' ', '_').replace('->', '_to_').replace('-', '')}"] = \
            benchlib.percentile(series, 50)
    slice_notes = ""
    if sliced is not None:
        metrics |= {"slice_interruption_p50_ms": benchlib.percentile(sliced.gaps_ms, 50),
                    "slice_interruption_p99_ms": benchlib.percentile(sliced.gaps_ms, 99),
                    "path_switch_ms": benchlib.percentile(sliced.path_switch_ms, 50),
                    "path_switch_p99_ms": benchlib.percentile(sliced.path_switch_ms, 99),
                    "switch_confirm_p50_ms": benchlib.percentile(sliced.switch_confirm_ms, 50),
                    "tcp_dip_pct": statistics.median(sliced.tcp_dips_pct), "tcp_steady_mbps": sliced.tcp_steady_mbps,
                    "slice_moves_refused": len(sliced.refused)}
        slice_notes = (
            f"Slice part: {len(sliced.gaps_ms)} steers inside one slice with a vAP of its SSID on each AP (one POF "
            "path, the other AP's route a branch joining it on the core switch, a kernel-fwd vNF to the server "
            "namespace); the echo stream crosses the air, the serving AP's switch, core, MEC switch and vNF. Gaps "
            f"in ms: {', '.join(f'{g:.0f}' for g in sliced.gaps_ms)}. path_switch_ms = the mobility app's record "
            "per move (the wifi-controller's association event reaching the controller node -> the switch "
            "confirmed the client's downlink entry; switch_confirm = the part from the FLOW_MOD to its ECHO "
            f"barrier): {', '.join(f'{g:.0f}' for g in sliced.path_switch_ms)}. tcp_dip_pct: an iperf3 download "
            "(server -> station, 0.1 s intervals) through the slice (down cap 2 Mbit/s) with a steer at 4, 8, 12 "
            "and 16 s: per move 100 x (1 - its rate over the 1.5 s around the move / the median interval rate away "
            f"from moves), the median of {sliced.tcp_dips_pct}. ")
    follow_notes = ""
    if follows:
        metrics |= {"vnf_follow_s": benchlib.percentile([f.follow_s for f in follows], 50),
                    "vnf_follow_p99_s": benchlib.percentile([f.follow_s for f in follows], 99),
                    "vnf_follow_orchestrator_s": benchlib.percentile([f.orchestrator_follow_s for f in follows], 50),
                    "vnf_follow_gap_p50_ms": benchlib.percentile([f.gap_ms for f in follows], 50),
                    "vnf_follow_gap_max_ms": max(f.gap_ms for f in follows), "vnf_follows": len(follows),
                    "vnf_follow_left_on_old": sum(sum(f.left_on_old.values()) for f in follows)}
        follow_notes = (
            f"vNF follow: {len(follows)} steers between the APs inside a slice with vnf_follow and a transcoder "
            "(bump in the wire to the MEC switch's egress) on the two-MEC testbed (ap-1 nearest mec-1, ap-2 "
            "nearest mec-2); vnf_follow_s = the station at the new AP -> the slice's path on the new node's switch "
            "with the new chain running (the orchestrator's radio watch polls every 2 s; then a container start "
            "and the path switch); vnf_follow_orchestrator_s = its own handover seen -> switched; the gap = the "
            "largest echo gap from the move to 2 s after the switch. Per follow (s, gap ms): "
            + ", ".join(f"{f.follow_s}/{f.gap_ms:.0f}" for f in follows) + ". ")
    units = {k: "ms" for k in metrics if "_ms" in k} | {
        "roams_each_way": "moves of each kind (wpa_cli roam, BTM steer) each way",
        "moves_not_ft": "moves the station did not make as an FT-PSK transition (0 expected)",
        "load_avg_1m": "runnable tasks, 1-min load average (mean of before and after)",
        "tcp_dip_pct": "% less carried around a move than steady (median over moves)",
        "tcp_steady_mbps": "Mbit/s, the download's steady rate", "slice_moves_refused": "moves the controllers refused",
        "vnf_follow_s": "s (p50)", "vnf_follow_p99_s": "s", "vnf_follow_orchestrator_s": "s (p50)",
        "vnf_follows": "follows measured", "vnf_follow_left_on_old": "vNF containers + slice flows left on the old "
        "node after the follows (0 expected)"}
    reference = {"anchor_lvap_handover_min_ms": 30.0, "anchor_lvap_handover_max_ms": 200.0}
    notes = ("Station-initiated (wpa_cli roam) and controller-initiated (802.11v BTM steer through the "
             "wifi-controller) handovers between two APs (one AP VM, mac80211_hwsim, hostapd 2.10, wpa_supplicant), "
             "802.11r FT-PSK over the air; interruption = the largest gap in a 10 ms UDP echo stream "
             "station -> serving vAP -> veth -> echo namespace in the AP VM (the air handover, not the POF path). "
             "Anchor: 30-200 ms for LVAP handovers (Wi-5), quoted. "
             f"Run took {duration_s:.0f} s, load {load_before:.1f} before, {load_after:.1f} after. Gaps in ms, in "
             "order: " + "; ".join(f"{k}: {', '.join(f'{g:.0f}' for g in v)}" for k, v in gaps.items()) + ". "
             "The station keeps its neighbour entries across a move (arp_evict_nocarrier 0, the kernel's setting "
             "for a roaming wireless client); the steer-evicting moves (not in p50/p99) use Linux's default, which "
             "flushes them when mac80211 drops the carrier: the first datagram after the move then waits for an "
             "ARP exchange, and ~1.1 s when that request is lost and retried after the 1 s retrans_time "
             "(testbed/README.md). " + slice_notes + follow_notes)
    benchlib.write_result("handover", metrics, units, reference=reference, notes=notes)
    benchlib.print_table("handover", metrics, units, reference)


if __name__ == "__main__":
    main()
