"""What the onos-apps integration tests share besides the session's ONOS (../conftest.py)."""

from __future__ import annotations

from pathlib import Path

from wislice_testbed.topology.common import free_ports
from wislice_testbed.topology.onos import Onos

ONOS_APPS = Path(__file__).resolve().parents[1]

__all__ = ["ONOS_APPS", "Onos", "free_port"]


def free_port() -> int:
    return free_ports(1)[0]
