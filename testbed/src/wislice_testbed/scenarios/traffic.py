"""Traffic for the testbed's experiments: iperf3 flows between a station (in the AP VM) and the server namespace,
run on threads with a start offset, each returning the receiver's per-second rates as a time series.

The receiver's view is what counts for a slice's promise, so every series is taken where the bytes arrive and
placed on the host's clock where they really moved. Downlink: the station's own interface, sampled in the guest by a
small meter in the station's namespace (iperf3 counts from its test start, which in a busy TCG
guest comes seconds after the host asked for it, and its exit can follow its last interval by seconds while 10
streams drain). Uplink: the server's report (--get-server-output), from when the host launched the client.
Guest clock to host clock: `guest_clock_offset`, one quick command bracketed by the host's clock.
"""

from __future__ import annotations

import bisect
import json
import math
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from wislice_testbed.topology.common import wait_for

# Runs in the station's namespace beside iperf3: the namespace's received bytes (its one station interface; lo
# left out) every 0.25 s on the guest's boot clock, written on SIGTERM; "ready" once it took its first sample.
RX_METER = r'''
import json, signal, sys, time
stop = []
signal.signal(signal.SIGTERM, lambda *a: stop.append(1))
rows = []
while not stop:
    if len(rows) == 1:
        print("ready", flush=True)
    rx = 0
    for line in open("/proc/self/net/dev").readlines()[2:]:
        name, data = line.split(":", 1)
        if name.strip() != "lo":
            rx += int(data.split()[0])
    rows.append((time.clock_gettime(time.CLOCK_BOOTTIME), rx))
    time.sleep(0.25)
json.dump(rows, open(sys.argv[1], "w"))
'''
START_LINE_LIMIT_S = 90.0  # how long flows wait at the start line for the slowest to get ready
UDP_PAYLOAD = 1200  # bytes per datagram: below the path MTU with the slice tag, like a video packetiser's
_ports = iter(range(5301, 6300))
_ports_lock = threading.Lock()


def next_port() -> int:
    with _ports_lock:
        return next(_ports)


@dataclass
class Series:
    """A flow's receive rate: points are (seconds since the experiment's t0, Mbit/s) for each 1 s interval."""

    name: str
    points: list[tuple[float, float]] = field(default_factory=list)
    error: str = ""
    # Uplink: what the sender put out per interval (its own report, same timeline) and, for UDP, the datagrams the
    # receiver counted lost: a receive rate below the flow's rate is the path's loss only when the sender kept up.
    sent: list[tuple[float, float]] = field(default_factory=list)
    lost_packets: int = 0
    packets: int = 0

    def window(self, start: float, end: float) -> list[float]:
        """The rates of the 1 s intervals that lie wholly within [start, end]."""
        return [mbps for t, mbps in self.points if start <= t - 1.0 and t <= end]

    def started(self, threshold_mbps: float = 0.05) -> float | None:
        """The start of its first 1 s interval that carried more than the threshold; None if none did."""
        return next((t - 1.0 for t, mbps in self.points if mbps > threshold_mbps), None)

    def mean(self, start: float, end: float) -> float:
        """Mean rate over the intervals that lie within [start, end]; 0 if none do (a silent flow counts as 0)."""
        inside = self.window(start, end)
        return sum(inside) / len(inside) if inside else 0.0

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "points": [[round(t, 2), round(v, 4)] for t, v in self.points],
                "sent": [[round(t, 2), round(v, 4)] for t, v in self.sent], "lost_packets": self.lost_packets,
                "packets": self.packets, "error": self.error}


@dataclass
class Flow:
    """One iperf3 flow: station <-> server address, UDP at a rate (kbps) or TCP with `parallel` streams."""

    name: str
    station: Any
    server_addr: str
    down: bool
    seconds: int
    start_s: float = 0.0
    udp_kbps: int = 0
    parallel: int = 1

    def argv(self, port: int) -> str:
        opts = [f"-c {self.server_addr}", f"-p {port}", f"-t {self.seconds}", "-J", "-i 1", "--connect-timeout 5000"]
        if self.udp_kbps:
            opts += ["-u", f"-b {self.udp_kbps}k", f"-l {UDP_PAYLOAD}"]
        if self.parallel > 1:
            opts.append(f"-P {self.parallel}")
        opts.append("-R" if self.down else "--get-server-output")
        return "iperf3 " + " ".join(opts)

    def run(self, tb: Any, start: StartLine) -> Series:
        return run_flow(tb, self, start)


def guest_clock_offset(vm: Any) -> float:
    """Host time minus the guest's boot clock (/proc/uptime), to within half a quick command's round trip."""
    before = time.time()
    uptime = float(vm.run("cat /proc/uptime").out.split()[0])
    return (before + time.time()) / 2 - uptime


def _intervals(report: dict[str, Any]) -> list[tuple[float, float]]:
    return [(float(i["sum"]["end"]), i["sum"]["bits_per_second"] / 1e6) for i in report.get("intervals", [])]


