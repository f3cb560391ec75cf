"""Admission control and placement over snapshots, without database or controllers."""

from __future__ import annotations

import copy

import pytest
from fake_controllers import FakeControllers
from orch_helpers import slice_body

from wislice_orchestrator.admission import AdmissionError, Snapshot, TenantUsage, admit, check_quota
from wislice_orchestrator.models import Tenant
from wislice_orchestrator.topology import Topology


def snapshot(**changes) -> Snapshot:
    fake = FakeControllers(aps=2, mec_nodes=2, max_vaps=2)
    snap = Snapshot(agents=fake.list_agents(), nodes=fake.list_nodes(), controller_vaps=[], controller_vnfs=[],
                    topology=Topology.from_json(FakeControllers.default_topology(["ap-1", "ap-2"], ["mec-1", "mec-2"])),
                    ap_budget_kbps=10_000)
    for key, value in changes.items():
        setattr(snap, key, value)
    return snap


def reasons(snap: Snapshot, body: dict) -> list[str]:
    with pytest.raises(AdmissionError) as info:
        admit(snap, body)
    return info.value.reasons


def test_fits_and_picks_least_loaded_node():
    snap = snapshot()
    snap.nodes[0]["used"] = {"cpu": 3.0, "memory_mib": 0}
    plan = admit(snap, slice_body())
    assert plan.mec_node == "mec-2"
    assert [len(r) for r in plan.vap_links] == [2]


def test_vap_slots_counted_from_agent_and_own_reservations():
    snap = snapshot(own_vaps=[{"vap_id": "x", "agent_id": "ap-1", "radio": "phy0"}],
                    controller_vaps=[{"vap_id": "foreign", "agent_id": "ap-1", "radio": "phy0"}])
    assert reasons(snap, slice_body()) == ["AP ap-1 radio phy0: 1 vAP(s) wanted, 0 free"]


def test_unknown_or_disconnected_ap():
    snap = snapshot()
    snap.agents[0]["connected"] = False
    assert "not connected" in reasons(snap, slice_body())[0]


def test_radio_budget_falls_back_to_the_configured_one():
    snap = snapshot(radio_reserved_kbps={("ap-1", "phy0"): 5000})
    assert reasons(snap, slice_body()) == ["AP ap-1 radio phy0: capacity 10000 kbps (orchestrator ap_budget_kbps, "
                                           "the agent reports none), 5000 kbps guaranteed, 6000 wanted"]
    assert admit(snapshot(radio_reserved_kbps={("ap-1", "phy0"): 4000}), slice_body()).mec_node


def test_radio_capacity_reported_by_the_agent_wins():
    snap = snapshot(radio_reserved_kbps={("ap-1", "phy0"): 5000})
    snap.agents[0]["radios"][0].update(capacity_kbps=50_000, capacity_source="measured")
    assert admit(snap, slice_body()).mec_node  # the 10 000 kbps fallback would refuse it
    snap.agents[0]["radios"][0]["capacity_kbps"] = 8000
    assert reasons(snap, slice_body()) == ["AP ap-1 radio phy0: capacity 8000 kbps (measured), 5000 kbps guaranteed, "
                                           "6000 wanted"]
    # Another radio of the same AP has its own capacity and reservations.
    snap.agents[0]["radios"].append({"name": "phy1", "max_vaps": 2, "capacity_kbps": 6000,
                                     "capacity_source": "operator"})
    body = slice_body()
    body["vaps"][0]["radio"] = "phy1"
    assert admit(snap, body).mec_node


def test_every_vap_on_a_radio_carries_the_guarantee():
    body = slice_body()
    body["vaps"].append(dict(body["vaps"][0], ssid="second"))
    assert reasons(snapshot(), body) == ["AP ap-1 radio phy0: capacity 10000 kbps (orchestrator ap_budget_kbps, "
                                         "the agent reports none), 0 kbps guaranteed, 12000 wanted"]
    body["vaps"][1]["agent_id"] = "ap-2"  # one vAP per radio: 6000 on each
    assert admit(snapshot(), body).mec_node


def test_best_effort_fits_a_full_radio():
    body = slice_body()
    body["bandwidth"] = {"down_guaranteed_kbps": 0, "up_guaranteed_kbps": 0, "down_cap_kbps": 0, "up_cap_kbps": 0}
    assert admit(snapshot(radio_reserved_kbps={("ap-1", "phy0"): 99_999}), body).mec_node


