"""The wislice CLI against the app served on a loopback port (fake controllers)."""

from __future__ import annotations

import json

import pytest
import served_app

from wislice_orchestrator.cli import main, table
from wislice_orchestrator.cli_base import Client


@pytest.fixture
def served(world):
    with served_app.served(world.app) as url:
        yield world, url


def run(capsys, url, token, *argv):
    code = main(["--url", url, "--token", token, *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_table_aligns_columns():
    text = table([{"a": 1, "b": None}, {"a": 22, "b": {"x": 1}}], ["a", "b"])
    assert text.splitlines() == ["A   B", "1   -", '22  {"x":1}']


def test_tenant_slice_lifecycle(served, capsys):
    w, url = served
    code, out, _ = run(capsys, url, w.tenant_a, "slices", "create", "--name", "cam", "--vap", "ap-1=cam:password1",
                       "--vnf", "firewall:0.5:256", "--down", "2000", "--down-cap", "8000")
    assert code == 0 and "succeeded" in out
    code, out, _ = run(capsys, url, w.tenant_a, "--json", "slices", "list")
    slices = json.loads(out)["slices"]
    assert slices[0]["name"] == "cam" and slices[0]["status"] == "active"
    sid = str(slices[0]["slice_id"])
    code, out, _ = run(capsys, url, w.tenant_a, "clients", sid)
    assert out.splitlines()[0].split()[:2] == ["MAC", "VAP_ID"] and len(out.splitlines()) == 3
    code, out, _ = run(capsys, url, w.tenant_a, "slices", "rm", sid)
    assert "succeeded" in out


def test_slice_update(served, capsys):
    w, url = served
    assert run(capsys, url, w.tenant_a, "slices", "create", "--name", "cam", "--vap", "ap-1=cam", "--vnf", "kernel-fwd",
               "--down", "2000", "--down-cap", "8000")[0] == 0
    sid = str(w.call("GET", "/api/v1/tenants/1/slices", w.tenant_a).get_json()["slices"][0]["slice_id"])
    code, out, _ = run(capsys, url, w.tenant_a, "slice", "update", "1", sid, "--down-guaranteed", "3000",
                       "--up-guaranteed", "500", "--up-cap", "2000", "--latency-class", "low", "--budget-us", "800")
    assert code == 0 and "succeeded" in out, out
    s = w.call("GET", f"/api/v1/tenants/1/slices/{sid}", w.tenant_a).get_json()
    assert s["bandwidth"] == {"down_guaranteed_kbps": 3000, "down_cap_kbps": 8000, "up_guaranteed_kbps": 500,
                              "up_cap_kbps": 2000} and s["latency_class"] == "low" and s["latency_budget_us"] == 800
    code, _, err = run(capsys, url, w.operator, "slice", "update", "1", sid, "--down-guaranteed", "9000")
    assert code == 1 and "422" in err and "above its cap" in err
    code, _, err = run(capsys, url, w.operator, "slice", "update", "1", sid, "--down-guaranteed", "8000",
                       "--up-guaranteed", "500000", "--up-cap", "600000")
    assert code == 1 and "409 slice change does not fit" in err and "radio phy0" in err
    code, _, err = run(capsys, url, w.tenant_a, "slice", "update", "1", sid)
    assert code == 1 and "nothing to change" in err
    assert s["handover_policy"] == "best_effort"  # the create's default
    code, out, _ = run(capsys, url, w.tenant_a, "slice", "update", "1", sid, "--handover-policy", "steer_back")
    assert code == 0 and "succeeded" in out, out
    assert w.call("GET", f"/api/v1/tenants/1/slices/{sid}", w.tenant_a).get_json()["handover_policy"] == "steer_back"


def test_slice_vnf_follow(served, capsys, monkeypatch):
    """--vnf-follow on create (default off) and --vnf-follow/--no-vnf-follow on update (absent: not sent, unchanged):
    the bodies the CLI sends, and the slice the app then shows."""
    w, url = served
    sent = []
    real_call = Client.call

    def recording_call(self, method, path, body=None, headers=None):
        if method in ("POST", "PATCH"):
            sent.append((method, body))
        return real_call(self, method, path, body, headers)

    monkeypatch.setattr(Client, "call", recording_call)

    def slice_named(name):
        return next(s for s in w.call("GET", "/api/v1/tenants/1/slices", w.tenant_a).get_json()["slices"]
                    if s["name"] == name)

    assert run(capsys, url, w.tenant_a, "slices", "create", "--name", "cam", "--vap", "ap-1=cam", "--vnf",
               "kernel-fwd")[0] == 0
    assert sent[-1][0] == "POST" and sent[-1][1]["vnf_follow"] is False and slice_named("cam")["vnf_follow"] is False
    code, out, err = run(capsys, url, w.tenant_a, "slices", "create", "--name", "tv", "--vap", "ap-1=tv", "--vnf",
                         "kernel-fwd", "--vnf-follow")
    assert code == 0 and "succeeded" in out, err
    assert sent[-1][1]["vnf_follow"] is True and slice_named("tv")["vnf_follow"] is True
    sid = str(slice_named("cam")["slice_id"])
    code, out, err = run(capsys, url, w.tenant_a, "slice", "update", "1", sid, "--vnf-follow")
    assert code == 0 and "succeeded" in out, err
    assert sent[-1] == ("PATCH", {"vnf_follow": True}) and slice_named("cam")["vnf_follow"] is True
    code, out, err = run(capsys, url, w.tenant_a, "slice", "update", "1", sid, "--handover-policy", "steer_back")
    assert code == 0 and sent[-1] == ("PATCH", {"handover_policy": "steer_back"}), err
    assert slice_named("cam")["vnf_follow"] is True  # absent: unchanged
    code, out, err = run(capsys, url, w.tenant_a, "slice", "update", "1", sid, "--no-vnf-follow")
    assert code == 0 and sent[-1] == ("PATCH", {"vnf_follow": False}), err
    assert slice_named("cam")["vnf_follow"] is False and slice_named("tv")["vnf_follow"] is True
    count = len(sent)
    code, _, err = run(capsys, url, w.tenant_a, "slice", "update", "1", sid)
    assert code == 1 and "nothing to change" in err and "--vnf-follow/--no-vnf-follow" in err and len(sent) == count


def test_slice_policies(served, capsys):
    w, url = served
    assert run(capsys, url, w.tenant_a, "slices", "create", "--name", "tv", "--vap", "ap-1=tv", "--vnf", "kernel-fwd",
               "--down", "5000", "--transcode", "2000:800:3")[0] == 0
    sid = str(w.call("GET", "/api/v1/tenants/1/slices", w.tenant_a).get_json()["slices"][0]["slice_id"])
    code, out, _ = run(capsys, url, w.tenant_a, "slice", "policies", "1", sid)
    assert code == 0 and "transcode_on_overload" in out and "2000" in out and "idle" in out, out
    s = w.call("GET", f"/api/v1/tenants/1/slices/{sid}", w.tenant_a).get_json()
    assert s["policies"][0]["hold_s"] == 3.0 and s["policies"][0]["transcoder"]["bitrate_kbps"] == 800
    code, out, _ = run(capsys, url, w.tenant_a, "slice", "policies", "1", sid, "--transcode", "1500:600:2:30")
    assert code == 0 and "1500" in out, out
    s = w.call("GET", f"/api/v1/tenants/1/slices/{sid}", w.tenant_a).get_json()
    assert [(p["per_client_down_kbps"], p["release_s"]) for p in s["policies"]] == [(1500, 30.0)]
    code, _, err = run(capsys, url, w.tenant_a, "slice", "policies", "1", sid, "--transcode", "0:600")
    assert code == 1 and "422" in err
    with pytest.raises(SystemExit):
        run(capsys, url, w.tenant_a, "slice", "policies", "1", sid, "--transcode", "fast")
    assert "PER_CLIENT_KBPS:BITRATE_KBPS" in capsys.readouterr().err
    assert run(capsys, url, w.tenant_a, "slice", "policies", "1", sid, "--clear")[0] == 0
    assert w.call("GET", f"/api/v1/tenants/1/slices/{sid}", w.tenant_a).get_json()["policies"] == []


def test_errors_are_readable(served, capsys):
    w, url = served
    code, _, err = run(capsys, url, w.tenant_b, "agents")
    assert code == 1 and "403" in err and "operators" in err
    code, _, err = run(capsys, url, w.tenant_a, "slices", "create", "--name", "x", "--vap", "ap-9=x")
    assert code == 1 and "ap-9" in err


def test_operator_commands(served, capsys):
    w, url = served
    code, out, _ = run(capsys, url, w.operator, "agents")
    assert code == 0 and "ap-1" in out and "phy0 ch6" in out
    assert run(capsys, url, w.operator, "channel", "ap-1", "phy0", "11")[0] == 0
    assert w.fake.agents["ap-1"]["radios"][0]["channel"] == 11
    code, out, _ = run(capsys, url, w.operator, "tenants", "add", "7", "gamma")
    assert code == 0 and "gamma" in out
    code, out, _ = run(capsys, url, w.operator, "--json", "tenants", "token", "7", "ci")
    assert json.loads(out)["token"].startswith("wst_")
    code, out, _ = run(capsys, url, w.operator, "mec")
    assert "mec-1" in out and "0/4" in out


def test_create_operator_token_prints_once(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("WISLICE_DATABASE_URL", f"sqlite:///{tmp_path}/cli.db")
    assert main(["create-operator-token"]) == 0
    out = capsys.readouterr()
    token = out.out.strip()
    assert token.startswith("wso_") and "shown once" in out.err
    import sqlite3

    stored = [r[0] for r in sqlite3.connect(tmp_path / "cli.db").execute("select token_hash from api_tokens")]
    assert token not in stored and len(stored) == 1


def test_tokens_list_issue_revoke(served, capsys):
    w, url = served
    code, out, _ = run(capsys, url, w.operator, "--json", "tokens", "issue", "--tenant", "1", "--name", "ci",
                       "--ttl", "600")
    issued = json.loads(out)
    assert code == 0 and issued["token"].startswith("wst_")
    code, out, _ = run(capsys, url, w.tenant_a, "tokens", "list")
    assert code == 0 and out.splitlines()[0].split()[:3] == ["TOKEN_ID", "ROLE", "TENANT_ID"]
    assert issued["token"] not in out and w.tenant_a not in out and len(out.splitlines()) == 3
    code, out, _ = run(capsys, url, w.tenant_a, "tokens", "revoke", str(issued["token_id"]))
    assert code == 0 and "revoked" in out
    code, _, err = run(capsys, url, issued["token"], "me")
    assert code == 1 and "401" in err and "revoked" in err
    code, _, err = run(capsys, url, w.tenant_b, "tokens", "revoke", str(issued["token_id"]), "--tenant", "1")
    assert code == 1 and "404" in err
    code, out, _ = run(capsys, url, w.operator, "--json", "tokens", "list", "--operator")
    assert code == 0 and [t["role"] for t in json.loads(out)["tokens"]] == ["operator"]


def test_create_operator_token_expires(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("WISLICE_DATABASE_URL", f"sqlite:///{tmp_path}/cli.db")
    assert main(["create-operator-token", "--ttl", "120"]) == 0
    out = capsys.readouterr()
    assert out.out.startswith("wso_") and "expires" in out.err
    assert main(["create-operator-token", "--ttl", str(10**9)]) == 1
    assert "WISLICE_TOKEN_MAX_TTL_S" in capsys.readouterr().err


def test_latency_slice_with_probe_shows_its_latency(served, capsys):
    w, url = served
    code, out, err = run(capsys, url, w.tenant_a, "slices", "create", "--name", "ctl", "--vap", "ap-1=ctl",
                         "--latency", "low", "--budget-us", "500", "--down-cap", "10000", "--up-cap", "2000",
                         "--probe", "10.8.0.250,10.8.0.1,50")
    assert code == 0, err
    s = w.call("GET", "/api/v1/tenants/1/slices", w.tenant_a).get_json()["slices"][0]
    assert s["probe"] == {"source_ip": "10.8.0.250", "target_ip": "10.8.0.1", "interval_ms": 50}
    vap = s["vaps"][0]["vap_id"]
    code, out, _ = run(capsys, url, w.tenant_a, "slices", "show", str(s["slice_id"]))
    assert code == 0 and "latency: not measured yet" in out
    w.fake.set_vap_latency(vap, 210, 640, ts=1_700_000_000.0, lost=3)
    w.app.extensions["wislice_telemetry"].poll_once()
    code, out, _ = run(capsys, url, w.tenant_a, "slices", "show", str(s["slice_id"]))
    assert "latency: worst p99 640 us, budget 500 us (within)" in out
    assert f"ap-1/{vap}: p50 210 us, p99 640 us, lost 3, samples 100" in out
    with pytest.raises(SystemExit):
        run(capsys, url, w.tenant_a, "slices", "create", "--name", "x", "--vap", "ap-1=x", "--probe", "10.8.0.250")
