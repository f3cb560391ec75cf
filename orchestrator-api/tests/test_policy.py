"""Closed-loop policies: transcode_on_overload's decisions on recorded telemetry, the engine deploying and removing
the transcoder through the saga (fake controllers), refusals, events, and PUT .../policies."""

from __future__ import annotations

import pytest
from orch_helpers import make_world, slice_body

from wislice_orchestrator.policy import Observation, decide_transcode
from wislice_orchestrator.policy_state import initial_state

T0 = 1_700_000_000.0
POLICY = {"type": "transcode_on_overload", "per_client_down_kbps": 2000, "hold_s": 4.0, "release_s": 10.0,
          "transcoder": {"bitrate_kbps": 800, "params": {}, "cpu": 0.5, "memory_mib": 256}}


def obs(clients, vnfs=(), guaranteed=5000):
    return Observation(clients, None if clients is None else clients * 1.9e6, guaranteed, frozenset(vnfs))


def replay(recorded, state=None):
    """Runs the decisions over (seconds, observation) pairs; returns [(t, state, action)], an operation outcome
    applied where the recording says so (('ok', vnf_id) after a deploy, 'ok' after a remove)."""
    st = state or initial_state()
    out = []
    for t, o in recorded:
        if o == "deployed":
            st = {**st, "state": "active", "vnf_id": 7, "since": None}
            continue
        if o == "removed":
            st = initial_state()
            continue
        d = decide_transcode(POLICY, st, o, T0 + t)
        st = d.state
        out.append((t, st["state"], d.action))
    return out


def test_deploys_after_hold_and_removes_after_release():
    # 2 clients x 2000 = 4000 within the 5000 guarantee; a third client makes 6000.
    recorded = [(0, obs(2)), (2, obs(3)), (4, obs(3)), (6, obs(3)), (7, "deployed"), (8, obs(3, [7])),
                (10, obs(2, [7])), (14, obs(2, [7])), (20, obs(2, [7])), (21, "removed"), (22, obs(2))]
    assert replay(recorded) == [
        (0, "idle", None), (2, "overloaded", None), (4, "overloaded", None), (6, "deploying", "deploy"),
        (8, "active", None), (10, "releasing", None), (14, "releasing", None), (20, "removing", "remove"),
        (22, "idle", None)]


def test_a_short_spike_does_nothing_and_a_dip_keeps_the_transcoder():
    recorded = [(0, obs(3)), (2, obs(2)), (4, obs(3)), (6, obs(3)), (8, obs(3)), (9, "deployed"),
                (10, obs(2, [7])), (16, obs(3, [7])), (18, obs(2, [7])), (26, obs(2, [7]))]
    assert [(t, s, a) for t, s, a in replay(recorded)] == [
        (0, "overloaded", None), (2, "idle", None), (4, "overloaded", None), (6, "overloaded", None),
        (8, "deploying", "deploy"), (10, "releasing", None), (16, "active", None), (18, "releasing", None),
        (26, "releasing", None)]  # released at 18: 8 s < release_s


def test_unknown_client_count_changes_nothing():
    st = {**initial_state(), "state": "overloaded", "since": T0}
    d = decide_transcode(POLICY, st, obs(None), T0 + 60)
    assert d.action is None and d.state["state"] == "overloaded" and d.state["since"] == T0


def test_a_transcoder_removed_by_hand_resets_the_policy():
    st = {**initial_state(), "state": "active", "vnf_id": 7}
    d = decide_transcode(POLICY, st, obs(3, vnfs=[]), T0)
    assert d.state["state"] == "idle" and "gone" in d.state["reason"]


def test_retry_waits_after_a_refusal():
    st = {**initial_state(), "retry_at": T0 + 10}
    assert decide_transcode(POLICY, st, obs(3), T0 + 5).state["state"] == "idle"
    assert decide_transcode(POLICY, st, obs(3), T0 + 10).state["state"] == "overloaded"


# --- the engine, through the API and the fake controllers ------------------------------------------------------
@pytest.fixture
def world(tmp_path):
    return make_world(tmp_path)


def policy_slice(world, policy=None, vnfs=1):
    body = slice_body(vnfs=vnfs, policies=[policy or POLICY])
    body["vnfs"] = [{"image": "kernel-fwd", "cpu": 0.1, "memory_mib": 32}] * vnfs
    created = world.call("POST", "/api/v1/tenants/1/slices", world.tenant_a, json=body)
    assert created.status_code == 202, created.get_json()
    return get(world, created.get_json()["slice_id"])


def get(world, slice_id):
    return world.call("GET", f"/api/v1/tenants/1/slices/{slice_id}", world.tenant_a).get_json()


def poll(world, t):
    world.app.extensions["wislice_telemetry"].poll_once(now=T0 + t)


