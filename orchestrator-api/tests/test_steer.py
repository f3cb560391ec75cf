"""Operators steer a client to another vAP (POST /api/v1/clients/{mac}/steer): the API, the REST client to the
WiFi controller and the CLI's ``client steer``, against the fake controllers."""

from __future__ import annotations

import json

import pytest
from orch_helpers import slice_body
from served_app import served

from wislice_orchestrator.cli import main

TARGET = {"vap_id": "roam-b", "radio": "phy0", "ssid": "video-wifi", "security": {"mode": "open"}}


@pytest.fixture
def roaming(world):
    """A slice's client and a second vAP of the same SSID on the other AP."""
    world.call("POST", "/api/v1/tenants/1/slices", world.tenant_a, json=slice_body())
    client = next(iter(world.fake.clients.values()))
    world.fake.create_vap("ap-2", TARGET)
    return world, dict(client)


def test_steer_by_vap_moves_the_client_and_logs_an_event(roaming):
    w, client = roaming
    mac = client["mac"].upper()  # the API takes either case; the controllers get lower case
    r = w.call("POST", f"/api/v1/clients/{mac}/steer", w.operator, json={"target_vap": "roam-b",
                                                                          "target_agent": "ap-2"})
    assert r.status_code == 200, r.get_json()
    body = r.get_json()
    assert (body["vap_id"], body["target_vap_id"], body["accepted"], body["status_code"]) == (
        client["vap_id"], "roam-b", True, 0)
    assert body["mac"] == client["mac"]
    assert w.fake.clients[client["mac"]]["vap_id"] == "roam-b"
    clients = w.call("GET", "/api/v1/clients", w.operator).get_json()["clients"]
    assert next(c for c in clients if c["mac"] == client["mac"])["agent_id"] == "ap-2"
    events = w.call("GET", "/api/v1/events", w.operator).get_json()["events"]
    assert any("steered" in e["message"] and "roam-b" in e["message"] for e in events)


def test_steer_by_bssid_and_bad_input(roaming):
    w, client = roaming
    url = f"/api/v1/clients/{client['mac']}/steer"
    bssid = next(v["bssid"] for v in w.fake.vaps.values() if v["vap_id"] == "roam-b")
    assert w.call("POST", url, w.operator, json={"target_bssid": bssid.upper()}).get_json()["target_vap_id"] == "roam-b"
    for body in ({}, {"target_vap": "roam-b", "target_bssid": bssid}, {"target_agent": "ap-2", "target_bssid": bssid},
                 {"target_bssid": "02:00"}, {"target_vap": "roam-b", "disassoc_timer_tbtt": 70000},
                 {"target_vap": "roam-b", "x": 1}):
        assert w.call("POST", url, w.operator, json=body).status_code in (400, 422), body
    assert w.call("POST", url, w.operator, json={"target_vap": "nope"}).status_code == 404
    assert w.call("POST", url, w.operator, json={"target_vap": "roam-b"}).status_code == 409  # already there
    assert w.call("POST", "/api/v1/clients/02:00:00:00:99:99/steer", w.operator,
                  json={"target_vap": "roam-b"}).status_code == 404


def test_cli_client_steer(roaming, capsys):
    w, client = roaming
    with served(w.app) as url:
        code = main(["--url", url, "--token", w.operator, "client", "steer", client["mac"], "--to-vap", "roam-b",
                     "--to-agent", "ap-2", "--disassoc-timer", "20"])
        out = capsys.readouterr().out
        assert code == 0 and "-> ap-2/roam-b" in out and out.strip().endswith("accepted"), out
        code = main(["--url", url, "--token", w.operator, "--json", "client", "steer", client["mac"],
                     "--to-vap", client["vap_id"]])
        out = capsys.readouterr().out
        assert code == 0 and json.loads(out)["target_vap_id"] == client["vap_id"]


def test_steer_to_an_ap_stays_within_the_clients_ssid(roaming):
    """The AP alone picks its vAP of the client's SSID; an AP where the client's slice has no vAP (not admitted there)
    and a vAP of another SSID (another slice's network) are refused with 409, the client left where it was."""
    w, client = roaming
    url = f"/api/v1/clients/{client['mac']}/steer"
    w.fake.create_vap("ap-2", {**TARGET, "vap_id": "other-b", "ssid": "someone-else"})
    r = w.call("POST", url, w.operator, json={"target_vap": "other-b"})
    assert r.status_code == 409 and "SSID 'someone-else'" in r.get_json()["detail"], r.get_json()
    w.fake.delete_vap("ap-2", "roam-b")
    r = w.call("POST", url, w.operator, json={"target_agent": "ap-2"})
    assert r.status_code == 409 and "has no vAP on that AP" in r.get_json()["detail"], r.get_json()
    assert w.fake.clients[client["mac"]]["vap_id"] == client["vap_id"]  # nothing half-moved
    w.fake.create_vap("ap-2", TARGET)
    r = w.call("POST", url, w.operator, json={"target_agent": "ap-2"})
    assert r.status_code == 200 and r.get_json()["target_vap_id"] == "roam-b", r.get_json()
    assert w.fake.clients[client["mac"]]["vap_id"] == "roam-b"
