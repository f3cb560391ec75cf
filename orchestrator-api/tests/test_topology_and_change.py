"""Per-direction path search, stored routes, and re-admission of a live slice's change (pure functions)."""

from __future__ import annotations

from test_admission import small_links, snapshot

from wislice_orchestrator.admission import check_change
from wislice_orchestrator.topology import Link, Topology, reserve, route_keys

OLD = {"down_guaranteed_kbps": 5000, "up_guaranteed_kbps": 1000, "down_cap_kbps": 20000, "up_cap_kbps": 5000}
VAPS = [{"vap_id": "t1s1v1", "agent_id": "ap-1", "radio": "phy0"}]


def line(capacity: int = 10_000) -> Topology:
    return Topology.from_json({"attachments": {"ap": "s1", "mec": "s3"}, "links": [
        {"a": "s1", "a_port": 1, "b": "s2", "b_port": 2, "capacity_kbps": capacity},
        {"a": "s3", "a_port": 3, "b": "s2", "b_port": 4, "capacity_kbps": capacity}]})


def test_directed_keys_and_resolve():
    topo = line()
    route = topo.shortest_path("s1", "s3", 4)
    assert route_keys(route) == ["s1:1>s2:2", "s2:4>s3:3"]
    assert topo.resolve("s1", route_keys(route)) == route
    assert topo.resolve("s2", route_keys(route)) is None  # does not chain from s2
    assert topo.resolve("s1", ["s1:1>s2:9"]) is None  # a link no longer in the topology
    assert topo.shortest_path("s1", "s1", 4) == []
    assert topo.shortest_path("s1", "s3", 1) is None


def test_search_checks_each_direction_against_its_own_reservation():
    topo = line()
    reserved: dict[str, int] = {}
    reserve(reserved, topo.shortest_path("s1", "s3", 4), up_kbps=8000, down_kbps=1000)
    assert reserved == {"s1:1>s2:2": 8000, "s2:2>s1:1": 1000, "s2:4>s3:3": 8000, "s3:3>s2:4": 1000}
    assert topo.shortest_path("s1", "s3", 4, reserved, up_kbps=2000, down_kbps=9000) is not None
    assert topo.shortest_path("s1", "s3", 4, reserved, up_kbps=2001) is None
    assert topo.shortest_path("s1", "s3", 4, reserved, down_kbps=9001) is None
    # A path searched the other way round (s3 -> s1) sees s3 -> s2 as its forward direction.
    assert topo.shortest_path("s3", "s1", 4, reserved, up_kbps=9000) is not None
    assert Link("x", 1, "y", 2, 5).directed_key("y") == "y:2>x:1"


def route_of(snap):
    return snap.topology.shortest_path("pof:ap-1", "pof:mec-1", 4)


def test_lowering_always_fits():
    snap = snapshot(radio_reserved_kbps={("ap-1", "phy0"): 50_000})
    lower = dict(OLD, down_guaranteed_kbps=100)
    assert check_change(snap, VAPS, [route_of(snap)], OLD, lower, None) == []


def test_growth_checked_on_radio_and_each_link_direction():
    snap = small_links(10_000)
    route = route_of(snap)
    snap.radio_reserved_kbps[("ap-1", "phy0")] = 4000
    snap.ap_budget_kbps = 10_000
    snap.link_reserved_kbps[route[1][0].directed_key("pof:mec-1")] = 6000  # mec-1 -> core, downlink
    more_down = dict(OLD, down_guaranteed_kbps=5500)
    assert check_change(snap, VAPS, [route], OLD, more_down, None) == [
        "AP ap-1 radio phy0: capacity 10000 kbps (orchestrator ap_budget_kbps, the agent reports none), 4000 kbps "
        "guaranteed, 6500 wanted",
        "wired link pof:mec-1:1 -> pof:core:3: capacity 10000 kbps, 6000 kbps guaranteed, 5500 wanted"]
    # Moving guarantee from down to up: the radio needs no more, the uplink has room.
    shift = dict(OLD, down_guaranteed_kbps=1000, up_guaranteed_kbps=5000)
    assert check_change(snap, VAPS, [route], OLD, shift, None) == []


def test_latency_class_needs_the_current_path():
    snap = snapshot()
    route = route_of(snap)
    assert len(route) == 2
    assert check_change(snap, VAPS, [route], OLD, OLD, "ultra_low") == []
    long = route + route  # stands for a 4-link path
    assert check_change(snap, VAPS, [long], OLD, OLD, "ultra_low") == [
        "vAP t1s1v1: its wired path has 4 links, latency class ultra_low allows at most 2 (re-routing is not "
        "supported)"]
    assert check_change(snap, VAPS, [None], OLD, OLD, "low") == [
        "vAP t1s1v1: its reserved wired path is no longer in the topology"]
    assert check_change(snap, VAPS, [None], OLD, OLD, None) == []  # nothing asked of the path
