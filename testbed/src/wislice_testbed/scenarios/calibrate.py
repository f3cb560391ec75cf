"""What this machine's AP VM carries, measured before the experiments, and the radio's capacity set from it.

mac80211_hwsim has no airtime limit: on the testbed, what bounds a slice is the AP VM's emulated CPU (qemu TCG). That
differs between hosts by a factor of five (20 Mbit/s through a slice on one, 4 on another). An experiment whose
radio capacity lies above what the VM carries measures the VM, not the radio's scheduler: the neighbour's flows are
dropped in the VM before they are scheduled, and the guaranteed slice loses with them. So the testbed measures what
the VM carries through a real slice (WPA2 vAP, AP switch, core and MEC switches, kernel vNF), TCP down and up, and
the operator sets the radio's capacity to a fraction of the smaller rate (HEADROOM): the radio's scheduler is then
the bottleneck, as on a real AP, and every experiment's rates scale with it (isolation.Scale.scaled).
"""

from __future__ import annotations

import statistics
from typing import Any

from wislice_testbed.topology.common import StepLog, wait_for

from . import e2e_slice as e2e
from .traffic import Flow, Series, run_flows

TENANT_ID = 9             # the operator's own calibration tenant (addresses 10.69.x), removed slices only
HEADROOM = 0.5            # the radio's capacity as a share of what the VM carries: room for TCP's overshoot
UNCAPPED_KBPS = 100_000   # the radio's capacity while calibrating: far above what a TCG VM carries
MIN_CAPACITY_KBPS = 2_500  # below this the experiments' streams are too thin to tell a guarantee from noise
SECONDS = 6
FLOWS = 4


def carried_mbps(tb: Any, log: StepLog) -> tuple[float, float]:
    """TCP goodput (Mbit/s, median of the 1 s intervals after the ramp-up) through an uncapped slice on an otherwise
    empty radio: down (server -> station), then up."""
    run = e2e.SliceRun(TENANT_ID, "calibration", 0, tb.ap.stations[0])
    e2e.operator_setup(tb, log, [run])
    bw = {"down_guaranteed_kbps": 0, "up_guaranteed_kbps": 0, "down_cap_kbps": 0, "up_cap_kbps": 0}
    e2e.create_slice(tb, log, run, {**e2e.slice_body(run, tb.ap.agent_id), "bandwidth": bw})
    try:
        e2e.wire_server_side(tb, run)
        e2e.associate(tb, log, run)
        wait_for("ping through the calibration slice", lambda: e2e.ping(tb, run)[0], timeout=30, period=1)
        rates = []
        for down in (True, False):
            flow = Flow("calibration", run.station, run.server_addr, down=down, seconds=SECONDS, parallel=FLOWS)
            series = run_flows(tb, [flow])["calibration"]
            if series.error:
                raise RuntimeError(f"calibration flow ({'down' if down else 'up'}): {series.error}")
            rates.append(statistics.median(steady(series)))
        return rates[0], rates[1]
    finally:
        e2e.delete_slice(tb, log, run)


def steady(series: Series) -> list[float]:
    """The flow's seconds after its first (TCP's ramp-up), from the first second that carried anything (a
    downlink series begins when the host launched it, the test itself when the busy guest got to it)."""
    started = series.started()
    busy = [mbps for t, mbps in series.points if started is not None and t - 1.0 >= started]
    return busy[1:SECONDS] or [0.0]


def radio_capacity(tb: Any, log: StepLog) -> int:
    """Measures what the VM carries and restarts the AP's agent with the radio's capacity at HEADROOM of it (kbps,
    rounded down to 500); the testbed must have come up with radio_capacity_kbps=UNCAPPED_KBPS and no slice."""
    with log.step("calibrate", "what this machine's AP VM carries through a slice (TCP down, up)"):
        down, up = carried_mbps(tb, log)
        # In steps of 500 kbps: runs on one machine land on the same scale, and reuse its cached video clips.
        capacity = int(HEADROOM * min(down, up) * 2) * 500
        log.say(f"the AP VM carries {down:.2f} Mbit/s down, {up:.2f} Mbit/s up: radio capacity {capacity} kbps "
                f"({HEADROOM:.0%} of the smaller)")
        if capacity < MIN_CAPACITY_KBPS:
            raise RuntimeError(f"this machine's AP VM carries only {down:.2f}/{up:.2f} Mbit/s down/up: a radio "
                               f"capacity of {capacity} kbps is below the experiments' floor {MIN_CAPACITY_KBPS}")
        tb.ap.set_radio_capacity(capacity)
    return capacity
