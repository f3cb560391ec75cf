"""DPDK vNF placement on the node's cores: the arithmetic (placement.py) and the manager's use of it over fakes."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from wislice_agent_proto.errors import AgentError
from wislice_agent_proto.validate import SCHEMA

from wislice_mec_agent.config import AgentConfig
from wislice_mec_agent.placement import SHARED_CORE_FILE, CorePlanner, Placement, parse_cpus, run_params
from wislice_mec_agent.pool import WarmPool
from wislice_mec_agent.reconcile import reconcile
from wislice_mec_agent.spec import VnfSpec

from .conftest import Node, spec

SPEC = Path(__file__).resolve().parents[3] / "spec" / "agent"


def test_cpu_lists_parse_as_the_kernel_writes_them() -> None:
    assert parse_cpus("") == [] and parse_cpus("3") == [3] and parse_cpus("0-2,5, 7-8") == [0, 1, 2, 5, 7, 8]
    for bad in ("a", "1-", "3-1", "-1", "1,,x", "0-99999"):
        with pytest.raises(ValueError):
            parse_cpus(bad)
    with pytest.raises(ValueError, match="switch_cpus"):
        AgentConfig(agent_id="a", state_dir="/tmp/x", switch_cpus=3)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="bad CPU"):
        AgentConfig(agent_id="a", state_dir="/tmp/x", node_cpus="0-z")


def test_two_cores_switch_on_0_the_vnfs_share_core_1() -> None:
    p = CorePlanner([0, 1], [0])
    assert p.place(1) == Placement("1", "exclusive")
    assert p.place(1) == Placement("1", "exclusive")  # placing again keeps its core
    assert p.place(2) == Placement("1", "shared")
    assert p.placement(1) == Placement("1", "shared")  # it has a neighbour now
    p.release(2)
    assert p.placement(1) == Placement("1", "exclusive") and p.placement(2) is None


def test_four_cores_exclusive_until_full_then_the_least_loaded_core() -> None:
    p = CorePlanner(range(4), [0])
    assert [p.place(v).cpus for v in (1, 2, 3)] == ["1", "2", "3"]
    assert all(p.placement(v).mode == "exclusive" for v in (1, 2, 3))
    assert [p.place(v).cpus for v in (4, 5)] == ["1", "2"]  # fewest vNFs first, then the lowest core
    assert [p.placement(v).mode for v in (1, 2, 3, 4, 5)] == ["shared", "shared", "exclusive", "shared", "shared"]
    p.release(3)
    assert p.place(6) == Placement("3", "exclusive")  # a freed core is free again
    assert "0" not in {p.placement(v).cpus for v in (1, 2, 4, 5, 6)}


def test_one_core_node_puts_vnfs_on_the_switch_core_with_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        p = CorePlanner([0], [0])
        assert p.switch_only
        assert p.place(1) == Placement("0", "switch") and p.place(2) == Placement("0", "switch")
    assert "only cores" in caplog.text and "the pof-switch's" in caplog.text
    alone = CorePlanner([0], [])  # a switch not pinned (switch_cpus empty): the core counts as the vNFs'
    assert not alone.switch_only and alone.place(1) == Placement("0", "exclusive")
    assert CorePlanner([0, 1], [5]).place(1).cpus == "0"  # a switch core the node does not have is ignored


def test_adopt_takes_one_core_of_the_node_only() -> None:
    p = CorePlanner(range(4), [0])
    assert p.adopt(7, "2") and p.placement(7) == Placement("2", "exclusive")
    assert p.place(8).cpus == "1" and p.place(9).cpus == "3"  # 2 is taken
    assert not p.adopt(7, "1-3") and p.placement(7) is None  # not one core: unplaced
    assert not p.adopt(10, "") and not p.adopt(10, "9") and not p.adopt(10, "x")


def placed_node(tmp_path: Path, **cfg: object) -> Node:
    return Node(tmp_path, node_cpus="0-1", switch_cpus="0", **cfg)


def test_a_dpdk_vnf_gets_its_core_as_cpuset_and_reports_it(tmp_path: Path) -> None:
    node = placed_node(tmp_path, report_placement=True)
    state = node.manager.create(spec(image="dpdk-vnf"))
    assert state["cpus"] == "1" and state["cpu_mode"] == "exclusive"
    cfg = next(iter(node.runtime.configs.values()))
    assert cfg.cpus == "1"
    kernel = node.manager.create(spec(instance=3))
    assert "cpus" not in kernel and [c.cpus for c in node.runtime.configs.values()] == ["1", ""]
    second = node.manager.create(spec(instance=4, image="dpdk-fwd"))
    assert (second["cpus"], second["cpu_mode"]) == ("1", "shared")
    listed = {s["vnf_id"]: s.get("cpu_mode") for s in node.manager.list_states()}
    assert listed == {65538: "shared", 65539: None, 65540: "shared"}
    node.manager.delete(65540)
    assert node.manager.planner.placement(65538) == Placement("1", "exclusive")
    assert node.manager.planner.placement(65540) is None


def test_placement_fields_stay_off_the_wire_when_turned_off(tmp_path: Path) -> None:
    assert AgentConfig(agent_id="a", state_dir="/tmp/x").report_placement  # on by default
    node = placed_node(tmp_path, report_placement=False)  # for an nfv-controller from before the fields
    state = node.manager.create(spec(image="dpdk-vnf"))
    assert "cpus" not in state and "cpus" not in node.manager.list_states()[0]
    assert node.manager.list_states(placement=True)[0]["cpus"] == "1"


def test_a_failed_create_frees_its_core(tmp_path: Path) -> None:
    node = placed_node(tmp_path)
    node.runtime.fail_on.add("start")
    with pytest.raises(AgentError) as err:
        node.manager.create(spec(image="dpdk-vnf"))
    assert "injected" in err.value.message
    assert node.manager.planner.assigned == {} and node.empty()


def test_restart_rebuilds_placement_from_the_containers(tmp_path: Path) -> None:
    node = placed_node(tmp_path)
    node.manager.create(spec(image="dpdk-vnf"))
    node.manager.create(spec(instance=3, image="dpdk-vnf"))
    node.manager = node.new_manager()  # an agent restart: nothing in memory
    assert node.manager.planner.assigned == {}
    report = reconcile(node.manager)
    assert report["adopted"] == [65538, 65539]
    assert node.manager.planner.assigned == {65538: 1, 65539: 1}
    assert node.manager.planner.placement(65538).mode == "shared"


def test_a_claimed_warm_container_is_confined_to_the_vnfs_core(tmp_path: Path) -> None:
    node = placed_node(tmp_path, warm_pool={"dpdk-vnf": 1})
    pool = WarmPool(node.config, node.catalog, node.runtime)
    pool.fill()
    node.manager = node.new_manager(pool=pool)
    state = node.manager.create(spec(image="dpdk-vnf"))
    cid = state["container_id"]
    assert node.runtime.containers[cid].cpus == "1" and node.runtime.configs[cid].cpus == ""  # made unconfined
    pool.drain()


def test_placed_vnf_states_are_what_the_spec_says(tmp_path: Path) -> None:
    node = placed_node(tmp_path, report_placement=True)
    node.manager.create(spec(image="dpdk-vnf"))
    node.manager.create(spec(instance=3))
    states = node.manager.list_states()
    # The spec's vectors, which the nfv-controller's codecs read too (agent-server CodecVectorTest).
    valid = SPEC / "vectors" / "valid"
    states += json.loads((valid / "reply-ok-getVnfs-placed.json").read_text())["result"]["vnfs"]
    states.append(json.loads((valid / "reply-ok-vnf-placed-switch.json").read_text())["result"]["vnf"])
    modes = ["exclusive", None, "exclusive", "shared", "shared", None, "switch"]
    assert [s.get("cpu_mode") for s in states] == modes
    for state in states:
        SCHEMA.check(state, "#/$defs/vnfState", "vnf")
    for bad in ({"cpu_mode": "pinned"}, {"cpus": "1-"}, {"cpus": ""}, {"cpus": 1}):
        assert not SCHEMA.is_valid(dict(states[0], **bad), "#/$defs/vnfState"), bad


def test_a_latency_vnf_keeps_its_core_while_others_have_one() -> None:
    p = CorePlanner(range(4), [0])
    assert p.place(1, latency=True) == Placement("1", "exclusive")
    assert [p.place(v).cpus for v in (2, 3, 4, 5)] == ["2", "3", "2", "3"]  # not core 1, though it is as loaded
    assert p.placement(1) == Placement("1", "exclusive")
    assert p.place(6, latency=True) == Placement("2", "shared")  # no free core: not another latency vNF's either
    p.release(1)
    assert p.place(7).cpus == "1"  # a released latency vNF's core is anyone's again
    only = CorePlanner([0, 1], [1])  # one vNF core: a neighbour has nowhere else to go
    only.place(1, latency=True)
    assert only.place(2) == Placement("0", "shared") and only.placement(1).mode == "shared"


def test_a_latency_slices_vnf_runs_in_latency_mode() -> None:
    def vnf(params: dict, latency_class: str | None = None) -> VnfSpec:
        return VnfSpec(1, 2, "dpdk-vnf", 0.5, 64, 0, params, None, latency_class)

    dpdk = ("mode", "cost_cycles", "burst", "latency", "vhost_server")  # dpdk-vnf's catalog params
    assert run_params(vnf({"mode": "fwd", "latency": True}), dpdk) == {"mode": "fwd", "latency": True}
    cls = vnf({"burst": 32}, "ultra_low")  # the class alone is enough; latency mode is burst 1
    assert run_params(cls, dpdk) == {"latency": True}
    assert run_params(cls, ("burst",)) == {"burst": 1}  # an image with a burst but no latency mode
    assert run_params(cls, ()) == {"burst": 32}  # an image without those params starts as sent
    assert run_params(vnf({"burst": 8}, "best_effort"), dpdk) == {"burst": 8}
    assert run_params(vnf({"latency": False}), dpdk) == {"latency": False}


def test_a_latency_vnf_busy_polls_only_while_its_core_is_its_own(tmp_path: Path) -> None:
    node = Node(tmp_path, node_cpus="0-2", switch_cpus="0")
    lat = {"latency": True}

    def shared(state: dict) -> bool:
        return (node.manager.vnf_dir(state["vnf_id"]) / SHARED_CORE_FILE).exists()

    first = node.manager.create(spec(image="dpdk-vnf", params=lat))
    assert first["cpu_mode"] == "exclusive" and first["params"] == lat  # the spec as sent
    assert not shared(first)
    other = node.manager.create(spec(instance=3, image="dpdk-vnf"))
    assert other["cpus"] == "2"  # kept off the latency vNF's core
    third = node.manager.create(spec(instance=4, image="dpdk-vnf", latency_class="low"))  # the class, no param
    assert "latency_class" not in third  # VnfState has none
    assert (third["cpus"], third["cpu_mode"]) == ("2", "shared")
    env = {s["vnf_id"]: (node.manager.vnf_dir(s["vnf_id"]) / "params.env").read_text() for s in (first, third)}
    assert env[first["vnf_id"]] == env[third["vnf_id"]] == "P_latency=true\n"
    assert shared(third) and not shared(first) and not shared(other)  # only latency vNFs get the file
    node.manager.delete(other["vnf_id"])
    assert not shared(third)  # its core is its own again: it busy-polls
    fourth = node.manager.create(spec(instance=5, image="dpdk-vnf"))
    assert fourth["cpus"] in ("1", "2") and shared(first) != shared(third)  # a neighbour joined one of them
    node.manager = node.new_manager()  # an agent restart: the latency vNFs keep their cores and their files
    (node.manager.vnf_dir(first["vnf_id"]) / SHARED_CORE_FILE).unlink(missing_ok=True)
    (node.manager.vnf_dir(third["vnf_id"]) / SHARED_CORE_FILE).unlink(missing_ok=True)
    reconcile(node.manager)
    assert node.manager.planner.latency == {first["vnf_id"], third["vnf_id"]}
    assert node.manager.planner.placement(first["vnf_id"]).cpus == "1"
    assert shared(first) != shared(third)


def test_kernel_vnfs_get_no_cpuset_fresh_claimed_or_adopted(tmp_path: Path) -> None:
    # Kernel vNFs forward in softirq wherever a packet arrives: CFS weights are their only CPU control.
    node = placed_node(tmp_path, warm_pool={"kernel-fwd": 1})
    pool = WarmPool(node.config, node.catalog, node.runtime)
    pool.fill()
    node.manager = node.new_manager(pool=pool)
    claimed = node.manager.create(spec())
    fresh = node.manager.create(spec(instance=3))
    for state in (claimed, fresh):
        assert "cpus" not in state and node.runtime.containers[state["container_id"]].cpus == ""
    assert node.manager.planner.assigned == {}
    node.manager = node.new_manager(pool=pool)
    reconcile(node.manager)
    assert node.manager.planner.assigned == {} and node.manager.planner.latency == set()
    pool.drain()


def test_a_latency_vnfs_port_is_in_the_switchs_latency_mode_where_the_switch_has_its_own_core(
        tmp_path: Path) -> None:
    own = Node(tmp_path / "own", node_cpus="0-2", switch_cpus="0")
    lat = own.manager.create(spec(image="dpdk-vnf", params={"latency": True}))
    plain = own.manager.create(spec(instance=3, image="dpdk-vnf"))
    assert own.switch.latency_ports == {lat["ports"][0]["name"]}, (lat, plain)
    own.manager.delete(lat["vnf_id"])
    assert own.switch.latency_ports == set()
    # No core of its own (none declared, or the vNFs had to go on it): a never-sleeping loop would take theirs.
    for cpus, switch_cpus in (("0-1", ""), ("0", "0")):
        node = Node(tmp_path / f"n{cpus}{switch_cpus}", node_cpus=cpus, switch_cpus=switch_cpus)
        node.manager.create(spec(image="dpdk-vnf", latency_class="ultra_low"))
        assert node.switch.latency_ports == set()
