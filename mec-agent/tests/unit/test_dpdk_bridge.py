"""A dpdk vNF with interfaces ['in', 'out'] (catalog dpdk-bridge): two vhost-user switch ports, 'in' on vhost.sock
named by its vnf_id and 'out' on vhost-out.sock named as a kernel vNF's second veth, both in its VnfState ports, both
gone on delete and on a failed create, both found again by reconcile (issue 14)."""

from __future__ import annotations

from pathlib import Path

import pytest
from wislice_agent_proto.errors import AgentError

from wislice_mec_agent.catalog import Catalog
from wislice_mec_agent.reconcile import reconcile
from wislice_mec_agent.spec import parse_vnf_spec
from wislice_mec_agent.vnf_classes import vnf_class

from .conftest import Node, spec
from .fakes import create_killed_after_container

IN, OUT = "wt00010002", "wt000100021"


def bridge(**kw: object) -> dict:
    return spec(image="dpdk-bridge", **kw)


def test_catalog_has_dpdk_bridge_the_dpdk_vnf_program_with_two_interfaces() -> None:
    cat = Catalog.load()
    image = cat.get("dpdk-bridge")
    assert image.vnf_class == "dpdk" and image.interfaces == ("in", "out")
    assert image.built == cat.get("dpdk-vnf").built
    assert sorted(image.params) == ["burst", "cost_cycles", "latency", "mode"]
    cat.check_spec(parse_vnf_spec(bridge(params={"mode": "cost", "cost_cycles": 500, "burst": 8,
                                                 "latency": False})))
    with pytest.raises(AgentError, match="no parameter 'vhost_server'"):  # both sockets are the switch's
        cat.check_spec(parse_vnf_spec(bridge(params={"vhost_server": True})))
    # its run.sh is dpdk-vnf's (images.py takes vnfs/<image>/run.sh)
    vnfs = Path(__file__).resolve().parents[2] / "vnfs"
    assert (vnfs / "dpdk-bridge" / "run.sh").read_bytes() == (vnfs / "dpdk-vnf" / "run.sh").read_bytes()


def test_a_bridge_gets_two_vhost_ports_in_order_and_the_out_port_marker(node: Node) -> None:
    state = node.manager.create(bridge(params={"mode": "fwd"}))
    cdir = node.config.vnf_dir / "65538"
    assert state["class"] == "dpdk" and node.wiring.links == {}
    assert state["ports"] == [{"name": IN, "pof_port": 1}, {"name": OUT, "pof_port": 2}]
    assert node.switch.table[IN][1] == str(cdir / "vhost.sock")
    assert node.switch.table[OUT][1] == str(cdir / "vhost-out.sock")
    assert (cdir / "out-port").exists() and (cdir / "ready").exists()
    assert [p["name"] for p in node.manager.list_states()[0]["ports"]] == [IN, OUT]
    node.manager.delete(65538)
    assert node.empty(), node.holdings()


def test_a_one_port_dpdk_vnf_is_as_before(node: Node) -> None:
    state = node.manager.create(spec(image="dpdk-vnf"))
    assert state["ports"] == [{"name": IN, "pof_port": 1}] and sorted(node.switch.table) == [IN]
    assert not (node.config.vnf_dir / "65538" / "out-port").exists()


def test_a_bridge_failing_at_its_second_port_leaves_nothing(node: Node) -> None:
    calls = []
    real = node.switch.add_vhost

    def second_fails(name: str, socket_path: str, port_id: int | None = None) -> int | None:
        calls.append(Path(socket_path).name)
        if socket_path.endswith("vhost-out.sock"):
            raise RuntimeError("no more ports")
        return real(name, socket_path, port_id)

    node.switch.add_vhost = second_fails
    with pytest.raises(Exception, match="no more ports"):
        node.manager.create(bridge())
    assert calls == ["vhost.sock", "vhost-out.sock"] and node.empty(), node.holdings()


def test_a_bridge_failing_after_its_ports_removes_both(node: Node) -> None:
    node.runtime.fail_on = {"start"}
    with pytest.raises(Exception, match="injected failure in start"):
        node.manager.create(bridge())
    assert node.empty(), node.holdings()


def test_port_stats_give_both_ports(node: Node) -> None:
    node.manager.create(bridge())
    rec = node.manager.store.get(65538)
    assert rec is not None
    ports = vnf_class(rec.vnf_class).port_stats(node.manager, rec)
    # the switch's tx on a port is what the vNF received on it (FakeSwitch: rx 5, tx 7 on every port)
    assert [(p["name"], p["rx_packets"], p["tx_packets"]) for p in ports] == [(IN, 7, 5), (OUT, 7, 5)]


def test_reconcile_adopts_a_bridge_whole_and_readds_both_ports_with_their_numbers_and_sockets(node: Node) -> None:
    node.manager.create(bridge())
    before = node.holdings()
    table = dict(node.switch.table)
    report = reconcile(node.new_manager())
    assert report["adopted"] == [65538] and report["removed_ports"] == [] and node.holdings() == before
    node.switch.table.clear()  # the switch restarted: its command-line ports only
    node.switch.next_id = iter(range(100, 200))
    report = reconcile(node.new_manager())
    assert sorted(report["readded_ports"]) == [IN, OUT] and report["adopted"] == [65538]
    assert node.switch.table == table  # same numbers, 'out' again on vhost-out.sock


def test_reconcile_rebuilds_a_bridge_that_lost_its_container(node: Node) -> None:
    node.manager.create(bridge())
    node.runtime.stop_all()
    node.switch.table.clear()
    report = reconcile(node.new_manager())
    assert report["rebuilt"] == [65538] and report["failed"] == []
    assert sorted(node.holdings()["ports"]) == [IN, OUT]


def test_a_bridge_killed_mid_create_is_rolled_back_with_both_ports(node: Node, monkeypatch) -> None:
    create_killed_after_container(node, monkeypatch, bridge())
    assert sorted(node.holdings()["ports"]) == [IN, OUT]
    node.manager = node.new_manager()
    report = reconcile(node.manager)
    assert report["rolled_back"] == [65538] and report["removed_ports"] == [OUT]  # not in the record yet: orphan
    assert node.empty(), node.holdings()
