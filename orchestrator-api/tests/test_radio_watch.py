"""Load balancing (radio_watch.py): a radio whose guarantees with clients exceed its reported capacity for N polls
has its slices' clients steered to their vAPs on other APs with room; events, refusals, errors, the hold, the switch."""

from __future__ import annotations

import pytest
from orch_helpers import make_world, slice_body

from wislice_orchestrator.config import from_environment
from wislice_orchestrator.radio_watch import RADIO_WATCH_SAMPLES

T0 = 1_700_000_000.0
ROOMY = 100_000
HOLD = 30.0


def add_ap(fake, agent_id):
    """A third AP like the others (the fake starts with two)."""
    radio = dict(fake.agents["ap-1"]["radios"][0], mac="02:00:00:00:09:00", vaps_used=0)
    fake.agents[agent_id] = {**fake.agents["ap-1"], "agent_id": agent_id, "address": "10.0.0.9", "radios": [radio]}


def set_capacity(world, agent_id, kbps):
    world.fake.agents[agent_id]["radios"][0].update(capacity_kbps=kbps, capacity_source="agent")


@pytest.fixture
def world(tmp_path):
    w = make_world(tmp_path, RADIO_WATCH_HOLD_S=HOLD)
    add_ap(w.fake, "ap-3")
    for ap in w.fake.agents:
        set_capacity(w, ap, ROOMY)  # admission sees room; a test lowers a capacity after
    w.got = []

    def got(kind, facts):
        if kind not in ("client_handover", "handover_refused"):  # a moved station: test_handover_readmit.py's
            w.got.append((kind, facts))

    w.app.extensions["wislice_radio_watch"].on_event = got
    return w


def make_slice(world, name, kbps, agents, clients):
    """A best-effort slice guaranteeing `kbps` down on a vAP of one SSID per AP; clients[i] stations on the i-th."""
    body = slice_body(name=name, vnfs=0, latency_class="best_effort",
                      bandwidth={"down_guaranteed_kbps": kbps, "up_guaranteed_kbps": 0, "down_cap_kbps": 2 * kbps,
                                 "up_cap_kbps": 0},
                      vaps=[{"agent_id": a, "radio": "phy0", "ssid": f"{name}-wifi", "security": {"mode": "open"}}
                            for a in agents])
    body.pop("latency_budget_us")
    created = world.call("POST", "/api/v1/tenants/1/slices", world.tenant_a, json=body)
    assert created.status_code == 202, created.get_json()
    got = world.call("GET", f"/api/v1/tenants/1/slices/{created.get_json()['slice_id']}", world.tenant_a).get_json()
    assert got["status"] == "active", got
    vaps = {v["agent_id"]: v["vap_id"] for v in got["vaps"]}
    for agent, n in zip(agents, clients, strict=True):
        for mac in [m for m, c in world.fake.clients.items() if c["vap_id"] == vaps[agent]]:
            world.fake.kick_client(agent, mac)
        for k in range(n):
            world.fake.add_client(vaps[agent], f"02:77:{got['slice_id']:02x}:{agents.index(agent):02x}:00:{k:02x}")
    return got["slice_id"], vaps


def macs_on(world, vap_id):
    return sorted(m for m, c in world.fake.clients.items() if c["vap_id"] == vap_id)


def poll(world, t):
    world.app.extensions["wislice_telemetry"].poll_once(now=T0 + t)


def kinds(world):
    return [k for k, _ in world.got]


def steers(world):
    return world.fake.calls.count("steer_client")


def test_overcommitted_after_n_samples_only_and_the_clients_move(world):
    assert RADIO_WATCH_SAMPLES == 3
    sid, vaps = make_slice(world, "video", 30_000, ["ap-1", "ap-2"], [2, 0])
    on_ap1 = macs_on(world, vaps["ap-1"])
    poll(world, 0)
    assert world.fake.calls.count("list_clients") == 1  # a slice on two APs: read each poll for handovers
    set_capacity(world, "ap-1", 20_000)
    poll(world, 2)
    poll(world, 4)
    set_capacity(world, "ap-1", 40_000)  # a within sample restarts the run
    poll(world, 6)
    set_capacity(world, "ap-1", 20_000)
    poll(world, 8)
    poll(world, 10)
    assert world.got == [] and steers(world) == 0
    assert world.app.extensions["wislice_radio_watch"].state("ap-1", "phy0")["overcommitted"] is False
    poll(world, 12)  # the third over in a row
    assert kinds(world) == ["radio_overcommitted", "client_steered", "client_steered"], world.got
    facts = world.got[0][1]
    assert (facts["agent_id"], facts["capacity_kbps"], facts["active_kbps"]) == ("ap-1", 20_000, 30_000)
    assert [f["mac"] for _, f in world.got[1:]] == on_ap1
    assert {(f["slice_id"], f["target_agent"], f["accepted"], f["status_code"]) for _, f in world.got[1:]} == {
        (sid, "ap-2", True, 0)}
    assert macs_on(world, vaps["ap-1"]) == [] and macs_on(world, vaps["ap-2"]) == on_ap1
    events = world.call("GET", "/api/v1/events?limit=100", world.operator).get_json()["events"]
    over = [e for e in events if e["kind"] == "radio_overcommitted"]
    assert len(over) == 1 and "30000 kbps, exceed its capacity 20000 kbps" in over[0]["message"], over
    assert over[0]["level"] == "warn"
    assert sum(e["kind"] == "client_steered" for e in events) == 2


