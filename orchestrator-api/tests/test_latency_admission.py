"""Admission by latency: the sum of per-element costs along a slice's path against its budget (arithmetic only;
latency_budget.py), in placement, in a live change and through the API."""

from __future__ import annotations

import pytest
from orch_helpers import slice_body
from test_admission import reasons, snapshot
from test_slice_update import make_slice, patch

from wislice_orchestrator.admission import admit, check_change
from wislice_orchestrator.latency_budget import LatencyCosts, describe, over_budget, path_costs, with_measured
from wislice_orchestrator.topology import Topology

LINE = Topology.from_json({"attachments": {"ap": "a", "mec": "c"}, "links": [
    {"a": "a", "a_port": 2, "b": "b", "b_port": 1, "capacity_kbps": 1000},
    {"a": "b", "a_port": 2, "b": "c", "b_port": 1, "capacity_kbps": 1000}]})


def costs_along(topo: Topology, images: list[str], costs: LatencyCosts | None = None) -> list[tuple[str, int]]:
    return path_costs(topo, "a", topo.shortest_path("a", "c", 8), images, costs or LatencyCosts())


def test_sum_counts_every_switch_pass_link_and_vnf():
    items = costs_along(LINE, ["kernel-fwd", "dpdk-fwd"])
    # 5 switch passes (a, b, c before the chain and after each vNF), 2 links, a kernel and a dpdk vNF.
    assert sum(us for _, us in items) == 5 * 20 + 2 * 50 + 120 + 30
    assert describe(items) == ("switch a 20 us, link a->b 50 us, switch b 20 us, link b->c 50 us, switch c 3 x 20 us, "
                               "vNF kernel-fwd (kernel) 120 us, vNF dpdk-fwd (dpdk) 30 us")
    # no vNF: one pass of the MEC switch
    assert sum(us for _, us in costs_along(LINE, [])) == 3 * 20 + 2 * 50


def test_operator_costs_override_the_defaults():
    doc = LINE.to_json()
    doc["links"][1]["latency_us"] = 400
    doc["switch_latency_us"] = {"b": 1}
    topo = Topology.from_json(doc)
    assert Topology.from_json(topo.to_json()) == topo  # stored and read back
    costs = LatencyCosts.parse("switch=5, link=7, kernel=300, transcoder=4000")
    items = costs_along(topo, ["firewall", "transcoder"], costs)
    assert sum(us for _, us in items) == 5 + 7 + 1 + 400 + 3 * 5 + 300 + 4000
    assert ("vNF transcoder", 4000) in items and ("vNF firewall (kernel)", 300) in items
    with pytest.raises(ValueError):
        LatencyCosts.parse("switch=fast")


def test_refusal_names_the_numbers_only_above_the_budget():
    items = costs_along(LINE, ["kernel-fwd"])
    total = sum(us for _, us in items)
    assert total == 4 * 20 + 2 * 50 + 120
    assert over_budget("vAP v", items, total) is None
    assert over_budget("vAP v", items, None) is None
    assert over_budget("vAP v", items, total - 1) == (
        f"vAP v: path needs ~{total} us: switch a 20 us, link a->b 50 us, switch b 20 us, link b->c 50 us, "
        f"switch c 2 x 20 us, vNF kernel-fwd (kernel) 120 us; budget {total - 1} us")


def test_placement_skips_nodes_whose_path_misses_the_budget():
    # The fake star: AP switch -> core -> MEC switch, 2 links, one firewall vNF: 4 x 20 + 2 x 50 + 120 = 300 us.
    assert admit(snapshot(), slice_body(latency_budget_us=300)).mec_node
    got = reasons(snapshot(), slice_body(latency_budget_us=299))
    assert len(got) == 2 and all("path needs ~300 us" in r and r.endswith("budget 299 us") for r in got), got
    # A cheaper estimate for the vNF class admits it.
    assert admit(snapshot(latency_costs=LatencyCosts.parse("kernel=100")), slice_body(latency_budget_us=299))
    # Best effort has no budget: never refused for latency.
    assert admit(snapshot(), slice_body(latency_class="best_effort", latency_budget_us=None)).mec_node


