"""The vNF follows its clients (issue 16) on the two-MEC testbed (up(..., aps=2, mecs=2)): ap-1 is nearest mec-1,
ap-2 nearest mec-2 (topology/site2.py).

The slice is created through the orchestrator with `vnf_follow`, a vAP of one SSID on each AP and one vNF, the
catalog transcoder as a bump in the wire (bridge_address in the clients' subnet): the topology declares both MEC
switches' port 2 as egress into the server netns's bridge, where the server answers at SERVER_ADDR in the clients'
subnet, so the slice reaches the server from either node without the testbed wiring a vNF by hand. The station's
10 ms echo stream (roaming.py) crosses air, AP switch, core (and the edge switch), MEC switch, transcoder, egress.

A follow: the wifi-controller steers the station to the other AP (802.11v BTM, FT-PSK); the orchestrator's radio
watch sees the handover, starts the chain on the other AP's nearest node, switches the slice's path to it and
removes the old chain (orchestrator-api vnf_follow.py). Measured per follow: `follow_s` (the station associated
at the new AP -> the slice's path on the new node's switch, the new transcoder running), the orchestrator's own
`follow_s` (handover seen -> switched), the largest echo gap from the move until 2 s after the switch; and what
the old node still holds (vNF containers, the slice's flows on its switch). `video_across_follow` streams real
video through the transcoder across a follow: it must resume, re-encoded, on the new node.
"""

from __future__ import annotations

import re
import subprocess
import threading
import time
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from ..topology.common import StepLog, wait_for
from ..topology.site2 import SERVER_BRIDGE
from . import e2e_slice as e2e
from . import video
from .roaming import RoamVap
from .slice_roaming import SliceRoaming
from .traffic import run_flows

TENANT = 3
SERVER_ADDR = "10.63.1.254"  # the server on the upstream LAN (SERVER_BRIDGE), in the clients' subnet
TRANSCODER: dict[str, Any] = {"image": "transcoder", "cpu": 0.5, "memory_mib": 256,
              "params": {"bridge_address": "10.63.1.250/24", "bitrate_kbps": 500}}
SWITCHED_TIMEOUT_S = 60.0  # the radio watch polls every 2 s; the new chain starts a container (seconds)
# The orchestrator's radio watch sees a handover by comparing two of its client reads (every 2 s): a station that
# moves away and back between two reads has not moved for it. A follow starts this long after the previous move.
WATCH_SEES_S = 4.5


@dataclass
class Follow:
    from_node: str
    to_node: str
    follow_s: float  # station on the new AP -> path on the new node's switch with the new chain running
    orchestrator_follow_s: float  # the orchestrator's: handover seen -> chain running and path switched
    gap_ms: float  # the largest echo gap from the move to 2 s after the switch (air move and path switch)
    left_on_old: dict[str, int]  # vNF containers and slice flows the old node still has once the follow ended


