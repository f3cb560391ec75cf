"""A slice whose chain holds a DPDK vNF (dpdk-vnf), created through the orchestrator's REST API on the testbed with
the DPDK pofswitch on the MEC node: the station's traffic crosses the air and the three switches into the vNF's
vhost-user port and back (scenarios/dpdk_slice.py), the vNF's own counters show it forwarded it, and deleting the
slice leaves no container and no vhost port; a kernel-fwd slice on the same switch reaches the server; the
hugepages the MEC node took are given back, also when its bring-up fails."""

from __future__ import annotations

import subprocess
from pathlib import Path
from types import SimpleNamespace

import pytest

from wislice_testbed import demo
from wislice_testbed.pytest_plugin import requires_root
from wislice_testbed.topology.common import StepLog, repo_root


def pool_back(pages_before: int) -> None:
    """nr_hugepages no larger than before the test. Other runs on this machine reserve pages of their own meanwhile
    (seen: a benchmark's 384, a test's 8, briefly), so wait up to 30 s for theirs to go; ours (96) left in the pool
    stays and fails it."""
    from wislice_testbed.hugepages import SYSFS_2M, read_counter
    from wislice_testbed.topology.common import wait_for

    wait_for(f"nr_hugepages back to at most {pages_before}",
             lambda: read_counter("nr_hugepages", SYSFS_2M) <= pages_before, timeout=30, period=0.5)


def test_slice_with_a_dpdk_vnf_end_to_end() -> None:
    requires_root()
    missing = demo.missing_parts(repo_root())
    if missing:
        pytest.skip(f"not built: {missing}")
    from wislice_testbed.hugepages import SYSFS_2M, hugetlbfs_mounts, read_counter
    from wislice_testbed.scenarios import dpdk_slice
    from wislice_testbed.topology.pofswitch import dpdk_binary
    from wislice_testbed.topology.testbed import up

    if not dpdk_binary().exists():
        pytest.skip(f"not built: {dpdk_binary()}")
    pages_before = read_counter("nr_hugepages", SYSFS_2M)
    log = StepLog("dpdk-slice")
    with up(log, stations=2, mec_switch="dpdk") as tb:
        hp = tb.mec.hugepages
        assert hp is not None and str(hp.mount) in hugetlbfs_mounts()  # the MEC node runs on its own pages
        results = dpdk_slice.run(tb, log)
    # Given back: its mount gone, and the pool no larger than before.
    assert str(hp.mount) not in hugetlbfs_mounts() and not hp.mount.exists()
    pool_back(pages_before)
    checks, counts = results["checks"], results["counts"]
    assert all(checks.values()), results
    pings = counts["pings"]
    # Lower bounds on every hop (the air may lose a few): into the vNF, out of it, back at the station.
    assert counts["switch_to_vnf"] >= 0.8 * pings, counts
    assert counts["vnf_rx"] >= 0.8 * pings and counts["vnf_tx"] >= 0.8 * pings, counts
    assert counts["switch_from_vnf"] >= 0.8 * pings, counts
    assert counts["station_rx"] >= 0.7 * pings, counts
    # Adaptive polling: the switch sleeps while the station associates (busy polling would be ~100 %).
    assert counts["switch_idle_cpu_pct"] < 25, counts


def test_dpdk_mec_node_gives_hugepages_back_when_bring_up_fails(tmp_path: Path) -> None:
    """The switch cannot start (its uplink does not exist) after the node reserved hugepages: all given back."""
    requires_root()
    from wislice_testbed.hugepages import SYSFS_2M, hugetlbfs_mounts, read_counter
    from wislice_testbed.processes import ProcessManager
    from wislice_testbed.topology.mecnode import mec_node

    pages_before, mounts_before = read_counter("nr_hugepages", SYSFS_2M), set(hugetlbfs_mounts())
    prefixes_before = set(Path("/var/run/dpdk").glob("wsmec*"))
    processes = ProcessManager(tmp_path)
    onos = SimpleNamespace(pof_port=1, nfv_port=1, secret="s")
    try:
        with pytest.raises(subprocess.CalledProcessError), \
                mec_node(onos, processes, "wsnosuchdev", say=lambda _: None, switch="dpdk"):  # type: ignore[arg-type]
            pass
    finally:
        processes.stop_all()
    assert not [m for m in hugetlbfs_mounts() if m not in mounts_before and "wislice-huge-" in m]
    assert set(Path("/var/run/dpdk").glob("wsmec*")) <= prefixes_before
    pool_back(pages_before)
