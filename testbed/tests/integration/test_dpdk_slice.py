"""The DPDK MEC node gives its hugepages back when its bring-up fails halfway. (The slice with a DPDK vNF runs on
the testbed every scenario of make test shares, whose MEC switch is the DPDK pofswitch: test_one_testbed.py; the
pages going back after a normal run is the leak check at the end of make test.)"""

from __future__ import annotations

import subprocess
from pathlib import Path
from types import SimpleNamespace

import pytest

from wislice_testbed.pytest_plugin import requires_root


def pool_back(pages_before: int) -> None:
    """nr_hugepages no larger than before the test. Other runs on this machine reserve pages of their own meanwhile
    (seen: a benchmark's 384, a test's 8, briefly), so wait up to 30 s for theirs to go; ours (96) left in the pool
    stays and fails it."""
    from wislice_testbed.hugepages import SYSFS_2M, read_counter
    from wislice_testbed.topology.common import wait_for

    wait_for(f"nr_hugepages back to at most {pages_before}",
             lambda: read_counter("nr_hugepages", SYSFS_2M) <= pages_before, timeout=30, period=0.5)


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
