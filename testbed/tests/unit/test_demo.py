from pathlib import Path

import pytest

from wislice_testbed import demo
from wislice_testbed.scenarios import e2e_slice
from wislice_testbed.topology.onos import APPS


def results(**rates: float) -> dict:
    caps = {k: v / 1000 for k, v in e2e_slice.caps_kbps(10_000).items()}
    return {"checks": {"slice_active": True, "ping": True, "pof_flows_installed": 12, "pof_flows_after_delete": 0,
                       "slice1_vnf_gone": True},
            "rates_mbps": rates or {"slice1_alone": 4.8}, "caps_mbps": caps}


def test_caps_fit_the_radio_together() -> None:
    caps = e2e_slice.caps_kbps(3_450)
    assert caps == {"slice1_alone": 1700, "slice1_concurrent": 1700, "slice2_concurrent": 600, "slice2_patched": 1000}
    assert caps["slice1_concurrent"] + caps["slice2_concurrent"] <= 3_450


def test_all_checks_pass() -> None:
    verdict = demo.evaluate(results(slice1_alone=4.9, slice1_concurrent=4.7, slice2_concurrent=1.9))
    assert all(verdict.values()), verdict
    assert {"pof_flows_installed", "pof_flows_removed", "slice2_concurrent_within_cap", "ping"} <= set(verdict)


@pytest.mark.parametrize("rate", [5.6, 0.0])
def test_rate_over_the_cap_or_no_traffic_fails(rate: float) -> None:
    assert not demo.evaluate(results(slice1_alone=rate))["slice1_alone_within_cap"]


def test_leftover_flows_and_failed_booleans_fail() -> None:
    r = results()
    r["checks"].update(pof_flows_after_delete=3, slice1_vnf_gone=False)
    verdict = demo.evaluate(r)
    assert not verdict["pof_flows_removed"] and not verdict["slice1_vnf_gone"]
    assert verdict["ping"]


def test_missing_parts_names_what_to_build(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(demo, "afp_binary", lambda: tmp_path / "pofswitch-afp")
    monkeypatch.setattr(demo, "dpdk_binary", lambda: tmp_path / "pofswitch")
    missing = demo.missing_parts(tmp_path)
    assert sum("make -C pof-switch build" in m for m in missing) == 2  # pofswitch-afp and the DPDK pofswitch
    assert sum("make -C onos-apps build" in m for m in missing) == len(APPS)  # each app's .oar
