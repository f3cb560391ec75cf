"""Re-admission on handover (handover_watch.py): a slice's client seen on another of its APs is re-admitted there, or
the slice's handover_policy decides (best_effort keeps it, steer_back steers it back when its old AP holds it);
the policy in the REST schema; the clients read every poll only while a slice spans two APs; migration 0011."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from orch_helpers import check_slice_column_migration, make_world, slice_body
from test_radio_watch import ROOMY, add_ap, kinds, macs_on, make_slice, poll, set_capacity, steers

OPENAPI = json.loads((Path(__file__).resolve().parents[1] / "openapi.json").read_text())


@pytest.fixture
def world(tmp_path):
    w = make_world(tmp_path, RADIO_WATCH_HOLD_S=30.0)
    add_ap(w.fake, "ap-3")
    for ap in w.fake.agents:
        set_capacity(w, ap, ROOMY)  # admission sees room; a test lowers a capacity after
    w.got = []
    w.app.extensions["wislice_radio_watch"].on_event = lambda kind, facts: w.got.append((kind, facts))
    yield w
    w.service.runner.stop()
    w.app.extensions["wislice_rollouts"].stop()
    w.app.extensions["wislice_telemetry"].stop()
    w.app.extensions["wislice_engine"].dispose()


def roam(world, mac, vap_id):
    """The station leaves its AP and associates to `vap_id` on its own (the controller's view after a roam)."""
    world.fake.kick_client(world.fake.clients[mac]["agent_id"], mac)
    world.fake.add_client(vap_id, mac)


def set_policy(world, sid, policy):
    url = f"/api/v1/tenants/1/slices/{sid}"
    resp = world.call("PATCH", url, world.tenant_a, json={"handover_policy": policy})
    assert resp.status_code == 202, resp.get_json()
    op = world.call("GET", resp.headers["Location"], world.tenant_a).get_json()
    assert op["status"] == "succeeded" and op["steps"] == [], op
    return world.call("GET", url, world.tenant_a).get_json()


def events(world, kind):
    got = world.call("GET", "/api/v1/events?limit=100", world.operator).get_json()["events"]
    return [e for e in got if e["kind"] == kind]


def test_handover_into_room_is_admitted_and_nothing_else(world):
    sid, vaps = make_slice(world, "video", 30_000, ["ap-1", "ap-2"], [1, 0])
    set_capacity(world, "ap-2", 30_000)  # exactly room for it
    (mac,) = macs_on(world, vaps["ap-1"])
    poll(world, 0)
    assert world.got == []
    roam(world, mac, vaps["ap-2"])
    poll(world, 2)
    assert kinds(world) == ["client_handover"], world.got
    facts = world.got[0][1]
    assert (facts["slice_id"], facts["mac"], facts["from_agent"], facts["to_agent"], facts["admitted"]) == (
        sid, mac, "ap-1", "ap-2", True)
    assert steers(world) == 0
    (said,) = events(world, "client_handover")
    assert "re-admitted: AP ap-2 radio phy0 holds its 30000 kbps of active guarantees with it (capacity 30000 kbps)" \
        in said["message"], said
    poll(world, 4)  # it stays: no second handover
    assert kinds(world) == ["client_handover"]


def test_vap_that_already_had_clients_changes_nothing(world):
    sid, vaps = make_slice(world, "video", 30_000, ["ap-1", "ap-2"], [1, 1])
    set_capacity(world, "ap-2", 20_000)  # already short; the guarantee was already active there
    mac = macs_on(world, vaps["ap-1"])[0]
    poll(world, 0)
    roam(world, mac, vaps["ap-2"])
    poll(world, 2)
    assert kinds(world) == ["client_handover"] and world.got[0][1]["admitted"] is True, world.got
    assert "its vAP there already had clients" in events(world, "client_handover")[0]["message"]


def test_refused_best_effort_is_an_event_and_the_station_stays(world):
    sid, vaps = make_slice(world, "video", 30_000, ["ap-1", "ap-2"], [1, 0])
    other, _ = make_slice(world, "voice", 15_000, ["ap-2"], [1])
    (mac,) = macs_on(world, vaps["ap-1"])
    set_capacity(world, "ap-2", 40_000)  # 15000 active there: 45000 with the video slice's
    poll(world, 0)
    roam(world, mac, vaps["ap-2"])
    poll(world, 2)
    assert kinds(world) == ["client_handover", "handover_refused"], world.got
    assert world.got[0][1]["admitted"] is False
    facts = world.got[1][1]
    assert (facts["slice_id"], facts["mac"], facts["agent_id"], facts["capacity_kbps"], facts["active_kbps"],
            facts["shortfall_kbps"], facts["policy"], facts["steer_back"]) == (
        sid, mac, "ap-2", 40_000, 45_000, 5_000, "best_effort", False)
    assert steers(world) == 0 and macs_on(world, vaps["ap-2"]) == [mac]
    (said,) = events(world, "handover_refused")
    assert said["level"] == "warn" and said["tenant_id"] == 1, said
    assert ("refused on AP ap-2 radio phy0: capacity 40000 kbps, 45000 kbps of active guarantees with its 30000 "
            "kbps, 5000 kbps short; policy best_effort: it stays on AP ap-2 with best effort: its guarantee is not "
            "held there") in said["message"], said
    poll(world, 4)  # one event per handover, not per poll
    assert kinds(world) == ["client_handover", "handover_refused"]


def test_refused_steer_back_steers_the_station_to_its_old_ap(world):
    sid, vaps = make_slice(world, "video", 30_000, ["ap-1", "ap-2"], [1, 0])
    assert set_policy(world, sid, "steer_back")["handover_policy"] == "steer_back"
    (mac,) = macs_on(world, vaps["ap-1"])
    set_capacity(world, "ap-2", 20_000)
    poll(world, 0)
    roam(world, mac, vaps["ap-2"])
    poll(world, 2)
    assert kinds(world) == ["client_handover", "handover_refused", "client_steered"], world.got
    refused, steered = world.got[1][1], world.got[2][1]
    assert (refused["policy"], refused["steer_back"], refused["shortfall_kbps"]) == ("steer_back", True, 10_000)
    assert (steered["mac"], steered["agent_id"], steered["target_agent"], steered["accepted"]) == (
        mac, "ap-2", "ap-1", True)
    assert world.fake.calls.count("steer_client") == 1 and macs_on(world, vaps["ap-1"]) == [mac]
    assert "policy steer_back: steering it back to AP ap-1" in events(world, "handover_refused")[0]["message"]
    world.got.clear()
    poll(world, 4)  # seen back on AP 1: a handover that fits there
    assert kinds(world) == ["client_handover"] and world.got[0][1]["to_agent"] == "ap-1", world.got


def test_steer_back_to_a_full_ap_does_not_steer_and_says_why(world):
    sid, vaps = make_slice(world, "video", 30_000, ["ap-1", "ap-2"], [1, 0])
    make_slice(world, "voice", 20_000, ["ap-1"], [1])
    set_policy(world, sid, "steer_back")
    (mac,) = macs_on(world, vaps["ap-1"])
    poll(world, 0)
    roam(world, mac, vaps["ap-2"])
    set_capacity(world, "ap-2", 20_000)
    set_capacity(world, "ap-1", 40_000)  # 20000 of the voice slice + 30000 back: no room either
    poll(world, 2)
    assert kinds(world) == ["client_handover", "handover_refused"], world.got
    assert world.got[1][1]["steer_back"] is False and steers(world) == 0
    assert macs_on(world, vaps["ap-2"]) == [mac]
    said = events(world, "handover_refused")[0]["message"]
    assert ("policy steer_back, but AP ap-1 cannot take it back (AP ap-1 radio phy0: capacity 40000 kbps (agent), "
            "20000 kbps guaranteed, 30000 wanted): no steering; it stays on AP ap-2 with best effort") in said, said


def test_handover_policy_in_the_schema(world):
    base = "/api/v1/tenants/1/slices"
    bad = world.call("POST", base, world.tenant_a, json=slice_body(name="bad", handover_policy="bounce"))
    assert bad.status_code == 422 and bad.mimetype == "application/problem+json"
    assert bad.get_json()["errors"]["json"]["handover_policy"] == [
        "must be one of best_effort (the station stays, its guarantee not held) or steer_back (steered back to the "
        "AP it came from)"]
    made = world.call("POST", base, world.tenant_a, json=slice_body(name="plain"))
    plain = world.call("GET", f"{base}/{made.get_json()['slice_id']}", world.tenant_a).get_json()
    assert plain["handover_policy"] == "best_effort"
    made = world.call("POST", base, world.tenant_a, json=slice_body(name="back", agent="ap-2",
                                                                    handover_policy="steer_back"))
    sid = made.get_json()["slice_id"]
    assert world.call("GET", f"{base}/{sid}", world.tenant_a).get_json()["handover_policy"] == "steer_back"
    wrong = world.call("PATCH", f"{base}/{sid}", world.tenant_a, json={"handover_policy": "kept"})
    assert wrong.status_code == 422 and "handover_policy" in wrong.get_json()["errors"]["json"]
    assert set_policy(world, sid, "best_effort")["handover_policy"] == "best_effort"
    said = [e["message"] for e in events(world, "slice") if "change admitted" in e["message"]]
    assert said and said[-1].endswith("handover policy best_effort; applying"), said
    schemas = OPENAPI["components"]["schemas"]
    for name in ("SliceCreate", "SlicePatch", "Slice"):
        assert "handover_policy" in schemas[name]["properties"], name
    assert schemas["SliceCreate"]["properties"]["handover_policy"]["enum"] == ["best_effort", "steer_back"]


def test_clients_read_each_poll_only_while_a_slice_spans_two_aps(world):
    make_slice(world, "one", 10_000, ["ap-1"], [2])
    make_slice(world, "two", 10_000, ["ap-2"], [1])
    for t in (0, 2, 4):
        poll(world, t)
    assert "list_clients" not in world.fake.calls  # everything fits and no slice can hand over: no extra call
    make_slice(world, "wide", 10_000, ["ap-1", "ap-3"], [0, 0])
    for t in (6, 8, 10):
        poll(world, t)
    assert world.fake.calls.count("list_clients") == 3


def test_a_failed_read_keeps_the_previous_one(world):
    sid, vaps = make_slice(world, "video", 30_000, ["ap-1", "ap-2"], [1, 0])
    (mac,) = macs_on(world, vaps["ap-1"])
    poll(world, 0)
    world.fake.fail_next("list_clients", status=502, code="unreachable")
    roam(world, mac, vaps["ap-2"])
    poll(world, 2)
    assert world.got == []
    poll(world, 4)
    assert kinds(world) == ["client_handover"] and world.got[0][1]["from_agent"] == "ap-1", world.got


def test_migration_0011_on_sqlite(tmp_path):
    check_slice_column_migration(tmp_path / "handover.db", "0010", "0011", "handover_policy", ("best_effort",))
