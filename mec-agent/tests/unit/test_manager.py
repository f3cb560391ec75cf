from __future__ import annotations

import pytest
from wislice_agent_proto.errors import AgentError

from wislice_mec_agent.switch import NoSwitch

from .conftest import Node, spec


def test_create_kernel_vnf_wires_veth_and_switch_port(node: Node) -> None:
    state = node.manager.create(spec())
    assert state["vnf_id"] == 65538 and state["address"] == "0.1.0.2" and state["class"] == "kernel"
    assert state["state"] == "running" and state["ports"] == [{"name": "wt00010002", "pof_port": 1}]
    assert node.wiring.links["wt00010002"][1] == "0.1.0.2"
    assert node.switch.table["wt00010002"][1] == "wt00010002"
    cfg = next(iter(node.runtime.configs.values()))
    assert cfg.labels == {"wislice.agent": "mec-t", "wislice.vnf_id": "65538", "wislice.image": "kernel-fwd"}
    assert (node.config.vnf_dir / "65538" / "ready").exists()
    assert node.manager.list_states() == [state]


def test_create_dpdk_vnf_gets_vhost_port_with_socket_in_its_dir(node: Node) -> None:
    state = node.manager.create(spec(image="dpdk-fwd", params={"mode": "io"}))
    assert state["class"] == "dpdk" and node.wiring.links == {}
    assert node.switch.table["wt00010002"][1] == str(node.config.vnf_dir / "65538" / "vhost.sock")
    assert (node.config.vnf_dir / "65538" / "params.env").read_text() == "P_mode=io\n"


def test_delete_removes_everything(node: Node) -> None:
    node.manager.create(spec())
    node.manager.create(spec(instance=3, image="dpdk-fwd"))
    node.manager.delete(65538)
    node.manager.delete(65539)
    assert node.empty(), node.holdings()
    with pytest.raises(AgentError) as err:
        node.manager.delete(65538)
    assert err.value.code == "not_found"


@pytest.mark.parametrize(("change", "code", "words"), [
    ({"image": "nope"}, "bad_request", "unknown image"),
    ({"tenant_id": 70000}, "bad_request", "tenant_id 70000 out of range"),
    ({"cpu": 3.0}, "capacity", "cpu 3.0 does not fit"),
    ({"memory_mib": 4096}, "capacity", "memory 4096 MiB does not fit"),
])
def test_bad_inputs_leave_nothing(node: Node, change: dict, code: str, words: str) -> None:
    with pytest.raises(AgentError) as err:
        node.manager.create(spec(**change))
    assert err.value.code == code and words in err.value.message
    assert node.empty()


def test_duplicate_instance_is_a_conflict_and_keeps_the_first(node: Node) -> None:
    first = node.manager.create(spec())
    before = node.holdings()
    with pytest.raises(AgentError) as err:
        node.manager.create(spec(image="firewall"))
    assert err.value.code == "conflict" and "already exists" in err.value.message
    assert node.holdings() == before and node.manager.list_states() == [first]


def test_capacity_counts_existing_vnfs(node: Node) -> None:
    node.manager.create(spec(cpu=1.5))
    with pytest.raises(AgentError, match="cpu 1.0 does not fit: 1.5 of 2"):
        node.manager.create(spec(instance=3, cpu=1.0))


def test_dpdk_without_switch_is_unsupported(tmp_path) -> None:
    n = Node(tmp_path, switch=NoSwitch())
    with pytest.raises(AgentError) as err:
        n.manager.create(spec(image="dpdk-fwd"))
    assert err.value.code == "unsupported"
    state = n.manager.create(spec())
    assert state["ports"] == [{"name": "wt00010002", "pof_port": None}]


@pytest.mark.parametrize("where", ["ensure_image", "create", "start", "create_veth", "add_veth"])
def test_failure_at_any_step_rolls_back(node: Node, where: str) -> None:
    for fake in (node.runtime, node.wiring, node.switch):
        fake.fail_on = {where}
    with pytest.raises(AgentError) as err:
        node.manager.create(spec())
    assert err.value.code == "internal" and "injected failure" in err.value.message
    assert node.empty(), node.holdings()


