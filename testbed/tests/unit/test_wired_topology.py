"""The wired topology each testbed shape declares to the orchestrator: one AP, two APs, two edge sites."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from wislice_testbed.topology import testbed as tb_module
from wislice_testbed.topology.mecnode import MecNode


def shape(aps: int, mecs: int) -> tb_module.Testbed:
    second = SimpleNamespace(agent_id="ap-2", device_id="pof:00000004") if aps == 2 else None
    ap = SimpleNamespace(agent_id="ap-1", device_id="pof:00000001", second=second)
    mec = MecNode("mec-1", None, None, None, None, None)  # type: ignore[arg-type]
    mec2 = (MecNode("mec-2", None, None, None, None, None, dev_id=tb_module.MEC2_DEV_ID)  # type: ignore[arg-type]
            if mecs == 2 else None)
    return tb_module.Testbed(None, ap, mec, None, None, None, None, mec2=mec2)  # type: ignore[arg-type]


def hops(topo: dict, a: str, b: str) -> int:
    """Links on the shortest route between two devices (breadth first)."""
    seen, frontier, n = {a}, {a}, 0
    while b not in frontier:
        frontier = {x["b"] if x["a"] in frontier else x["a"] for x in topo["links"]
                    if (x["a"] in frontier) != (x["b"] in frontier)} - seen
        assert frontier, f"{b} unreachable from {a}"
        seen |= frontier
        n += 1
    return n


def test_one_ap_one_mec_node() -> None:
    topo = shape(1, 1).wired_topology()
    assert topo["attachments"] == {"ap-1": "pof:00000001", "mec-1": "pof:00000003"}
    assert len(topo["links"]) == 2 and topo["egress"] == {}


def test_two_aps_share_the_core() -> None:
    topo = shape(2, 1).wired_topology()
    assert topo["attachments"]["ap-2"] == "pof:00000004"
    assert {"a": "pof:00000004", "a_port": 1, "b": "pof:00000002", "b_port": 3} in [
        {k: x[k] for k in ("a", "a_port", "b", "b_port")} for x in topo["links"]]


def test_two_edge_sites_make_each_ap_nearest_its_own_mec_node() -> None:
    topo = shape(2, 2).wired_topology(egress=True)
    at = topo["attachments"]
    assert at["mec-2"] == "pof:00000005" and len(topo["links"]) == 5
    assert hops(topo, at["ap-1"], at["mec-1"]) == 2 and hops(topo, at["ap-1"], at["mec-2"]) == 3
    assert hops(topo, at["ap-2"], at["mec-2"]) == 2 and hops(topo, at["ap-2"], at["mec-1"]) == 3
    assert topo["egress"] == {"pof:00000003": 2, "pof:00000005": 2}
    # Every switch port is used once.
    ends = [(x["a"], x["a_port"]) for x in topo["links"]] + [(x["b"], x["b_port"]) for x in topo["links"]]
    assert len(ends) == len(set(ends))


def test_egress_needs_the_second_mec_node() -> None:
    with pytest.raises(ValueError, match="mecs=2"):
        shape(2, 1).wired_topology(egress=True)
