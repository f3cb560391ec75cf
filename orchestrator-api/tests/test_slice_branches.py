"""A slice on several APs is one SlicePath: the first vAP's route the main path, every other vAP's a branch cut
where it joins it (spec/onos-rest "Branches", docs/mobility.md)."""

from __future__ import annotations

from fake_controllers import FakeControllers
from test_saga import create, two_ap_body

from wislice_orchestrator.models import Setting, Tenant


def record_posts(world) -> list[dict]:
    posted: list[dict] = []
    create_path = world.fake.create_path

    def spy(path):
        posted.append(path)
        return create_path(path)

    world.fake.create_path = spy
    return posted


def test_two_aps_make_one_path_with_a_branch_and_deletion_removes_it(world):
    posted = record_posts(world)
    op = create(world)
    assert op["status"] == "succeeded"
    assert len(posted) == 1 and list(world.fake.paths) == ["t1s1-t1s1v1"]
    body = posted[0]
    v1, v2 = world.fake.vaps["t1s1v1"]["pof_port"], world.fake.vaps["t1s1v2"]["pof_port"]
    # The star of the fake topology is the testbed's shape: ap-1 and ap-2 on core ports 1 and 2, mec-1 on 3.
    assert body["main_branch_id"] == "t1s1v1"
    assert body["hops"][:2] == [{"device_id": "pof:ap-1", "in_port": v1, "out_port": 1},
                                {"device_id": "pof:core", "in_port": 1, "out_port": 3}]
    assert [h["device_id"] for h in body["hops"][2:]] == ["pof:mec-1", "pof:mec-1"]
    assert body["branches"] == [{"branch_id": "t1s1v2", "hops": [
        {"device_id": "pof:ap-2", "in_port": v2, "out_port": 1},
        {"device_id": "pof:core", "in_port": 2, "out_port": 3}]}]
    # Removing the main vAP re-roots the path at the next one: the old path goes, the new one has no branch.
    base = f"/api/v1/tenants/1/slices/{op['slice_id']}"
    r = world.call("DELETE", base + "/vaps/t1s1v1", world.tenant_a)
    assert world.call("GET", r.headers["Location"], world.tenant_a).get_json()["status"] == "succeeded"
    assert list(world.fake.paths) == ["t1s1-t1s1v2"]
    assert posted[-1]["main_branch_id"] == "t1s1v2" and "branches" not in posted[-1]
    assert posted[-1]["hops"][0] == {"device_id": "pof:ap-2", "in_port": v2, "out_port": 1}
    r = world.call("DELETE", base, world.tenant_a)
    assert world.call("GET", r.headers["Location"], world.tenant_a).get_json()["status"] == "succeeded"
    assert world.fake.resources() == {"vaps": [], "vnfs": [], "paths": []}


def test_a_one_vap_slice_sends_what_it_always_sent_plus_its_main_branch(world):
    posted = record_posts(world)
    body = two_ap_body()
    del body["vaps"][1]
    assert create(world, body)["status"] == "succeeded"
    assert set(posted[0]) == {"slice_id", "tenant_id", "down", "up", "latency_class", "hops", "main_branch_id"}
    assert posted[0]["slice_id"] == "t1s1-t1s1v1" and posted[0]["main_branch_id"] == "t1s1v1"


def test_a_route_that_cannot_join_the_main_path_is_refused_at_admission(world):
    # The core -> mec-1 link holds one vAP's guarantee only: the second route takes a parallel link and would
    # leave the core by another port than the main path, which one SlicePath cannot carry.
    topo = FakeControllers.default_topology(["ap-1", "ap-2"], ["mec-1"])
    topo["links"][2]["capacity_kbps"] = 8000
    topo["links"].append({"a": "pof:core", "a_port": 5, "b": "pof:mec-1", "b_port": 2, "capacity_kbps": 1_000_000})
    with world.service.session_factory() as db:
        db.get(Setting, "topology").value = topo
        db.commit()
    resp = world.call("POST", "/api/v1/tenants/1/slices", world.tenant_a, json=two_ap_body())
    assert resp.status_code == 409
    errors = resp.get_json()["errors"]
    assert errors == ["the slice's path from AP ap-2 cannot join the main path from AP ap-1: its route meets the "
                      "main path on pof:core leaving by port 5, the main path leaves there by port 3 (one slice "
                      "path carries all its APs)"]
    assert world.fake.resources() == {"vaps": [], "vnfs": [], "paths": []}


