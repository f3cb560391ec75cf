"""REST abuse against a real orchestrator process (issue #13), shared by the integration test (a short run) and
bench/rest_abuse.py (>= 5000 inputs).

The process runs `wislice serve` (waitress, SQLite) with its real REST client toward fake ONOS apps
(fake_onos.py, FakeControllers behind the ONOS contract) that record every request as it arrived. Two parts:
- `fuzz`: schemathesis generates requests from openapi.json for every operation as the operator, as tenant 1
  (holding a live slice) and without a token; checks: no 5xx, status code, content type and body as documented.
- `abuse`: what schemathesis does not generate: oversize bodies, unicode edge cases and injection attempts into
  every string that reaches a config file (SSID, vNF params), a shell or a controller URL (ids, path segments).
  Each must be a 4xx problem+json, or stored and served back byte-exact; and nothing reaches the controllers
  unescaped (`check_received`: no dot segment or raw special character in a controller URL, no control
  character in a controller body).
"""

from __future__ import annotations

import http.client
import json
import secrets
import socket
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import requests
from abuse_targets import body_targets, path_targets, slice_body, topology
from fake_onos import FakeOnos

OPENAPI = Path(__file__).resolve().parents[1] / "openapi.json"
MIB = 1024 * 1024

UNICODE = {"lone surrogate": "a\ud800b", "RLO U+202E": "abc\u202efed", "ZWSP U+200B": "ab\u200bcd",
           "NUL": "ab\x00cd", "C1 NEL": "ab\x85cd", "C1 CSI": "ab\x9bcd", "4-byte emoji": "wifi-\U0001f600",
           "overlong": "x" * 5000}
INJECTIONS = {"$(reboot)": "$(reboot)", ";rm -rf /": ";rm -rf /", "backticks": "`reboot`",
              "hostapd key": "a\nctrl_interface=/tmp", "dot-dot": "../../etc/passwd", "encoded dot-dot": "%2e%2e/x",
              "URL specials": "a?b#c@d", "dot segment": "..", "space": "a b"}
PAYLOADS = {**UNICODE, **INJECTIONS}
# Body fields the controllers get as they are (the others stay in the orchestrator: names, topology).
TO_CONTROLLERS = ("SSID", "vAP agent_id", "vAP radio", "vNF image", "vNF param value", "vNF param name")


@dataclass
class Tally:
    inputs_tried: int = 0
    server_errors: int = 0
    statuses: Counter[int] = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)
    served_back: int = 0  # accepted inputs read back byte-exact
    reached_controllers: int = 0  # accepted inputs found byte-exact in what the controllers received
    accepted: list[str] = field(default_factory=list)  # which hand-written hostile inputs were legal
    closed_unread: int = 0  # oversize uploads the server refused by closing before reading them all

    def record(self, status: int) -> None:
        self.inputs_tried += 1
        self.statuses[status] += 1
        if status >= 500:
            self.server_errors += 1

    def fail(self, message: str) -> None:
        if len(self.failures) < 200:
            self.failures.append(message[:400])


@dataclass
class Target:
    url: str
    operator: str
    onos: FakeOnos
    tenant: str = ""
    base_slice: int = 0  # tenant 1's live slice (provision)
    reprovisioned: int = 0

    def call(self, method: str, path: str, token: str | None = None, **kw: Any) -> requests.Response:
        headers = dict(kw.pop("headers", {}))
        if token:
            headers["Authorization"] = f"Bearer {token}"
        return requests.request(method, self.url + path, headers=headers, timeout=60, **kw)

    def wait_op(self, resp: requests.Response, token: str) -> dict[str, Any]:
        location = resp.headers["Location"]
        deadline = time.monotonic() + 30
        while True:
            op = self.call("GET", location.removeprefix(self.url), token).json()
            if op["status"] in ("succeeded", "failed") or time.monotonic() > deadline:
                return op
            time.sleep(0.05)


# --- the orchestrator process -----------------------------------------------------------------------------------
def orchestrator_command(port: int) -> list[str]:
    return [sys.executable, "-m", "wislice_orchestrator.cli", "serve", "--port", str(port)]


