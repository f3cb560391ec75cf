from __future__ import annotations

import pytest

from wislice_mec_agent.pool import WarmPool
from wislice_mec_agent.reconcile import reconcile
from wislice_mec_agent.store import VnfRecord

from .conftest import Node, spec
from .fakes import create_killed_after_container


def test_restart_adopts_healthy_vnfs_untouched(node: Node) -> None:
    node.manager.create(spec())
    before = node.holdings()
    cid = node.runtime.inspect("wv-mec-t-65538").id
    node.manager = node.new_manager()
    report = reconcile(node.manager)
    assert report["adopted"] == [65538] and report["rebuilt"] == [] and node.holdings() == before
    assert node.runtime.inspect("wv-mec-t-65538").id == cid


def test_crash_mid_create_is_rolled_back(node: Node, monkeypatch: pytest.MonkeyPatch) -> None:
    # Simulate a kill -9 after the container started but before the veth: the record says 'creating'.
    create_killed_after_container(node, monkeypatch, spec())
    assert node.holdings()["containers"] == ["wv-mec-t-65538"]
    assert [r.state for r in node.manager.store.all()] == ["creating"]
    node.manager = node.new_manager()
    report = reconcile(node.manager)
    assert report["rolled_back"] == [65538]
    assert node.empty(), node.holdings()


def test_dockerd_restart_rebuilds_from_records(node: Node) -> None:
    node.manager.create(spec())
    node.manager.create(spec(instance=3, image="dpdk-fwd"))
    node.runtime.stop_all()  # containers exited, their namespaces (and veths) gone
    node.switch.table.clear()  # and say the switch restarted too
    report = reconcile(node.new_manager())
    assert sorted(report["rebuilt"]) == [65538, 65539] and report["failed"] == []
    assert sorted(node.holdings()["links"]) == ["wt00010002"]
    assert sorted(node.holdings()["ports"]) == ["wt00010002", "wt00010003"]
    assert all(c.status == "running" for c in node.runtime.containers.values())
    assert len(node.runtime.containers) == 2


def test_a_restarted_switch_gets_the_running_vnfs_ports_back_with_their_numbers(node: Node) -> None:
    node.manager.create(spec())
    node.manager.create(spec(instance=3, image="dpdk-fwd"))
    numbers = {name: number for name, (number, _) in node.switch.table.items()}
    cids = {c.name: c.id for c in node.runtime.containers.values()}
    node.switch.table.clear()  # the switch restarted: its command-line ports only
    node.switch.next_id = iter(range(100, 200))  # a port added without its number would get another one
    report = reconcile(node.manager)
    assert sorted(report["readded_ports"]) == ["wt00010002", "wt00010003"] and report["rebuilt"] == []
    assert sorted(report["adopted"]) == [65538, 65539]
    assert {name: number for name, (number, _) in node.switch.table.items()} == numbers
    assert {c.name: c.id for c in node.runtime.containers.values()} == cids  # the vNFs kept running


def test_orphans_are_removed(node: Node) -> None:
    node.manager.create(spec())
    node.manager.create(spec(instance=3))
    node.manager.store.delete(65539)  # the agent forgot it: its container, veth, port and dir are orphans
    node.wiring.links["wt0000ffff"] = (1, "x")
    node.switch.table["wtdeadbeef"] = (99, "x")
    node.switch.table["uplink0"] = (100, "eth0")  # not ours: never touched
    report = reconcile(node.new_manager())
    assert report["removed_containers"] == ["wv-mec-t-65539"]
    assert sorted(report["removed_links"]) == ["wt0000ffff", "wt00010003"]
    assert sorted(report["removed_ports"]) == ["wt00010003", "wtdeadbeef"]
    assert report["removed_dirs"] == ["65539"]
    assert node.holdings()["ports"] == ["uplink0", "wt00010002"]


def test_rebuild_failure_keeps_a_failed_record(node: Node) -> None:
    node.manager.create(spec())
    node.runtime.stop_all()
    node.runtime.fail_on = {"start"}
    report = reconcile(node.new_manager())
    assert report["failed"][0]["vnf_id"] == 65538
    assert [r.state for r in node.manager.store.all()] == ["failed"]
    assert node.holdings()["containers"] == [] and node.holdings()["links"] == []


def test_warm_pool_claim_skips_create(tmp_path) -> None:
    n = Node(tmp_path, warm_pool={"kernel-fwd": 2})
    pool = WarmPool(n.config, n.catalog, n.runtime)
    assert pool.fill() == 2
    n.manager = n.new_manager(pool=pool)
    n.runtime.fail_on = {"create", "ensure_image"}  # a claim must not need them
    state = n.manager.create(spec(cpu=0.7, memory_mib=96))
    assert state["state"] == "running" and len(pool.ready["kernel-fwd"]) == 1
    cid = n.runtime.inspect("wv-mec-t-65538").id
    assert n.runtime.limits[cid] == (0.7, 96)
    n.manager.delete(65538)
    assert "wv-mec-t-65538" not in n.holdings()["containers"]
    pool.drain()
    assert n.runtime.containers == {}


def test_reconcile_removes_pool_leftovers(tmp_path) -> None:
    n = Node(tmp_path, warm_pool={"kernel-fwd": 1})
    WarmPool(n.config, n.catalog, n.runtime).fill()
    report = reconcile(n.new_manager())
    assert len(report["removed_containers"]) == 1 and n.runtime.containers == {}
    assert not any(n.config.pool_dir.iterdir())


def test_record_round_trip(node: Node) -> None:
    from wislice_mec_agent.spec import parse_vnf_spec

    rec = VnfRecord(vnf_id=65538, spec=parse_vnf_spec(spec(params={"a": 1.5, "b": True})), vnf_class="kernel",
                    state="running", container_name="c", config_dir="/x", ports=[{"name": "p", "pof_port": 3}])
    node.manager.store.put(rec)
    got = node.manager.store.get(65538)
    assert got is not None and got.spec == rec.spec and got.ports == rec.ports


def test_periodic_reconcile_keeps_the_live_pool(tmp_path) -> None:
    n = Node(tmp_path, warm_pool={"kernel-fwd": 2})
    pool = WarmPool(n.config, n.catalog, n.runtime)
    pool.fill()
    n.manager = n.new_manager(pool=pool)
    n.manager.create(spec())
    report = reconcile(n.manager)
    assert report["removed_containers"] == [] and report["removed_dirs"] == [] and report["adopted"] == [65538]
    assert len(pool.ready["kernel-fwd"]) == 1 and len(n.runtime.containers) == 2


def test_a_two_port_vnf_is_adopted_whole_and_its_ports_are_no_orphans(node: Node) -> None:
    node.manager.create(spec(image="transcoder", memory_mib=256))
    before = node.holdings()
    report = reconcile(node.new_manager())
    assert report["adopted"] == [65538] and report["removed_links"] == [] and report["removed_ports"] == []
    assert node.holdings() == before
    del node.wiring.links["wt000100021"]  # its second veth is gone: rebuilt with both
    report = reconcile(node.new_manager())
    assert report["rebuilt"] == [65538] and sorted(node.holdings()["links"]) == ["wt00010002", "wt000100021"]