def events(world, kind="policy"):
    rows = world.call("GET", "/api/v1/events?limit=1000", world.operator).get_json()["events"]
    return [e["message"] for e in rows if e["kind"] == kind]


def test_engine_deploys_the_transcoder_at_the_chain_head_and_removes_it(world):
    s = policy_slice(world)
    assert s["policies"][0]["per_client_down_kbps"] == 2000 and s["policy_state"][0]["state"] == "idle"
    vap = s["vaps"][0]["vap_id"]
    poll(world, 0)  # 2 clients: 4000 kbps within 5000
    assert get(world, s["slice_id"])["policy_state"][0]["state"] == "idle"
    world.fake.add_client(vap, "02:99:00:00:00:03")
    poll(world, 2)
    assert get(world, s["slice_id"])["policy_state"][0]["state"] == "overloaded"
    poll(world, 6)  # 4 s later: deploy (the saga runs at once without a worker)
    poll(world, 8)  # the operation's outcome is read at the next poll
    now = get(world, s["slice_id"])
    state = now["policy_state"][0]
    assert state["state"] == "active" and state["reaction_s"] == 6.0
    images = [(v["image"], v["chain_position"], v["state"]) for v in now["vnfs"]]
    assert images == [("transcoder", 0, "running"), ("kernel-fwd", 1, "running")]
    transcoder = now["vnfs"][0]
    assert state["vnf_id"] == transcoder["vnf_id"] and transcoder["params"] == {"bitrate_kbps": 800}
    assert transcoder["node"] == now["mec_node"]
    # The path was re-installed through the transcoder first, then the forwarder.
    ports = {v["vnf_id"]: [p["pof_port"] for p in world.fake.vnfs[v["vnf_id"]]["ports"]] for v in now["vnfs"]}
    t_ports, f_ports = ports[transcoder["vnf_id"]], ports[now["vnfs"][1]["vnf_id"]]
    hops = world.fake.paths[f"t1s{s['slice_id']}-{vap}"]["hops"]
    assert [(h["in_port"], h["out_port"]) for h in hops[-2:]] == [(hops[-2]["in_port"], t_ports[0]),
                                                                 (t_ports[-1], f_ports[0])]
    said = events(world)
    assert any("demand 6000 kbps (3 clients x 2000 kbps" in m and "deploying a transcoder at 800 kbps" in m
               for m in said), said
    assert any("running on" in m and "6.0 s after the demand exceeded" in m for m in said), said

    world.fake.kick_client("ap-1", "02:99:00:00:00:03")
    poll(world, 10)
    assert get(world, s["slice_id"])["policy_state"][0]["state"] == "releasing"
    poll(world, 20)  # release_s = 10
    poll(world, 22)
    now = get(world, s["slice_id"])
    assert now["policy_state"][0]["state"] == "idle"
    assert [(v["image"], v["chain_position"]) for v in now["vnfs"]] == [("kernel-fwd", 1)]
    assert transcoder["vnf_id"] not in world.fake.vnfs
    said = events(world)
    assert any("removing transcoder vNF" in m for m in said) and any(m.endswith("removed") for m in said), said


def test_a_transcoder_that_does_not_fit_is_an_event_and_a_retry_later(world):
    big = {**POLICY, "transcoder": {**POLICY["transcoder"], "cpu": 60.0}}
    s = policy_slice(world, big)
    world.fake.add_client(s["vaps"][0]["vap_id"], "02:99:00:00:00:03")
    poll(world, 0)
    poll(world, 5)
    state = get(world, s["slice_id"])["policy_state"][0]
    assert state["state"] == "idle" and state["retry_at"] == T0 + 5 + 10
    assert any("does not fit" in m and "retrying in 10 s" in m for m in events(world))
    assert [v["image"] for v in get(world, s["slice_id"])["vnfs"]] == ["kernel-fwd"]


def test_put_policies_validates_and_replaces(world):
    s = policy_slice(world)
    url = f"/api/v1/tenants/1/slices/{s['slice_id']}/policies"
    bad = world.call("PUT", url, world.tenant_a, json={"policies": [{**POLICY, "type": "scale_out"}]})
    assert bad.status_code == 422
    bad = world.call("PUT", url, world.tenant_a, json={"policies": [{**POLICY, "per_client_down_kbps": 0}]})
    assert bad.status_code == 422
    other = world.call("PUT", url, world.tenant_b, json={"policies": []})
    assert other.status_code in (403, 404)
    ok = world.call("PUT", url, world.tenant_a, json={"policies": []})
    assert ok.status_code == 200 and ok.get_json()["policies"] == [] and ok.get_json()["policy_state"] == []
    ok = world.call("PUT", url, world.tenant_a, json={"policies": [POLICY]})
    assert ok.get_json()["policy_state"][0]["state"] == "idle"