def orchestrator_env(tmp: Path, onos_url: str, operator: str) -> dict[str, str]:
    return {"WISLICE_DATABASE_URL": f"sqlite:///{tmp}/orchestrator.db", "WISLICE_ONOS_URL": onos_url,
            "WISLICE_BOOTSTRAP_OPERATOR_TOKEN": operator, "WISLICE_TELEMETRY": "0", "WISLICE_ONOS_TIMEOUT_S": "5"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def new_operator_token() -> str:
    return "wso_" + secrets.token_urlsafe(32)


def wait_ready(url: str, alive: Any, timeout_s: float = 30) -> None:
    """Until the API answers; `alive()` False (the process exited) fails at once."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if not alive():
            raise RuntimeError("orchestrator exited during start; see its log")
        try:
            if requests.get(url + "/api/v1/openapi.json", timeout=1).ok:
                return
        except requests.ConnectionError:
            time.sleep(0.1)
    raise RuntimeError(f"orchestrator did not answer within {timeout_s:g} s")


def provision(t: Target) -> None:
    """Topology, tenant 1 with a token and a live slice (generated requests then reach deep into the handlers).
    Idempotent: run again when a generated request took one of them away."""
    t.call("PUT", "/api/v1/topology", t.operator, json=topology())
    if t.call("GET", "/api/v1/tenants/1", t.operator).status_code == 404:
        t.call("POST", "/api/v1/tenants", t.operator, json={"tenant_id": 1, "name": f"alpha{secrets.token_hex(3)}"})
    # A generated PATCH may have cut the quota to nothing: the hand-written inputs need room for a slice more.
    t.call("PATCH", "/api/v1/tenants/1", t.operator, json={"quota": {"slices": 10, "vaps": 8, "bandwidth_kbps": 100_000,
                                                                     "cpu": 4.0, "memory_mib": 4096}})
    if not t.tenant or t.call("GET", "/api/v1/me", t.tenant).status_code != 200:
        t.tenant = t.call("POST", "/api/v1/tenants/1/tokens", t.operator, json={"name": "fuzz"}).json()["token"]
    live = [s for s in t.call("GET", "/api/v1/tenants/1/slices", t.tenant).json().get("slices", [])
            if s["status"] == "active"]
    if not live:
        resp = t.call("POST", "/api/v1/tenants/1/slices", t.tenant,
                      json=slice_body("base", f"base-{secrets.token_hex(3)}", agent="ap-2"))
        live = [t.call("GET", f"/api/v1/tenants/1/slices/{t.wait_op(resp, t.tenant)['slice_id']}", t.tenant).json()]
    t.base_slice = live[0]["slice_id"]


def restore_base(t: Target) -> None:
    """Tenant 1's live slice back to its one vAP and one vNF, without policies, after an input added to it."""
    path = f"/api/v1/tenants/1/slices/{t.base_slice}"
    base = t.call("GET", path, t.tenant).json()
    for vap in base.get("vaps", [])[1:]:
        t.wait_op(t.call("DELETE", f"{path}/vaps/{vap['vap_id']}", t.tenant), t.tenant)
    for vnf in base.get("vnfs", [])[1:]:
        t.wait_op(t.call("DELETE", f"{path}/vnfs/{vnf['vnf_id']}", t.tenant), t.tenant)
    if base.get("policies"):
        t.call("PUT", f"{path}/policies", t.tenant, json={"policies": []})


def tokens_alive(t: Target) -> bool:
    return all(t.call("GET", "/api/v1/me", tok).status_code == 200 for tok in (t.operator, t.tenant))


# --- checks -------------------------------------------------------------------------------------------------------
def is_problem(resp: requests.Response) -> bool:
    return resp.headers.get("Content-Type", "").startswith("application/problem+json")


def check_refusal_or_success(tally: Tally, what: str, resp: requests.Response) -> bool:
    """Records the response; False unless it was a success. A 4xx must be problem+json, a 5xx is an error."""
    tally.record(resp.status_code)
    if resp.status_code >= 500:
        tally.fail(f"{what}: {resp.status_code} {resp.text[:200]}")
    elif resp.status_code >= 400 and not is_problem(resp):
        tally.fail(f"{what}: {resp.status_code} without problem+json ({resp.headers.get('Content-Type')})")
    return resp.status_code < 400


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in [k, *_strings(v)]]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def check_received(tally: Tally, onos: FakeOnos, since: int = 0) -> None:
    """Nothing reached the controllers unescaped: every controller URL has no dot segment, no raw special or
    control character (the REST client percent-encodes each segment), and no string in a controller body holds a
    control character (a line break there would be a new line in hostapd's or the vNF's config)."""
    for r in onos.received[since:]:
        path = r.raw_uri.split("?", 1)[0]
        segments = path.split("/")
        if any(s in (".", "..") for s in segments) or any(s in (".", "..") for s in r.path.split("/")):
            tally.fail(f"dot segment reached a controller: {r.method} {r.raw_uri}")
        if any(ord(c) < 0x21 or ord(c) >= 0x7f or c in "#\\\"<>`{}|^" for c in r.raw_uri):
            tally.fail(f"raw special character in a controller URL: {r.method} {r.raw_uri!r}")
        for s in _strings(r.body):
            if any(ord(c) < 0x20 or 0x7f <= ord(c) <= 0x9f for c in s):
                tally.fail(f"control character in a controller body: {r.method} {r.path} {s[:60]!r}")


