"""Issue #13 (found by the probe): an SSID names one network on an AP. A tenant cannot take an SSID another tenant
(or anything else on the AP) already uses there, nor use its own twice there; the same SSID on other APs is fine
(that is how a network spans APs)."""

from __future__ import annotations

from typing import Any

import pytest
from orch_helpers import slice_body


def _body(name: str, ssid: str, agent: str = "ap-1", vnfs: int = 1) -> dict[str, Any]:
    body = slice_body(name=name, agent=agent, vnfs=vnfs)
    body["vaps"][0]["ssid"] = ssid
    return body


def _refused(resp: Any) -> str:
    assert resp.status_code == 409, resp.get_data(as_text=True)
    assert resp.mimetype == "application/problem+json"
    detail = resp.get_json()["detail"]
    assert "SSID" in detail and "ap-1" in detail
    assert "t1s" not in detail and "tenant" not in detail  # says nothing of whose network it is
    return detail


@pytest.fixture
def taken(world):
    """Tenant 1 runs 'CoffeeShop' on ap-1."""
    resp = world.call("POST", "/api/v1/tenants/1/slices", world.tenant_a, json=_body("shop", "CoffeeShop", vnfs=0))
    assert resp.status_code == 202
    return resp.get_json()


@pytest.mark.parametrize("ssid", ["CoffeeShop", "coffeeshop", "COFFEESHOP", " CoffeeShop", "CoffeeShop ",
                                  "Co\ufb00eeShop", "\uff23offeeShop"])
def test_another_tenant_cannot_take_an_ssid_on_the_same_ap(world, taken, ssid):
    _refused(world.call("POST", "/api/v1/tenants/2/slices", world.tenant_b, json=_body("evil", ssid)))
    assert [v["ssid"] for v in world.fake.list_vaps("ap-1")] == ["CoffeeShop"]


def test_the_same_tenant_cannot_use_its_ssid_twice_on_an_ap(world, taken):
    _refused(world.call("POST", "/api/v1/tenants/1/slices", world.tenant_a, json=_body("again", "CoffeeShop")))
    resp = world.call("POST", f"/api/v1/tenants/1/slices/{taken['slice_id']}/vaps", world.tenant_a,
                      json={"agent_id": "ap-1", "ssid": "CoffeeShop"})
    _refused(resp)


def test_one_request_cannot_use_an_ssid_twice_on_an_ap(world):
    body = _body("twice", "Twice")
    body["vaps"].append(dict(body["vaps"][0]))
    _refused(world.call("POST", "/api/v1/tenants/1/slices", world.tenant_a, json=body))


def test_an_ssid_on_the_ap_outside_the_orchestrator_is_taken_too(world):
    world.fake.create_vap("ap-1", {"vap_id": "operator-guest", "radio": "phy0", "ssid": "Guest",
                                   "security": {"mode": "open"}})
    _refused(world.call("POST", "/api/v1/tenants/1/slices", world.tenant_a, json=_body("guest", "Guest")))


def test_the_same_ssid_on_another_ap_is_fine(world, taken):
    resp = world.call("POST", f"/api/v1/tenants/1/slices/{taken['slice_id']}/vaps", world.tenant_a,
                      json={"agent_id": "ap-2", "ssid": "CoffeeShop"})
    assert resp.status_code == 202
    resp = world.call("POST", "/api/v1/tenants/2/slices", world.tenant_b, json=_body("other", "CoffeeShop", "ap-2",
                                                                                     vnfs=0))
    assert resp.status_code == 409  # ap-2 has it now, from the vAP just added


def test_a_deleted_slice_frees_its_ssid(world, taken):
    world.call("DELETE", f"/api/v1/tenants/1/slices/{taken['slice_id']}", world.tenant_a)
    resp = world.call("POST", "/api/v1/tenants/2/slices", world.tenant_b, json=_body("next", "CoffeeShop"))
    assert resp.status_code == 202, resp.get_json()