def test_guarantees_without_clients_do_not_count(world):
    make_slice(world, "idle", 30_000, ["ap-1", "ap-2"], [0, 0])
    set_capacity(world, "ap-1", 20_000)
    for t in range(0, 20, 2):
        poll(world, t)
    assert world.got == [] and steers(world) == 0
    assert world.app.extensions["wislice_radio_watch"].state("ap-1", "phy0") == {"overcommitted": False,
                                                                                 "since": None}


def test_largest_guarantee_moves_first_and_only_as_much_as_needed(world):
    big, big_vaps = make_slice(world, "big", 20_000, ["ap-1", "ap-2"], [2, 0])
    small, small_vaps = make_slice(world, "small", 10_000, ["ap-1", "ap-3"], [1, 0])
    set_capacity(world, "ap-1", 25_000)  # 30000 active: moving the big slice is enough
    for t in (0, 2, 4):
        poll(world, t)
    moved = [(f["slice_id"], f["target_agent"]) for k, f in world.got if k == "client_steered"]
    assert moved == [(big, "ap-2"), (big, "ap-2")], world.got
    assert len(macs_on(world, small_vaps["ap-1"])) == 1 and len(macs_on(world, big_vaps["ap-2"])) == 2
    assert "radio_no_move" not in kinds(world)


def test_only_to_an_ap_with_room_and_a_slice_without_another_vap_stays(world):
    big, big_vaps = make_slice(world, "big", 20_000, ["ap-1", "ap-2"], [2, 0])
    mid, mid_vaps = make_slice(world, "mid", 10_000, ["ap-1", "ap-3"], [1, 0])
    lone, lone_vaps = make_slice(world, "lone", 5_000, ["ap-1"], [1])
    set_capacity(world, "ap-1", 25_000)  # 35000 active
    set_capacity(world, "ap-2", 15_000)  # the big slice's 20000 does not fit there
    for t in (0, 2, 4):
        poll(world, t)
    moved = [(f["slice_id"], f["target_agent"]) for k, f in world.got if k == "client_steered"]
    assert moved == [(mid, "ap-3")], world.got  # 35000 - 10000 = 25000 fits: the lone slice is not needed
    assert len(macs_on(world, big_vaps["ap-1"])) == 2 and len(macs_on(world, lone_vaps["ap-1"])) == 1
    assert macs_on(world, mid_vaps["ap-1"]) == [] and len(macs_on(world, mid_vaps["ap-3"])) == 1


def test_no_slice_can_move_is_one_event_and_no_steering(world):
    lone, _ = make_slice(world, "lone", 30_000, ["ap-1"], [2])
    full, _ = make_slice(world, "full", 20_000, ["ap-1", "ap-2"], [1, 0])
    set_capacity(world, "ap-1", 40_000)  # 50000 active
    set_capacity(world, "ap-2", 10_000)
    for t in range(0, 20, 2):
        poll(world, t)
    assert kinds(world) == ["radio_overcommitted", "radio_no_move"], world.got
    facts = world.got[1][1]
    assert (facts["moved"], facts["stuck"], facts["active_kbps"], facts["capacity_kbps"]) == (0, 2, 50_000, 40_000)
    assert steers(world) == 0
    events = world.call("GET", "/api/v1/events?limit=100", world.operator).get_json()["events"]
    said = next(e["message"] for e in events if e["kind"] == "radio_no_move")
    assert f"slice {lone}" in said and "no vAP of SSID 'lone-wifi' on another AP" in said, said
    assert f"slice {full}" in said and "AP ap-2 radio phy0: capacity 10000 kbps" in said, said


def test_refusal_and_controller_errors_are_events_and_the_round_goes_on(world):
    sid, vaps = make_slice(world, "video", 30_000, ["ap-1", "ap-2"], [4, 0])
    first, second, third, fourth = macs_on(world, vaps["ap-1"])
    world.fake.fail_next("steer_client", status=502, code="agent_unreachable")
    world.fake.fail_on("steer_client", nth=2, status=409, code="conflict")
    world.fake.steer_refusals[third] = 1
    collector = world.app.extensions["wislice_telemetry"]
    set_capacity(world, "ap-1", 20_000)
    for t in (0, 2, 4):
        poll(world, t)
    assert collector.errors == 0  # nothing reached the telemetry loop
    assert kinds(world) == ["radio_overcommitted", "steer_failed", "steer_failed", "steer_refused",
                            "client_steered"], world.got
    failed = [(f["mac"], f["status"], f["code"]) for k, f in world.got if k == "steer_failed"]
    assert failed == [(first, 502, "agent_unreachable"), (second, 409, "conflict")]
    refused = next(f for k, f in world.got if k == "steer_refused")
    assert (refused["mac"], refused["accepted"], refused["status_code"]) == (third, False, 1)
    assert next(f for k, f in world.got if k == "client_steered")["mac"] == fourth
    assert macs_on(world, vaps["ap-1"]) == [first, second, third] and macs_on(world, vaps["ap-2"]) == [fourth]
    events = world.call("GET", "/api/v1/events?limit=100", world.operator).get_json()["events"]
    said = [e["message"] for e in events if e["kind"] == "steer_refused"]
    assert len(said) == 1 and "status 1" in said[0] and third in said[0], said


