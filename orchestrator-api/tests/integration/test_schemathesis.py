"""Property-based fuzzing of the REST API from its own OpenAPI document: no request may get a 5xx.

Runs in-process (WSGI) with fake controllers, as the operator and with tenant 1 holding a live slice, so generated
requests reach deep into the handlers. Counts requests and checks at least 1 000 were sent."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest
import schemathesis
import sqlalchemy as sa
from hypothesis import HealthCheck, settings
from orch_helpers import make_world, slice_body

from wislice_orchestrator import auth
from wislice_orchestrator.models import ApiToken

pytestmark = pytest.mark.integration

SENT: list[int] = []
# The checked-in document (a unit test keeps it equal to the served one): cheap to load at collection time.
schema = schemathesis.openapi.from_path(str(Path(__file__).resolve().parents[2] / "openapi.json"))


@pytest.fixture(scope="module")
def world():
    tmp = tempfile.mkdtemp(prefix="wislice-fuzz-")
    w = make_world(tmp)
    w.call("POST", "/api/v1/tenants/1/slices", w.tenant_a, json=slice_body())
    # The fuzzing's own token must survive a generated DELETE /operator-tokens/{token_id}: such a request names a
    # spare instead (below), or every later request would be a 401 and reach nothing.
    spare = w.call("POST", "/api/v1/operator-tokens", w.operator, json={"name": "spare"}).get_json()["token_id"]
    with w.service.session_factory() as db:
        own = db.scalar(sa.select(ApiToken.id).where(ApiToken.token_hash == auth.hash_token(w.operator)))
    w.app.config["FUZZ_TOKEN_IDS"] = (own, spare)
    yield w
    w.service.runner.stop()
    w.app.extensions["wislice_engine"].dispose()
    shutil.rmtree(tmp, ignore_errors=True)


@schema.parametrize()
@settings(max_examples=45, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
def test_no_server_errors(world, case):
    own, spare = world.app.config["FUZZ_TOKEN_IDS"]
    if case.method.upper() == "DELETE" and str((case.path_parameters or {}).get("token_id")) == str(own):
        case.path_parameters["token_id"] = spare
    response = case.call(app=world.app, headers={"Authorization": f"Bearer {world.operator}"})
    SENT.append(response.status_code)
    assert response.status_code < 500, f"{case.method} {case.formatted_path}: {response.status_code} {response.text}"
    if response.status_code >= 400:
        ctype = {k.lower(): v for k, v in response.headers.items()}.get("content-type", "")
        ctype = ctype[0] if isinstance(ctype, list) else ctype
        assert ctype.startswith("application/problem+json"), (case.method, case.formatted_path, response.status_code)


def test_the_fuzzing_token_survived(world):
    """Runs after the fuzzing: its token still works, so no part of it was fuzzed with a 401 only."""
    assert world.call("GET", "/api/v1/me", world.operator).status_code == 200


def test_enough_requests_were_sent():
    """Runs after the fuzzing above (same module, later in file order)."""
    print(f"schemathesis: {len(SENT)} generated requests, status codes {sorted(set(SENT))}")
    assert len(SENT) >= 1000, f"only {len(SENT)} generated requests"
    assert all(code < 500 for code in SENT)
