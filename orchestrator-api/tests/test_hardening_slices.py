"""Issue #13 (found by the probe): a failed slice can be deleted (which also removes whatever its incomplete
rollback left on the controllers), and a deleted or failed slice does not keep its vNFs' params (they may hold a
tenant's secrets) in the database forever."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from orch_helpers import slice_body

from wislice_orchestrator.models import SliceVnf

EMPTY = {"vaps": [], "vnfs": [], "paths": []}
SECRET = {"mode": "token-s3cret"}


def _create(world: Any, **extra: Any) -> dict[str, Any]:
    body = slice_body(**extra)
    body["vnfs"][0]["params"] = dict(SECRET)
    resp = world.call("POST", "/api/v1/tenants/1/slices", world.tenant_a, json=body)
    assert resp.status_code == 202, resp.get_json()
    return world.call("GET", resp.headers["Location"], world.tenant_a).get_json()


def _params(world: Any, slice_id: int) -> list[dict[str, Any]]:
    with world.service.session_factory() as db:
        return [v.params for v in db.scalars(sa.select(SliceVnf).where(SliceVnf.slice_id == slice_id))]


def test_a_failed_slice_can_be_deleted(world):
    world.fake.fail_always("create_path")
    op = _create(world)
    world.fake.clear_failures()
    assert op["status"] == "failed"
    resp = world.call("DELETE", f"/api/v1/tenants/1/slices/{op['slice_id']}", world.tenant_a)
    assert resp.status_code == 202, resp.get_json()
    assert world.call("GET", resp.headers["Location"], world.tenant_a).get_json()["status"] == "succeeded"
    assert world.call("GET", f"/api/v1/tenants/1/slices/{op['slice_id']}", world.tenant_a).status_code == 404
    again = world.call("DELETE", f"/api/v1/tenants/1/slices/{op['slice_id']}", world.tenant_a)
    assert again.status_code == 404


def test_deleting_a_failed_slice_removes_what_its_rollback_left(world):
    world.fake.fail_on("create_path", 1)
    world.fake.fail_on("delete_vnf", 1, status=500, code="internal")  # the rollback cannot remove the vNF
    op = _create(world)
    assert op["status"] == "failed" and "rollback incomplete" in op["error"]
    assert world.fake.resources()["vnfs"] != []
    world.call("DELETE", f"/api/v1/tenants/1/slices/{op['slice_id']}", world.tenant_a)
    assert world.fake.resources() == EMPTY


def test_a_deleted_slice_keeps_no_params(world):
    op = _create(world)
    assert _params(world, op["slice_id"]) == [SECRET]
    world.call("DELETE", f"/api/v1/tenants/1/slices/{op['slice_id']}", world.tenant_a)
    assert _params(world, op["slice_id"]) == [{}]


def test_a_failed_slice_keeps_no_params(world):
    world.fake.fail_always("create_path")
    op = _create(world)
    assert op["status"] == "failed"
    assert _params(world, op["slice_id"]) == [{}]


def test_deleting_a_tenant_with_a_failed_slice_is_refused_until_it_is_deleted(world):
    """A failed slice may have left something on the controllers (an incomplete rollback); deleting it cleans up,
    so it goes first."""
    world.fake.fail_always("create_path")
    op = world.call("POST", "/api/v1/tenants/1/slices", world.tenant_a, json=slice_body()).get_json()
    world.fake.clear_failures()
    assert world.call("GET", f"/api/v1/operations/{op['operation_id']}", world.tenant_a).get_json()["status"] == \
        "failed"
    resp = world.call("DELETE", "/api/v1/tenants/1", world.operator)
    assert resp.status_code == 409 and "failed" in resp.get_json()["detail"]
    assert world.call("DELETE", f"/api/v1/tenants/1/slices/{op['slice_id']}", world.tenant_a).status_code == 202
    assert world.call("DELETE", "/api/v1/tenants/1", world.operator).status_code == 204
