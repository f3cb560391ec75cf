"""steerClient (steering.py): the BSS_TM_REQ hostapd gets, the wait for the station's BTM response, the errors."""

import json
import time

import pytest
from conftest import vap_spec
from wislice_agent_proto import validate as V
from wislice_agent_proto.errors import AgentError
from wislice_agent_proto.methods import serve

from wislice_ap_agent import bssconf
from wislice_ap_agent.events import BtmResponse, OtherEvent, parse_event
from wislice_ap_agent.handlers import Handlers
from wislice_ap_agent.steering import Steering, SteerRequest, bss_tm_command, operating_class, supports_bss_transition

A = "02:00:00:00:01:00"
TARGET = "06:00:00:00:02:01"


def steer(manager, wait_s=1.0, **params):
    p = {"vap_id": "v1", "mac": A, "target_bssid": TARGET, **params}
    V.message({"type": "request", "id": 1, "method": "steerClient", "params": p})
    return Steering(manager.hostapd, manager, wait_s).steer(p)


@pytest.fixture
def serving(manager, fake_hostapd):
    manager.create(vap_spec("v1"))
    fake_hostapd.associate("wlan0_1", A)
    return manager


def test_accepted_steer_sends_one_preferred_candidate_and_returns_the_status(serving, fake_hostapd):
    fake_hostapd.btm_status[A] = 0
    result = steer(serving, target_channel=36)
    assert result == {"accepted": True, "status_code": 0, "reason": "the station accepted the transition"}
    V.SCHEMA.check(result, "#/$defs/steerResult", "result")
    assert fake_hostapd.commands_named("BSS_TM_REQ") == [
        f"BSS_TM_REQ {A} pref=1 abridged=1 neighbor={TARGET},0x0f,115,36,4,0301ff"]


def test_rejection_and_silence_are_answers_not_errors(serving, fake_hostapd):
    fake_hostapd.btm_status[A] = 7
    result = steer(serving)
    assert result["accepted"] is False and result["status_code"] == 7 and "no suitable candidates" in result["reason"]
    del fake_hostapd.btm_status[A]
    t0 = time.monotonic()
    result = steer(serving, wait_s=0.3)
    assert 0.3 <= time.monotonic() - t0 < 2.0  # waited the bound, not longer
    assert result == {"accepted": False, "status_code": None,
                      "reason": "no BSS Transition Management response from the station in 0.3 s"}
    V.SCHEMA.check(result, "#/$defs/steerResult", "result")


def test_disassoc_imminent_and_the_target_channel_of_an_own_bss(serving, fake_hostapd):
    serving.create(vap_spec("v2"))
    own = serving.vaps["v2"].bssid
    fake_hostapd.btm_status[A] = 0
    steer(serving, target_bssid=own, disassoc_timer_tbtt=20)
    # No target_channel: the agent's own BSS with that BSSID is on the radio's channel 6 (2.4 GHz: class 81, ERP).
    assert fake_hostapd.commands_named("BSS_TM_REQ") == [
        f"BSS_TM_REQ {A} pref=1 abridged=1 neighbor={own},0x0f,81,6,6,0301ff disassoc_imminent=1 disassoc_timer=20"]


def test_errors(serving, fake_hostapd):
    cases = [
        ({"vap_id": "nope"}, "not_found"),
        ({"mac": "02:00:00:00:09:09"}, "not_found"),  # not associated to that vAP
        ({"target_bssid": serving.vaps["v1"].bssid}, "bad_request"),  # the serving BSS itself
    ]
    for params, code in cases:
        with pytest.raises(AgentError) as e:
            steer(serving, **params)
        assert e.value.code == code, params
    fake_hostapd.associate("wlan0_1", "02:00:00:00:04:00")
    fake_hostapd.bss["wlan0_1"].stations["02:00:00:00:04:00"]["flags"] = "[AUTH][WMM]"  # left; hostapd keeps it
    with pytest.raises(AgentError) as e:
        steer(serving, mac="02:00:00:00:04:00")
    assert e.value.code == "not_found"
    fake_hostapd.associate("wlan0_1", "02:00:00:00:03:00", btm=False)
    with pytest.raises(AgentError) as e:
        steer(serving, mac="02:00:00:00:03:00")
    assert e.value.code == "unsupported" and "BSS Transition" in e.value.message
    fake_hostapd.fail_next["BSS_TM_REQ"] = "FAIL\n"
    with pytest.raises(AgentError) as e:
        steer(serving)
    assert e.value.code == "internal"
    assert len(fake_hostapd.commands_named("BSS_TM_REQ")) == 1  # only the last case reached hostapd


def test_btm_response_event_and_capabilities():
    assert parse_event(f"IFNAME=wlan0_1 <3>BSS-TM-RESP {A} dialog_token=1 status_code=6 bss_termination_delay=0") \
        == BtmResponse("wlan0_1", A, 6)
    assert parse_event(f"<3>BSS-TM-RESP {A} status_code=0 bss_termination_delay=0 target_bssid={TARGET}") \
        == BtmResponse(None, A, 0)
    assert isinstance(parse_event(f"<3>BSS-TM-RESP {A} status_code=x"), OtherEvent)
    assert supports_bss_transition({"ext_capab": "0000080000000040"})
    assert not supports_bss_transition({"ext_capab": "0000000000000040"})
    assert not supports_bss_transition({"ext_capab": "00"}) and not supports_bss_transition({})
    assert [operating_class(c) for c in (1, 13, 14, 36, 64, 100, 149)] == [81, 81, 82, 115, 118, 121, 125]
    with pytest.raises(AgentError):
        operating_class(200)
    cmd = bss_tm_command(SteerRequest("v1", A, TARGET, None, 0), 11)
    assert cmd.endswith("neighbor=06:00:00:00:02:01,0x0f,81,11,6,0301ff disassoc_imminent=1 disassoc_timer=0")


def test_the_spec_vectors_are_served(manager, fake_hostapd):
    """The valid request vector, served through the agent's method table, gets a reply like the reply vector."""
    vectors = V.schema_path().parents[1] / "vectors" / "valid"
    for name in ("reply-ok-steerClient.json", "reply-ok-steerClient-no-answer.json"):
        V.SCHEMA.check(json.loads((vectors / name).read_text())["result"], "#/$defs/steerResult", "result")
    request = json.loads((vectors / "req-steerClient.json").read_text())
    manager.create(vap_spec(request["params"]["vap_id"]))
    fake_hostapd.associate("wlan0_1", request["params"]["mac"])
    fake_hostapd.btm_status[request["params"]["mac"]] = 0
    reply = serve(Handlers("ap-1", manager).table, request)
    assert reply == json.loads((vectors / "reply-ok-steerClient.json").read_text())
    V.message(reply)


def test_every_bss_file_enables_bss_transition(radio):
    text = bssconf.render(vap_spec("v1"), radio, "wlan0_1", "02:00:00:00:00:01", "/var/run/hostapd")
    assert "\nbss_transition=1\n" in text