def run_flow(tb: Any, flow: Flow, start: StartLine) -> Series:
    """Runs one flow to completion (its server and meter first, then from its offset after the start line) and
    returns its receiver-side series."""
    series = Series(flow.name)
    port = next_port()
    # -J on the server too: --get-server-output then carries its per-interval report as JSON.
    srv = tb.processes.start(tb.server.argv(["iperf3", "-s", "-1", "-J", "-p", str(port), "-B", flow.server_addr]),
                             log_name=f"iperf3-{flow.name}")
    meter = None
    rows = ""
    try:
        # Sampling before the start line: a python starting in the TCG guest takes its CPU for seconds, which
        # must be over when the flows (the experiment's neighbour above all) start.
        meter = StationMeter(flow.station, port) if flow.down else None
        wait_for(f"iperf3 server :{port}", lambda: f":{port}" in tb.server.exec(
            ["ss", "-ltnH"], capture_output=True).stdout, timeout=10, period=0.1)
        t0 = start.wait()
        delay = t0 + flow.start_s - time.time()
        if delay > 0:
            time.sleep(delay)
        offset = guest_clock_offset(flow.station.vm)
        launched = time.time() - t0
        res = flow.station.exec(flow.argv(port), timeout=flow.seconds + 60, check=False)
    finally:
        tb.processes.stop(srv)
        if meter is not None:
            rows = meter.stop()
    try:
        out = json.loads(res.out)
    except ValueError:
        series.error = f"iperf3 printed no JSON: {res.out[-300:]} {res.err[-300:]}"
        return series
    if "error" in out:
        series.error = str(out["error"])
    if flow.down:
        try:
            series.points = rates_from_counters(json.loads(rows), offset - t0)
        except ValueError:
            series.error = series.error or f"the station's meter wrote no samples: {rows[-300:]}"
        return series
    report = out.get("server_output_json", {})
    if not report.get("intervals"):
        series.error = series.error or "iperf3 reported no intervals at the receiver"
    series.points = [(launched + end, mbps) for end, mbps in _intervals(report)]
    series.sent = [(launched + end, mbps) for end, mbps in _intervals(out)]
    received = report.get("end", {}).get("sum", {})
    series.lost_packets, series.packets = int(received.get("lost_packets", 0)), int(received.get("packets", 0))
    return series


def start_in_station(station: Any, name: str, script: str, args: str, log: str, ready: bool = False) -> int:
    """Puts the python script on the VM's share as NAME and starts it in the station's namespace; its guest pid.
    With ready, returns once it printed "ready" to its log (a log of its own: the guest appends to logs, and an
    earlier run's "ready" would answer for it)."""
    vm = station.vm
    (vm.share / name).write_text(script)
    pid = vm.spawn(f"ip netns exec {station.ns} python3 /mnt/share/{name} {args}", log=log)
    if ready:
        vm.wait_for(f"grep -q ready {log}", timeout=30, interval=0.05)
    return pid


class StationMeter:
    """The received bytes of a station's namespace, sampled in the guest (RX_METER) from now until stop()."""

    def __init__(self, station: Any, port: int) -> None:
        self.vm, self.out = station.vm, f"/tmp/rx-{port}.json"
        self.pid = start_in_station(station, "rx_meter.py", RX_METER, self.out, log=f"/tmp/rx-{port}.log",
                                    ready=True)

    def stop(self) -> str:
        """Its samples as JSON text ("" if it wrote none)."""
        # It writes its samples when told to stop: up to 10 s for that in a busy guest.
        return self.vm.run(f"kill {self.pid}; i=0; while [ ! -s {self.out} ] && [ $i -lt 50 ]; do sleep 0.2; "
                           f"i=$((i+1)); done; cat {self.out}", check=False).out


def rates_from_counters(rows: list[list[float]], shift: float) -> list[tuple[float, float]]:
    """Per-second rates (Mbit/s) from (guest boot time, byte counter) samples, on whole seconds of the host's
    timeline (guest time + shift = seconds since the experiment's t0); a counter is interpolated linearly between
    samples, and only seconds the samples cover wholly are kept. Raises ValueError without two samples."""
    if len(rows) < 2:
        raise ValueError("fewer than two samples")
    times = [t + shift for t, _ in rows]
    counts = [c for _, c in rows]

    def at(x: float) -> float:
        i = bisect.bisect_right(times, x)
        if i == 0 or i == len(times):
            return float(counts[min(i, len(times) - 1)])
        t_a, t_b = times[i - 1], times[i]
        return counts[i - 1] + (counts[i] - counts[i - 1]) * (x - t_a) / (t_b - t_a)

    first, last = math.ceil(times[0]), math.floor(times[-1])
    return [(float(k + 1), (at(k + 1) - at(k)) * 8 / 1e6) for k in range(first, last)]


class StartLine:
    """The experiment's t0, the same for every flow, set once every flow is ready (its server listening, its
    guest meter or sink running): flows prepare in parallel, then wait() here; the time they get back is their
    common t0, `lead_s` ahead (or the `t0` given). A flow that fails to prepare aborts the line, so the others
    fail instead of waiting forever."""

    def __init__(self, parties: int, lead_s: float = 0.5, timeout_s: float = START_LINE_LIMIT_S,
                 t0: float | None = None) -> None:
        self.t0 = 0.0 if t0 is None else t0
        self._lead_s = None if t0 is not None else lead_s
        self._barrier = threading.Barrier(parties, action=self._cross, timeout=timeout_s)

    def _cross(self) -> None:
        if self._lead_s is not None:
            self.t0 = time.time() + self._lead_s

    def wait(self) -> float:
        self._barrier.wait()
        return self.t0

    def abort(self) -> None:
        self._barrier.abort()


def run_flows(tb: Any, flows: list[Any]) -> dict[str, Series]:
    """Runs every flow (anything with .name and .run(tb, start_line) -> Series) at once, each from its own start
    offset after the common start line; returns series by flow name."""
    line = StartLine(len(flows))

    def run(flow: Any) -> Series:
        try:
            return flow.run(tb, line)
        except BaseException:
            line.abort()
            raise

    with ThreadPoolExecutor(len(flows)) as pool:
        futures: dict[str, Future[Series]] = {f.name: pool.submit(run, f) for f in flows}
        return {name: fut.result() for name, fut in futures.items()}
