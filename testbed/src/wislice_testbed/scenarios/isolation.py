"""ADE²WiNFV Fig. 10/11 on the testbed: two video clients in a guaranteed slice keep their rate while a neighbour
slice's client starts 10 parallel TCP flows on the same radio; without slicing (one shared SSID) they do not.

    run_sliced(tb, log, scale, direction) / run_unsliced(tb, log, scale) -> Experiment

Rates are scaled to what the emulated radio sustains: the AP VM is qemu TCG, whose CPU bounds what it carries
(4-20 Mbit/s TCP through hwsim, WPA2 and the AP switch, by host), so the testbed measures that first and sets the
radio's capacity below it (calibrate.py); `Scale.scaled` fits an experiment designed for a 10 Mbit/s radio to that
capacity, and the paper's 10 Mbit/s video becomes `Scale.video_kbps`. The video here is constant-rate UDP (iperf3);
the demo's video replay with real MPEG-TS and Y-PSNR is in `video.py`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from wislice_testbed.topology.common import StepLog, wait_for

from . import e2e_slice as e2e
from .traffic import Flow, Series, run_flows
from .video import Clip, VideoFlow, y_psnr

# Reserved per byte of stream: IP + UDP + Ethernet headers and the slice tag (~4 % at 1200-1316 byte datagrams)
# and the sender's burstiness (ffmpeg -re writes a frame's packets at once): a client's reservation covers its
# stream as the radio's scheduler sees it. With 8 % the 3 Mbit/s video still lost a few packets under contention
# (worst Y-PSNR 40 dB against 56 dB received whole).
OVERHEAD = 1.12


@dataclass(frozen=True)
class Scale:
    capacity_kbps: int = 10_000    # the radio's usable capacity (operator-set in the testbed)
    video_kbps: int = 2_000        # per video client, down (the paper's 10 Mbit/s, scaled to the radio)
    video_up_kbps: int = 500       # per video client, up (its upstream, e.g. a call's camera)
    neighbour_guaranteed_kbps: int = 500
    neighbour_cap_kbps: int = 0    # 0 = the uncapped neighbour of the integration test; the demo caps it loosely
    flows: int = 10                # the neighbour's parallel TCP flows
    neighbour_start_s: float = 6.0
    video_s: int = 16              # the video flows run [0, video_s]; the neighbour [start, video_s + tail_s]
    tail_s: int = 6                # the neighbour alone at the end: its cap (or the capacity) is measured there

    def scaled(self, capacity_kbps: int) -> Scale:
        """The same experiment on a radio of another capacity: every rate in proportion (to 10 kbps)."""
        def f(kbps: int) -> int:
            return int(round(kbps * capacity_kbps / self.capacity_kbps, -1))
        return replace(self, capacity_kbps=capacity_kbps, video_kbps=f(self.video_kbps),
                       video_up_kbps=f(self.video_up_kbps), neighbour_guaranteed_kbps=f(self.neighbour_guaranteed_kbps),
                       neighbour_cap_kbps=f(self.neighbour_cap_kbps))

    @property
    def video_reserved_kbps(self) -> int:
        return int(2 * self.video_kbps * OVERHEAD)

    @property
    def video_up_reserved_kbps(self) -> int:
        return int(2 * self.video_up_kbps * OVERHEAD)

    def contention(self) -> tuple[float, float]:
        """The window in which the neighbour saturates and the video runs (TCP's ramp-up excluded)."""
        return self.neighbour_start_s + 3.0, float(self.video_s) - 0.5

    def alone(self) -> tuple[float, float]:
        return float(self.video_s) + 1.5, float(self.video_s + self.tail_s)


@dataclass
class Experiment:
    name: str
    series: dict[str, Series] = field(default_factory=dict)
    flows: list[Any] = field(default_factory=list)
    metrics: dict[str, float] = field(default_factory=dict)
    events: list[tuple[float, str]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "metrics": self.metrics, "events": [[t, e] for t, e in self.events],
                "series": [s.to_json() for s in self.series.values()]}


def video_body(scale: Scale, agent_id: str, ssid: str, guaranteed: bool) -> dict[str, Any]:
    bw = ({"down_guaranteed_kbps": scale.video_reserved_kbps, "up_guaranteed_kbps": scale.video_up_reserved_kbps,
           "down_cap_kbps": 0, "up_cap_kbps": 0} if guaranteed else
          {"down_guaranteed_kbps": 0, "up_guaranteed_kbps": 0, "down_cap_kbps": 0, "up_cap_kbps": 0})
    return _body("video" if guaranteed else "shared", bw, agent_id, ssid)


def neighbour_body(scale: Scale, agent_id: str, ssid: str) -> dict[str, Any]:
    g, cap = scale.neighbour_guaranteed_kbps, scale.neighbour_cap_kbps
    bw = {"down_guaranteed_kbps": g, "up_guaranteed_kbps": g, "down_cap_kbps": cap, "up_cap_kbps": cap}
    return _body("bulk", bw, agent_id, ssid)


def _body(name: str, bw: dict[str, int], agent_id: str, ssid: str) -> dict[str, Any]:
    return {"name": name, "bandwidth": bw, **e2e.LATENCY,
            "vaps": [{"agent_id": agent_id, "radio": "phy0", "ssid": ssid,
                      "security": {"mode": "wpa2-psk", "passphrase": e2e.PASSPHRASE}}],
            "vnfs": [{"image": "kernel-fwd", "cpu": 0.1, "memory_mib": 32}]}


@dataclass
class Slices:
    """The slices of one experiment and which station is in which (station address = 10.6<t>.1.<10 + i>)."""

    runs: list[e2e.SliceRun]
    members: list[tuple[e2e.SliceRun, Any, str]]  # (slice, station, address)


def bring_up(tb: Any, log: StepLog, layout: list[tuple[e2e.SliceRun, dict[str, Any], list[Any]]]) -> Slices:
    """Creates each slice, wires its server side and associates its stations; waits until each station pings."""
    members = []
    for s, body, stations in layout:
        e2e.create_slice(tb, log, s, body)
        e2e.wire_server_side(tb, s)
        for i, sta in enumerate(stations):
            addr = f"10.6{s.tenant_id}.1.{10 + i}"
            e2e.associate(tb, log, s, sta, addr)
            wait_for(f"{sta.ns} pings its server", lambda sta=sta, s=s: sta.exec(
                f"ping -c 1 -W 2 {s.server_addr}", timeout=30, check=False).rc == 0, timeout=30, period=1)
            members.append((s, sta, addr))
    return Slices([s for s, _, _ in layout], members)


def tear_down(tb: Any, log: StepLog, slices: Slices) -> None:
    for s, sta, _ in slices.members:
        if sta is not s.station:
            sta.disconnect()
    for s in reversed(slices.runs):
        e2e.delete_slice(tb, log, s)


def flows_for(scale: Scale, video: list[tuple[e2e.SliceRun, Any, str]], neighbour: tuple[e2e.SliceRun, Any],
              uplink: bool, clip: Clip | None = None) -> list[Any]:
    """Every video client's stream (down, or its upstream in the uplink run) for [0, video_s]: constant-rate UDP,
    or the real clip when one is given; the neighbour's TCP flows in the same direction from neighbour_start_s
    until video_s + tail_s."""
    flows: list[Any] = []
    for i, (s, sta, addr) in enumerate(video, start=1):
        if clip is not None and not uplink:
            flows.append(VideoFlow(f"video{i}", sta, addr, clip))
            continue
        flows.append(Flow(f"video{i}", sta, s.server_addr, down=not uplink, seconds=scale.video_s,
                          udp_kbps=scale.video_up_kbps if uplink else scale.video_kbps))
    ns, nsta = neighbour
    flows.append(Flow("neighbour", nsta, ns.server_addr, down=not uplink,
                      seconds=int(scale.video_s + scale.tail_s - scale.neighbour_start_s),
                      start_s=scale.neighbour_start_s, parallel=scale.flows))
    return flows


def as_run(exp: Experiment, scale: Scale) -> tuple[tuple[float, float], tuple[float, float], float]:
    """The contention and alone windows as the flows really ran, and the latest start: a busy guest starts a
    flow up to seconds after it was asked to (and the series say when it did), so each planned window moves with
    the flows that bound it."""
    videos = [s for n, s in exp.series.items() if n.startswith("video")]
    neighbour = exp.series["neighbour"]

    def late(series: Series, planned: float) -> float:
        started = series.started()
        return max(0.0, started - planned) if started is not None else 0.0

    video_late = [late(v, 0.0) for v in videos]
    neighbour_late = late(neighbour, scale.neighbour_start_s)
    (c0, c1), (a0, a1) = scale.contention(), scale.alone()
    contention = (c0 + neighbour_late, c1 + min(video_late, default=0.0))
    alone = (a0 + max(video_late, default=0.0), a1 + neighbour_late)
    return contention, alone, max([neighbour_late, *video_late])


def measure(exp: Experiment, scale: Scale, uplink: bool) -> None:
    """Worst video client's share of its own rate while the neighbour saturates; the neighbour's rate then and
    alone at the end; how long the contention lasted (a run whose flows started late has less of it)."""
    (c0, c1), alone, late_s = as_run(exp, scale)
    rates = [exp.series[n].mean(c0, c1) for n in exp.series if n.startswith("video")]
    own_mbps = (scale.video_up_kbps if uplink else scale.video_kbps) / 1000
    exp.metrics["video_worst_mbps"] = round(min(rates), 3)
    exp.metrics["video_share_pct"] = round(100 * min(rates) / own_mbps, 1)
    neighbour = exp.series["neighbour"]
    exp.metrics["neighbour_contended_mbps"] = round(neighbour.mean(c0, c1), 3)
    # How full the radio was under contention: well below 100 % the AP VM's CPU, not the radio's scheduler, was
    # the bottleneck (a busy host), and drops there favour the UDP video over TCP.
    exp.metrics["radio_used_pct"] = round(100 * (sum(rates) + neighbour.mean(c0, c1)) * 1000 / scale.capacity_kbps,
                                          1)
    exp.metrics["neighbour_alone_mbps"] = round(neighbour.mean(*alone), 3)
    exp.metrics["contention_s"] = round(max(0.0, c1 - c0), 1)
    exp.metrics["late_start_s"] = round(late_s, 1)
    # Where the neighbour really started (asked to at neighbour_start_s; a busy guest takes seconds to start 10 flows)
    started = neighbour.started()
    exp.events = [(0.0, "video starts"), (scale.neighbour_start_s if started is None else started,
                                          f"neighbour starts {scale.flows} TCP flows"),
                  (float(scale.video_s), "video ends")]


def tenants(tb: Any, log: StepLog) -> dict[int, str]:
    """The operator's part, once per testbed: the wired topology and tenants 1 (video) and 2 (neighbour);
    returns each tenant's token."""
    runs = [e2e.SliceRun(t, f"tenant{t}", 0, None) for t in (1, 2)]
    e2e.operator_setup(tb, log, runs)
    return {s.tenant_id: s.token for s in runs}


def score_video(tb: Any, exp: Experiment) -> None:
    """Y-PSNR of every real video stream of the run (before the next run's streams overwrite the files)."""
    scores = [y_psnr(f.received(tb), f.clip) for f in exp.flows if isinstance(f, VideoFlow)]
    if scores:
        exp.metrics["psnr_worst_db"] = round(min(scores), 2)
        exp.metrics["psnr_mean_db"] = round(sum(scores) / len(scores), 2)


def run_sliced(tb: Any, log: StepLog, scale: Scale, tokens: dict[int, str], uplink: bool = False,
               clip: Clip | None = None) -> Experiment:
    """The video slice (2 clients, guaranteed) and the neighbour slice (1 client) on one radio."""
    video = e2e.SliceRun(1, "video", 0, tb.ap.stations[0], token=tokens[1])
    bulk = e2e.SliceRun(2, "bulk", 0, tb.ap.stations[2], token=tokens[2])
    layout = [(video, video_body(scale, tb.ap.agent_id, video.ssid, True), tb.ap.stations[:2]),
              (bulk, neighbour_body(scale, tb.ap.agent_id, bulk.ssid), [tb.ap.stations[2]])]
    return _run(tb, log, "sliced_up" if uplink else "sliced_down", scale, layout, bulk, uplink, clip)


def run_unsliced(tb: Any, log: StepLog, scale: Scale, tokens: dict[int, str], clip: Clip | None = None
                 ) -> Experiment:
    """The same clients and traffic on one shared SSID without guarantees: the radio's fair queueing alone."""
    shared, layout = unsliced_layout(tb, scale, tokens)
    return _run(tb, log, "unsliced_down", scale, layout, shared, False, clip)


def unsliced_layout(tb: Any, scale: Scale, tokens: dict[int, str]
                    ) -> tuple[e2e.SliceRun, list[tuple[e2e.SliceRun, dict[str, Any], list[Any]]]]:
    """One slice without guarantees holding the experiment's three stations (not a fourth that a testbed brought
    up for Fig. 13 has: it would be a third video client)."""
    shared = e2e.SliceRun(1, "shared", 0, tb.ap.stations[0], token=tokens[1])
    return shared, [(shared, video_body(scale, tb.ap.agent_id, shared.ssid, False), tb.ap.stations[:3])]


def _run(tb: Any, log: StepLog, name: str, scale: Scale, layout: list[tuple[e2e.SliceRun, dict[str, Any], list[Any]]],
         neighbour_slice: e2e.SliceRun, uplink: bool, clip: Clip | None) -> Experiment:
    """Brings the layout up; stations 1 and 2 are the video clients, station 3 the neighbour; runs, measures,
    tears down."""
    slices = bring_up(tb, log, layout)
    try:
        exp = Experiment(name)
        neighbour = tb.ap.stations[2]
        vids = [(s, sta, addr) for s, sta, addr in slices.members if sta is not neighbour]
        exp.flows = flows_for(scale, vids, (neighbour_slice, neighbour), uplink, clip)
        exp.series = run_flows(tb, exp.flows)
        measure(exp, scale, uplink)
        score_video(tb, exp)
        log.say(f"{exp.name}: " + ", ".join(f"{k}={v}" for k, v in exp.metrics.items()))
        return exp
    finally:
        tear_down(tb, log, slices)
