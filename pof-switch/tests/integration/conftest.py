"""Fixtures for the real pofswitch on veths: three hosts in namespaces, a switch process, a test controller."""

from __future__ import annotations

import json
import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

import pytest
from wislice_testbed.topology.pofswitch import offloads_off

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pofctl import SCRIPTED_CONTROLLER_ARGS, Controller, mgmt_command  # noqa: E402

pytest_plugins = ["wislice_testbed.pytest_plugin"]

HERE = Path(__file__).resolve().parent
COMPONENT = HERE.parents[1]
BUILD = Path(os.environ.get("POFSWITCH_BUILD", COMPONENT / "build"))
ASAN_BUILD = Path(os.environ.get("POFSWITCH_ASAN_BUILD", COMPONENT / "build-asan"))


@dataclass
class Host:
    ns: Any
    ifname: str      # inside the namespace
    switch_if: str   # the host-side end, a switch port
    ip: str
    mac: bytes


def mac_of(ns: Any, ifname: str) -> bytes:
    out = ns.exec(["ip", "-j", "link", "show", "dev", ifname], capture_output=True, text=True).stdout
    return bytes.fromhex(json.loads(out)[0]["address"].replace(":", ""))


@pytest.fixture
def hosts(netns: Any, veth: Any) -> list[Host]:
    if not shutil.which("ethtool"):
        pytest.skip("ethtool is not installed")
    out = []
    for i in (1, 2, 3):
        ns = netns(f"h{i}")
        pair = veth(ns, None, addr_a=f"10.9.0.{i}/24")
        offloads_off(pair.a, ns.name)
        offloads_off(pair.b)
        out.append(Host(ns, pair.a, pair.b, f"10.9.0.{i}", mac_of(ns, pair.a)))
    return out


@pytest.fixture
def controller() -> Iterator[Controller]:
    c = Controller()
    yield c
    c.close()


def pofswitch_afp(build: Path = BUILD) -> Path:
    binary = build / "pofswitch-afp"
    if not binary.exists():
        pytest.skip(f"{binary} not built (make -C pof-switch build)")
    return binary


@dataclass
class Switch:
    proc: Any
    mgmt: Path
    ports: dict[str, dict]

    def mgmt_cmd(self, line: str) -> str:
        return mgmt_command(self.mgmt, line)


def start_switch(processes: Any, controller: Controller, hosts: list[Host], tmp_path: Path,
                 binary: Path, log_name: str = "pofswitch", port_extra: dict[str, str] | None = None,
                 extra_args: tuple[str, ...] = (), of10_config: bool = False) -> Switch:
    """port_extra: more items for a port's ARGS by port name, e.g. {"s3": ",rate=20000"}; extra_args: more
    options (e.g. "--reset-on-connect"); of10_config: the handshake's SET_CONFIG in OpenFlow 1.0's form."""
    mgmt = tmp_path / "mgmt.sock"
    argv = [str(binary), "--controller", f"127.0.0.1:{controller.port}", "--mgmt", str(mgmt),
            *SCRIPTED_CONTROLLER_ARGS, *extra_args]
    for i, h in enumerate(hosts, 1):
        argv += ["--port", f"s{i}={h.switch_if}{(port_extra or {}).get(f's{i}', '')}"]
    proc = processes.start(argv, log_name=log_name, env={**os.environ, "ASAN_OPTIONS": "detect_leaks=1"})
    controller.accept()
    ports = controller.handshake(of10_config=of10_config)
    for p in ports.values():
        controller.enable_port(p)
    controller.echo()
    return Switch(proc, mgmt, ports)


@pytest.fixture
def switch(processes: Any, controller: Controller, hosts: list[Host], tmp_path: Path) -> Switch:
    return start_switch(processes, controller, hosts, tmp_path, pofswitch_afp())
