"""The demo's scenario as a test: two tenants' slices end to end on the whole one-machine testbed (ONOS with the
three apps, the AP VM with hostapd and the ap-agent, three pof-switches, the mec-agent on a private dockerd, the
orchestrator-api), every check of `make demo` asserted, and nothing left behind."""

from __future__ import annotations

import pytest

from wislice_testbed import demo
from wislice_testbed.pytest_plugin import requires_root
from wislice_testbed.topology.common import StepLog, repo_root


def test_two_isolated_slices_end_to_end() -> None:
    requires_root()
    missing = demo.missing_parts(repo_root())
    if missing:
        pytest.skip(f"not built: {missing}")
    from wislice_testbed.scenarios import calibrate, e2e_slice
    from wislice_testbed.topology.testbed import up

    log = StepLog("e2e")
    with up(log, stations=2, radio_capacity_kbps=calibrate.UNCAPPED_KBPS) as tb:
        results = e2e_slice.run(tb, log, calibrate.radio_capacity(tb, log), second_slice=True)
    verdict = demo.evaluate(results)
    assert all(verdict.values()), {"failed": sorted(k for k, ok in verdict.items() if not ok), **results}
    # Both slices ran concurrently, each held to its own cap.
    assert set(results["rates_mbps"]) == {"slice1_alone", "slice1_concurrent", "slice2_concurrent", "slice2_patched"}
    # The live change (PATCH) took effect without the station reassociating.
    assert results["checks"]["slice2_patched"] and results["checks"]["slice2_station_kept"]