def small_links(capacity: int) -> Snapshot:
    topo = FakeControllers.default_topology(["ap-1", "ap-2"], ["mec-1", "mec-2"])
    for link in topo["links"]:
        link["capacity_kbps"] = capacity
    return snapshot(topology=Topology.from_json(topo), ap_budget_kbps=10**6)


def test_links_are_reserved_per_direction():
    snap = small_links(10_000)
    core = {link.b: link for link in snap.topology.links}
    # Downlink (MEC -> AP) of both MEC links nearly full: a slice needing no downlink guarantee still fits.
    for mec in ("pof:mec-1", "pof:mec-2"):
        snap.link_reserved_kbps[core[mec].directed_key(mec)] = 9500
    up_only = slice_body()
    up_only["bandwidth"] = {"down_guaranteed_kbps": 0, "up_guaranteed_kbps": 9000, "down_cap_kbps": 0,
                            "up_cap_kbps": 0}
    plan = admit(snap, up_only)
    assert plan.route_keys(0) == ["pof:ap-1:1>pof:core:1", f"pof:core:{core[f'pof:{plan.mec_node}'].a_port}>"
                                                          f"pof:{plan.mec_node}:1"]
    # 5000 down does not fit beside 9500; the reason names both directions' needs.
    found = reasons(snap, slice_body())
    assert found == [f"no wired path with 1000 kbps up and 5000 kbps down free and at most 4 links from AP ap-1 "
                     f"to MEC node {m}" for m in ("mec-1", "mec-2")]


def test_paths_of_one_slice_add_up_on_a_shared_link():
    snap = small_links(10_000)
    body = slice_body(mec_node="mec-1")
    body["bandwidth"]["down_guaranteed_kbps"] = 4000
    body["vaps"].append(dict(body["vaps"][0], agent_id="ap-2", ssid="second"))
    plan = admit(snap, body)  # 2 x 4000 down (towards the APs) on mec-1 -> core
    assert [len(r) for r in plan.vap_links] == [2, 2]
    body["bandwidth"]["down_guaranteed_kbps"] = 6000  # 2 x 6000 > 10 000 on mec-1 -> core
    assert reasons(snap, body) == ["no wired path with 1000 kbps up and 6000 kbps down free and at most 4 links "
                                   "from AP ap-2 to MEC node mec-1"]


def test_mec_cpu_memory_and_catalog():
    snap = snapshot()
    for node in snap.nodes:
        node["used"] = {"cpu": 3.8, "memory_mib": 0}
    assert all("CPU" in r for r in reasons(snap, slice_body()))
    body = slice_body()
    body["vnfs"][0]["image"] = "no-such-image"
    assert all("lacks image" in r for r in reasons(snapshot(), body))


def test_pending_vnfs_count_against_node():
    own = [{"vnf_id": 99, "node": "mec-1", "cpu": 4.0, "memory_mib": 1}]
    plan = admit(snapshot(own_vnfs=own), slice_body())
    assert plan.mec_node == "mec-2"


def test_link_capacity_and_latency_class():
    topo = FakeControllers.default_topology(["ap-1", "ap-2"], ["mec-1", "mec-2"])
    snap = snapshot(topology=Topology.from_json(topo))
    full = {link.directed_key(end): 999_000 for link in snap.topology.links if "mec" in link.key
            for end in (link.a, link.b)}
    snap.link_reserved_kbps = full
    assert all("no wired path" in r for r in reasons(snap, slice_body()))
    # ultra_low allows at most 2 links: a 3-link detour is refused.
    long = copy.deepcopy(topo)
    long["links"] = [lk for lk in long["links"] if lk["b"] != "pof:mec-1" and lk["b"] != "pof:mec-2"]
    long["links"] += [{"a": "pof:core", "a_port": 20, "b": "pof:agg", "b_port": 1, "capacity_kbps": 10**6},
                      {"a": "pof:agg", "a_port": 2, "b": "pof:mec-1", "b_port": 1, "capacity_kbps": 10**6}]
    body = slice_body(latency_class="ultra_low")
    assert all("at most 2 links" in r for r in reasons(snapshot(topology=Topology.from_json(long)), body)
               if "mec-1" in r)
    assert admit(snapshot(topology=Topology.from_json(long)), slice_body(latency_class="low")).mec_node == "mec-1"


