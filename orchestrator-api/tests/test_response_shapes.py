"""The exact JSON of a representative tenant, operation, slice and event, pinned byte for byte: the responses are
dumped through their schemas (schemas/), and whatever changes there must not change what clients receive."""

from __future__ import annotations

import datetime as dt
from typing import Any

from orch_helpers import slice_body

from wislice_orchestrator.models import Event, Operation, Slice, SliceVap, SliceVnf, Tenant

CREATED = dt.datetime(2024, 5, 1, 12, 0, 0, 500000)
FINISHED = dt.datetime(2024, 5, 1, 12, 0, 3)

TENANT = (
    '{"created_at":"2024-05-01T12:00:00.500000+00:00","name":"alpha","quota":{"bandwidth_kbps":100000,"cpu":4.0,'
    '"memory_mib":4096,"slices":10,"vaps":8},"tenant_id":1,"usage":{"bandwidth_kbps":9000,"cpu":0.3,'
    '"memory_mib":384,"slices":1,"vaps":1}}\n')
OPERATION = (
    '{"created_at":"2024-05-01T12:00:00.500000+00:00","error":"create_vnf: boom","finished_at":'
    '"2024-05-01T12:00:03+00:00","kind":"create_slice","operation_id":41,"progress":0.333,"slice_id":40,'
    '"status":"rolling_back","steps":[{"kind":"create_vap","ref":{"agent_id":"ap-1","vap_id":"t1s40v1"},'
    '"seconds":0.25,"started_at":1714564800.5,"state":"done"},{"error":"boom","kind":"create_vnf","ref":'
    '{"row":7,"vnf_id":65543},"state":"failed"},{"kind":"create_path","ref":{"path_id":"t1s40-t1s40v1"},'
    '"state":"pending"}],"tenant_id":1}\n')
SLICE = (
    '{"bandwidth":{"down_cap_kbps":20000,"down_guaranteed_kbps":5000,"up_cap_kbps":0,"up_guaranteed_kbps":1000},'
    '"created_at":"2024-05-01T12:00:00.500000+00:00","handover_policy":"best_effort","latency_budget_us":500,'
    '"latency_class":"low","mec_node":"mec-1","name":"video","pending_change":{"bandwidth":{"down_cap_kbps":20000,'
    '"down_guaranteed_kbps":8000,"up_cap_kbps":0,"up_guaranteed_kbps":1000},"latency_budget_us":300,'
    '"latency_class":"low"},"policies":[],"policy_state":[],"probe":null,"slice_id":40,'
    '"status":"active","status_reason":"","tag":null,"tenant_id":1,"vaps":[{"agent_id":"ap-1","hidden":false,'
    '"max_clients":null,"pof_port":12,"radio":"phy0","security_mode":"wpa2-psk","ssid":"video-wifi","state":"up",'
    '"vap_id":"t1s40v1"}],"vnf_follow":false,"vnfs":[{"address":"0.1.0.7","chain_position":0,"cpu":0.1,'
    '"image":"firewall",'
    '"instance_id":7,"memory_mib":128,"node":"mec-1","params":{"mode":"drop"},"state":"running","vnf_id":65543},'
    '{"address":"0.1.0.8","chain_position":1,"cpu":0.2,"image":"nat","instance_id":8,"memory_mib":256,'
    '"node":"mec-1","params":{},"state":"running","vnf_id":65544}]}\n')
EVENT = ('{"events":[{"id":5,"kind":"slice","level":"warn","message":"slice 40 changed","tenant_id":1,'
         '"ts":"2024-05-01T12:00:03+00:00"}]}\n')


