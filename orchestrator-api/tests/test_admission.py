"""Admission control and placement over snapshots, without database or controllers."""

from __future__ import annotations

import copy

import pytest
from orch_helpers import slice_body

from wislice_orchestrator.admission import AdmissionError, Snapshot, TenantUsage, admit, check_quota
from wislice_orchestrator.controllers.fake import FakeControllers
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


def test_ap_bandwidth_budget():
    snap = snapshot(ap_reserved_kbps={"ap-1": 5000})
    assert "bandwidth budget 10000 kbps, 5000 reserved, 6000 wanted" in reasons(snap, slice_body())[0]


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
    full = {link.key: 999_000 for link in snap.topology.links if "mec" in link.key}
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
    assert problem["title"] == "slice does not fit" and "bandwidth budget" in problem["errors"][0]
    assert world.fake.resources() == {"vaps": [], "vnfs": [], "paths": []}


@pytest.mark.parametrize("patch,field", [
    ({"name": ""}, "name"),
    ({"vaps": []}, "vaps"),
    ({"latency_class": "warp"}, "latency_class"),
    ({"bandwidth": {"down_guaranteed_kbps": 10, "down_cap_kbps": 5}}, "bandwidth"),
    ({"vaps": [{"agent_id": "ap-1", "ssid": "x" * 33}]}, "vaps"),
    ({"vaps": [{"agent_id": "ap-1", "ssid": "ok", "security": {"mode": "wpa2-psk"}}]}, "vaps"),
    ({"vnfs": [{"image": "nat", "params": {"k": [1]}}]}, "vnfs"),
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
