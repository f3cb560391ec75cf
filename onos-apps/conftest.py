"""One ONOS runtime (the testbed's: private ports, a temporary run directory, the WiSlice apps installed;
wislice_testbed.topology.onos) for a whole pytest session: `make test-integration` runs every onos-apps integration
suite (tests/integration, network-controller/tests/integration) in one session, so ONOS starts once (~20-27 s)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from wislice_testbed.topology.onos import Onos, OnosUnavailable, onos_runtime

pytest_plugins = ["wislice_testbed.pytest_plugin"]


@pytest.fixture(scope="session")
def onos() -> Iterator[Onos]:
    try:
        with onos_runtime(say=print) as o:
            yield o
    except OnosUnavailable as exc:
        pytest.fail(f"the ONOS runtime with the WiSlice apps did not come up: {exc} (make -C onos-apps build)")
