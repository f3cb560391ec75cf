"""Shared fixtures for the onos-apps Python tests: the testbed's ONOS runtime (private ports, a temporary run
directory, the three WiSlice apps installed; wislice_testbed.topology.onos), one per test session."""
from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from wislice_testbed.topology.common import free_ports
from wislice_testbed.topology.onos import Onos, OnosUnavailable, onos_runtime

HERE = Path(__file__).resolve().parent
ONOS_APPS = HERE.parent
sys.path.insert(0, str(HERE))  # fake_agent

__all__ = ["ONOS_APPS", "Onos", "free_port", "onos"]


def free_port() -> int:
    return free_ports(1)[0]


@pytest.fixture(scope="session")
def onos() -> Iterator[Onos]:
    try:
        with onos_runtime(say=print) as o:
            yield o
    except OnosUnavailable as exc:
        pytest.fail(f"{exc}: run make -C onos-apps build")
