"""The slice part of the handover benchmark: a station in a slice with vAPs on both APs, steered back and forth by
the wifi-controller (802.11v BTM, FT-PSK), its 10 ms echo stream crossing the slice's POF path and vNF to the
server (scenarios/slice_roaming.py). Per move: the interruption (largest echo gap) and the mobility app's
path_switch_ms (the association event's arrival at the controller node -> the switch confirmed the client's new
downlink entry). Then a TCP download through the slice (iperf3, 0.1 s intervals) with steers at known times:
tcp_dip_pct = how much less it carried in the 1.5 s around a move than its steady rate.

    slice_phase(tb, log, moves) -> SliceHandovers
"""

from __future__ import annotations

import json
import statistics
import time
from dataclasses import dataclass, field
from typing import Any

from .scenarios.slice_roaming import SliceRoaming
from .topology.common import StepLog, wait_for

TCP_S = 20          # the download's length
TCP_MOVES_AT = (4.0, 8.0, 12.0, 16.0)  # seconds into it: a steer each (alternating APs)
DIP_WINDOW = (-0.2, 1.3)  # around a move (the VM's spawn latency blurs its start by ~0.1 s)
IPERF_LOG = "/tmp/handover-iperf.json"


@dataclass
class SliceHandovers:
    gaps_ms: list[float] = field(default_factory=list)
    path_switch_ms: list[float] = field(default_factory=list)
    switch_confirm_ms: list[float] = field(default_factory=list)
    tcp_dips_pct: list[float] = field(default_factory=list)
    tcp_steady_mbps: float = 0.0
    refused: list[str] = field(default_factory=list)


def slice_phase(tb: Any, log: StepLog, moves: int) -> SliceHandovers:
    out = SliceHandovers()
    roam = SliceRoaming(tb, log).open()
    try:
        mac = roam.sta.mac()
        since_ms = time.time() * 1000
        for i in range(moves):
            for target in targets(roam):
                h = roam.roam(target, start=lambda t=target: roam.steer_accepted(mac, t))
                out.gaps_ms.append(h.interruption_ms)
                log.say(f"slice steer {i + 1}/{moves} -> {target.agent_id}: {h.interruption_ms} ms ({h.key_mgmt})")
        records = mobility_records(tb, mac, since_ms, 2 * moves)
        out.path_switch_ms = [r["path_switch_ms"] for r in records if r.get("error") is None]
        out.switch_confirm_ms = [r["switch_confirm_ms"] for r in records if r.get("error") is None]
        out.refused = [r["error"] for r in records if r.get("error") is not None]
        out.tcp_dips_pct, out.tcp_steady_mbps = tcp_dips(tb, roam, mac)
    finally:
        roam.close()
    return out


def targets(roam: SliceRoaming) -> list[Any]:
    """The other AP, then back."""
    ap1, ap2 = roam.vaps
    return [ap2, ap1] if roam.serving() == ap1.bssid else [ap1, ap2]


def mobility_records(tb: Any, mac: str, since_ms: float, want: int) -> list[dict[str, Any]]:
    """The mobility app's records of this station's moves since since_ms (GET /onos/mobility/handovers); each move
    makes one (the association at the new AP)."""
    def ours() -> list[dict[str, Any]]:
        return [r for r in tb.onos.get("/onos/mobility/handovers")["handovers"]
                if r["mac"].lower() == mac and r["at_ms"] >= since_ms]  # this host's clock, as ours
    return wait_for(f"{want} handovers recorded by the mobility app", lambda: (r := ours()) and len(r) >= want and r,
                    timeout=20, period=0.5)


def tcp_dips(tb: Any, roam: SliceRoaming, mac: str) -> tuple[list[float], float]:
    """A TCP download server -> station through the slice with a steer at each TCP_MOVES_AT; per move, 100 x (1 -
    the rate over DIP_WINDOW around it / the steady rate, the median 0.1 s interval away from every move)."""
    s = roam.slice
    assert s is not None
    server = tb.processes.start(tb.server.argv(["iperf3", "-s", "-1", "-B", s.server_addr]), log_name="handover-iperf3")
    try:
        wait_for("iperf3 server listening", lambda: ":5201" in tb.server.exec(["ss", "-ltn"], capture_output=True)
                 .stdout, timeout=10, period=0.1)
        roam.vm.run(f"rm -f {IPERF_LOG}", check=False)
        t0 = time.monotonic()
        pid = roam.sta_spawn(f"iperf3 -c {s.server_addr} -R -t {TCP_S} -i 0.1 -J --logfile {IPERF_LOG}")
        moved_at = []
        for at, target in zip(TCP_MOVES_AT, targets(roam) * len(TCP_MOVES_AT), strict=False):
            time.sleep(max(0.0, t0 + at - time.monotonic()))
            moved_at.append(time.monotonic() - t0)
            roam.steer_accepted(mac, target)
            wait_for(f"station on {target.bssid}", lambda t=target: roam.serving() == t.bssid, timeout=10, period=0.1)
        wait_for("iperf3 done", lambda: '"end"' in roam.vm.run(f"cat {IPERF_LOG}", check=False).out,
                 timeout=TCP_S + 20, period=1)
        roam.vm.run(f"kill {pid}", check=False)
        intervals = [(i["sum"]["start"], i["sum"]["end"], i["sum"]["bits_per_second"])
                     for i in json.loads(roam.vm.run(f"cat {IPERF_LOG}").out)["intervals"]]
    finally:
        tb.processes.stop(server)
        roam.vm.run(f"rm -f {IPERF_LOG}", check=False)
    steady = steady_rate(intervals, moved_at)
    return dips(intervals, moved_at, steady), steady / 1e6


def near(start: float, end: float, moved_at: list[float], pad: tuple[float, float] = DIP_WINDOW) -> bool:
    return any(start < m + pad[1] and end > m + pad[0] for m in moved_at)


def steady_rate(intervals: list[tuple[float, float, float]], moved_at: list[float]) -> float:
    """Median bits/s of the 0.1 s intervals after the first second (slow start) and away from every move."""
    calm = [bps for start, end, bps in intervals if start >= 1.0 and not near(start, end, moved_at, (-0.5, 2.0))]
    return statistics.median(calm) if calm else 0.0


def dips(intervals: list[tuple[float, float, float]], moved_at: list[float], steady: float) -> list[float]:
    """Per move, 100 x (1 - the rate over DIP_WINDOW around it / ``steady``), never below 0."""
    out = []
    for m in moved_at:
        window = [(end - start) * bps for start, end, bps in intervals if near(start, end, [m])]
        span = sum(end - start for start, end, _ in intervals if near(start, end, [m]))
        if steady > 0 and span > 0:
            out.append(round(max(0.0, 100 * (1 - sum(window) / span / steady)), 1))
    return out
