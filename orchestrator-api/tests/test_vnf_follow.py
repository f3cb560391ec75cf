"""The vNF follows its clients (vnf_follow.py): after a handover, a slice with vnf_follow has its chain moved to the
MEC node nearest the AP where most of its stations are, make-before-break (new chain, path switched, old chain
removed); not without vnf_follow, not to the same node, rolled back on failure, once per hold; the field in the
REST schema; migration 0012.

The fake's two MEC nodes sit on two edge switches: ap-1 and mec-1 on pof:edge-1, ap-2 and mec-2 on pof:edge-2,
the edges linked, so mec-1 is nearest ap-1 (2 links, 3 to mec-2) and mec-2 nearest ap-2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from orch_helpers import check_slice_column_migration, make_world, slice_body
from test_radio_watch import ROOMY, macs_on, poll, set_capacity
from test_saga import Crash, make_world_again

from wislice_orchestrator.models import Operation, Setting, Slice

OPENAPI = json.loads((Path(__file__).resolve().parents[1] / "openapi.json").read_text())
HOLD = 30.0
CHAIN_CALLS = ("create_vnf", "delete_vnf", "create_path", "delete_path")


def edge_topology():
    def link(a, a_port, b, b_port):
        return {"a": a, "a_port": a_port, "b": b, "b_port": b_port, "capacity_kbps": 1_000_000}

    return {"attachments": {n: f"pof:{n}" for n in ("ap-1", "ap-2", "mec-1", "mec-2")},
            "links": [link("pof:edge-1", 1, "pof:ap-1", 1), link("pof:edge-1", 2, "pof:mec-1", 1),
                      link("pof:edge-2", 1, "pof:ap-2", 1), link("pof:edge-2", 2, "pof:mec-2", 1),
                      link("pof:edge-1", 3, "pof:edge-2", 3)]}


@pytest.fixture
def world(tmp_path):
    w = make_world(tmp_path, RADIO_WATCH_HOLD_S=HOLD, VNF_FOLLOW_HOLD_S=HOLD)
    for ap in w.fake.agents:
        set_capacity(w, ap, ROOMY)  # the radios are reported: the radio watch reads the clients
    with w.service.session_factory() as s:
        s.get(Setting, "topology").value = edge_topology()
        s.commit()
    w.t = 0.0
    w.app.extensions["wislice_vnf_follow"].clock = lambda: w.t
    yield w
    w.app.extensions["wislice_engine"].dispose()


def make_slice(world, stations=2, vnfs=1, **extra):
    """A slice on ap-1 and ap-2 (one SSID), its chain on mec-1, `stations` stations on ap-1 and none on ap-2."""
    body = slice_body(name="video", vnfs=vnfs, latency_class="best_effort", mec_node="mec-1", vnf_follow=True,
                      vaps=[{"agent_id": a, "radio": "phy0", "ssid": "video-wifi", "security": {"mode": "open"}}
                            for a in ("ap-1", "ap-2")])
    body.pop("latency_budget_us")
    body.update(extra)
    made = world.call("POST", "/api/v1/tenants/1/slices", world.tenant_a, json=body)
    assert made.status_code == 202, made.get_json()
    got = get_slice(world, made.get_json()["slice_id"])
    assert got["status"] == "active" and got["mec_node"] == "mec-1", got
    vaps = {v["agent_id"]: v["vap_id"] for v in got["vaps"]}
    for mac in list(world.fake.clients):
        world.fake.kick_client(world.fake.clients[mac]["agent_id"], mac)
    for k in range(stations):
        world.fake.add_client(vaps["ap-1"], f"02:55:00:00:00:{k:02x}")
    return got["slice_id"], vaps


def get_slice(world, sid):
    return world.call("GET", f"/api/v1/tenants/1/slices/{sid}", world.tenant_a).get_json()


def roam(world, mac, vap_id):
    world.fake.kick_client(world.fake.clients[mac]["agent_id"], mac)
    world.fake.add_client(vap_id, mac)


def events(world, kind):
    got = world.call("GET", "/api/v1/events?limit=200", world.operator).get_json()["events"]
    return [e for e in got if e["kind"] == kind]


def chain_calls(world, since):
    return [c for c in world.fake.calls[since:] if c in CHAIN_CALLS]


def follows(world):
    with world.service.session_factory() as s:
        return s.query(Operation).filter(Operation.kind == "follow_vnf").all()


def handover_all(world, vaps, t):
    """Every station of the slice moves from ap-1 to ap-2; the poll at `t` sees it."""
    for mac in macs_on(world, vaps["ap-1"]):
        roam(world, mac, vaps["ap-2"])
    world.t = t
    poll(world, t)


def test_the_chain_follows_new_chain_first_then_the_path_then_the_old_removed(world):
    sid, vaps = make_slice(world, vnfs=2)
    old = {v["vnf_id"] for v in get_slice(world, sid)["vnfs"]}
    path_id = next(iter(world.fake.paths))
    poll(world, 0)
    since = len(world.fake.calls)
    handover_all(world, vaps, 2)
    assert chain_calls(world, since) == ["create_vnf", "create_vnf", "delete_path", "create_path", "delete_vnf",
                                         "delete_vnf"]
    got = get_slice(world, sid)
    assert got["mec_node"] == "mec-2" and got["status"] == "active", got
    assert [v["node"] for v in got["vnfs"]] == ["mec-2", "mec-2"] and not old & {v["vnf_id"] for v in got["vnfs"]}
    assert sorted(world.fake.vnfs) == sorted(v["vnf_id"] for v in got["vnfs"])
    assert {v["node"] for v in world.fake.vnfs.values()} == {"mec-2"}
    path = world.fake.paths[path_id]  # the same path id, to the new node through the new chain
    chain = sorted(world.fake.vnfs.values(), key=lambda v: v["chain_position"])
    ports = [p["pof_port"] for v in chain for p in v["ports"]]
    on_mec = [h for h in path["hops"] if h["device_id"] == "pof:mec-2"]
    assert [h["out_port"] for h in on_mec] == ports[::2] and path["hops"][0]["device_id"] == "pof:ap-1"
    (branch,) = path["branches"]  # ap-2's route joins the main path on edge-2, towards mec-2
    assert [(h["device_id"], h["out_port"]) for h in branch["hops"]] == [("pof:ap-2", 1), ("pof:edge-2", 2)]
    # The new path starts with every downlink on its main path (ap-1's): the stations, on ap-2's vAP, are placed
    # on ap-2's branch again, or their traffic would go to ap-1 (seen on the testbed before this was done).
    assert world.fake.placements[path_id] == {mac: vaps["ap-2"] for mac in macs_on(world, vaps["ap-2"])}
    assert len(world.fake.placements[path_id]) == 2
    (started,) = events(world, "vnf_follow_started")
    assert "from MEC node mec-1 to mec-2 (nearest AP ap-2, where most of its stations are (2 on AP ap-2))" in \
        started["message"], started
    (done,) = events(world, "vnf_followed")
    follow_s = float(done["message"].split("follow_s=")[1].split()[0])
    assert done["level"] == "info" and 0 <= follow_s < 5, done
    (op,) = follows(world)
    assert op.status == "succeeded" and [s["kind"] for s in op.steps] == [
        "create_vnf", "create_vnf", "switch_path", "retire_vnf", "retire_vnf"]
    with world.service.session_factory() as s:  # the routes and links recorded are the new node's
        row = s.get(Slice, sid)
        assert all(k.endswith("pof:mec-2:1") for k in (row.vaps[0].path_links[-1], row.vaps[1].path_links[-1]))


def test_not_without_vnf_follow(world):
    sid, vaps = make_slice(world, vnf_follow=False)
    poll(world, 0)
    since = len(world.fake.calls)
    handover_all(world, vaps, 2)
    assert chain_calls(world, since) == [] and follows(world) == []
    assert get_slice(world, sid)["mec_node"] == "mec-1"
    assert events(world, "client_handover") and not events(world, "vnf_follow_started")


def test_not_when_the_nearest_node_is_the_slices(world):
    sid, vaps = make_slice(world, stations=3)
    poll(world, 0)
    since = len(world.fake.calls)
    roam(world, macs_on(world, vaps["ap-1"])[0], vaps["ap-2"])  # 2 stay on ap-1: its node mec-1 stays nearest
    poll(world, 2)
    (mac,) = macs_on(world, vaps["ap-2"])
    roam(world, mac, vaps["ap-1"])  # and back: ap-1's nearest is the slice's node
    poll(world, 4)
    assert len(events(world, "client_handover")) == 2
    assert chain_calls(world, since) == [] and follows(world) == [] and get_slice(world, sid)["mec_node"] == "mec-1"


def test_a_tie_goes_to_the_ap_of_the_latest_handover(world):
    sid, vaps = make_slice(world, stations=2)
    poll(world, 0)
    roam(world, macs_on(world, vaps["ap-1"])[0], vaps["ap-2"])  # one on each AP
    poll(world, 2)
    assert get_slice(world, sid)["mec_node"] == "mec-2"
    assert "(1 on AP ap-1, 1 on AP ap-2)" in events(world, "vnf_follow_started")[0]["message"]


@pytest.mark.parametrize("method", ["create_vnf", "create_path"])
def test_a_failure_before_the_switch_rolls_back(world, method):
    sid, vaps = make_slice(world)
    before = get_slice(world, sid)
    vnfs, paths = dict(world.fake.vnfs), json.loads(json.dumps(world.fake.paths))
    poll(world, 0)
    world.fake.fail_next(method, status=502, code="unreachable")
    handover_all(world, vaps, 2)
    assert world.fake.vnfs == vnfs and world.fake.paths == paths  # nothing on mec-2, the old path as it was
    if method == "create_path":  # the old path put back: its stations, now on ap-2, placed on ap-2's branch
        assert world.fake.placements[next(iter(paths))] == {mac: vaps["ap-2"] for mac in macs_on(world, vaps["ap-2"])}
    after = get_slice(world, sid)
    assert after["mec_node"] == "mec-1" and after["vnfs"] == before["vnfs"] and after["status"] == "active"
    (op,) = follows(world)
    step = {"create_vnf": "create_vnf", "create_path": "switch_path"}[method]
    assert op.status == "failed" and op.error.startswith(f"step '{step} "), op.error
    (failed,) = events(world, "vnf_follow_failed")
    assert failed["level"] == "warn" and "not moved from MEC node mec-1 to mec-2, it stays" in failed["message"]
    assert not events(world, "vnf_followed")


def test_a_refused_admission_moves_nothing(world):
    sid, vaps = make_slice(world)
    world.fake.nodes["mec-2"]["catalog"] = ["kernel-fwd"]
    poll(world, 0)
    since = len(world.fake.calls)
    handover_all(world, vaps, 2)
    assert chain_calls(world, since) == [] and follows(world) == []
    (failed,) = events(world, "vnf_follow_failed")
    assert "refused, it stays: MEC node mec-2 lacks image(s) firewall" in failed["message"], failed


def test_an_old_vnf_that_cannot_be_removed_is_left_behind_not_undone(world):
    sid, vaps = make_slice(world)
    (old,) = world.fake.vnfs
    poll(world, 0)
    world.fake.fail_next("delete_vnf", status=502, code="unreachable")
    handover_all(world, vaps, 2)
    got = get_slice(world, sid)
    assert got["mec_node"] == "mec-2" and old in world.fake.vnfs and len(world.fake.vnfs) == 2
    assert {v["vnf_id"]: v["state"] for v in got["vnfs"]}[old] == "left_behind"
    (done,) = events(world, "vnf_followed")
    assert done["level"] == "warn" and f"vNF {old} left behind on mec-1" in done["message"], done
    (op,) = follows(world)
    assert op.status == "succeeded" and op.steps[-1]["result"]["left_behind"].startswith("502 "), op.steps[-1]
    hops = [h["device_id"] for h in next(iter(world.fake.paths.values()))["hops"]]
    assert "pof:mec-1" not in hops  # out of the path
    resp = world.call("DELETE", f"/api/v1/tenants/1/slices/{sid}", world.tenant_a)  # removes it too
    assert resp.status_code == 202 and world.fake.resources()["vnfs"] == []


def test_hold_time_no_move_back_until_it_passed(world):
    sid, vaps = make_slice(world, stations=1)
    poll(world, 0)
    handover_all(world, vaps, 2)
    assert get_slice(world, sid)["mec_node"] == "mec-2"
    (mac,) = macs_on(world, vaps["ap-2"])
    roam(world, mac, vaps["ap-1"])  # back within the hold: no move
    for t in (4, 10, 31):
        world.t = t
        poll(world, t)
        assert get_slice(world, sid)["mec_node"] == "mec-2" and len(follows(world)) == 1, t
    world.t = 32.5  # the hold has passed: the pending follow goes at the next read, without a new handover
    poll(world, 33)
    assert get_slice(world, sid)["mec_node"] == "mec-1" and len(follows(world)) == 2


def test_a_crash_after_the_switch_rolls_forward(tmp_path):
    w = make_world(tmp_path, VNF_FOLLOW_HOLD_S=HOLD)
    for ap in w.fake.agents:
        set_capacity(w, ap, ROOMY)
    with w.service.session_factory() as s:
        s.get(Setting, "topology").value = edge_topology()
        s.commit()
    sid, vaps = make_slice(w)
    (old,) = w.fake.vnfs
    poll(w, 0)

    def hook(op, step):
        if step["kind"] == "retire_vnf":
            raise Crash()

    w.service.runner.step_hook = hook
    with pytest.raises(Crash):
        handover_all(w, vaps, 2)
    make_world_again(tmp_path, w.fake)  # recovery finishes it: the path already leads to the new chain
    with w.service.session_factory() as s:
        op = s.query(Operation).filter(Operation.kind == "follow_vnf").one()
        assert op.status == "succeeded", op.error
        assert s.get(Slice, sid).mec_node == "mec-2"
    assert old not in w.fake.vnfs and {v["node"] for v in w.fake.vnfs.values()} == {"mec-2"}
    w.app.extensions["wislice_engine"].dispose()


def test_vnf_follow_in_the_schema(world):
    base = "/api/v1/tenants/1/slices"
    made = world.call("POST", base, world.tenant_a, json=slice_body(name="plain"))
    sid = made.get_json()["slice_id"]
    assert get_slice(world, sid)["vnf_follow"] is False
    bad = world.call("POST", base, world.tenant_a, json=slice_body(name="bad", vnf_follow="sometimes"))
    assert bad.status_code == 422 and "vnf_follow" in bad.get_json()["errors"]["json"]
    resp = world.call("PATCH", f"{base}/{sid}", world.tenant_a, json={"vnf_follow": True})
    assert resp.status_code == 202, resp.get_json()
    op = world.call("GET", resp.headers["Location"], world.tenant_a).get_json()
    assert op["status"] == "succeeded" and op["steps"] == [], op
    got = get_slice(world, sid)
    assert got["vnf_follow"] is True and got["handover_policy"] == "best_effort"
    made = world.call("POST", base, world.tenant_a, json=slice_body(name="on", agent="ap-2", vnf_follow=True))
    assert get_slice(world, made.get_json()["slice_id"])["vnf_follow"] is True
    schemas = OPENAPI["components"]["schemas"]
    for name in ("SliceCreate", "SlicePatch", "Slice"):
        assert schemas[name]["properties"]["vnf_follow"]["type"] == "boolean", name
    assert schemas["SliceCreate"]["properties"]["vnf_follow"]["default"] is False


def test_migration_0012_on_sqlite(tmp_path):
    check_slice_column_migration(tmp_path / "follow.db", "0011", "0012", "vnf_follow", (0, False))
