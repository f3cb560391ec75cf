"""pofswitch-afp (the AF_PACKET build of pof-switch/) processes on host netdevs, dialling the network controller."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from .common import repo_root


def afp_binary() -> Path:
    return repo_root() / "pof-switch" / "build" / "pofswitch-afp"


def device_id(dev_id: int) -> str:
    """The ONOS device id the network controller gives a switch with this --dev-id."""
    return f"pof:{dev_id:08x}"


def offloads_off(ifname: str, netns: str | None = None) -> None:
    """AF_PACKET ports need frames as sent: no TSO/GSO/GRO super-frames, no checksum offload."""
    argv = ["ethtool", "-K", ifname, "tx", "off", "tso", "off", "gso", "off", "gro", "off"]
    if netns:
        argv = ["ip", "netns", "exec", netns, *argv]
    subprocess.run(argv, check=True, capture_output=True)


def start_switch(processes: Any, dev_id: int, ports: list[tuple[str, str]], mgmt: Path, controller: str) -> Any:
    """Start one switch with ports [(port name, netdev)] numbered 1.. in order; returns the Popen."""
    argv = [str(afp_binary()), "--controller", controller, "--dev-id", str(dev_id), "--mgmt", str(mgmt)]
    for name, ifname in ports:
        offloads_off(ifname)
        argv += ["--port", f"{name}={ifname}"]
    return processes.start(argv, log_name=f"pofswitch-{dev_id}")
