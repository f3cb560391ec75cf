"""pof-switch processes on host netdevs, dialling the network controller: pofswitch-afp (the AF_PACKET build of
pof-switch/) everywhere, or the DPDK pofswitch on the MEC node (``start_dpdk_switch``)."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from .common import repo_root


def afp_binary() -> Path:
    return repo_root() / "pof-switch" / "build" / "pofswitch-afp"


def dpdk_binary() -> Path:
    return repo_root() / "pof-switch" / "build" / "pofswitch"


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


def start_dpdk_switch(processes: Any, dev_id: int, ports: list[tuple[str, str, str]], mgmt: Path, controller: str,
                      huge_dir: Path, prefix: str, lcore: int) -> Any:
    """Start the DPDK pofswitch with ports [(port name, netdev, extra devargs)] numbered 1.. in order, each netdev a
    net_af_packet vdev; its EAL runtime under /var/run/dpdk/``prefix`` (the caller removes it). Adaptive polling
    (the default: no --busy-poll) keeps it off the CPU when idle, which the TCG AP VM beside it needs."""
    argv = [str(dpdk_binary()), "-l", str(lcore), "--in-memory", "--huge-dir", str(huge_dir), "--no-pci",
            "--file-prefix", prefix, "--no-telemetry", "--log-level=lib.eal:error", "--",
            "--controller", controller, "--dev-id", str(dev_id), "--mgmt", str(mgmt)]
    for index, (name, ifname, extra) in enumerate(ports):
        offloads_off(ifname)  # net_af_packet reads what the kernel hands it: no GRO super-frames either
        argv += ["--port", f"{name}=net_af_packet{index},iface={ifname}" + (f",{extra}" if extra else "")]
    return processes.start(argv, log_name=f"pofswitch-dpdk-{dev_id}")
