"""Fixtures: the testbed's ONOS runtime (private ports, the WiSlice apps installed; wislice_testbed.topology.onos)
and real pofswitch processes on veths, dialling that runtime's POF port."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from wislice_testbed.topology.common import repo_root
from wislice_testbed.topology.onos import Onos, OnosUnavailable, onos_runtime

pytest_plugins = ["wislice_testbed.pytest_plugin"]
ROOT = repo_root()
POFSWITCH = Path(os.environ.get("POFSWITCH_AFP", ROOT / "pof-switch" / "build" / "pofswitch-afp"))


# One ONOS for the suite (~27 s per start): the modules use distinct device ids and leave no slice behind.
@pytest.fixture(scope="session")
def onos() -> Iterator[Onos]:
    if os.geteuid() != 0:
        pytest.skip("needs root (namespaces, veths)")
    try:
        with onos_runtime(say=print) as o:
            yield o
    except OnosUnavailable as e:
        pytest.fail(f"ONOS runtime with the WiSlice apps did not come up: {e}")


@pytest.fixture
def pofswitch_binary() -> Path:
    if not POFSWITCH.exists():
        pytest.skip(f"{POFSWITCH} not built (make -C pof-switch build)")
    if not shutil.which("ethtool"):
        pytest.skip("ethtool is not installed")
    return POFSWITCH


def offloads_off(ns: Any, ifname: str) -> None:
    """AF_PACKET ports see frames as sent only without TSO/GSO/GRO and checksum offload."""
    argv = ["ethtool", "-K", ifname, "tx", "off", "tso", "off", "gso", "off", "gro", "off"]
    if ns is None:
        subprocess.run(argv, check=True, capture_output=True)
    else:
        ns.exec(argv)


def start_pofswitch(processes: Any, binary: Path, tmp_path: Path, dev_id: int, ports: list[str], onos: Onos) -> Any:
    argv = [str(binary), "--controller", f"127.0.0.1:{onos.pof_port}", "--dev-id", str(dev_id),
            "--mgmt", str(tmp_path / f"mgmt{dev_id}.sock")]
    for i, ifname in enumerate(ports, 1):
        argv += ["--port", f"s{i}={ifname}"]
    return processes.start(argv, log_name=f"pofswitch{dev_id}")


def flows_of(onos: Any, dev: str) -> list[dict]:
    """ONOS answers 404 "Device is not found" for a device without flows."""
    code, body = onos.request("GET", f"/onos/v1/flows/{dev}")
    if code == 404:
        return []
    assert code == 200, body
    return body["flows"]