def test_a_vap_added_later_becomes_a_branch_and_a_failure_puts_the_old_path_back(world):
    body = two_ap_body()
    del body["vaps"][1]
    sid = create(world, body)["slice_id"]
    base, main = f"/api/v1/tenants/1/slices/{sid}", f"t1s{sid}-t1s{sid}v1"
    world.fake.fail_on("create_path", 1)  # the replacement's POST fails: the path without the branch comes back
    r = world.call("POST", base + "/vaps", world.tenant_a, json={"agent_id": "ap-2", "ssid": "more"})
    assert world.call("GET", r.headers["Location"], world.tenant_a).get_json()["status"] == "failed"
    assert list(world.fake.paths) == [main] and "branches" not in world.fake.paths[main]
    assert sorted(world.fake.vaps) == [f"t1s{sid}v1"]
    r = world.call("POST", base + "/vaps", world.tenant_a, json={"agent_id": "ap-2", "ssid": "more"})
    assert world.call("GET", r.headers["Location"], world.tenant_a).get_json()["status"] == "succeeded"
    path = world.fake.paths[main]
    new = [v for v in world.fake.vaps if v != f"t1s{sid}v1"]
    assert [b["branch_id"] for b in path["branches"]] == new
    # Removing that branch's vAP keeps the path's id and drops the branch.
    r = world.call("DELETE", base + f"/vaps/{new[0]}", world.tenant_a)
    assert world.call("GET", r.headers["Location"], world.tenant_a).get_json()["status"] == "succeeded"
    assert list(world.fake.paths) == [main] and "branches" not in world.fake.paths[main]


def test_more_vaps_than_a_path_has_branches_are_refused_at_admission(world):
    body = two_ap_body()
    body["vaps"] = [dict(body["vaps"][1], ssid=f"video-{k}", agent_id=f"ap-{1 + k % 2}") for k in range(10)]
    for agent in world.fake.agents.values():
        for radio in agent["radios"]:
            radio.update(max_vaps=8, capacity_kbps=1_000_000, capacity_source="measured")
    with world.service.session_factory() as db:
        db.get(Tenant, 1).quota_vaps = 16
        db.commit()
    resp = world.call("POST", "/api/v1/tenants/1/slices", world.tenant_a, json=body)
    assert resp.status_code == 409
    assert resp.get_json()["errors"] == ["a slice with vNFs has at most 9 vAPs (its path takes 8 branches, "
                                         "spec/onos-rest), 10 asked"]
    assert world.fake.resources() == {"vaps": [], "vnfs": [], "paths": []}


def test_wpa2_vaps_of_a_slice_on_several_aps_offer_fast_transition(world):
    """802.11r FT-PSK where a station can move (vAPs on more than one AP) and the security mode allows it."""
    specs: list[dict] = []
    create_vap = world.fake.create_vap

    def spy(agent_id, spec):
        specs.append(spec)
        return create_vap(agent_id, spec)

    world.fake.create_vap = spy
    body = two_ap_body()
    body["vaps"][1]["security"] = {"mode": "wpa2-psk", "passphrase": "secret-pass-2"}
    body["vaps"].append({"agent_id": "ap-2", "radio": "phy0", "ssid": "video-3", "security": {"mode": "open"}})
    assert create(world, body)["status"] == "succeeded"
    assert [s["security"].get("fast_transition") for s in specs] == [True, True, None]
    specs.clear()
    one_ap = two_ap_body()
    one_ap["name"], one_ap["vaps"] = "solo", one_ap["vaps"][:1]
    one_ap["vaps"][0]["ssid"] = "solo-wifi"
    assert create(world, one_ap)["status"] == "succeeded"
    assert len(specs) == 1 and "fast_transition" not in specs[0]["security"]