def test_pinned_node():
    assert admit(snapshot(), slice_body(mec_node="mec-2")).mec_node == "mec-2"
    assert reasons(snapshot(), slice_body(mec_node="mec-9")) == ["MEC node mec-9 is unknown"]


def test_no_vnfs_needs_no_node():
    plan = admit(snapshot(), slice_body(vnfs=0))
    assert plan.mec_node is None and plan.link_keys() == []


def test_quota():
    tenant = Tenant(id=1, name="a", quota_slices=1, quota_vaps=1, quota_bandwidth_kbps=5000, quota_cpu=0.25,
                    quota_memory_mib=100)
    found = check_quota(tenant, TenantUsage(slices=1), slice_body())
    assert len(found) == 4 and all(r.startswith("tenant quota exceeded") for r in found)


def test_rest_admission_rejection_is_problem_json(world):
    body = slice_body()
    body["bandwidth"]["down_guaranteed_kbps"] = 20000
    body["bandwidth"]["up_guaranteed_kbps"] = 5000
    world.call("PATCH", "/api/v1/tenants/1", world.operator, json={"quota": {"bandwidth_kbps": 10**6}})
    world.app.extensions["wislice"].ap_budget_kbps = 20000
    resp = world.call("POST", "/api/v1/tenants/1/slices", world.tenant_a, json=body)
    assert resp.status_code == 409 and resp.mimetype == "application/problem+json"
    problem = resp.get_json()
    assert problem["title"] == "slice does not fit"
    assert problem["errors"][0].startswith("AP ap-1 radio phy0: capacity 20000 kbps (orchestrator ap_budget_kbps")
    assert world.fake.resources() == {"vaps": [], "vnfs": [], "paths": []}


@pytest.mark.parametrize("patch,field", [
    ({"name": ""}, "name"),
    ({"vaps": []}, "vaps"),
    ({"latency_class": "warp"}, "latency_class"),
    ({"bandwidth": {"down_guaranteed_kbps": 10, "down_cap_kbps": 5}}, "bandwidth"),
    ({"vaps": [{"agent_id": "ap-1", "ssid": "x" * 33}]}, "vaps"),
    ({"vaps": [{"agent_id": "ap-1", "ssid": "ok", "security": {"mode": "wpa2-psk"}}]}, "vaps"),
    ({"vnfs": [{"image": "kernel-fwd", "params": {"k": [1]}}]}, "vnfs"),
    ({"surprise": 1}, "surprise"),
    ({"vaps": [{"agent_id": "bad id!", "ssid": "x"}]}, "vaps"),  # found by schemathesis: a 500 once
])
def test_bad_input_is_422_with_field(world, patch, field):
    body = slice_body()
    body.update(patch)
    resp = world.call("POST", "/api/v1/tenants/1/slices", world.tenant_a, json=body)
    assert resp.status_code == 422
    assert field in resp.get_json()["errors"]["json"]


def test_controller_down_is_502_and_nothing_recorded(world):
    world.fake.fail_always("list_agents", 502, "unreachable")
    resp = world.call("POST", "/api/v1/tenants/1/slices", world.tenant_a, json=slice_body())
    assert resp.status_code == 502 and resp.get_json()["errors"]["controller_code"] == "unreachable"
    assert world.call("GET", "/api/v1/tenants/1/slices", world.tenant_a).get_json()["slices"] == []
    overview = world.call("GET", "/api/v1/overview", world.operator).get_json()
    assert overview["controllers_ok"] is False


def test_a_two_ap_slice_is_admitted_per_ap():
    body = slice_body()
    body["vaps"].append(dict(body["vaps"][0], agent_id="ap-2", ssid="second"))
    # Each AP's radio carries the slice's 6000 kbps on its own budget: 4000 used on each still leaves room.
    both = {("ap-1", "phy0"): 4000, ("ap-2", "phy0"): 4000}
    assert admit(snapshot(radio_reserved_kbps=both), body).mec_node
    # One AP without room: refused, naming that AP only.
    assert reasons(snapshot(radio_reserved_kbps={("ap-2", "phy0"): 5000}), body) == [
        "AP ap-2 radio phy0: capacity 10000 kbps (orchestrator ap_budget_kbps, the agent reports none), 5000 kbps "
        "guaranteed, 6000 wanted"]
