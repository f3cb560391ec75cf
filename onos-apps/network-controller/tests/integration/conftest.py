"""Fixtures of the network-controller suite: root (namespaces, veths) and the real pofswitch binary. The session's
ONOS runtime is onos-apps/conftest.py's; helpers are in pof_helpers.py."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from pof_helpers import POFSWITCH
from wislice_testbed.pytest_plugin import requires_root


@pytest.fixture(autouse=True)
def needs_root() -> None:
    requires_root("needs root (namespaces, veths)")


@pytest.fixture
def pofswitch_binary() -> Path:
    if not POFSWITCH.exists():
        pytest.skip(f"{POFSWITCH} not built (make -C pof-switch build)")
    if not shutil.which("ethtool"):
        pytest.skip("ethtool is not installed")
    return POFSWITCH
