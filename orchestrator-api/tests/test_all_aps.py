"""A slice's SSID on "all APs with room" (issue 16, vap_expand.py): a vAP with agent_id "*" becomes one vAP per
connected AP that admission lets take it; APs without room (vAP slot, radio guarantee, wired route) are skipped
and named; none with room is a 409 naming each; "*" twice or beside an explicit entry is a 400; the slice is then
the one an explicit list of the same APs makes (vAPs, path branches, reservations).

The world has three APs (ap-3 added to the fake's two) around the fake's star topology, radios reporting roomy
capacities; slice_body asks 5000 + 1000 kbps guaranteed, so a radio of 1000 kbps is full."""

from __future__ import annotations

import pytest
import served_app
from fake_controllers import FakeControllers
from orch_helpers import make_world, slice_body
from test_radio_watch import ROOMY, add_ap, set_capacity

from wislice_orchestrator.cli import main
from wislice_orchestrator.models import Setting

SLICES = "/api/v1/tenants/1/slices"
OPEN = {"mode": "open"}


@pytest.fixture
def three_aps(tmp_path):
    """A factory of worlds with ap-1..ap-3 (each in its own directory), stopped at the end."""
    made = []

    def make(name="w", topology=None):
        (tmp_path / name).mkdir()
        w = make_world(tmp_path / name)
        add_ap(w.fake, "ap-3")
        for ap in w.fake.agents:
            set_capacity(w, ap, ROOMY)
        topo = topology or FakeControllers.default_topology(sorted(w.fake.agents), sorted(w.fake.nodes))
        with w.service.session_factory() as db:
            db.get(Setting, "topology").value = topo
            db.commit()
        made.append(w)
        return w

    yield make
    for w in made:
        w.service.runner.stop()
        w.app.extensions["wislice_rollouts"].stop()
        w.app.extensions["wislice_telemetry"].stop()
        w.app.extensions["wislice_engine"].dispose()


def star_body(**vap):
    return slice_body(vaps=[{"agent_id": "*", "ssid": "video-wifi", "security": OPEN} | vap])


def create(world, body):
    resp = world.call("POST", SLICES, world.tenant_a, json=body)
    assert resp.status_code == 202, resp.get_json()
    op = world.call("GET", resp.headers["Location"], world.tenant_a).get_json()
    assert op["status"] == "succeeded", op
    return world.call("GET", f"{SLICES}/{op['slice_id']}", world.tenant_a).get_json()


def slice_events(world):
    got = world.call("GET", "/api/v1/events?limit=200", world.operator).get_json()["events"]
    return [e["message"] for e in got if e["kind"] == "slice"]


def reservations(world):
    with world.service.session_factory() as db:
        snap = world.service.snapshot(db)
    return snap.radio_reserved_kbps, snap.link_reserved_kbps


def without_times(slice_):
    return {k: v for k, v in slice_.items() if k != "created_at"}


def test_star_takes_every_ap_with_room_and_is_the_explicit_list(three_aps):
    star = three_aps("star")
    set_capacity(star, "ap-2", 1000)  # full for a 6000 kbps guarantee
    got = create(star, star_body())
    assert [(v["agent_id"], v["radio"], v["ssid"]) for v in got["vaps"]] == [
        ("ap-1", "phy0", "video-wifi"), ("ap-3", "phy0", "video-wifi")]
    skipped = [m for m in slice_events(star) if "admitted" in m]
    assert len(skipped) == 1 and skipped[0].endswith(
        "; agent_id '*' skipped APs without room: AP ap-2 (AP ap-2 radio phy0: capacity 1000 kbps (agent), 0 kbps "
        "guaranteed, 6000 wanted); building"), skipped
    # The same slice asked with the explicit list of the two APs, on an identical world.
    listed = three_aps("listed")
    set_capacity(listed, "ap-2", 1000)
    explicit = slice_body(vaps=[{"agent_id": a, "radio": "phy0", "ssid": "video-wifi", "security": OPEN}
                                for a in ("ap-1", "ap-3")])
    assert without_times(create(listed, explicit)) == without_times(got)
    assert star.fake.paths == listed.fake.paths
    path = next(iter(star.fake.paths.values()))
    assert path["main_branch_id"] == "t1s1v1" and [b["branch_id"] for b in path["branches"]] == ["t1s1v2"]
    assert path["branches"][0]["hops"][0]["device_id"] == "pof:ap-3"
    assert reservations(star) == reservations(listed)
    assert reservations(star)[0] == {("ap-1", "phy0"): 6000, ("ap-3", "phy0"): 6000}


def test_an_ap_without_a_wired_route_or_a_free_slot_is_skipped_with_its_reason(three_aps):
    topo = FakeControllers.default_topology(["ap-1", "ap-2", "ap-3"], ["mec-1", "mec-2"])
    topo["links"] = [link for link in topo["links"] if link["b"] != "pof:ap-3"]  # ap-3 has no way to a MEC node
    world = three_aps(topology=topo)
    world.fake.agents["ap-1"]["radios"][0]["max_vaps"] = 0
    got = create(world, star_body())
    assert [v["agent_id"] for v in got["vaps"]] == ["ap-2"]
    admitted = next(m for m in slice_events(world) if "admitted" in m)
    assert "AP ap-1 (AP ap-1 radio phy0: 1 vAP(s) wanted, 0 free)" in admitted
    assert "AP ap-3 (no wired path with 1000 kbps up and 5000 kbps down free and at most 4 links from AP ap-3 " \
           "to MEC node mec-1" in admitted


