"""DPDK vNFs: a vhost-user port on the switch, the socket's directory bind-mounted, virtio-user inside."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from .conftest import RealNode
from .switches import TestpmdPeer, start_pofswitch

pytestmark = pytest.mark.integration


def dspec(instance: int, **kw: object) -> dict:
    s = {"tenant_id": 2, "instance_id": instance, "image": "dpdk-fwd", "params": {"mode": "macswap"}, "cpu": 0.5,
         "memory_mib": 128, "chain_position": 0}
    s.update(kw)
    return s


@pytest.fixture
def dpdk_node(private_dockerd: Any, netns: Any, hugepages: Any, tmp_path: Path) -> Any:
    peer = TestpmdPeer(tmp_path)
    node = RealNode(netns("mecd"), private_dockerd, tmp_path / "state", switch=peer, hugepages_dir=str(hugepages.mount))
    try:
        yield node, peer
    finally:
        peer.close()
        node.cleanup()


def test_dpdk_vnf_returns_traffic_over_vhost_user(dpdk_node: Any) -> None:
    node, peer = dpdk_node
    state = node.manager.create(dspec(5))
    assert state["class"] == "dpdk" and state["address"] == "0.2.0.5"
    name = state["ports"][0]["name"]
    deadline = time.monotonic() + 20
    while peer.received(name) < 10000 and time.monotonic() < deadline:
        time.sleep(0.5)
    assert peer.received(name) >= 10000, "the DPDK vNF sent nothing back"
    node.manager.delete(state["vnf_id"])
    assert not any(node.holdings().values()), node.holdings()


def test_kernel_and_dpdk_vnfs_hot_added_to_the_real_pof_switch(private_dockerd: Any, netns: Any, hugepages: Any,
                                                               processes: Any, tmp_path: Path) -> None:
    ns = netns("mecp")
    switch = start_pofswitch(processes, ns, tmp_path)
    node = RealNode(ns, private_dockerd, tmp_path / "state", switch=switch, hugepages_dir=str(hugepages.mount))
    try:
        k = node.manager.create({"tenant_id": 3, "instance_id": 1, "image": "kernel-fwd", "params": {}, "cpu": 0.2,
                                 "memory_mib": 64, "chain_position": 0})
        d = node.manager.create(dspec(6, chain_position=1))
        ports = switch.ports()
        for state in (k, d):
            port = state["ports"][0]
            assert ports[port["name"]].port_id == port["pof_port"]
        ns.exec(["ip", "route", "add", "0.3.0.1/32", "dev", k["ports"][0]["name"]])
        node.ping("0.3.0.1")  # over the host veth, which the switch also holds (af_packet)
        node.manager.delete(k["vnf_id"])
        node.manager.delete(d["vnf_id"])
        assert not any(node.holdings().values()), node.holdings()
        assert not [n for n in switch.ports() if n.startswith(node.config.veth_prefix)]
    finally:
        node.cleanup()


def test_a_dpdk_vnf_placed_exclusively_gets_that_cpuset(private_dockerd: Any, netns: Any, hugepages: Any,
                                                        tmp_path: Path) -> None:
    """Placement on a 2-CPU node with the switch on CPU 0: our dpdk-vnf gets CPU 1 alone (Docker's cpuset, every
    thread of it there, traffic back through its EAL lcore there), a second DPDK vNF shares it."""
    peer = TestpmdPeer(tmp_path)
    node = RealNode(netns("mecc"), private_dockerd, tmp_path / "state", switch=peer,
                    hugepages_dir=str(hugepages.mount), node_cpus="0-1", switch_cpus="0", report_placement=True)
    try:
        first = node.manager.create(dspec(7, image="dpdk-vnf", params={}, cpu=0.2))
        assert (first["cpus"], first["cpu_mode"]) == ("1", "exclusive")
        api = node.runtime.client.api
        data = api.inspect_container(first["container_id"])
        assert data["HostConfig"]["CpusetCpus"] == "1"
        name = first["ports"][0]["name"]
        deadline = time.monotonic() + 15
        while peer.received(name) < 1000 and time.monotonic() < deadline:
            time.sleep(0.3)
        assert peer.received(name) >= 1000, "the placed DPDK vNF sent nothing back"
        pid = data["State"]["Pid"]
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
        assert len(tasks) >= 2  # the EAL lcore and its control threads: all of them on CPU 1
        for task in tasks:
            status = (task / "status").read_text().splitlines()
            allowed = [line for line in status if line.startswith("Cpus_allowed_list")]
            assert allowed == ["Cpus_allowed_list:\t1"], (task.name, allowed)
        second = node.manager.create(dspec(8))  # dpdk-fwd (testpmd), both lcores on its core
        assert (second["cpus"], second["cpu_mode"]) == ("1", "shared")
        assert api.inspect_container(second["container_id"])["HostConfig"]["CpusetCpus"] == "1"
        assert {s["vnf_id"]: s["cpu_mode"] for s in node.manager.list_states()} == {
            first["vnf_id"]: "shared", second["vnf_id"]: "shared"}
        node.manager.delete(second["vnf_id"])
        assert node.manager.list_states()[0]["cpu_mode"] == "exclusive"
        node.manager.delete(first["vnf_id"])
        assert not any(node.holdings().values()), node.holdings()
    finally:
        peer.close()
        node.cleanup()


def test_a_latency_vnf_busy_polls_while_its_core_is_its_own(private_dockerd: Any, netns: Any, hugepages: Any,
                                                            tmp_path: Path) -> None:
    """Issue 15: two latency slices' dpdk-vnf on a node with one vNF core: the first, alone there, busy-polls in
    latency mode (burst 1); once the second shares its core both sleep on rx interrupts between packets (the agent's
    shared-core file), and when the second goes the first busy-polls again."""
    peer = TestpmdPeer(tmp_path)
    node = RealNode(netns("mecl"), private_dockerd, tmp_path / "state", switch=peer,
                    hugepages_dir=str(hugepages.mount), node_cpus="0-1", switch_cpus="0", report_placement=True)

    def wakes(*states: dict) -> list[str]:
        """Each vNF's polling from its stats.json: "busy", "sleeps" (on rx interrupts, or backoff where the port
        gives none), "" before it wrote one."""
        out = []
        for s in states:
            path = node.manager.vnf_dir(s["vnf_id"]) / "stats.json"
            wake = json.loads(path.read_text())["wake"] if path.exists() else ""
            out.append("sleeps" if wake in ("intr", "backoff") else wake)
        return out

    def until(want: list[str], *states: dict) -> None:
        deadline = time.monotonic() + 20
        while wakes(*states) != want:
            assert time.monotonic() < deadline, f"wake modes {wakes(*states)}, expected {want}"
            time.sleep(0.2)

    try:
        lat = {"latency": True}
        first = node.manager.create(dspec(7, image="dpdk-vnf", params=lat, cpu=0.2))
        until(["busy"], first)
        second = node.manager.create(dspec(8, image="dpdk-vnf", params=lat, cpu=0.2))
        assert (first["cpu_mode"], second["cpus"], second["cpu_mode"]) == ("exclusive", "1", "shared")
        assert second["params"] == lat  # what was asked stays on the record; params.env has what runs
        until(["sleeps", "sleeps"], first, second)
        stats = json.loads((node.manager.vnf_dir(second["vnf_id"]) / "stats.json").read_text())
        assert stats["burst"] == 1, stats
        node.manager.delete(second["vnf_id"])
        until(["busy"], first)
        node.manager.delete(first["vnf_id"])
        assert not any(node.holdings().values()), node.holdings()
    finally:
        peer.close()
        node.cleanup()