def test_vhost_failure_rolls_back(node: Node) -> None:
    node.switch.fail_on = {"add_vhost"}
    with pytest.raises(AgentError):
        node.manager.create(spec(image="dpdk-fwd"))
    assert node.empty()


def test_status_reports_capacity_and_use(node: Node) -> None:
    node.manager.create(spec(cpu=0.5, memory_mib=100))
    st = node.manager.status()
    assert st["capacity"] == {"cpu": 2.0, "memory_mib": 1024} and st["used"] == {"cpu": 0.5, "memory_mib": 100}
    assert st["vnfs"] == 1 and st["agent_id"] == "mec-t"


def test_sync_creates_removes_keeps(node: Node) -> None:
    node.manager.create(spec(instance=1))
    node.manager.create(spec(instance=2))
    kept_container = node.runtime.inspect("wv-mec-t-65538").id
    result = node.manager.sync([spec(instance=2), spec(instance=3), spec(instance=4, image="nope")])
    assert result["kept"] == [65538] and result["created"] == [65539] and result["removed"] == [65537]
    assert result["failed"] == [{"vnf_id": 65540, "error": "unknown image 'nope': the catalog has dpdk-bridge,"
                                 " dpdk-fwd, dpdk-vnf, firewall, kernel-fwd, monitor, transcoder"}]
    assert node.runtime.inspect("wv-mec-t-65538").id == kept_container
    assert sorted(node.holdings()["records"]) == [65538, 65539]


def test_sync_replaces_a_changed_spec(node: Node) -> None:
    node.manager.create(spec(cpu=0.5))
    result = node.manager.sync([spec(cpu=1.0)])
    assert result["created"] == [65538] and result["kept"] == [] and result["removed"] == []
    assert node.manager.list_states()[0]["cpu"] == 1.0


def test_chain_id_is_kept_with_the_vnf_not_echoed_and_a_sync_that_only_adds_it_keeps_the_vnf(node: Node) -> None:
    state = node.manager.create(spec(chain_id=7))
    assert "chain_id" not in state and "chain_id" not in node.manager.list_states()[0]
    assert node.new_manager().store.get(65538).spec.chain_id == 7  # from the records, as a restart reads them
    node.manager.create(spec(instance=3))
    cid = node.runtime.inspect("wv-mec-t-65539").id
    result = node.manager.sync([spec(chain_id=7), spec(instance=3, chain_id=8)])
    assert result["kept"] == [65538, 65539] and result["created"] == []
    assert node.runtime.inspect("wv-mec-t-65539").id == cid
    assert node.manager.store.get(65539).spec.chain_id == 8


def test_events_are_emitted(node: Node) -> None:
    seen = []
    node.manager.events.append(lambda vnf_id, state: seen.append((vnf_id, state)))
    node.manager.create(spec())
    node.manager.delete(65538)
    assert seen == [(65538, "running"), (65538, "removed")]


def test_a_two_port_vnf_gets_a_veth_and_a_switch_port_per_interface(node: Node) -> None:
    state = node.manager.create(spec(image="transcoder", memory_mib=256, params={"bridge_address": "10.1.1.9/24"}))
    assert state["ports"] == [{"name": "wt00010002", "pof_port": 1}, {"name": "wt000100021", "pof_port": 2}]
    # Only 'in' is addressed (its /32); 'out' is a bare link.
    assert node.wiring.links["wt00010002"][1] == "0.1.0.2" and node.wiring.links["wt000100021"][1] == ""
    assert sorted(node.switch.table) == ["wt00010002", "wt000100021"]
    node.manager.delete(65538)
    assert node.empty(), node.holdings()


def test_a_two_port_vnf_failing_at_its_second_port_leaves_nothing(node: Node) -> None:
    calls = []
    real = node.wiring.create_veth

    def second_fails(host_ifname: str, pid: int, address: str, mac: str, container_ifname: str = "in") -> None:
        calls.append(container_ifname)
        if container_ifname == "out":
            raise RuntimeError("no more veths")
        return real(host_ifname, pid, address, mac, container_ifname)

    node.wiring.create_veth = second_fails
    with pytest.raises(Exception, match="no more veths"):
        node.manager.create(spec(image="transcoder", memory_mib=256))
    assert calls == ["in", "out"] and node.empty(), node.holdings()
