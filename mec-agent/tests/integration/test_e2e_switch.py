"""End to end through the real DPDK pofswitch: a client namespace, the switch and the agent's vNFs in a node
namespace, flows from the pof-switch team's test controller (pof-switch/tests/integration/pofctl.py). A kernel vNF
answers pings on its vnf_id; a DPDK vNF (macswap) returns what it gets over vhost-user; both are deleted with
nothing left and their switch ports gone."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from wislice_mec_agent.switch import MgmtSwitch
from wislice_mec_agent.wiring import run_in_netns

from .conftest import RealNode
from .switches import POFSWITCH, ROOT, wait_for

pytestmark = pytest.mark.integration
sys.path.insert(0, str(ROOT / "pof-switch" / "tests" / "integration"))
MM, EM, EM0 = 0, 2, 20
ETH_DST = {"field_id": 0, "offset": 0, "length": 48}
IP_DST = {"field_id": 5, "offset": 240, "length": 32}
CLIENT_MAC_DPDK_PEER = "02:00:00:00:02:05"  # what the client believes the DPDK vNF's MAC is


def enable_new_ports(ctl: Any, names: list[str]) -> dict[str, dict]:
    ports = {}
    for name in names:
        st = ctl.recv("PORT_STATUS", timeout=10, where=lambda m, n=name: m["body"]["port"]["name"] == n)
        ports[name] = st["body"]["port"]
        ctl.enable_port(ports[name])
    return ports


def test_traffic_to_each_vnf_id_through_the_pof_switch(private_dockerd: Any, netns: Any, veth: Any,
                                                       hugepages: Any, processes: Any, tmp_path: Path) -> None:
    if not os.access(POFSWITCH, os.X_OK):
        pytest.skip(f"{POFSWITCH} is not built (make -C pof-switch build)")
    pofctl = pytest.importorskip("pofctl")
    node_ns, client = netns("mece"), netns("mecc")
    pair = veth(client, node_ns, addr_a="10.77.0.2/16")
    for ns, ifname in ((client, pair.a), (node_ns, pair.b)):
        ns.exec(["ethtool", "-K", ifname, "tx", "off", "tso", "off", "gso", "off", "gro", "off"])
    client_mac = bytes.fromhex(client.exec(["cat", f"/sys/class/net/{pair.a}/address"]).stdout.strip()
                               .replace(":", ""))
    # The controller's listening socket lives in the node namespace, where the switch dials 127.0.0.1.
    ctl = run_in_netns(f"/run/netns/{node_ns.name}", pofctl.Controller)
    try:
        mgmt = tmp_path / "pof.sock"
        processes.start([str(POFSWITCH), "-l", "1", "--in-memory", "--huge-dir", str(hugepages.mount), "--no-pci",
                         "--file-prefix", f"mece{os.getpid()}", "--no-telemetry", "--",
                         "--controller", f"127.0.0.1:{ctl.port}", "--mgmt", str(mgmt), *pofctl.SCRIPTED_CONTROLLER_ARGS,
                         "--port", f"c1=net_af_packet1,iface={pair.b}"], netns=node_ns, log_name="pofswitch")
        ctl.accept(timeout=20)
        ports = ctl.handshake()
        ctl.enable_port(ports["c1"])
        wait_for(mgmt)
        switch = MgmtSwitch(str(mgmt), veth_args="net_af_packet_{name},iface={ifname}")
        node = RealNode(node_ns, private_dockerd, tmp_path / "state", switch=switch,
                        hugepages_dir=str(hugepages.mount), switch_cpus="1")
        try:
            k = node.manager.create({"tenant_id": 3, "instance_id": 1, "image": "kernel-fwd", "params": {},
                                     "cpu": 0.2, "memory_mib": 64, "chain_position": 0})
            d = node.manager.create({"tenant_id": 2, "instance_id": 5, "image": "dpdk-fwd", "cpu": 0.5,
                                     "memory_mib": 128, "chain_position": 1, "params": {"mode": "macswap"}})
            kport, dport = k["ports"][0], d["ports"][0]
            new = enable_new_ports(ctl, [kport["name"], dport["name"]])
            assert new[kport["name"]]["port_id"] == kport["pof_port"]
            # MM 0 on the Ethernet destination: to the client -> its port; broadcast -> flood; else EM 0 on the
            # IPv4 destination = the vnf_id address -> that vNF's port.
            ctl.table(MM, 0, "by-mac", [ETH_DST])
            ctl.table(EM, 0, "by-vnf-id", [IP_DST])
            out = lambda port: {"type": "APPLY_ACTIONS", "actions": [pofctl.output(port)]}  # noqa: E731
            ctl.flow(MM, 0, 0, [pofctl.mx(ETH_DST, client_mac)], [out(ports["c1"]["port_id"])], priority=30)
            ctl.flow(MM, 0, 1, [pofctl.mx(ETH_DST, b"\xff" * 6)], [out(255)], priority=20)
            ctl.flow(MM, 0, 2, [pofctl.mx(ETH_DST, b"\x00" * 6, b"\x00" * 6)], [
                {"type": "GOTO_TABLE", "next_table_id": EM0, "packet_offset": 0, "matches": [IP_DST]}], priority=10)
            ctl.flow(EM, 0, 0, [pofctl.mx(IP_DST, bytes([0, 3, 0, 1]))], [out(kport["pof_port"])])
            ctl.flow(EM, 0, 1, [pofctl.mx(IP_DST, bytes([0, 2, 0, 5]))], [out(dport["pof_port"])])
            ctl.echo()
            ctl.expect_no("ERROR", wait=0.2)
            for addr in (k["address"], d["address"]):
                client.exec(["ip", "route", "add", f"{addr}/32", "dev", pair.a])
            # Kernel vNF: ARP floods through the switch, ICMP is steered by the vnf_id, the reply comes back.
            res = client.exec(["ping", "-c", "3", "-i", "0.2", "-W", "2", k["address"]], check=False)
            assert res.returncode == 0, res.stdout
            # DPDK vNF: macswap sends every frame back over vhost-user; the switch counts them on the vNF's port.
            client.exec(["ip", "neigh", "add", d["address"], "lladdr", CLIENT_MAC_DPDK_PEER, "dev", pair.a])
            client.exec(["ping", "-c", "20", "-i", "0.05", "-W", "1", d["address"]], check=False)
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline:
                p = switch.ports()[dport["name"]]  # switch tx = sent to the vNF, switch rx = what it sent back
                if p.tx_packets >= 10 and p.rx_packets >= p.tx_packets:
                    break
                time.sleep(0.1)
            assert p.tx_packets >= 10 and p.rx_packets >= p.tx_packets - 1, switch.ports()
            node.manager.delete(k["vnf_id"])
            node.manager.delete(d["vnf_id"])
            assert not any(node.holdings().values()), node.holdings()
            assert set(switch.ports()) == {"c1"}
        finally:
            node.cleanup()
    finally:
        ctl.close()