def test_no_second_round_within_hold_and_fits_again(world):
    sid, vaps = make_slice(world, "video", 30_000, ["ap-1", "ap-2"], [2, 0])
    for mac in macs_on(world, vaps["ap-1"]):
        world.fake.steer_refusals[mac] = 7  # the stations stay: the radio stays over
    set_capacity(world, "ap-1", 20_000)
    for t in (0, 2, 4):
        poll(world, t)
    assert steers(world) == 2 and kinds(world).count("steer_refused") == 2
    for t in range(6, 80, 2):  # still over, past the hold too: one round per episode
        poll(world, t)
    assert steers(world) == 2 and kinds(world).count("radio_overcommitted") == 1
    set_capacity(world, "ap-1", 40_000)
    poll(world, 80)
    poll(world, 82)
    assert "radio_fits" not in kinds(world)
    poll(world, 84)
    fits = [f for k, f in world.got if k == "radio_fits"]
    assert len(fits) == 1 and (fits[0]["capacity_kbps"], fits[0]["active_kbps"]) == (40_000, 30_000)
    assert world.app.extensions["wislice_radio_watch"].state("ap-1", "phy0") == {"overcommitted": False,
                                                                                 "since": T0 + 84}
    # A new episode: overcommitted again; the hold since the last round (at 4) has passed, so it gets its round.
    world.fake.steer_refusals.clear()
    set_capacity(world, "ap-1", 20_000)
    world.got.clear()
    for t in (86, 88, 90):
        poll(world, t)
    assert kinds(world) == ["radio_overcommitted", "client_steered", "client_steered"], world.got  # 90 - 4 >= 30

    world.got.clear()
    set_capacity(world, "ap-1", 40_000)
    for t in (92, 94, 96):
        poll(world, t)
    assert kinds(world) == ["radio_fits"], world.got
    # Stations back on the radio and the capacity down again within the hold of the round at 90: no steering yet.
    for mac in macs_on(world, vaps["ap-2"]):
        world.fake.steer_client(mac, {"target_agent": "ap-1"})
    set_capacity(world, "ap-1", 20_000)
    calls = steers(world)
    for t in (98, 100, 102, 104, 118):
        poll(world, t)
    assert steers(world) == calls and kinds(world) == ["radio_fits", "radio_overcommitted"], world.got
    poll(world, 120)  # 120 - 90 = 30: the hold has passed
    assert steers(world) == calls + 2 and kinds(world)[2:] == ["client_steered", "client_steered"]


def test_off_by_the_config_switch(tmp_path):
    assert from_environment({"WISLICE_RADIO_WATCH": "0"})["RADIO_WATCH"] is False
    assert from_environment({"WISLICE_RADIO_WATCH_SAMPLES": "5"})["RADIO_WATCH_SAMPLES"] == 5
    assert from_environment({})["RADIO_WATCH"] is True
    w = make_world(tmp_path, RADIO_WATCH=False)
    assert w.app.extensions["wislice_radio_watch"] is None
    for ap in w.fake.agents:
        set_capacity(w, ap, ROOMY)
    make_slice(w, "video", 30_000, ["ap-1", "ap-2"], [2, 0])
    set_capacity(w, "ap-1", 20_000)
    for t in range(0, 20, 2):
        poll(w, t)
    assert w.app.extensions["wislice_telemetry"].polls == 10
    assert "steer_client" not in w.fake.calls and "list_clients" not in w.fake.calls
    events = w.call("GET", "/api/v1/events?limit=100", w.operator).get_json()["events"]
    assert not any(e["kind"].startswith(("radio_", "client_steered", "steer_")) for e in events)


def test_unreadable_clients_are_no_sample(world):
    make_slice(world, "video", 30_000, ["ap-1", "ap-2"], [2, 0])
    set_capacity(world, "ap-1", 20_000)
    poll(world, 0)
    poll(world, 2)
    world.fake.fail_always("list_clients", status=502, code="unreachable")
    for t in (4, 6, 8):
        poll(world, t)
    assert world.got == [] and world.app.extensions["wislice_telemetry"].errors == 0
    world.fake.clear_failures()
    poll(world, 10)  # the third readable sample over
    assert kinds(world)[0] == "radio_overcommitted" and world.fake.calls.count("list_clients") == 6
