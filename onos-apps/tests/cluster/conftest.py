"""The cluster both test modules here use: one per module (each marker runs in its own session)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from cluster_helpers import ONOS_APPS, Cluster, running_cluster


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    if not (ONOS_APPS / "network-controller" / "target").exists():
        pytest.skip("WiSlice apps not built (make -C onos-apps build)")
    with running_cluster() as running:
        yield running
