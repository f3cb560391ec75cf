"""Issue #13 (found by the probe): PUT /topology without a body does not erase the topology, and no path segment
the caller chose ('..', '.', a slash) travels into a controller URL."""

from __future__ import annotations

from typing import Any

import pytest
from orch_helpers import slice_body


def _topology(world: Any) -> dict[str, Any]:
    return world.call("GET", "/api/v1/topology", world.operator).get_json()


@pytest.mark.parametrize("kw", [{}, {"data": "", "content_type": "application/json"}, {"json": {}},
                                {"json": {"egress": {}}}, {"data": "attachments", "content_type": "text/plain"}])
def test_put_topology_without_a_topology_does_not_erase_it(world, kw):
    before = _topology(world)
    assert before["links"]
    resp = world.call("PUT", "/api/v1/topology", world.operator, **kw)
    assert resp.status_code in (400, 422), resp.get_data(as_text=True)
    assert resp.mimetype == "application/problem+json"
    assert _topology(world) == before


def test_an_explicitly_empty_topology_is_still_accepted(world):
    resp = world.call("PUT", "/api/v1/topology", world.operator, json={"attachments": {}, "links": []})
    assert resp.status_code == 200
    assert _topology(world) == {"attachments": {}, "links": [], "egress": {}}


@pytest.mark.parametrize("method,path,body", [
    ("DELETE", "/api/v1/wifi-agents/ap-1/clients/..", None),
    ("DELETE", "/api/v1/wifi-agents/ap-1/clients/%2E%2E", None),
    ("DELETE", "/api/v1/wifi-agents/../clients/02:00:00:00:00:01", None),
    ("DELETE", "/api/v1/wifi-agents/./clients/02:00:00:00:00:01", None),
    ("POST", "/api/v1/wifi-agents/../radios/phy0/channel", {"channel": 6}),
    ("POST", "/api/v1/wifi-agents/ap-1/radios/../channel", {"channel": 6}),
    ("POST", "/api/v1/wifi-agents/ap-1/radios/./channel", {"channel": 6}),
    ("GET", "/api/v1/wifi-agents/../clients", None),
])
def test_dot_segments_never_reach_a_controller(world, method, path, body):
    world.fake.calls.clear()
    resp = world.call(method, path, world.operator, json=body) if body else world.call(method, path, world.operator)
    assert resp.status_code in (400, 404, 422) and resp.mimetype == "application/problem+json"
    assert "controller_code" not in resp.get_data(as_text=True)  # refused here, not by a controller
    assert not {"kick_client", "set_channel", "list_clients"} & set(world.fake.calls)


def test_a_tenants_client_mac_must_be_a_mac(world):
    op = world.call("POST", "/api/v1/tenants/1/slices", world.tenant_a, json=slice_body()).get_json()
    world.fake.calls.clear()
    resp = world.call("DELETE", f"/api/v1/tenants/1/slices/{op['slice_id']}/clients/..", world.tenant_a)
    assert resp.status_code == 404 and "list_clients" not in world.fake.calls


@pytest.mark.parametrize("field,value", [("agent_id", ".."), ("agent_id", "."), ("radio", ".."), ("radio", ".x"),
                                         ("radio", "r" * 33)])  # its column holds 32
def test_ids_that_go_into_controller_urls_are_not_dot_segments(world, field, value):
    body = slice_body()
    body["vaps"][0][field] = value
    resp = world.call("POST", "/api/v1/tenants/1/slices", world.tenant_a, json=body)
    assert resp.status_code == 422 and "vaps" in resp.get_json()["errors"]["json"]


def test_the_rest_client_quotes_segments_and_refuses_dot_segments():
    from wislice_orchestrator.controllers.rest import segment

    assert segment("ap-1") == "ap-1"
    assert segment("02:00:00:00:00:01") == "02:00:00:00:00:01"
    assert segment("a/b") == "a%2Fb"
    assert segment("a?b#c") == "a%3Fb%23c"
    for bad in ("..", ".", ""):
        with pytest.raises(ValueError):
            segment(bad)
