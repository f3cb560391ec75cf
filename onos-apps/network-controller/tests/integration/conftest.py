"""Fixtures: the real ONOS runtime with the network-controller app, and real pofswitch processes on veths."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, Iterator

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from onos_runtime import ROOT, Onos  # noqa: E402

pytest_plugins = ["wislice_testbed.pytest_plugin"]
POFSWITCH = Path(os.environ.get("POFSWITCH_AFP", ROOT / "pof-switch" / "build" / "pofswitch-afp"))


@pytest.fixture(scope="module")
def onos() -> Iterator[Onos]:
    if os.geteuid() != 0:
        pytest.skip("needs root (namespaces, veths)")
    o = Onos()
    try:
        o.up()
    except (RuntimeError, subprocess.CalledProcessError) as e:
        o.down()
        pytest.fail(f"ONOS runtime with the network-controller app did not come up: {e}")
    try:
        yield o
    finally:
        o.down()


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


def start_pofswitch(processes: Any, binary: Path, tmp_path: Path, dev_id: int, ports: list[str]) -> Any:
    argv = [str(binary), "--controller", "127.0.0.1:6643", "--dev-id", str(dev_id),
            "--mgmt", str(tmp_path / f"mgmt{dev_id}.sock")]
    for i, ifname in enumerate(ports, 1):
        argv += ["--port", f"s{i}={ifname}"]
    return processes.start(argv, log_name=f"pofswitch{dev_id}")