def reached(onos: FakeOnos, since: int, value: str) -> bool:
    """`value` arrived byte-exact: as a decoded path segment or as a string in a body."""
    return any(value in r.path.split("/") or value in _strings(r.body) for r in onos.received[since:])


# --- schemathesis -------------------------------------------------------------------------------------------------
def fuzz(t: Target, examples: int, tally: Tally) -> None:
    """Every documented operation as operator, tenant 1 and anonymous, `examples` generated requests each."""
    import schemathesis
    from hypothesis import HealthCheck, Phase, given, settings
    from schemathesis.checks import not_a_server_error
    from schemathesis.specs.openapi.checks import (
        content_type_conformance,
        response_schema_conformance,
        status_code_conformance,
    )

    checks = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]
    schema = schemathesis.openapi.from_path(str(OPENAPI))
    operations = [r.ok() for r in schema.get_all_operations()]
    own_operator_token_id = _own_token_id(t)
    for operation in operations:
        for role in ("operator", "tenant", "anonymous"):
            if not tokens_alive(t):
                provision(t)
                t.reprovisioned += 1
                own_operator_token_id = _own_token_id(t)
            token = {"operator": t.operator, "tenant": t.tenant, "anonymous": None}[role]
            since = len(t.onos.received)
            run_one = _one_case(t, tally, checks, role, token, own_operator_token_id)
            given(case=operation.as_strategy())(
                settings(max_examples=examples, deadline=None, suppress_health_check=list(HealthCheck),
                         database=None, phases=[Phase.explicit, Phase.generate], derandomize=True)(run_one))()
            check_received(tally, t.onos, since)


def _one_case(t: Target, tally: Tally, checks: list[Any], role: str, token: str | None,
              own_operator_token_id: int | None) -> Any:
    def run(case: Any) -> None:
        params = case.path_parameters or {}
        # The fuzzing's own operator token must survive a generated revocation: one naming it is not sent (every
        # later request would be a 401 that reaches nothing).
        if case.method.upper() == "DELETE" and "operator-tokens" in case.path and \
                str(params.get("token_id")) == str(own_operator_token_id):
            return
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        try:
            response = case.call(base_url=t.url, headers=headers, timeout=60)
        except requests.RequestException as exc:
            tally.fail(f"{role} {case.method} {case.formatted_path}: {exc}")
            return
        tally.record(response.status_code)
        try:
            case.validate_response(response, checks=checks, headers=headers)
        except Exception as exc:  # noqa: BLE001 - a failed check is a finding to record, not to stop on
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            tally.fail(f"{role} {case.method} {case.formatted_path} -> {response.status_code}: {first}")

    return run


