"""Switch attachments for integration tests: the real DPDK pofswitch (management socket), and a dpdk-testpmd
vhost-user peer that generates traffic and counts what comes back (used to prove a DPDK vNF forwards, because
the pof-switch only forwards along flows a POF controller installs)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from wislice_mec_agent.switch import MgmtSwitch, SwitchPort
from wislice_mec_agent.wiring import run_in_netns

ROOT = Path(os.environ.get("WISLICE_ROOT", Path(__file__).resolve().parents[3]))
POFSWITCH = ROOT / "pof-switch" / "build" / "pofswitch"
VETH_ARGS = "net_af_packet_{name},iface={ifname}"
VHOST_ARGS = "net_vhost_{name},iface={socket}"


def wait_for(path: Path, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        if time.monotonic() > deadline:
            raise TimeoutError(f"{path} did not appear in {timeout} s")
        time.sleep(0.05)


def start_pofswitch(processes: Any, ns: Any, tmp: Path) -> MgmtSwitch:
    """The DPDK pofswitch in the node namespace, no controller, ports hot-added over its management socket."""
    if not os.access(POFSWITCH, os.X_OK):
        pytest.skip(f"{POFSWITCH} is not built (make -C pof-switch build)")
    mgmt = tmp / "pof-mgmt.sock"
    processes.start([str(POFSWITCH), "-l", "1", "--in-memory", "--no-pci", "--file-prefix", f"pof{os.getpid()}",
                     "--", "--controller", "none", "--mgmt", str(mgmt), "--enable-ports"],
                    netns=ns, log_name="pofswitch")
    wait_for(mgmt)
    return MgmtSwitch(str(mgmt), veth_args=VETH_ARGS, vhost_args=VHOST_ARGS)


MM, EM, EM0 = 0, 2, 20  # POF table types (MM = masked match, EM = exact match) and EM 0's global table id
ETH_DST = {"field_id": 0, "offset": 0, "length": 48}
ETH_TYPE = {"field_id": 2, "offset": 96, "length": 16}
IP_DST = {"field_id": 5, "offset": 240, "length": 32}
DPDK_PEER_MAC = "02:00:00:00:02:05"  # what the client believes a DPDK vNF's MAC is (macswap answers any)


class SteeredSwitch:
    """The DPDK pofswitch in the node namespace under the pof-switch team's test controller (pof-switch/tests/
    integration/pofctl.py), with a client namespace on port c1 (a veth): frames to the client's MAC go to c1,
    broadcasts flood, anything else goes by its IPv4 destination (a vNF's vnf_id address) to the port steer() set.
    Ports the agent hot-adds come up enabled (--enable-ports). ``switch`` is the agent's MgmtSwitch on it; the
    agent config needs ``config_args()``. Stopped by the ``processes`` fixture; call close() for the controller."""

    __test__ = False

    def __init__(self, processes: Any, netns: Any, veth: Any, hugepages: Any, tmp: Path, tag: str = "mecs") -> None:
        if not os.access(POFSWITCH, os.X_OK):
            pytest.skip(f"{POFSWITCH} is not built (make -C pof-switch build)")
        sys.path.insert(0, str(ROOT / "pof-switch" / "tests" / "integration"))
        self.pofctl = pytest.importorskip("pofctl")
        self.node_ns, self.client = netns(tag), netns(f"{tag}c")
        pair = veth(self.client, self.node_ns, addr_a="10.77.0.2/16")
        self.client_if = pair.a
        for ns, ifname in ((self.client, pair.a), (self.node_ns, pair.b)):
            ns.exec(["ethtool", "-K", ifname, "tx", "off", "tso", "off", "gso", "off", "gro", "off"])
        client_mac = bytes.fromhex(self.client.exec(["cat", f"/sys/class/net/{pair.a}/address"]).stdout.strip()
                                   .replace(":", ""))
        # The controller listens in the node namespace, where the switch dials 127.0.0.1.
        self.ctl = run_in_netns(f"/run/netns/{self.node_ns.name}", self.pofctl.Controller)
        self.mgmt = tmp / "pof-steered.sock"
        self.hugepages_dir = str(hugepages.mount)
        try:
            processes.start([str(POFSWITCH), "-l", "1", "--in-memory", "--huge-dir", self.hugepages_dir,
                             "--no-pci", "--file-prefix", f"{tag}{os.getpid()}", "--no-telemetry", "--",
                             "--controller", f"127.0.0.1:{self.ctl.port}", "--mgmt", str(self.mgmt),
                             *self.pofctl.SCRIPTED_CONTROLLER_ARGS, "--enable-ports",
                             "--port", f"c1=net_af_packet1,iface={pair.b}"],
                            netns=self.node_ns, log_name="pofswitch")
            self.ctl.accept(timeout=20)
            ports = self.ctl.handshake()
            self.ctl.enable_port(ports["c1"])
            wait_for(self.mgmt)
            ctl, out = self.ctl, self._out
            # MM 0 on (Ethernet destination, type): to the client -> c1; broadcast and every ARP -> flood (so a
            # vNF and the client can always resolve each other, also by unicast probes); else EM 0 on the IPv4
            # destination = a vNF's address -> that vNF's port.
            mx, anything = self.pofctl.mx, lambda f: self.pofctl.mx(f, b"\x00" * (f["length"] // 8), b"\x00" * 8)
            ctl.table(MM, 0, "by-mac", [ETH_DST, ETH_TYPE])
            ctl.table(EM, 0, "by-vnf-id", [IP_DST])
            ctl.flow(MM, 0, 0, [mx(ETH_DST, client_mac), anything(ETH_TYPE)], [out(ports["c1"]["port_id"])],
                     priority=30)
            ctl.flow(MM, 0, 1, [mx(ETH_DST, b"\xff" * 6), anything(ETH_TYPE)], [out(255)], priority=20)
            ctl.flow(MM, 0, 2, [anything(ETH_DST), mx(ETH_TYPE, b"\x08\x06")], [out(255)], priority=20)
            ctl.flow(MM, 0, 3, [anything(ETH_DST), anything(ETH_TYPE)], [
                {"type": "GOTO_TABLE", "next_table_id": EM0, "packet_offset": 0, "matches": [IP_DST]}],
                priority=10)
            ctl.echo()
            ctl.expect_no("ERROR", wait=0.2)
        except BaseException:
            self.ctl.close()
            raise
        self.switch = MgmtSwitch(str(self.mgmt), veth_args=VETH_ARGS, vhost_args=VHOST_ARGS)
        self.flows: dict[str, int] = {}  # address -> EM flow index

    def _out(self, port: int) -> dict:
        return {"type": "APPLY_ACTIONS", "actions": [self.pofctl.output(port)]}

    def config_args(self) -> dict[str, str]:
        return {"switch_mgmt": str(self.mgmt), "switch_veth_args": VETH_ARGS, "switch_vhost_args": VHOST_ARGS,
                "hugepages_dir": self.hugepages_dir, "switch_cpus": "1"}  # its -l 1: placement keeps vNFs off it

    def steer(self, address: str, pof_port: int) -> None:
        """Frames for ``address`` -> ``pof_port`` (added, or modified after the vNF got a new port)."""
        index = self.flows.get(address)
        command = 1 if index is not None else 0  # POF_FLOW_MODIFY / POF_FLOW_ADD
        if index is None:
            index = self.flows[address] = len(self.flows)
        self.ctl.flow(EM, 0, index, [self.pofctl.mx(IP_DST, bytes(int(b) for b in address.split(".")))],
                      [self._out(pof_port)], command=command)
        self.ctl.echo()
        self.ctl.expect_no("ERROR", wait=0.1)
        self.client.exec(["ip", "route", "replace", f"{address}/32", "dev", self.client_if])
        # No neighbour flush: a vNF rebuilt after a dockerd restart keeps its MAC (ids.mac_of), so the client's
        # cached entry stays right; the recovery tests depend on that.

    def ping_kernel(self, address: str, timeout: float = 10.0) -> int:
        """A kernel vNF answers pings on its address through the switch (ARP floods, ICMP is steered); returns
        the pings it took (the first ones may go while the switch is still bringing a just added port up)."""
        deadline, tries = time.monotonic() + timeout, 0
        while True:
            tries += 1
            res = self.client.exec(["ping", "-c", "1", "-W", "1", address], check=False)
            if res.returncode == 0:
                return tries
            assert time.monotonic() < deadline, f"{address} answered none of {tries} pings through the switch"

    def roundtrip_dpdk(self, address: str, port_name: str, count: int = 20, timeout: float = 15.0) -> None:
        """A macswap DPDK vNF sends back every frame the switch gives it: port tx (to the vNF) and rx (from it).
        The switch only counts what it could send: a just created vNF whose testpmd has not connected to the
        vhost-user port yet takes nothing, so ping in rounds until ``count`` frames went through."""
        self.client.exec(["ip", "neigh", "replace", address, "lladdr", DPDK_PEER_MAC, "dev", self.client_if])
        before = self.switch.ports()[port_name]
        deadline = time.monotonic() + timeout
        while True:
            self.client.exec(["ping", "-c", "10", "-i", "0.05", "-W", "1", address], check=False)
            time.sleep(0.2)
            p = self.switch.ports()[port_name]
            tx, rx = p.tx_packets - before.tx_packets, p.rx_packets - before.rx_packets
            if (tx >= count and rx >= tx - 1) or time.monotonic() > deadline:
                break
        assert tx >= count and rx >= tx - 1, f"DPDK vNF {address}: switch sent {tx}, got back {rx}"

    def close(self) -> None:
        self.ctl.close()


class TestpmdPeer:
    """SwitchAttachment stand-in: add_vhost starts dpdk-testpmd (vhost-user server, flowgen 64 B) on the socket."""

    present = True
    __test__ = False

    def __init__(self, log_dir: Path) -> None:
        self.log_dir = log_dir
        self.procs: dict[str, tuple[subprocess.Popen[bytes], Path]] = {}

    def add_vhost(self, name: str, socket_path: str, port_id: int | None = None) -> int | None:
        log = self.log_dir / f"testpmd-{name}.log"
        with open(log, "wb") as out:
            proc = subprocess.Popen(
                ["dpdk-testpmd", "-l", "0,1", "--in-memory", "--no-pci", "--file-prefix", f"peer{name}",
                 "--vdev", f"net_vhost0,iface={socket_path},queues=1", "--", "--forward-mode=flowgen",
                 "--auto-start", "--stats-period", "1", "--nb-cores", "1", "--total-num-mbufs", "2048"],
                stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
        self.procs[name] = (proc, log)
        wait_for(Path(socket_path))
        return 1

    def add_veth(self, name: str, ifname: str, port_id: int | None = None) -> int | None:
        raise NotImplementedError

    def latency(self, name: str, on: bool) -> None:
        pass  # testpmd has no latency mode: it busy-polls anyway

    def received(self, name: str) -> int:
        """Packets the peer got back: the latest RX-packets of its periodic port statistics."""
        found = re.findall(r"RX-packets:\s+(\d+)", self.procs[name][1].read_text(errors="replace"))
        return int(found[-1]) if found else 0

    def remove(self, name: str) -> bool:
        entry = self.procs.pop(name, None)
        if entry is None:
            return False
        proc = entry[0]
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        return True

    def ports(self) -> dict[str, SwitchPort]:
        return {n: SwitchPort(name=n, port_id=1) for n in self.procs}

    def close(self) -> None:
        for name in list(self.procs):
            self.remove(name)