def _seed(world: Any) -> None:
    """One tenant with an active slice (a change pending), a half-run operation and one event, at fixed times."""
    with world.service.session_factory() as db:
        db.get(Tenant, 1).created_at = CREATED
        slice_ = Slice(id=40, tenant_id=1, name="video", latency_class="low", latency_budget_us=500, status="active",
                       mec_node="mec-1",
                       created_at=CREATED, path_links=[], policies=[], policy_state=[],
                       **slice_body()["bandwidth"] | {"up_cap_kbps": 0},
                       pending_change={"bandwidth": {"down_guaranteed_kbps": 8000, "up_guaranteed_kbps": 1000,
                                                     "down_cap_kbps": 20000, "up_cap_kbps": 0},
                                       "latency_class": "low", "latency_budget_us": 300})
        db.add(slice_)
        db.add(SliceVap(slice=slice_, vap_id="t1s40v1", agent_id="ap-1", radio="phy0", ssid="video-wifi",
                        security_mode="wpa2-psk", sealed_passphrase=None, state="up", pof_port=12))
        db.add(SliceVnf(slice=slice_, tenant_id=1, instance_id=7, image="firewall", params={"mode": "drop"}, cpu=0.1,
                        memory_mib=128, chain_position=0, node="mec-1", state="running"))
        db.add(SliceVnf(slice=slice_, tenant_id=1, instance_id=8, image="nat", params={}, cpu=0.2, memory_mib=256,
                        chain_position=1, node="mec-1", state="running"))
        # A step's result and any field that is None are not shown; progress is rounded to 3 places.
        db.add(Operation(id=41, kind="create_slice", tenant_id=1, slice_id=40, status="rolling_back",
                         error="create_vnf: boom", created_at=CREATED, finished_at=FINISHED, steps=[
                             {"kind": "create_vap", "ref": {"vap_id": "t1s40v1", "agent_id": "ap-1"}, "state": "done",
                              "result": {"pof_port": 12}, "error": None, "started_at": 1714564800.5, "seconds": 0.25},
                             {"kind": "create_vnf", "ref": {"row": 7, "vnf_id": 65543}, "state": "failed",
                              "error": "boom", "started_at": None},
                             {"kind": "create_path", "ref": {"path_id": "t1s40-t1s40v1"}, "state": "pending"}]))
        db.add(Event(id=5, ts=FINISHED, level="warn", kind="slice", tenant_id=1, message="slice 40 changed"))
        db.commit()


def _text(world: Any, path: str, token: str) -> str:
    resp = world.call("GET", path, token)
    assert resp.status_code == 200, resp.get_json()
    return resp.get_data(as_text=True)


def test_tenant_operation_slice_and_event_are_shown_as_before(world):
    _seed(world)
    assert _text(world, "/api/v1/tenants/1", world.tenant_a) == TENANT
    assert _text(world, "/api/v1/tenants", world.operator) == '{"tenants":[' + TENANT[:-1] + "," + _text(
        world, "/api/v1/tenants/2", world.operator)[:-1] + "]}\n"
    assert _text(world, "/api/v1/operations/41", world.tenant_a) == OPERATION
    assert _text(world, "/api/v1/operations", world.tenant_a) == '{"operations":[' + OPERATION[:-1] + "]}\n"
    assert _text(world, "/api/v1/tenants/1/slices/40", world.tenant_a) == SLICE
    assert _text(world, "/api/v1/tenants/1/slices", world.tenant_a) == '{"slices":[' + SLICE[:-1] + "]}\n"
    assert _text(world, "/api/v1/events", world.operator) == EVENT


def test_an_accepted_operation_is_shown_as_it_was_queued(world):
    resp = world.call("POST", "/api/v1/tenants/1/slices", world.tenant_a, json=slice_body())
    assert resp.status_code == 202
    text = resp.get_data(as_text=True)
    created = resp.get_json()["created_at"]
    assert created.endswith("+00:00")
    assert text == (
        f'{{"created_at":"{created}","error":"","finished_at":null,"kind":"create_slice","operation_id":1,'
        '"progress":0.0,"slice_id":1,"status":"pending","steps":[{"kind":"create_vap","ref":{"agent_id":"ap-1",'
        '"vap_id":"t1s1v1"},"state":"pending"},{"kind":"create_vnf","ref":{"row":1,"vnf_id":65537},'
        '"state":"pending"},{"kind":"create_path","ref":{"path_id":"t1s1-t1s1v1","slice":1,"vap_id":"t1s1v1"},'
        '"state":"pending"}],"tenant_id":1}\n')


def test_what_is_documented_is_what_is_sent(world):
    """The document's properties and a response's keys come from the same schema: a field added there is in both."""
    _seed(world)
    doc = world.client.get("/api/v1/openapi.json").get_json()["components"]["schemas"]

    def documented(name: str) -> set[str]:
        return set(doc[name]["properties"])

    tenant = world.call("GET", "/api/v1/tenants/1", world.tenant_a).get_json()
    assert set(tenant) == documented("Tenant")
    assert set(tenant["quota"]) == documented("Quota") and set(tenant["usage"]) == documented("Usage")
    slice_ = world.call("GET", "/api/v1/tenants/1/slices/40", world.tenant_a).get_json()
    assert set(slice_) == documented("Slice") and set(slice_["bandwidth"]) == documented("Bandwidth")
    assert set(slice_["vaps"][0]) == documented("Vap") and set(slice_["vnfs"][0]) == documented("Vnf")
    op = world.call("GET", "/api/v1/operations/41", world.tenant_a).get_json()
    assert set(op) == documented("Operation")
    assert set().union(*op["steps"]) == documented("Step")  # a field a step has not set is left out
    event = world.call("GET", "/api/v1/events", world.operator).get_json()["events"][0]
    assert set(event) == documented("Event")
    assert set(world.call("GET", "/api/v1/me", world.tenant_a).get_json()) == documented("WhoAmI")
