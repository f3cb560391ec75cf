"""Issue #13 (found by the probe): what the request schemas refuse. Patterns match the whole value (Python's `$`
also matches before a final newline), integers are JSON integers (never truncated floats), SSIDs are visible text,
and a vNF's params are what the mec-agent can take: at most 64, identifier-like names, single-line text values."""

from __future__ import annotations

from typing import Any

import pytest
from marshmallow import ValidationError
from orch_helpers import slice_body

from wislice_orchestrator.schemas import EventQuerySchema, TopologySchema, VapRequestSchema, VnfRequestSchema


def _refused(resp: Any) -> dict[str, Any]:
    assert resp.status_code == 422, resp.get_data(as_text=True)
    assert resp.mimetype == "application/problem+json"
    return resp.get_json()["errors"]["json"]


# --- whole-value patterns -------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["abc\n", "abc\r\n", "\nabc"])
def test_names_with_a_trailing_newline_are_refused(world, name):
    assert "name" in _refused(world.call("POST", "/api/v1/tenants", world.operator,
                                         json={"tenant_id": 7, "name": name}))
    assert "name" in _refused(world.call("POST", "/api/v1/tenants/1/tokens", world.operator, json={"name": name}))
    assert "name" in _refused(world.call("POST", "/api/v1/tenants/1/slices", world.tenant_a,
                                         json=slice_body(name=name)))


def test_ids_with_a_trailing_newline_are_refused(world):
    body = slice_body()
    body["vaps"][0]["agent_id"] = "ap-1\n"
    body["vnfs"][0]["image"] = "firewall\n"
    body["mec_node"] = "mec-1\n"
    errors = _refused(world.call("POST", "/api/v1/tenants/1/slices", world.tenant_a, json=body))
    assert set(errors) == {"vaps", "vnfs", "mec_node"}
    topology = {"attachments": {"ap-1\n": "pof:1"}, "links": [], "egress": {"pof:9\n": 1}}
    errors = _refused(world.call("PUT", "/api/v1/topology", world.operator, json=topology))
    assert set(errors) == {"attachments", "egress"}
    with pytest.raises(ValidationError):
        TopologySchema().load({"attachments": {"ap-1": "pof:1\n"}, "links": []})


# --- strict integers ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("bad", [1.5, 1.0, 1e-42, "5", True])
def test_integer_fields_refuse_anything_but_integers(world, bad):
    errors = _refused(world.call("POST", "/api/v1/tenants", world.operator, json={"tenant_id": bad, "name": "x"}))
    assert "tenant_id" in errors
    errors = _refused(world.call("POST", "/api/v1/tenants", world.operator,
                                 json={"tenant_id": 7, "name": "x", "quota": {"slices": bad}}))
    assert "quota" in errors
    body = slice_body()
    body["bandwidth"]["down_guaranteed_kbps"] = bad
    assert "bandwidth" in _refused(world.call("POST", "/api/v1/tenants/1/slices", world.tenant_a, json=body))
    assert world.call("GET", "/api/v1/tenants", world.operator).get_json()["tenants"][-1]["tenant_id"] == 2


def test_query_integers_are_ascii_digits():
    for bad in ("1.5", "\u0663", "1_0", " 5", "+5"):
        with pytest.raises(ValidationError):
            EventQuerySchema().load({"limit": bad})
    assert EventQuerySchema().load({"limit": "5", "after": "0"}) == {"limit": 5, "after": 0}


def test_number_fields_take_json_numbers_only(world):
    body = slice_body()
    body["vnfs"][0]["cpu"] = "0.5"
    assert "vnfs" in _refused(world.call("POST", "/api/v1/tenants/1/slices", world.tenant_a, json=body))


# --- SSIDs ----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("ssid", [
    "evil\u202etxt",   # right-to-left override
    "free\u200bwifi",  # zero-width space
    "bom\ufeff",       # zero-width no-break space (Cf)
    "nel\u0085",       # C1 control
    "csi\u009b",       # C1 control
    "tab\t",           # C0 control
    "line\u2028sep",   # line separator
    "pua\ue000",       # private use
    "lone\ud800",      # lone surrogate (only reachable without the JSON layer, which refuses it first)
])
def test_ssids_refuse_invisible_and_control_characters(ssid):
    with pytest.raises(ValidationError) as caught:
        VapRequestSchema().load({"agent_id": "ap-1", "ssid": ssid})
    assert "ssid" in caught.value.messages


def test_ssids_take_visible_unicode():
    for ssid in ("Caf\u00e9 Wi-Fi", "\u6771\u4eac", "x" * 32, "\u00e9" * 16):
        assert VapRequestSchema().load({"agent_id": "ap-1", "ssid": ssid})["ssid"] == ssid
    with pytest.raises(ValidationError):
        VapRequestSchema().load({"agent_id": "ap-1", "ssid": "\u00e9" * 17})  # 34 bytes of UTF-8


# --- vNF params -----------------------------------------------------------------------------------------------
def _vnf(params: dict[str, Any]) -> dict[str, Any]:
    return {"image": "firewall", "params": params}


def test_params_are_bounded_to_what_the_mec_agent_takes():
    assert VnfRequestSchema().load(_vnf({f"p{i}": i for i in range(64)}))["params"]["p63"] == 63
    with pytest.raises(ValidationError, match="at most 64"):
        VnfRequestSchema().load(_vnf({f"p{i}": i for i in range(65)}))


@pytest.mark.parametrize("key", ["$(reboot)", "../../x", "a b", "a-b", "a.b", "", "x" * 65, "1abc", "k\n",
                                 "\u00e9t\u00e9"])
def test_param_names_are_identifiers(key):
    with pytest.raises(ValidationError):
        VnfRequestSchema().load(_vnf({key: 1}))


@pytest.mark.parametrize("value", ["a\nb", "a\rb", "nul\x00", "esc\x1b[2J", "del\x7f", "nel\u0085",
                                   "rlo\u202e", "x" * 257, float("nan"), float("inf"), 10**30, None, [1], {"a": 1}])
def test_param_values_are_single_line_text_or_finite_numbers(value):
    with pytest.raises(ValidationError):
        VnfRequestSchema().load(_vnf({"mode": value}))


def test_param_values_that_are_fine():
    params = {"mode": "fast path, 2 queues", "interval_s": 0.5, "n": 3, "vhost_server": True, "_x": ""}
    assert VnfRequestSchema().load(_vnf(params))["params"] == params


def test_param_rules_hold_over_http_and_for_a_policy_transcoder(world):
    body = slice_body()
    body["vnfs"][0]["params"] = {"$(reboot)": "x"}
    assert "vnfs" in _refused(world.call("POST", "/api/v1/tenants/1/slices", world.tenant_a, json=body))
    body = slice_body(policies=[{"type": "transcode_on_overload", "per_client_down_kbps": 1000,
                                 "transcoder": {"bitrate_kbps": 500, "params": {"mode": "a\nb"}}}])
    assert "policies" in _refused(world.call("POST", "/api/v1/tenants/1/slices", world.tenant_a, json=body))
