"""Authorization matrix: every endpoint x {anonymous, tenant A, tenant B, operator}; only the right ones succeed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from firmware_helpers import upload
from orch_helpers import make_world, slice_body
from wislice_agent_proto.usign import SigningKey

OPENAPI = json.loads((Path(__file__).resolve().parents[1] / "openapi.json").read_text())
T = "/api/v1/tenants/1/slices/{sid}"

# (method, path, body, scope): scope "operator" = operators only, "tenant" = tenant 1's own resource,
# "any" = any authenticated caller (answers are filtered to what the caller may see), "public" = anyone (the
# firmware download: its token in the query is the capability). The body UPLOAD is a signed multipart upload.
ENDPOINTS = [
    ("GET", "/api/v1/me", None, "any"),
    ("GET", "/api/v1/tenants", None, "any"),
    ("POST", "/api/v1/tenants", {"tenant_id": 9, "name": "gamma"}, "operator"),
    ("GET", "/api/v1/tenants/1", None, "tenant"),
    ("PATCH", "/api/v1/tenants/1", {"quota": {"vaps": 9}}, "operator"),
    ("DELETE", "/api/v1/tenants/2", None, "operator"),
    ("POST", "/api/v1/tenants/1/tokens", {"name": "ci"}, "operator"),
    ("GET", "/api/v1/tenants/1/tokens", None, "tenant"),
    ("DELETE", "/api/v1/tenants/1/tokens/{tok}", None, "tenant"),
    ("POST", "/api/v1/operator-tokens", {"name": "ops"}, "operator"),
    ("GET", "/api/v1/operator-tokens", None, "operator"),
    ("DELETE", "/api/v1/operator-tokens/{optok}", None, "operator"),
    ("GET", "/api/v1/tenants/1/slices", None, "tenant"),
    ("POST", "/api/v1/tenants/1/slices", slice_body(name="second", agent="ap-2"), "tenant"),
    ("GET", T, None, "tenant"),
    ("PATCH", T, {"bandwidth": {"down_guaranteed_kbps": 4000}, "latency_class": "best_effort"}, "tenant"),
    ("DELETE", T, None, "tenant"),
    ("PUT", T + "/policies", {"policies": []}, "tenant"),
    ("GET", T + "/vaps", None, "tenant"),
    ("POST", T + "/vaps", {"agent_id": "ap-2", "ssid": "extra"}, "tenant"),
    ("DELETE", T + "/vaps/{vap}", None, "tenant"),
    ("GET", T + "/vnfs", None, "tenant"),
    ("POST", T + "/vnfs", {"image": "kernel-fwd"}, "tenant"),
    ("DELETE", T + "/vnfs/{vnf}", None, "tenant"),
    ("GET", T + "/clients", None, "tenant"),
    ("DELETE", T + "/clients/{mac}", None, "tenant"),
    ("GET", T + "/stats", None, "tenant"),
    ("GET", T + "/telemetry", None, "tenant"),
    ("GET", "/api/v1/wifi-agents", None, "operator"),
    ("GET", "/api/v1/wifi-agents/ap-1", None, "operator"),
    ("POST", "/api/v1/wifi-agents/ap-1/radios/phy0/channel", {"channel": 11}, "operator"),
    ("GET", "/api/v1/wifi-agents/ap-1/clients", None, "operator"),
    ("DELETE", "/api/v1/wifi-agents/ap-1/clients/{mac}", None, "operator"),
    ("POST", "/api/v1/clients/{mac}/steer", {"target_vap": "steer-target"}, "operator"),
    ("GET", "/api/v1/clients", None, "operator"),
    ("GET", "/api/v1/vaps", None, "operator"),
    ("GET", "/api/v1/mec-agents", None, "operator"),
    ("GET", "/api/v1/vnfs", None, "operator"),
    ("GET", "/api/v1/topology", None, "operator"),
    ("PUT", "/api/v1/topology", {"attachments": {}, "links": []}, "operator"),
    ("GET", "/api/v1/operations", None, "any"),
    ("GET", "/api/v1/operations/{op}", None, "tenant"),
    ("GET", "/api/v1/events", None, "operator"),
    ("GET", "/api/v1/overview", None, "operator"),
    ("POST", "/api/v1/firmware", "UPLOAD", "operator"),
    ("GET", "/api/v1/firmware", None, "operator"),
    ("GET", "/api/v1/firmware/{fw}", None, "operator"),
    ("DELETE", "/api/v1/firmware/{fw2}", None, "operator"),
    ("GET", "/api/v1/firmware/{fw}/download?token={dl}", None, "public"),
    ("POST", "/api/v1/rollouts", {"firmware_id": "{fw}", "aps": ["ap-2"]}, "operator"),
    ("GET", "/api/v1/rollouts", None, "operator"),
    ("GET", "/api/v1/rollouts/{ro}", None, "operator"),
    ("POST", "/api/v1/rollouts/{ro}/cancel", None, "operator"),
]
KEY = SigningKey()
WHO = ["anonymous", "tenant_a", "tenant_b", "operator"]


def expected(scope: str, who: str) -> str:
    if scope == "public":
        return "2xx"
    if who == "anonymous":
        return "401"
    if who == "operator" or scope == "any":
        return "2xx"
    if scope == "operator":
        return "403"
    return "2xx" if who == "tenant_a" else "404"


def test_matrix_covers_every_operation():
    documented = {(m.upper(), p) for p, item in OPENAPI["paths"].items() for m in item if m != "parameters"}
    listed = set()
    for method, path, _, _ in ENDPOINTS:
        templ = (path.replace("{sid}", "{slice_id}").replace("{vap}", "{vap_id}").replace("{vnf}", "{vnf_id}")
                 .replace("{op}", "{operation_id}").replace("{tok}", "{token_id}").replace("{optok}", "{token_id}")
                 .replace("/tenants/1", "/tenants/{tenant_id}")
                 .replace("/tenants/2", "/tenants/{tenant_id}").replace("/wifi-agents/ap-1", "/wifi-agents/{agent_id}")
                 .replace("/radios/phy0", "/radios/{radio}").replace("{fw2}", "{firmware_id}")
                 .replace("{fw}", "{firmware_id}").replace("{ro}", "{rollout_id}").split("?")[0])
        listed.add((method, templ))
    assert documented == listed


def _setup(tmp_path):
    w = make_world(tmp_path, FIRMWARE_KEYS=KEY.public_line, FIRMWARE_BASE_URL="http://orch.test:8080")
    created = w.call("POST", "/api/v1/tenants/1/slices", w.tenant_a, json=slice_body()).get_json()
    s = w.call("GET", f"/api/v1/tenants/1/slices/{created['slice_id']}", w.tenant_a).get_json()
    mac = next(c["mac"] for c in w.fake.clients.values() if c["vap_id"] == s["vaps"][0]["vap_id"])
    # A vAP to steer that client to (on the fake only: no slice owns it).
    w.fake.create_vap("ap-2", {"vap_id": "steer-target", "radio": "phy0", "ssid": "video-wifi",
                               "security": {"mode": "open"}})
    # Spare tokens to revoke (revoking the callers' own would turn the rest of a shared world's calls into 401s).
    tok = w.call("POST", "/api/v1/tenants/1/tokens", w.operator, json={"name": "spare"}).get_json()["token_id"]
    optok = w.call("POST", "/api/v1/operator-tokens", w.operator, json={"name": "spare"}).get_json()["token_id"]
    # Two firmware artifacts (one in a rollout of ap-1, one to delete) and the first's download token.
    fw, fw2 = (upload(w, data, KEY.sign(data)).get_json()["firmware_id"] for data in (b"image one", b"image two"))
    ro = w.call("POST", "/api/v1/rollouts", w.operator, json={"firmware_id": fw, "aps": ["ap-1"]}).get_json()
    with w.service.session_factory() as db:
        from wislice_orchestrator.models import Firmware
        dl = db.get(Firmware, fw).download_token
    ids = {"sid": s["slice_id"], "vap": s["vaps"][0]["vap_id"], "vnf": s["vnfs"][0]["vnf_id"], "mac": mac,
           "op": created["operation_id"], "tok": tok, "optok": optok, "fw": fw, "fw2": fw2, "dl": dl,
           "ro": ro["rollout_id"]}
    return w, ids


@pytest.fixture(scope="module")
def shared(tmp_path_factory):
    """One world for the calls that must not change anything (reads, refusals); changes get a fresh world each."""
    w, ids = _setup(tmp_path_factory.mktemp("authz"))
    yield w, ids
    w.app.extensions["wislice_engine"].dispose()


@pytest.mark.parametrize("who", WHO)
@pytest.mark.parametrize("method,path,body,scope", ENDPOINTS, ids=[f"{m} {p}" for m, p, _, _ in ENDPOINTS])
def test_authorization(shared, tmp_path, method, path, body, scope, who):
    want = expected(scope, who)
    fresh = method != "GET" and want == "2xx"
    w, ids = _setup(tmp_path) if fresh else shared
    try:
        url = path.format(**ids)
        token = {"anonymous": None, "tenant_a": w.tenant_a, "tenant_b": w.tenant_b, "operator": w.operator}[who]
        if body == "UPLOAD":
            data = f"image of {who}".encode()
            resp = upload(w, data, KEY.sign(data), token=token or None)
        elif isinstance(body, dict) and body.get("firmware_id") == "{fw}":
            resp = w.call(method, url, token, json=dict(body, firmware_id=ids["fw"]))
        else:
            resp = w.call(method, url, token, json=body) if body is not None else w.call(method, url, token)
        got = resp.status_code
        assert (200 <= got < 300) if want == "2xx" else got == int(want), (got, resp.get_data(as_text=True))
        if got >= 400:
            assert resp.mimetype == "application/problem+json"
            assert resp.get_json()["status"] == got
    finally:
        if fresh:
            w.app.extensions["wislice_engine"].dispose()


def test_tenant_lists_only_its_own(world):
    assert [t["tenant_id"] for t in world.call("GET", "/api/v1/tenants", world.tenant_b).get_json()["tenants"]] == [2]
    world.call("POST", "/api/v1/tenants/1/slices", world.tenant_a, json=slice_body())
    assert world.call("GET", "/api/v1/operations", world.tenant_b).get_json()["operations"] == []
    assert len(world.call("GET", "/api/v1/operations", world.tenant_a).get_json()["operations"]) == 1


def test_bad_token_is_401(world):
    resp = world.call("GET", "/api/v1/me", "wso_not-a-token")
    assert resp.status_code == 401 and resp.headers["WWW-Authenticate"].startswith("Bearer")
