"""Issue #13 (found by the probe): request bodies are refused with a 4xx problem before they reach a schema when they
are not JSON the API can hold (lone surrogates, nesting, huge or non-finite numbers), anonymous callers are refused
before anything parses their body, and every body is bounded in size."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from orch_helpers import make_world, slice_body

from wislice_orchestrator.cli import waitress_options
from wislice_orchestrator.config import from_environment

JSON = {"Content-Type": "application/json"}


def _problem(resp: Any, status: int) -> dict[str, Any]:
    assert resp.status_code == status, resp.get_data(as_text=True)
    assert resp.mimetype == "application/problem+json"
    body = resp.get_json()
    assert body["status"] == status
    return body


def test_lone_surrogate_in_a_body_is_400(world):
    raw = json.dumps(slice_body()).replace('"video-wifi"', '"\\ud800x"')
    body = _problem(world.call("POST", "/api/v1/tenants/1/slices", world.tenant_a, data=raw, headers=JSON), 400)
    assert "surrogate" in body["detail"]
    # In a key, too.
    resp = world.call("POST", "/api/v1/tenants", world.operator, data='{"\\udfff": 1}', headers=JSON)
    _problem(resp, 400)


def test_json_nested_1000_deep_is_400(world):
    for doc in ("[" * 1000 + "]" * 1000, '{"a":' * 1000 + "1" + "}" * 1000, "[" * 100_000):
        body = _problem(world.call("POST", "/api/v1/tenants", world.operator, data=doc, headers=JSON), 400)
        assert "nested" in body["detail"] or "JSON" in body["detail"]
    # A body within the depth limit is still parsed (and then judged by its schema).
    _problem(world.call("POST", "/api/v1/tenants", world.operator, data="[" * 10 + "]" * 10, headers=JSON), 422)


def test_integer_of_5000_digits_is_400(world):
    for number in ("9" * 5000, "-" + "9" * 5000, "9" * 30):
        doc = '{"tenant_id": ' + number + ', "name": "big"}'
        body = _problem(world.call("POST", "/api/v1/tenants", world.operator, data=doc, headers=JSON), 400)
        assert "digits" in body["detail"]


@pytest.mark.parametrize("number", ["NaN", "Infinity", "-Infinity", "1e400", "-1e999"])
def test_non_finite_numbers_are_refused_anywhere_in_a_body(world, number):
    # vNF params take any JSON scalar, so no schema rule stands between a NaN there and the controllers.
    body = slice_body()
    body["vnfs"][0]["params"] = {"interval_s": "PLACEHOLDER"}
    raw = json.dumps(body).replace('"PLACEHOLDER"', number)
    detail = _problem(world.call("POST", "/api/v1/tenants/1/slices", world.tenant_a, data=raw, headers=JSON),
                      400)["detail"]
    assert "finite" in detail
    assert world.fake.resources()["vnfs"] == []


def test_anonymous_caller_gets_401_before_the_body_is_validated(world):
    resp = world.call("POST", "/api/v1/tenants/1/slices", None, json={"x": 1})
    body = _problem(resp, 401)
    assert "errors" not in body  # not the schema's field list
    assert resp.headers["WWW-Authenticate"].startswith("Bearer")
    _problem(world.call("POST", "/api/v1/tenants", "wso_not-a-token", data="[" * 1000, headers=JSON), 401)
    # The document describing the API stays public.
    assert world.call("GET", "/api/v1/openapi.json").status_code == 200


class CountingStream(io.BytesIO):
    """A request body that counts what the server reads of it."""

    def __init__(self, size: int) -> None:
        super().__init__(b" " * size)
        self.read_bytes = 0

    def read(self, size: int | None = -1) -> bytes:
        data = super().read(size)
        self.read_bytes += len(data)
        return data

    def readline(self, size: int | None = -1) -> bytes:
        data = super().readline(size)
        self.read_bytes += len(data)
        return data

    def readinto(self, buffer: Any) -> int:
        n = super().readinto(buffer)
        self.read_bytes += n
        return n


def test_ten_megabyte_anonymous_body_is_refused_without_reading_it(world):
    size = 10 * 1024 * 1024
    stream = CountingStream(size)
    resp = world.client.open("/api/v1/tenants/1/slices", method="POST", input_stream=stream, content_length=size,
                             content_type="application/json")
    assert resp.status_code in (401, 413)
    assert resp.mimetype == "application/problem+json"
    assert stream.read_bytes == 0


def test_body_above_the_limit_is_413_for_everyone(tmp_path):
    w = make_world(tmp_path, MAX_CONTENT_LENGTH=4096)
    try:
        big = slice_body()
        big["vnfs"][0]["params"] = {"p": "x" * 5000}
        for token in (w.operator, w.tenant_a, None):
            body = _problem(w.call("POST", "/api/v1/tenants/1/slices", token, json=big), 413)
            assert "4096" in body["detail"]
        # Within the limit: as before.
        assert w.call("POST", "/api/v1/tenants/1/slices", w.tenant_a, json=slice_body()).status_code == 202
    finally:
        w.app.extensions["wislice_engine"].dispose()


def test_body_limit_is_configurable_from_the_environment():
    assert from_environment({})["MAX_CONTENT_LENGTH"] == 1024 * 1024
    assert from_environment({"WISLICE_MAX_CONTENT_LENGTH": "2048"})["MAX_CONTENT_LENGTH"] == 2048


def test_waitress_refuses_far_larger_bodies_itself():
    # waitress buffers a body before the app runs: its own bound keeps a huge one from being read at all.
    assert waitress_options(1024 * 1024)["max_request_body_size"] == 2 * 1024 * 1024
