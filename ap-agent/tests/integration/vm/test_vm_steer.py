"""steerClient in the AP VM: a real wpa_supplicant station on one vAP is asked by 802.11v BSS Transition
Management (hostapd's BSS_TM_REQ) to move to a second vAP of the same SSID, answers, and re-associates there.

Both vAPs are on phy0 (the VM's hostapd runs one radio; the other hwsim radios are the stations): two BSSes with
their own BSSIDs on one channel, which is all BTM needs. The station's wpa_supplicant needs no extra config:
it announces BSS Transition and honours a BTM request by default (disable_btm=0)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import AgentRun, created_vaps
from wifi import Station

SSID = "agent-roam"


def vap(vap_id: str) -> dict[str, Any]:
    return {"vap_id": vap_id, "radio": "phy0", "ssid": SSID, "security": {"mode": "open"}, "tenant_id": 1,
            "slice_id": "s-1", "rate_limit": {"down_kbps": 0, "up_kbps": 0}}


@pytest.fixture
def two_vaps(agent: AgentRun) -> Iterator[dict[str, dict[str, Any]]]:
    yield from created_vaps(agent, [vap("v-roam-a"), vap("v-roam-b")])


def serving_vap(agent: AgentRun, mac: str) -> str | None:
    clients = agent.ctl.call("getClient", {"mac": mac})["clients"]
    return clients[0]["vap_id"] if len(clients) == 1 else None


def test_steer_moves_the_station_to_the_target_bss(agent: AgentRun, two_vaps: dict[str, dict[str, Any]],
                                                   clean_stations: list[Station]) -> None:
    sta = clean_stations[0]
    sta.connect(SSID)
    sta.wait_associated(timeout=40)
    mac = sta.mac()
    deadline = time.monotonic() + 10
    while (source := serving_vap(agent, mac)) is None and time.monotonic() < deadline:
        time.sleep(0.2)
    assert source in two_vaps, f"station {mac} on no vAP of ours"
    target = next(v for v in two_vaps if v != source)
    target_bssid = two_vaps[target]["bssid"]

    started = time.monotonic()
    result = agent.ctl.call("steerClient", {"vap_id": source, "mac": mac, "target_bssid": target_bssid},
                            timeout=15)
    answered_s = time.monotonic() - started
    assert result["accepted"] is True and result["status_code"] == 0, (result, agent.log())
    assert answered_s < 5.0  # the agent's wait is bounded by 3 s, plus the round trip
    agent.ctl.wait_event("clientAssociated", timeout=20, vap_id=target, mac=mac)
    deadline = time.monotonic() + 20
    while (sta.state().get("bssid"), serving_vap(agent, mac)) != (target_bssid, target):
        assert time.monotonic() < deadline, (sta.state(), agent.ctl.call("getClient", {"mac": mac}))
        time.sleep(0.2)

    # Bad input: a steer to the serving BSS itself, and from a vAP the station is not on.
    again = agent.ctl.request("steerClient", {"vap_id": target, "mac": mac, "target_bssid": target_bssid})
    assert again["error"]["code"] == "bad_request"
    gone = agent.ctl.request("steerClient", {"vap_id": source, "mac": mac, "target_bssid": target_bssid})
    assert gone["error"]["code"] == "not_found"
    assert agent.ctl.schema_errors == []
