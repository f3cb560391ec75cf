"""The cluster both test modules here use: one per module (each marker runs in its own session). When a test on it
failed, every node's logs are kept outside the cluster directory (removed at the end) and their place printed."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cluster_helpers import ONOS_APPS, Cluster, keep_logs, running_cluster

FAILED: list[str] = []


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: Any, call: Any) -> Iterator[None]:
    outcome = yield
    report = outcome.get_result()
    if report.failed:
        FAILED.append(item.nodeid)


@pytest.fixture(scope="session")
def cluster() -> Iterator[Cluster]:
    """One cluster for the session: a bring-up costs 60-90 s, and every test leaves it whole (a node it kills has
    rejoined before the test ends)."""
    if not (ONOS_APPS / "network-controller" / "target").exists():
        pytest.skip("WiSlice apps not built (make -C onos-apps build)")
    failed_before = len(FAILED)
    with running_cluster() as running:
        # A node whose Atomix primitives did not answer was restarted by onos-cluster up: said in every run's output.
        for repair in running.state.get("repairs", []):
            print(f"bring-up repair: {repair['node']} restarted, its primitives did not answer: {repair['problem']}")
        yield running
        # WISLICE_KEEP_CLUSTER_LOGS: a passing run's logs too, to compare with a failing one's.
        if len(FAILED) > failed_before or os.environ.get("WISLICE_KEEP_CLUSTER_LOGS"):
            print(f"cluster logs kept in {keep_logs(Path(running.env['ONOS_CLUSTER_DIR']))}")
