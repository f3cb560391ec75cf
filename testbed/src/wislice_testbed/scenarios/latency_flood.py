"""A latency slice's in-band probes under a bulk slice's flood on the testbed (issue 15).

The core switch's port toward the AP is rated below what the bulk slice sends down it, so that port's best-effort
queue fills and drops (up to ~3 s of queue at PORT_KBPS); both slices' downlink leaves the core by that port. The
latency slice's probes (the AP switch pings the slice's vNF; the reply comes back down through the core) cross it
in the latency class, served before that queue: their round trip stays what it was, while a probe that waited in
the queue would take seconds or be dropped. The flood is UDP from the server namespace to the bulk slice's
station, through the bulk slice's vNF and its metered path (its down cap above the port's rate)."""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from typing import Any

from wislice_agent_proto.switch_mgmt import SwitchMgmt

CORE_AP_PORT = "ap"  # the core switch's port toward the AP (topology/testbed.py)
PORT_KBPS = 500
FLOOD_KBPS = 3000
FLOOD_S = 7
SETTLE_S = 2  # the queue fills (in ~0.2 s) before the probes are read the first time

# Sends FLOOD_KBPS of 1200-byte UDP datagrams to argv[1]:9 for argv[3] seconds, paced every 10 ms.
SENDER = """
import socket, sys, time
dst, kbps, seconds = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
payload, per_tick = bytes(1200), max(1, kbps * 1000 // 8 // 1200 // 100)
end = time.monotonic() + seconds
while time.monotonic() < end:
    for _ in range(per_tick):
        try:
            s.sendto(payload, (dst, 9))
        except OSError:
            pass
    time.sleep(0.01)
"""


@dataclass
class FloodResult:
    before: dict[str, Any]  # the latency vAP's probe counters and percentiles before the flood
    during: dict[str, Any]  # the same, read after SETTLE_S + FLOOD_S of flood
    port: dict[str, int]  # the core port's scheduler counters (spec/switch-mgmt port-stats) at the end
    queue_ms: float  # the most the core port's best-effort queue held, as time at PORT_KBPS

    def probes(self, key: str) -> int:
        return int(self.during[key]) - int(self.before[key])


def run(tb: Any, log: Any, latency_vap: str, bulk_station_addr: str) -> FloodResult:
    """Floods the bulk slice's station for FLOOD_S s through the rated core port; returns the latency vAP's probes
    before and during, and how full the port's best-effort queue was."""
    mgmt = SwitchMgmt(str(tb.log_dir / "core-mgmt.sock"))
    before = tb.onos.get(f"/onos/wifi/vaps/{latency_vap}/latency")
    mgmt.port_rate(CORE_AP_PORT, PORT_KBPS)
    flood = tb.processes.start(tb.server.argv([sys.executable, "-c", SENDER, bulk_station_addr, str(FLOOD_KBPS),
                                              str(SETTLE_S + FLOOD_S + 2)]), log_name="bulk-flood")
    queued = 0
    try:
        end = time.monotonic() + SETTLE_S + FLOOD_S
        while time.monotonic() < end:
            queued = max(queued, mgmt.port_stats(CORE_AP_PORT)["be_queued"])
            time.sleep(0.5)
        during = tb.onos.get(f"/onos/wifi/vaps/{latency_vap}/latency")
        port = mgmt.port_stats(CORE_AP_PORT)
    finally:
        tb.processes.stop(flood)
        mgmt.port_rate(CORE_AP_PORT, 0)
    result = FloodResult(before, during, port, queued * 8 / PORT_KBPS)
    log.say(f"latency probes under a {FLOOD_KBPS} kbit/s bulk flood through the core's port rated at {PORT_KBPS} "
            f"kbit/s (best-effort queue up to {result.queue_ms:.0f} ms, {port['be_drops']} dropped there): "
            f"{result.probes('sent')} sent, {result.probes('lost')} lost; window p50 {during['p50_us']} p90 "
            f"{during['p90_us']} p99 {during['p99_us']} us (before: p50 {before['p50_us']} p99 {before['p99_us']})")
    return result
