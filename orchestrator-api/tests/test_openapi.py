"""The checked-in openapi.json is the one the code generates (run `make openapi` after changing the API), whichever
Python version generates it."""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from wislice_orchestrator.api_spec import DEFAULT_ERROR, ERROR_RESPONSES, ErrorResponsesPlugin
from wislice_orchestrator.openapi_dump import render

CHECKED_IN = Path(__file__).resolve().parents[1] / "openapi.json"


def test_served_document_matches_checked_in(world):
    served = world.client.get("/api/v1/openapi.json")
    assert served.status_code == 200
    stale = "openapi.json is stale: run make -C orchestrator-api openapi"
    assert render(served.get_json()) == CHECKED_IN.read_text(), stale


def test_document_is_openapi3_with_table_one(world):
    doc = json.loads(CHECKED_IN.read_text())
    assert doc["openapi"].startswith("3.")
    paths = doc["paths"]
    for path in ("/api/v1/tenants", "/api/v1/tenants/{tenant_id}/slices/{slice_id}/vaps",
                 "/api/v1/tenants/{tenant_id}/slices/{slice_id}/vnfs",
                 "/api/v1/tenants/{tenant_id}/slices/{slice_id}/clients", "/api/v1/wifi-agents", "/api/v1/mec-agents"):
        assert path in paths


# Statuses whose http.HTTPStatus name and phrase differ between Python versions (3.13 took RFC 9110's).
RENAMED = {413: ("REQUEST_ENTITY_TOO_LARGE", "CONTENT_TOO_LARGE", "Request Entity Too Large", "Content Too Large"),
           414: ("REQUEST_URI_TOO_LONG", "URI_TOO_LONG", "Request-URI Too Long", "URI Too Long"),
           416: ("REQUESTED_RANGE_NOT_SATISFIABLE", "RANGE_NOT_SATISFIABLE", "Requested Range Not Satisfiable",
                 "Range Not Satisfiable"),
           422: ("UNPROCESSABLE_ENTITY", "UNPROCESSABLE_CONTENT", "Unprocessable Entity", "Unprocessable Content")}


def test_error_responses_are_named_and_described_by_us():
    doc = json.loads(CHECKED_IN.read_text())
    ours = {r.name: r.description for r in [*ERROR_RESPONSES.values(), DEFAULT_ERROR]}
    components = doc["components"]["responses"]
    assert {name: r["description"] for name, r in components.items()} == ours
    referenced = set(re.findall(r'"#/components/responses/([^"]+)"', CHECKED_IN.read_text()))
    assert referenced == set(components)
    for status, error in ERROR_RESPONSES.items():  # the component a status refers to is its own
        refs = {r["$ref"] for item in doc["paths"].values() for op in item.values() if isinstance(op, dict)
                for code, r in op.get("responses", {}).items() if code == str(status)}
        assert refs == {f"#/components/responses/{error.name}"}
    text = CHECKED_IN.read_text()
    assert [word for words in RENAMED.values() for word in words if word in text] == []


def test_document_is_the_same_whatever_python_names_the_statuses():
    """As if another Python version named and described every error status differently (as 3.13 did some)."""
    renamed = ("import http\n"
               "for s in http.HTTPStatus:\n"
               "    if s >= 400:\n"
               "        s._name_, s.phrase = f'RENAMED_{s.value}', f'Renamed {s.value}'\n"
               "from wislice_orchestrator.openapi_dump import generate, render\n"
               "import sys\n"
               "sys.stdout.write(render(generate()))\n")
    out = subprocess.run([sys.executable, "-c", renamed], capture_output=True, text=True, check=True, timeout=120)
    assert out.stdout == CHECKED_IN.read_text()


def test_a_status_without_a_response_of_ours_is_refused():
    plugin = ErrorResponsesPlugin()
    operations = {"post": {"requestBody": {}, "responses": {422: "UNPROCESSABLE_CONTENT", "default": "DEFAULT_ERROR",
                                                            "202": {"description": "Accepted"}}}}
    plugin.operation_helper(operations=operations)
    assert operations["post"]["responses"] == {
        "422": "VALIDATION_ERROR", "default": "DEFAULT_ERROR", "202": {"description": "Accepted"},
        "401": "UNAUTHORIZED", "400": "BAD_REQUEST", "413": "BODY_TOO_LARGE"}
    with pytest.raises(ValueError, match="no response of its own for status 412"):
        plugin.operation_helper(operations={"get": {"responses": {412: "PRECONDITION_FAILED"}}})