def test_a_live_change_checks_a_new_budget_on_the_current_paths():
    snap = snapshot()
    route = snap.topology.shortest_path(snap.topology.attachments["ap-1"], snap.topology.attachments["mec-1"], 8)
    vaps = [{"vap_id": "v1", "agent_id": "ap-1", "radio": "phy0"}]
    bw = slice_body()["bandwidth"]
    assert check_change(snap, vaps, [route], bw, bw, None, 300, ["firewall"]) == []
    assert check_change(snap, vaps, [route], bw, bw, None, 250, ["firewall"]) == [
        "vAP v1: path needs ~300 us: switch pof:ap-1 20 us, link pof:ap-1->pof:core 50 us, switch pof:core 20 us, "
        "link pof:core->pof:mec-1 50 us, switch pof:mec-1 2 x 20 us, vNF firewall (kernel) 120 us; budget 250 us"]


def test_api_refuses_a_budget_the_path_cannot_meet(world):
    resp = world.call("POST", "/api/v1/tenants/1/slices", world.tenant_a, json=slice_body(latency_budget_us=100))
    assert resp.status_code == 409, resp.get_json()
    assert all("path needs ~300 us" in r for r in resp.get_json()["errors"]), resp.get_json()
    url = make_slice(world)  # 500 us
    resp = patch(world, url, {"latency_budget_us": 299})
    assert resp.status_code == 409 and "budget 299 us" in resp.get_json()["errors"][0], resp.get_json()
    assert world.call("GET", url, world.tenant_a).get_json()["latency_budget_us"] == 500


def test_measured_vnf_costs_replace_the_estimate_on_their_node_only():
    vnfs = [{"vnf_id": 1, "node": "mec-1", "image": "firewall"}, {"vnf_id": 2, "node": "mec-1", "image": "firewall"},
            {"vnf_id": 3, "node": "mec-2", "image": "firewall"}, {"vnf_id": 4, "node": "mec-1", "image": "nat"}]
    costs = with_measured(LatencyCosts(), vnfs, {1: 15, 2: 40, 3: 900})  # vNF 4 reports none
    assert costs.measured == {("mec-1", "firewall"): 40, ("mec-2", "firewall"): 900}  # the largest per node
    assert costs.vnf("firewall", "mec-1") == ("measured p99", 40)
    assert costs.vnf("nat", "mec-1") == ("kernel", 120) and costs.vnf("firewall") == ("kernel", 120)
    assert with_measured(LatencyCosts(), vnfs, {}) == LatencyCosts()


def test_admission_uses_what_a_running_vnf_of_the_image_measured(world, monkeypatch):
    """A firewall on mec-1 reports a p99 of 20 us; the telemetry's poll brings it to admission: the path that
    needed ~300 us with the 120 us estimate needs ~200 us, and the refusal names the measured cost."""
    make_slice(world)  # a running firewall vNF on mec-1
    stats = world.fake.vnf_stats
    monkeypatch.setattr(world.fake, "vnf_stats", lambda v: dict(stats(v), proc_p99_us=19.2))
    world.app.extensions["wislice_telemetry"].poll_once(now=1000.0)
    body = slice_body(latency_budget_us=199)
    body["vaps"][0]["ssid"] = "second"
    resp = world.call("POST", "/api/v1/tenants/1/slices", world.tenant_a, json=body)
    assert resp.status_code == 409, resp.get_json()
    errors = resp.get_json()["errors"]
    assert any(r.startswith("AP ap-1 to MEC node mec-1: path needs ~200 us") and
               "vNF firewall (measured p99) 20 us; budget 199 us" in r for r in errors), errors
    # mec-2 runs no firewall: its path keeps the estimate
    assert any("MEC node mec-2: path needs ~300 us" in r and "vNF firewall (kernel) 120 us" in r for r in errors)
    body["latency_budget_us"] = 200
    assert world.call("POST", "/api/v1/tenants/1/slices", world.tenant_a, json=body).status_code == 202
