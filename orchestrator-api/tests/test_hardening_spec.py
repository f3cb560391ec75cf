"""Issue #13 (found by the probe): the OpenAPI document says what the service does. Every operation is secured and
documents its 401; every error response is application/problem+json; timestamps are RFC 3339 date-times with their
UTC offset; a 405 names the allowed methods; string length rules the code enforces are in the document."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest

DOC = json.loads((Path(__file__).resolve().parents[1] / "openapi.json").read_text())
METHODS = ("get", "put", "post", "delete", "patch")
PROBLEM = "application/problem+json"


def _operations() -> list[tuple[str, str, dict[str, Any]]]:
    return [(path, method, op) for path, item in DOC["paths"].items() for method, op in item.items()
            if method in METHODS]


def _response(ref_or_response: dict[str, Any]) -> dict[str, Any]:
    ref = ref_or_response.get("$ref")
    return DOC["components"]["responses"][ref.rsplit("/", 1)[1]] if ref else ref_or_response


def test_every_operation_is_secured_and_documents_401():
    assert DOC["security"] == [{"bearer": []}]
    for path, method, op in _operations():
        if path == "/api/v1/firmware/{firmware_id}/download":  # the agents': the firmware's token is in the query
            assert op["security"] == [] and "401" not in op["responses"]
            continue
        assert op.get("security", DOC["security"]) == [{"bearer": []}], (method, path)
        assert "401" in op["responses"], (method, path)
        assert list(_response(op["responses"]["401"])["content"]) == [PROBLEM], (method, path)


def test_every_error_response_is_problem_json():
    for path, method, op in _operations():
        for status, response in op["responses"].items():
            if status == "default" or status >= "400":
                content = _response(response)["content"]
                assert list(content) == [PROBLEM], (method, path, status)
                assert content[PROBLEM]["schema"] == {"$ref": "#/components/schemas/Problem"}


def test_operations_with_a_body_document_400_and_413():
    for path, method, op in _operations():
        if "requestBody" in op:
            assert {"400", "413"} <= set(op["responses"]), (method, path)


def test_served_errors_are_problem_json_as_documented(world):
    resp = world.call("GET", "/api/v1/me")
    assert resp.status_code == 401 and resp.mimetype == PROBLEM


def _utc(value: str) -> dt.datetime:
    parsed = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    assert parsed.utcoffset() == dt.timedelta(0), value
    return parsed


def test_timestamps_carry_their_utc_offset(world):
    from orch_helpers import slice_body

    before = dt.datetime.now(dt.UTC) - dt.timedelta(seconds=5)
    tenant = world.call("GET", "/api/v1/tenants/1", world.operator).get_json()
    assert _utc(tenant["created_at"]) >= before
    op = world.call("POST", "/api/v1/tenants/1/slices", world.tenant_a, json=slice_body()).get_json()
    op = world.call("GET", f"/api/v1/operations/{op['operation_id']}", world.tenant_a).get_json()
    assert _utc(op["created_at"]) <= _utc(op["finished_at"])
    s = world.call("GET", f"/api/v1/tenants/1/slices/{op['slice_id']}", world.tenant_a).get_json()
    assert _utc(s["created_at"]) >= before
    event = world.call("GET", "/api/v1/events", world.operator).get_json()["events"][0]
    assert _utc(event["ts"]) >= before


@pytest.mark.parametrize("schema,prop", [("Tenant", "created_at"), ("Slice", "created_at"),
                                         ("Operation", "created_at"), ("Operation", "finished_at"),
                                         ("Event", "ts")])
def test_timestamps_are_declared_date_time(schema, prop):
    assert DOC["components"]["schemas"][schema]["properties"][prop]["format"] == "date-time"


def test_405_names_the_allowed_methods(world):
    resp = world.call("PUT", "/api/v1/me", world.operator)
    assert resp.status_code == 405 and resp.mimetype == PROBLEM
    assert {m.strip() for m in resp.headers["Allow"].split(",")} >= {"GET"}
    resp = world.call("POST", "/api/v1/tenants/1", world.operator, json={})
    assert {m.strip() for m in resp.headers["Allow"].split(",")} >= {"GET", "PATCH", "DELETE"}


def _request_schemas() -> dict[str, Any]:
    """Every schema a request body uses, nested ones included."""
    schemas = DOC["components"]["schemas"]
    todo = [content["schema"]["$ref"] for _, _, op in _operations() if "requestBody" in op
            for content in op["requestBody"]["content"].values()]  # JSON, and the firmware upload's multipart
    found: dict[str, Any] = {}
    while todo:
        name = todo.pop().rsplit("/", 1)[1]
        if name not in found:
            found[name] = schemas[name]
            text = json.dumps(schemas[name])
            todo += [part.split('"', 1)[0] for part in text.split('"$ref": "')[1:]]
    return found


def test_request_strings_document_their_length_rules():
    requests = _request_schemas()
    assert {"TenantCreate", "VapRequest", "SliceCreate", "Topology", "Link", "Security", "Transcoder",
            "FirmwareUpload", "RolloutCreate"} <= set(requests)
    for name, schema in requests.items():
        for prop, spec in schema["properties"].items():
            if spec.get("type") == "string" and "enum" not in spec and spec.get("format") != "binary":
                assert "maxLength" in spec and spec.get("minLength", 0) >= 1, (name, prop, spec)
    ssid = DOC["components"]["schemas"]["VapRequest"]["properties"]["ssid"]
    assert (ssid["minLength"], ssid["maxLength"]) == (1, 32)
    name = DOC["components"]["schemas"]["TenantCreate"]["properties"]["name"]
    assert (name["minLength"], name["maxLength"]) == (1, 64)
