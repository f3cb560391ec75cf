"""Traffic for the testbed's experiments: iperf3 flows between a station (in the AP VM) and the server namespace,
run on threads with a start offset, each returning the receiver's per-second rates as a time series.

The receiver's view is what counts for a slice's promise, so every series is taken where the bytes arrive: the
station's own report for downlink (iperf3 -R), the server's report (--get-server-output) for uplink.
"""

from __future__ import annotations

import json
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from wislice_testbed.topology.common import wait_for

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

    def window(self, start: float, end: float) -> list[float]:
        """The rates of the 1 s intervals that lie wholly within [start, end]."""
        return [mbps for t, mbps in self.points if start <= t - 1.0 and t <= end]

    def mean(self, start: float, end: float) -> float:
        """Mean rate over the intervals that lie within [start, end]; 0 if none do (a silent flow counts as 0)."""
        inside = self.window(start, end)
        return sum(inside) / len(inside) if inside else 0.0

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "points": [[round(t, 2), round(v, 4)] for t, v in self.points],
                "error": self.error}


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

    def run(self, tb: Any, t0: float) -> Series:
        return run_flow(tb, self, t0)


def _intervals(report: dict[str, Any]) -> list[tuple[float, float]]:
    return [(float(i["sum"]["end"]), i["sum"]["bits_per_second"] / 1e6) for i in report.get("intervals", [])]


def run_flow(tb: Any, flow: Flow, t0: float) -> Series:
    """Runs one flow to completion (sleeping until its start offset) and returns its receiver-side series."""
    series = Series(flow.name)
    port = next_port()
    # -J on the server too: --get-server-output then carries its per-interval report as JSON.
    srv = tb.processes.start(tb.server.argv(["iperf3", "-s", "-1", "-J", "-p", str(port), "-B", flow.server_addr]),
                             log_name=f"iperf3-{flow.name}")
    try:
        wait_for(f"iperf3 server :{port}", lambda: f":{port}" in tb.server.exec(
            ["ss", "-ltnH"], capture_output=True).stdout, timeout=10, period=0.1)
        delay = t0 + flow.start_s - time.time()
        if delay > 0:
            time.sleep(delay)
        launched = time.time() - t0
        res = flow.station.exec(flow.argv(port), timeout=flow.seconds + 60, check=False)
    finally:
        tb.processes.stop(srv)
    try:
        out = json.loads(res.out)
    except ValueError:
        series.error = f"iperf3 printed no JSON: {res.out[-300:]} {res.err[-300:]}"
        return series
    if "error" in out:
        series.error = str(out["error"])
    report = out if flow.down else out.get("server_output_json", {})
    if not report.get("intervals"):
        series.error = series.error or "iperf3 reported no intervals at the receiver"
    series.points = [(launched + end, mbps) for end, mbps in _intervals(report)]
    return series


def run_flows(tb: Any, flows: list[Any]) -> dict[str, Series]:
    """Runs every flow (anything with .name and .run(tb, t0) -> Series) at once, each from its own start offset;
    returns series by flow name."""
    t0 = time.time() + 2.0  # every server is listening by then
    with ThreadPoolExecutor(len(flows)) as pool:
        futures: dict[str, Future[Series]] = {f.name: pool.submit(f.run, tb, t0) for f in flows}
        return {name: fut.result() for name, fut in futures.items()}
