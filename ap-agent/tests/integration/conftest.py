"""Host integration fixtures: real hostapd (driver=wired on veths in a test namespace: this host has no radio)
with a global control socket, and helpers for the agent process. Root resources come from wislice_testbed's
fixtures, so namespaces, veths and processes are removed even when a test fails."""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

pytest_plugins = ["wislice_testbed.pytest_plugin"]

PRIMARY = "apw0"  # the radio's primary netdev; vAPs are apw0_<slot>


def need(program: str) -> None:
    if shutil.which(program) is None:
        pytest.skip(f"{program} is not installed (ap-agent/deps/apt.txt; run `make deps`)")


@pytest.fixture
def sockdir():
    with tempfile.TemporaryDirectory(prefix="apag") as d:  # AF_UNIX paths must stay under 108 bytes
        yield Path(d)


@dataclass
class WiredAp:
    ns: object
    global_path: str
    ctrl_dir: str
    proc: subprocess.Popen

    def vap_netdevs(self, n: int) -> list[str]:
        return [f"{PRIMARY}_{i}" for i in range(1, n + 1)]


def add_veth(ns, name: str, peer: str, peer_ns=None) -> None:
    ns.exec(["ip", "link", "add", name, "type", "veth", "peer", "name", peer])
    if peer_ns is not None:
        ns.exec(["ip", "link", "set", peer, "netns", peer_ns.name])
        peer_ns.exec(["ip", "link", "set", peer, "up"])
    else:
        ns.exec(["ip", "link", "set", peer, "up"])
    ns.exec(["ip", "link", "set", name, "up"])


def wait_for_socket(path: str, proc: subprocess.Popen, timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if Path(path).exists():
            return
        if proc.poll() is not None:
            raise RuntimeError(f"hostapd exited with {proc.returncode}")
        time.sleep(0.05)
    raise TimeoutError(f"no control socket {path}")


@pytest.fixture
def wired_ap(netns, processes, sockdir):
    """hostapd in namespace "ap" with a primary wired BSS on apw0 and two spare veths apw0_1, apw0_2 for vAPs."""
    need("hostapd")
    ns = netns("ap")
    add_veth(ns, PRIMARY, f"{PRIMARY}p")
    ctrl_dir = str(sockdir / "ctrl")
    conf = sockdir / "primary.conf"
    conf.write_text(f"interface={PRIMARY}\ndriver=wired\nctrl_interface={ctrl_dir}\nssid=primary\nhw_mode=g\n"
                    "channel=6\nieee8021x=1\neap_server=1\n")
    global_path = str(sockdir / "global")
    proc = processes.start(["hostapd", "-g", global_path, str(conf)], netns=ns, log_name="hostapd")
    wait_for_socket(global_path, proc)
    return WiredAp(ns, global_path, ctrl_dir, proc)


def agent_config(path: Path, ap: WiredAp, controller_address: str, sockdir: Path, **over) -> Path:
    cfg = {"agent_id": "ap-it", "controller": controller_address, "secret": "test-secret",
           "hostapd_global": ap.global_path, "hostapd_ctrl_dir": ap.ctrl_dir, "conf_dir": str(sockdir / "conf"),
           "client_dir": str(sockdir), "stats_interval_s": 1, "keepalive_s": 2, "log_level": "DEBUG",
           "radios": [{"name": "phy0", "iface": PRIMARY, "driver": "wired", "mac": "02:00:00:00:00:00",
                       "channel": 6, "hw_mode": "g", "max_vaps": 2}]}
    cfg.update(over)
    path.write_text(json.dumps(cfg))
    return path


def iperf_mbps(client_ns, server_ns, processes, server_ip: str, port: int, reverse: bool = False,
               seconds: int = 5) -> float:
    """TCP goodput in Mbit/s measured by iperf3 between two namespaces (first second omitted: slow start)."""
    need("iperf3")
    server = processes.start(["iperf3", "-s", "-1", "-p", str(port)], netns=server_ns, log_name=f"iperf3-s{port}")
    deadline = time.monotonic() + 5
    argv = ["iperf3", "-c", server_ip, "-p", str(port), "-t", str(seconds), "-O", "1", "-J"]
    if reverse:
        argv.append("-R")
    while True:
        out = client_ns.exec(argv, check=False, timeout=seconds + 20)
        try:
            result = json.loads(out.stdout)
        except ValueError:
            result = {"error": f"no JSON from iperf3 (rc {out.returncode}): {out.stderr[-300:]}"}
        if "error" not in result and "sum_received" in result.get("end", {}):
            break
        if time.monotonic() > deadline:
            raise RuntimeError(f"iperf3: {result.get('error')}")
        time.sleep(0.2)  # the server may not listen yet
    processes.stop(server)
    return result["end"]["sum_received"]["bits_per_second"] / 1e6
