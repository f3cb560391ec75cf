"""The real parts the orchestrator drives, brought up on this machine for integration tests and the benchmark:
the ONOS runtime with the built WiSlice apps on private ports (the testbed's, wislice_testbed.topology.onos), and
an AP VM (testbed/ap-vm: qemu, mac80211_hwsim, real hostapd) running the real ap-agent connected to that ONOS.

Everything is stopped by pid and its directories removed on exit, also on failure."""

from __future__ import annotations

import contextlib
import json
import shutil
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wislice_testbed.topology.onos import APPS as TESTBED_APPS
from wislice_testbed.topology.onos import missing_apps
from wislice_testbed.topology.onos import onos_runtime as testbed_onos_runtime

from wislice_orchestrator.controllers.rest import RestControllers

ROOT = Path(__file__).resolve().parents[3]
APPS = {name: ROOT / rel for name, rel in TESTBED_APPS.items()}
AP_VM_DIR = ROOT / "testbed" / "ap-vm"


class Unavailable(Exception):
    """A real part this machine cannot provide (not built, not installed): callers skip, never pass."""


@dataclass
class Onos:
    ctl: RestControllers
    url: str
    user: str
    password: str
    apps: dict[str, Path]
    listen: dict[str, int]
    wifi_secret: str


@contextlib.contextmanager
def onos_runtime() -> Iterator[Onos]:
    """The testbed's ONOS runtime (private ports, the three apps, agents' shared secret set through ONOS), with
    the orchestrator's own REST controller client on it."""
    missing = missing_apps(ROOT)
    if missing:
        raise Unavailable(f"WiSlice ONOS apps not built: {', '.join(missing)} (make -C onos-apps build)")
    with testbed_onos_runtime(say=lambda _msg: None) as onos:
        yield Onos(RestControllers(onos.url, onos.user, onos.password, timeout_s=30), onos.url, onos.user,
                   onos.password, APPS, {"wifi": onos.wifi_port, "nfv": onos.nfv_port, "pof": onos.pof_port},
                   onos.secret)


@dataclass
class ApAgent:
    vm: Any
    station: Any
    agent_id: str
    pid: int

    def log(self) -> str:
        return self.vm.run("tail -n 60 /tmp/agent.log", check=False).out


@contextlib.contextmanager
def ap_vm_agent(onos: Onos, agent_id: str = "ap-vm-1", max_vaps: int = 8) -> Iterator[ApAgent]:
    """An AP VM with real hostapd on phy0 and a station radio (phy1), its ap-agent dialling the wifi-controller."""
    if "wifi" not in onos.apps:
        raise Unavailable("the wifi-controller app is not built")
    if shutil.which("qemu-system-x86_64") is None:
        raise Unavailable("qemu-system-x86_64 missing (testbed/ap-vm/deps/apt.txt)")
    sys.path.insert(0, str(AP_VM_DIR))
    from apvm import ApVm  # the testbed's AP VM driver
    from wifi import Hostapd, Station

    vm = ApVm(radios=2)
    try:
        vm.start()
        if vm.run("test -d /opt/wislice/ap-agent/wislice_ap_agent", check=False).rc != 0:
            raise Unavailable("the AP VM image has no ap-agent")
        hostapd = Hostapd(vm, iface="wlan0", channel=1)
        hostapd.start()
        station = Station(vm, "sta1", "phy1").setup()
        conf = {"agent_id": agent_id, "controller": f"10.0.2.2:{onos.listen['wifi']}", "secret": onos.wifi_secret,
                "hostapd_global": "/run/hostapd-global", "hostapd_ctrl_dir": "/run/hostapd",
                "conf_dir": "/run/wislice/agent", "shaping": "tc", "stats_interval_s": 1,
                "remove_vaps_on_exit": True, "log_level": "INFO",
                "radios": [{"name": "phy0", "iface": "wlan0", "max_vaps": max_vaps}]}
        hostapd.write_file("/run/wislice/agent.json", json.dumps(conf) + "\n")
        pid = vm.spawn("env PYTHONPATH=/opt/wislice/ap-agent python3 -m wislice_ap_agent "
                       "--config /run/wislice/agent.json", log="/tmp/agent.log")
        agent = ApAgent(vm, station, agent_id, pid)
        deadline = time.monotonic() + 90
        while not any(a["agent_id"] == agent_id and a.get("connected") for a in onos.ctl.list_agents()):
            if time.monotonic() > deadline:
                raise RuntimeError(f"ap-agent did not connect to the wifi-controller in 90 s:\n{agent.log()}")
            time.sleep(0.5)
        try:
            yield agent
        finally:
            station.disconnect()
            vm.run(f"kill {pid}; for i in $(seq 50); do kill -0 {pid} 2>/dev/null || break; sleep 0.1; done; "
                   f"kill -9 {pid} 2>/dev/null; true", check=False)
    finally:
        vm.stop()
