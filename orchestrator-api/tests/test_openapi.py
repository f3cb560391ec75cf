"""The checked-in openapi.json is the one the code generates (run `make openapi` after changing the API)."""

import json
from pathlib import Path

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