def _own_token_id(t: Target) -> int | None:
    """The id of the bootstrap operator token (the one the run uses: app._bootstrap names it so)."""
    listing = t.call("GET", "/api/v1/operator-tokens", t.operator).json()
    rows = listing.get("tokens", listing) if isinstance(listing, dict) else listing
    return next((r["token_id"] for r in rows if r.get("name") == "bootstrap" and not r.get("revoked")), None)


# --- hand-written abuse -------------------------------------------------------------------------------------------
def send_json(t: Target, method: str, path: str, token: str | None, body: Any, **kw: Any) -> requests.Response:
    """JSON as text with \\u escapes (a lone surrogate can be sent so; it cannot be encoded as UTF-8)."""
    headers = {"Content-Type": "application/json", **kw.pop("headers", {})}
    return t.call(method, path, token, data=json.dumps(body).encode(), headers=headers, **kw)


def raw_request(t: Target, method: str, raw_path: str, token: str | None) -> tuple[int, str]:
    """A request line sent exactly as given (requests/urllib3 would resolve `..` segments before sending)."""
    host, port = t.url.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=60)
    try:
        conn.putrequest(method, raw_path, skip_accept_encoding=True)
        if token:
            conn.putheader("Authorization", f"Bearer {token}")
        conn.putheader("Content-Length", "0")
        conn.endheaders()
        resp = conn.getresponse()
        resp.read()
        return resp.status, resp.getheader("Content-Type", "")
    finally:
        conn.close()


def oversize(t: Target, tally: Tally) -> None:
    """Just over the 1 MiB limit and 10 MiB, with and without a token: 413 every time, never read into a 5xx.
    Up to twice the limit the app refuses it (problem+json); far above, waitress refuses it unread with its own
    plain 413 (cli.waitress_options), which is accepted here as that documented refusal."""
    for size in (MIB + 1, 10 * MIB):
        body = b'{"name": "' + b"x" * (size - 12) + b'"}'
        for who, token in (("operator", t.operator), ("tenant", t.tenant), ("anonymous", None)):
            for path in ("/api/v1/tenants", "/api/v1/tenants/1/slices", "/api/v1/topology"):
                method = "PUT" if path.endswith("topology") else "POST"
                try:
                    resp = t.call(method, path, token, data=body, headers={"Content-Type": "application/json"})
                except requests.ConnectionError:
                    tally.record(413)  # waitress may close before reading the whole upload: refused unread
                    tally.closed_unread += 1
                    continue
                tally.record(resp.status_code)
                if resp.status_code != 413:
                    tally.fail(f"{who} {method} {path} {size} bytes: {resp.status_code}, not 413")
                elif size <= 2 * MIB and not is_problem(resp):
                    tally.fail(f"{who} {method} {path} {size} bytes: 413 without problem+json")
            # Chunked, without a Content-Length: cut while read, still a 413.
            chunks = (body[i:i + 65536] for i in range(0, len(body), 65536))
            try:
                resp = t.call("POST", "/api/v1/tenants/1/slices", token, data=chunks,
                              headers={"Content-Type": "application/json"})
            except requests.ConnectionError:
                tally.record(413)
                tally.closed_unread += 1
                continue
            tally.record(resp.status_code)
            if resp.status_code != 413 or (size <= 2 * MIB and not is_problem(resp)):
                tally.fail(f"{who} chunked {size} bytes: {resp.status_code} {resp.headers.get('Content-Type')}")


