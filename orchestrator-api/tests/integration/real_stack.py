"""The real parts the orchestrator drives, brought up on this machine for integration tests and the benchmark:
the ONOS runtime (onos-apps/runtime/onos-runtime) with the built WiSlice apps on private ports, and an AP VM
(testbed/ap-vm: qemu, mac80211_hwsim, real hostapd) running the real ap-agent connected to that ONOS.

Everything is stopped by pid and its directories removed on exit, also on failure."""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import requests

from wislice_orchestrator.controllers import ControllerError
from wislice_orchestrator.controllers.rest import RestControllers

ROOT = Path(__file__).resolve().parents[3]
RUNTIME = ROOT / "onos-apps" / "runtime" / "onos-runtime"
APPS = {
    "wifi": ROOT / "onos-apps" / "wifi-controller" / "target" / "wislice-wifi-controller-0.1.0-SNAPSHOT.oar",
    "nfv": ROOT / "onos-apps" / "nfv-controller" / "target" / "wislice-nfv-controller-0.1.0-SNAPSHOT.oar",
    "pof": ROOT / "onos-apps" / "network-controller" / "target" / "wislice-network-controller-0.1.0-SNAPSHOT.oar",
}
# Component config written before the apps start, so their listeners avoid other runtimes' ports.
COMPONENTS = {"wifi": ("org.wislice.onos.wifi.impl.WifiManager", "agentPort"),
              "nfv": ("org.wislice.onos.nfv.impl.NfvManager", "agentPort"),
              "pof": ("org.wislice.onos.pof.impl.PofControllerImpl", "pofPort")}
READ = {"wifi": "list_agents", "nfv": "list_nodes", "pof": "list_switches"}
AP_VM_DIR = ROOT / "testbed" / "ap-vm"


class Unavailable(Exception):
    """A real part this machine cannot provide (not built, not installed): callers skip, never pass."""


def free_ports(n: int) -> list[int]:
    socks = [socket.socket() for _ in range(n)]
    try:
        for s in socks:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


@dataclass
class Onos:
    ctl: RestControllers
    url: str
    user: str
    password: str
    apps: dict[str, Path]
    listen: dict[str, int]
    wifi_secret: str
    extra: dict[str, Any] = field(default_factory=dict)


def _wait_for_rest(ctl: RestControllers, apps: dict[str, Path], timeout_s: float = 120) -> None:
    """An app is ACTIVE before its REST resources are mounted: wait until each answers."""
    deadline = time.monotonic() + timeout_s
    for name in apps:
        while True:
            try:
                getattr(ctl, READ[name])()
                break
            except ControllerError as exc:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"{name} REST not served {timeout_s} s after activation: {exc}") from exc
                time.sleep(1)


def _wait_listening(port: int, what: str, timeout_s: float = 60) -> None:
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise RuntimeError(f"{what} not listening on port {port} after {timeout_s} s") from None
            time.sleep(0.5)


@contextlib.contextmanager
def onos_runtime() -> Iterator[Onos]:
    if not RUNTIME.exists():
        raise Unavailable(f"{RUNTIME} is missing (onos-apps not landed)")
    present = {name: oar for name, oar in APPS.items() if oar.exists()}
    if not present:
        raise Unavailable("no WiSlice .oar built (make -C onos-apps build)")
    run_dir = Path(tempfile.mkdtemp(prefix="wislice-onos-"))
    http, ssh, rmi_reg, rmi_srv, cluster, *listen_ports = free_ports(5 + len(COMPONENTS))
    password = secrets.token_hex(12)
    wifi_secret = secrets.token_hex(16)
    env = dict(os.environ, ONOS_RUNTIME_DIR=str(run_dir), ONOS_HTTP_PORT=str(http), ONOS_SSH_PORT=str(ssh),
               ONOS_RMI_REGISTRY_PORT=str(rmi_reg), ONOS_RMI_SERVER_PORT=str(rmi_srv), ONOS_CLUSTER_PORT=str(cluster),
               ONOS_USER="onos", ONOS_PASSWORD=password)

    def runtime(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, str(RUNTIME), *args], env=env, capture_output=True, text=True,
                              timeout=timeout)

    listen = dict(zip(COMPONENTS, listen_ports, strict=True))
    try:
        started = runtime("start")
        if started.returncode != 0:
            raise RuntimeError(f"onos-runtime start failed:\n{started.stdout}\n{started.stderr}")
        etc = run_dir / "karaf" / "etc"
        for name, (component, key) in COMPONENTS.items():
            lines = [f"{key}={listen[name]}"]
            if name == "wifi":
                lines.append(f"sharedSecret={wifi_secret}")
            (etc / f"{component}.cfg").write_text("\n".join(lines) + "\n")
        installed = runtime("install-apps", *map(str, present.values()))
        if installed.returncode != 0:
            raise RuntimeError(f"onos-runtime install-apps failed:\n{installed.stdout}\n{installed.stderr}")
        url = f"http://127.0.0.1:{http}"
        ctl = RestControllers(url, "onos", password, timeout_s=30)
        _wait_for_rest(ctl, present)
        # The .cfg files race the apps' activation; ONOS's component configuration service is authoritative.
        for name in present:
            component, key = COMPONENTS[name]
            props: dict[str, Any] = {key: str(listen[name])}
            if name == "wifi":
                props["sharedSecret"] = wifi_secret
            resp = requests.post(f"{url}/onos/v1/configuration/{component}", json=props, auth=("onos", password),
                                 timeout=30)
            if resp.status_code >= 300:
                raise RuntimeError(f"configuring {component}: HTTP {resp.status_code} {resp.text[:300]}")
            _wait_listening(listen[name], f"{name} controller listener")
        yield Onos(ctl, url, "onos", password, present, listen, wifi_secret)
    finally:
        runtime("stop", timeout=120)
        shutil.rmtree(run_dir, ignore_errors=True)


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