def test_no_ap_with_room_is_a_409_naming_each(three_aps):
    topo = FakeControllers.default_topology(["ap-1", "ap-2", "ap-3"], ["mec-1", "mec-2"])
    topo["links"] = [link for link in topo["links"] if link["b"] != "pof:ap-3"]
    world = three_aps(topology=topo)
    world.fake.agents["ap-1"]["radios"][0]["max_vaps"] = 0
    set_capacity(world, "ap-2", 1000)
    resp = world.call("POST", SLICES, world.tenant_a, json=star_body())
    assert resp.status_code == 409, resp.get_json()
    errors = resp.get_json()["errors"]
    assert errors[0] == "agent_id '*': no connected AP has room for the slice's vAP"
    assert [e.split(" (")[0] for e in errors[1:]] == ["skipped AP ap-1", "skipped AP ap-2", "skipped AP ap-3"]
    assert "0 free" in errors[1] and "capacity 1000 kbps" in errors[2] and "no wired path" in errors[3]
    assert world.fake.resources() == {"vaps": [], "vnfs": [], "paths": []}
    assert world.call("GET", SLICES, world.tenant_a).get_json()["slices"] == []


def test_a_disconnected_ap_is_not_a_candidate(three_aps):
    world = three_aps()
    world.fake.agents["ap-2"]["connected"] = False
    assert [v["agent_id"] for v in create(world, star_body())["vaps"]] == ["ap-1", "ap-3"]
    assert not any("ap-2" in m for m in slice_events(world))  # not a candidate, so not named as skipped


def test_an_ap_whose_route_cannot_join_the_slice_path_is_skipped(three_aps):
    # As in test_slice_branches: core -> mec-1 holds one vAP's guarantee, a second route takes a parallel link
    # and cannot join the main path (one SlicePath per slice): the APs after the first are skipped.
    topo = FakeControllers.default_topology(["ap-1", "ap-2", "ap-3"], ["mec-1", "mec-2"])
    topo["links"][3]["capacity_kbps"] = 8000
    topo["links"].append({"a": "pof:core", "a_port": 9, "b": "pof:mec-1", "b_port": 2, "capacity_kbps": 1_000_000})
    world = three_aps(topology=topo)
    got = create(world, star_body())
    assert [v["agent_id"] for v in got["vaps"]] == ["ap-1"] and got["mec_node"] == "mec-1"
    admitted = next(m for m in slice_events(world) if "admitted" in m)
    for ap in ("ap-2", "ap-3"):
        assert f"AP {ap} (the slice's path from AP {ap} cannot join the main path from AP ap-1" in admitted


def test_the_radio_with_most_room_that_fits(three_aps):
    world = three_aps()
    radios = world.fake.agents["ap-1"]["radios"]
    radios.append(dict(radios[0], name="phy1", mac="02:00:00:00:01:01", capacity_kbps=2 * ROOMY))
    radios[0]["capacity_kbps"] = ROOMY // 2
    got = create(world, star_body(radio="phy0"))  # the request's radio is not what chooses
    assert {v["agent_id"]: v["radio"] for v in got["vaps"]} == {"ap-1": "phy1", "ap-2": "phy0", "ap-3": "phy0"}
    # The roomiest radio with no vAP slot left: the other one takes it.
    world2 = three_aps("second")
    radios = world2.fake.agents["ap-1"]["radios"]
    radios.append(dict(radios[0], name="phy1", mac="02:00:00:00:01:01", capacity_kbps=2 * ROOMY, max_vaps=0))
    got = create(world2, star_body())
    assert {v["agent_id"]: v["radio"] for v in got["vaps"]}["ap-1"] == "phy0"


@pytest.mark.parametrize("vaps, says", [
    ([{"agent_id": "*", "ssid": "a"}, {"agent_id": "*", "ssid": "b"}], "may appear once, 2 entries have it"),
    ([{"agent_id": "*", "ssid": "a"}, {"agent_id": "ap-1", "ssid": "b"}], "already covers every AP, AP ap-1 included"),
])
def test_star_twice_or_beside_an_explicit_entry_is_a_400(three_aps, vaps, says):
    world = three_aps()
    resp = world.call("POST", SLICES, world.tenant_a, json=slice_body(vaps=vaps))
    assert resp.status_code == 400, resp.get_json()
    assert says in resp.get_json()["detail"]
    assert world.fake.resources() == {"vaps": [], "vnfs": [], "paths": []}


def test_star_is_for_creation_only(three_aps):
    world = three_aps()
    got = create(world, slice_body())
    resp = world.call("POST", f"{SLICES}/{got['slice_id']}/vaps", world.tenant_a,
                      json={"agent_id": "*", "ssid": "more"})
    assert resp.status_code == 422, resp.get_json()


def test_the_cli_asks_for_every_ap_with_star(world, capsys):
    with served_app.served(world.app) as url:
        code = main(["--url", url, "--token", world.tenant_a, "slices", "create", "--name", "cam", "--vap", "*=cam"])
    assert code == 0 and "succeeded" in capsys.readouterr().out
    got = world.call("GET", SLICES, world.tenant_a).get_json()["slices"][0]
    assert [(v["agent_id"], v["ssid"]) for v in got["vaps"]] == [("ap-1", "cam"), ("ap-2", "cam")]