def abuse(t: Target, tally: Tally, payloads: dict[str, str] | None = None) -> None:
    """The hand-written set: oversize bodies, then each payload into every body field and path segment."""
    provision(t)  # what an earlier fuzzing run changed (quota, topology, the live slice) is put back first
    oversize(t, tally)
    for label, value in (payloads or PAYLOADS).items():
        targets = body_targets(t.base_slice, f"abuse-{secrets.token_hex(4)}")
        for field_name, (method, path, build, read) in targets.items():
            since = len(t.onos.received)
            resp = send_json(t, method, path, t.operator if "topology" in field_name or path == "/api/v1/tenants"
                             else t.tenant, build(value))
            if check_refusal_or_success(tally, f"{label} into {field_name}", resp):
                _accepted(t, tally, f"{label} into {field_name}", resp, value, read, since)
            if "topology" in field_name:
                t.call("PUT", "/api/v1/topology", t.operator, json=topology())
        for method, path, body in path_targets(value):
            since = len(t.onos.received)
            for token in (t.operator, t.tenant):
                resp = send_json(t, method, path, token, body) if body is not None else t.call(method, path, token)
                check_refusal_or_success(tally, f"{label} in {method} {path}", resp)
            check_received(tally, t.onos, since)
        # Raw (unquoted) path forms: the server's own path handling must not turn them into another resource.
        for raw in ("/api/v1/wifi-agents/../tenants/1", "/api/v1/wifi-agents/%2e%2e/clients",
                    "/api/v1/wifi-agents/ap-1/clients/%2e%2e", "/api/v1/wifi-agents/ap-1/clients/..",
                    "/api/v1/tenants/1/slices/1/clients/%2E%2E%2F%2E%2E"):
            since = len(t.onos.received)
            status, ctype = raw_request(t, "DELETE", raw, t.operator)
            tally.record(status)
            if status >= 500 or (status >= 400 and not ctype.startswith("application/problem+json")):
                tally.fail(f"raw path DELETE {raw}: {status} {ctype}")
            elif status < 400:
                tally.fail(f"raw path DELETE {raw}: {status}, a dot segment was taken as a step along the path")
            check_received(tally, t.onos, since)
        header = value if all(0x20 <= ord(c) < 0x7f for c in value) else None
        if header is not None:  # an Idempotency-Key is kept and compared, never sent on
            resp = send_json(t, "POST", "/api/v1/tenants/1/tokens", t.tenant, {"name": "idem"},
                             headers={"Idempotency-Key": header})
            check_refusal_or_success(tally, f"{label} as Idempotency-Key", resp)


def _accepted(t: Target, tally: Tally, what: str, resp: requests.Response, value: str, read: Any,
              since: int) -> None:
    """An accepted input: served back byte-exact, reached the controllers escaped, then removed again."""
    tally.accepted.append(what)
    created = resp.json() if resp.content else {}
    if resp.status_code == 202 and "Location" in resp.headers:
        op = t.wait_op(resp, t.tenant)
        slice_path = f"/api/v1/tenants/1/slices/{op['slice_id']}"
        stored = t.call("GET", slice_path, t.tenant).json()
        if read is not None and op["status"] == "succeeded":
            _same(tally, what, read(stored), value)
        if op["status"] == "succeeded":
            if reached(t.onos, since, value):
                tally.reached_controllers += 1
            elif any(what.endswith(f"into {f}") or what.endswith(f"into added {f}") for f in TO_CONTROLLERS):
                tally.fail(f"{what}: accepted and built, but not found byte-exact in what the controllers got")
        if op["slice_id"] == t.base_slice:
            restore_base(t)
        else:
            t.wait_op(t.call("DELETE", slice_path, t.tenant), t.tenant)
    elif "/policies" in resp.url:
        _same(tally, what, read(t.call("GET", f"/api/v1/tenants/1/slices/{t.base_slice}", t.tenant).json()), value)
        restore_base(t)
    elif read is not None:
        _same(tally, what, read(created), value)
        if "tenant_id" in created and "/tokens" not in resp.url:
            t.call("DELETE", f"/api/v1/tenants/{created['tenant_id']}", t.operator)
    check_received(tally, t.onos, since)


def _same(tally: Tally, what: str, got: Any, value: str) -> None:
    if got == value:
        tally.served_back += 1
    else:
        tally.fail(f"{what}: stored {str(got)[:60]!r}, sent {value[:60]!r}")