class VnfFollowRoaming(SliceRoaming):
    def __init__(self, tb: Any, log: StepLog) -> None:
        super().__init__(tb, log)
        self.event_seen = 0  # the newest orchestrator event already looked at
        self.moved_at = 0.0  # time.monotonic() of the last move

    def roam(self, target: RoamVap, start: Any = None) -> Any:
        try:
            return super().roam(target, start)
        finally:
            self.moved_at = time.monotonic()

    def open(self) -> VnfFollowRoaming:
        tb = self.tb
        assert tb.mec2 is not None, "the vNF follow scenario needs up(..., aps=2, mecs=2)"
        s = e2e.SliceRun(TENANT, "follow", 2_000, self.sta)
        e2e.operator_setup(tb, self.log, [s], tb.wired_topology(egress=True))
        body = self.on_both_aps(e2e.slice_body(s, tb.ap.agent_id))
        body.update(vnfs=[TRANSCODER], vnf_follow=True)
        tb.server.exec(["ip", "addr", "add", f"{SERVER_ADDR}/24", "dev", SERVER_BRIDGE])
        s.cleanup.append(lambda: tb.server.exec(["ip", "addr", "del", f"{SERVER_ADDR}/24", "dev", SERVER_BRIDGE],
                                                check=False))
        self.event_seen = self.newest_event()
        try:
            self.create(s, body)
        finally:
            self.slice = s  # delete_slice runs the cleanup even when the creation failed
        self.join_and_stream(SERVER_ADDR)
        return self

    # --- where the slice is ------------------------------------------------------------------------------------
    def view(self) -> dict[str, Any]:
        assert self.slice is not None
        return self.tb.orch.call("GET", f"/api/v1/tenants/{TENANT}/slices/{self.slice.slice_id}", self.slice.token)[1]

    def node(self) -> str:
        return str(self.view()["mec_node"])

    def mec(self, agent_id: str) -> Any:
        return next(n for n in self.tb.mec_nodes if n.agent_id == agent_id)

    def nearest(self, ap: RoamVap) -> str:
        return "mec-1" if ap.agent_id == self.tb.ap.agent_id else "mec-2"

    def start_near_chain(self) -> tuple[RoamVap, RoamVap]:
        """(home, away): the station moved to the AP nearest the chain's node if it is not there (no follow: not
        measured), and the other AP."""
        node = self.node()
        home = next(v for v in self.vaps if self.nearest(v) == node)
        away = next(v for v in self.vaps if v is not home)
        if self.vap_of(self.serving()) is not home:
            self.roam(home)
        return home, away

    def path_on(self, agent_id: str) -> bool:
        """The slice's path goes through that MEC node's switch and its vNFs run there."""
        device = self.mec(agent_id).device_id
        try:
            hops = [h["device_id"] for h in self.path().get("hops", [])]
        except AssertionError:  # between the old path's removal and the new one's install
            return False
        return device in hops and bool(self.mec(agent_id).vnf_containers())

    def slice_flows(self, device: str) -> int:
        flows = e2e.pof_flows_on(self.tb, device)
        assert flows is not None, f"ONOS did not answer for {device}'s flows"
        return flows

    # --- the orchestrator's events -----------------------------------------------------------------------------
    def newest_event(self) -> int:
        events = self.tb.orch.call("GET", "/api/v1/events?limit=1")[1]["events"]
        return max((int(e["id"]) for e in events), default=0)

    def events_since(self, kinds: tuple[str, ...]) -> list[dict[str, Any]]:
        events = self.tb.orch.call("GET", "/api/v1/events?limit=200")[1]["events"]
        return [e for e in events if int(e["id"]) > self.event_seen and e["kind"] in kinds]

    # --- a follow ----------------------------------------------------------------------------------------------
    def follow(self, target: RoamVap) -> Follow:
        """Steers the station to ``target``'s AP and waits for the chain to follow it to that AP's nearest node."""
        mac = self.sta.mac()
        source_node, to_node = self.node(), self.nearest(target)
        assert source_node != to_node, f"already on {to_node}: {self.view()}"
        time.sleep(max(0.0, self.moved_at + WATCH_SEES_S - time.monotonic()))
        before = len(self.arrivals())
        self.event_seen = self.newest_event()
        steered = time.time()
        move = self.roam(target, start=lambda: self.steer_accepted(mac, target))
        associated = steered + move.interruption_ms / 1000  # the air move ends with the station at the new AP
        wait_for(f"the slice's path through {to_node} with its chain running", lambda: self.path_on(to_node),
                 timeout=SWITCHED_TIMEOUT_S, period=0.2)
        switched = time.time()
        ended = wait_for("the orchestrator's vnf_followed (or vnf_follow_failed) event", lambda: self.events_since(
            ("vnf_followed", "vnf_follow_failed")), timeout=SWITCHED_TIMEOUT_S, period=0.5)
        assert ended[0]["kind"] == "vnf_followed", ended
        said = re.search(r"follow_s=([0-9.]+)", ended[0]["message"])
        # The stream flows through the new node: 2 s of echoes after the switch (a gap is only seen between two).
        at_switch = len(self.arrivals())
        wait_for(f"echoes through {to_node}", lambda: len(self.arrivals()) >= at_switch + 150, timeout=15, period=0.5)
        times = self.arrivals()[max(0, before - 1):]
        gap = max((b - a for a, b in pairwise(times)), default=float("inf"))
        old = self.mec(source_node)
        left = {"containers": len(old.vnf_containers()), "flows": self.slice_flows(old.device_id)}
        return Follow(source_node, to_node, round(switched - associated, 2), float(said.group(1)) if said else -1.0,
                      round(gap * 1000, 1), left)

    def video_across_follow(self, target: RoamVap, seconds: int = 30, move_at_s: float = 8.0) -> dict[str, Any]:
        """A real video stream (server -> station) through the transcoder while the chain follows the station to
        ``target``'s node: per-second receive rates, the codec and bitrate of what arrived, and the follow."""
        assert self.slice is not None
        clip = video.clip(1_500, seconds)
        flow = video.VideoFlow("follow-video", self.sta, self.slice.sta_addr, clip)
        result: dict[str, Any] = {}

        def stream() -> None:
            result["series"] = run_flows(self.tb, [flow])[flow.name]

        streamer = threading.Thread(target=stream, name="follow-video")
        started = time.monotonic()
        streamer.start()
        try:
            time.sleep(max(0.0, move_at_s - (time.monotonic() - started)))
            result["follow"] = self.follow(target)
        finally:
            streamer.join(timeout=seconds + 120)
        series = result["series"]
        assert not series.error, series.error
        probe = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "stream=codec_name:format=bit_rate",
                                "-of", "default=nw=1", str(flow.received(self.tb))], capture_output=True, text=True)
        fields = dict(line.split("=", 1) for line in probe.stdout.split() if "=" in line)
        rates = [mbps for _, mbps in series.points]
        return {"follow": result["follow"], "rates_mbps": rates, "codec": fields.get("codec_name", ""),
                "bit_rate": float(fields.get("bit_rate", 0) or 0),
                "transcoded_kbps": TRANSCODER["params"]["bitrate_kbps"]}


def stalled_seconds(rates_mbps: list[float], transcoded_kbps: int, after: int) -> int:
    """Seconds from index ``after`` on that carried under a third of the transcoded stream's rate."""
    floor = transcoded_kbps / 1000 / 3
    return sum(1 for r in rates_mbps[after:] if r < floor)
