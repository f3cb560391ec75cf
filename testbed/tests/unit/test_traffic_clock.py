"""Series are placed where their bytes moved on the host's clock, not where the host asked for them."""

from __future__ import annotations

import json
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from wislice_testbed.scenarios import calibrate, traffic


class FakeVm:
    """A guest booted `uptime` seconds ago, running at the host's pace; the station's meter saw `rows`."""

    def __init__(self, uptime: float, share: Path, rows: list[tuple[float, int]] | None = None) -> None:
        self.boot_host_time = time.time() - uptime
        self.share = share
        self.rows = rows or []

    def run(self, cmd: str, **_: Any) -> SimpleNamespace:
        if cmd == "cat /proc/uptime":
            return SimpleNamespace(out=f"{time.time() - self.boot_host_time:.2f} 1.00\n", err="", rc=0)
        assert cmd.startswith(f"kill {self.meter_pid}; ") and cmd.endswith(".json")  # the meter, stopped
        return SimpleNamespace(out=json.dumps(self.rows), err="", rc=0)

    def spawn(self, cmd: str, log: str) -> int:
        assert cmd.startswith("ip netns exec ") and "python3 /mnt/share/rx_meter.py /tmp/rx-" in cmd
        self.meter_pid = 4242
        return self.meter_pid

    def wait_for(self, cmd: str, **_: Any) -> SimpleNamespace:
        assert cmd.startswith("grep -q ready /tmp/rx-")  # the meter sampled before the flow starts
        return SimpleNamespace(out="", err="", rc=0)


def fake_tb() -> Any:
    server = SimpleNamespace(argv=lambda argv: argv,
                             exec=lambda *a, **k: SimpleNamespace(stdout=" ".join(f":{p}" for p in range(5301, 6300))))
    return SimpleNamespace(server=server, processes=SimpleNamespace(start=lambda *a, **k: object(),
                                                                    stop=lambda proc: None))


def iperf3_report(rates_mbps: list[float]) -> dict[str, Any]:
    return {"intervals": [{"sum": {"end": float(i + 1), "bits_per_second": r * 1e6}} for i, r in enumerate(rates_mbps)]}


def test_counters_become_rates_on_whole_seconds_of_the_hosts_timeline() -> None:
    # 1 Mbit/s = 125000 bytes/s from guest time 100.5 to 103.5, nothing before; shift -100 puts 100.5 at t = 0.5.
    rows = [(100.0, 0), (100.5, 0), (101.5, 125_000), (102.5, 250_000), (103.5, 375_000)]
    points = traffic.rates_from_counters([list(r) for r in rows], shift=-100.0)
    assert [t for t, _ in points] == [1.0, 2.0, 3.0]
    assert [round(m, 3) for _, m in points] == [0.5, 1.0, 1.0]  # the first second carried only its second half
    with pytest.raises(ValueError):
        traffic.rates_from_counters([[1.0, 0]], 0.0)


def test_a_downlink_flow_that_started_late_in_the_guest_is_placed_where_its_bytes_arrived(tmp_path: Path) -> None:
    # The host launches iperf3 at t0 (guest time 1000); the busy guest's test only begins at t0 + 4, 2 Mbit/s for
    # 3 s, while iperf3's own report counts from its test start.
    rows = [(1000.0 + t / 2, int(max(0.0, t / 2 - 4.0) * 250_000) if t <= 14 else 750_000) for t in range(-1, 21)]
    vm = FakeVm(uptime=1000.0, share=tmp_path, rows=rows)
    t0 = vm.boot_host_time + 1000.0

    def exec_(cmd: str, **_: Any) -> SimpleNamespace:
        assert cmd.startswith("iperf3 -c 10.62.2.1 ") and vm.meter_pid  # the meter runs from before the flow
        return SimpleNamespace(out=json.dumps(iperf3_report([2.0, 2.0, 2.0])), err="", rc=0)

    station = SimpleNamespace(vm=vm, ns="sta3", exec=exec_)
    flow = traffic.Flow("neighbour", station, "10.62.2.1", down=True, seconds=3)
    series = flow.run(fake_tb(), traffic.StartLine(1, t0=t0))
    assert series.error == ""
    assert (tmp_path / "rx_meter.py").read_text() == traffic.RX_METER
    by_second = {round(t): round(m, 1) for t, m in series.points}
    assert [by_second[t] for t in range(1, 10)] == [0.0, 0.0, 0.0, 0.0, 2.0, 2.0, 2.0, 0.0, 0.0]


def test_an_uplink_flow_reads_the_servers_report_from_its_launch(tmp_path: Path) -> None:
    vm = FakeVm(uptime=50.0, share=tmp_path)
    report = {"server_output_json": iperf3_report([1.0, 3.0])}
    station = SimpleNamespace(vm=vm, exec=lambda cmd, **_: SimpleNamespace(out=json.dumps(report), err="", rc=0))
    flow = traffic.Flow("up", station, "10.0.0.1", down=False, seconds=2)
    series = flow.run(fake_tb(), traffic.StartLine(1, t0=time.time()))
    assert [round(m, 1) for _, m in series.points] == [1.0, 3.0] and 0.9 < series.points[0][0] < 1.5


def test_a_station_meter_without_samples_is_an_error_not_an_empty_flow(tmp_path: Path) -> None:
    vm = FakeVm(uptime=5.0, share=tmp_path, rows=[])
    station = SimpleNamespace(vm=vm, ns="sta1", exec=lambda cmd, **_: SimpleNamespace(out="{}", err="", rc=0))
    flow = traffic.Flow("f", station, "10.0.0.1", down=True, seconds=1)
    series = flow.run(fake_tb(), traffic.StartLine(1, t0=time.time()))
    assert series.points == [] and "meter" in series.error


def test_calibration_takes_the_steady_seconds_after_the_real_start() -> None:
    series = traffic.Series("c", [(float(t), m) for t, m in enumerate([0, 0, 0, 3.0, 9.0, 8.0, 10.0, 9.5, 8.5, 9.0,
                                                                       2.0, 0.0], start=1)])
    assert calibrate.steady(series) == [9.0, 8.0, 10.0, 9.5, 8.5]


def test_the_start_line_sets_t0_after_the_slowest_flow_got_ready() -> None:
    class Slow:
        def __init__(self, name: str, prepare_s: float) -> None:
            self.name, self.prepare_s = name, prepare_s

        def run(self, tb: Any, start: traffic.StartLine) -> traffic.Series:
            ready = time.time() + self.prepare_s
            time.sleep(self.prepare_s)
            t0 = start.wait()
            return traffic.Series(self.name, [(t0, ready)])

    series = traffic.run_flows(None, [Slow("quick", 0.0), Slow("slow", 0.3)])
    t0s = {s.points[0][0] for s in series.values()}
    assert len(t0s) == 1 and t0s.pop() >= max(s.points[0][1] for s in series.values())


def test_a_flow_that_fails_to_get_ready_fails_the_others_instead_of_leaving_them_waiting() -> None:
    class Broken:
        name = "broken"

        def run(self, tb: Any, start: traffic.StartLine) -> traffic.Series:
            raise RuntimeError("no server")

    class Waiting:
        name = "waiting"

        def run(self, tb: Any, start: traffic.StartLine) -> traffic.Series:
            start.wait()
            return traffic.Series(self.name)

    began = time.time()
    with pytest.raises(Exception):  # noqa: B017 - either flow's error may surface first
        traffic.run_flows(None, [Waiting(), Broken()])
    assert time.time() - began < 5
