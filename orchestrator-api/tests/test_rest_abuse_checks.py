"""The REST abuse run's own checks (tests/rest_abuse.py) can fail: what reached the controllers unescaped, a
refusal without problem+json and a 5xx are each reported (the run itself finds none, so it cannot show this)."""

from __future__ import annotations

import requests
import rest_abuse
from fake_onos import FakeOnos, Received


def test_unescaped_controller_requests_are_reported():
    onos = FakeOnos()
    onos.received += [Received("GET", "/onos/wifi/agents/ap-1", "/onos/wifi/agents/ap-1", None),
                      Received("POST", "/onos/wifi/agents/ap-1/vaps", "/onos/wifi/agents/ap-1/vaps",
                               {"ssid": "a$(reboot)", "params": {"P": 1}})]
    clean = rest_abuse.Tally()
    rest_abuse.check_received(clean, onos)
    assert clean.failures == []
    bad = [Received("DELETE", "/onos/wifi/agents/ap-1/clients/..", "/onos/wifi/agents/ap-1/clients/..", None),
           Received("DELETE", "/onos/wifi/agents/a%2F..%2Fb/vaps/x", "/onos/wifi/agents/a/../b/vaps/x", None),
           Received("GET", "/onos/wifi/agents/a#b", "/onos/wifi/agents/a#b", None),
           Received("POST", "/onos/wifi/agents/ap-1/vaps", "/onos/wifi/agents/ap-1/vaps",
                    {"ssid": "a\nctrl_interface=/tmp"}),
           Received("POST", "/onos/nfv/vnfs", "/onos/nfv/vnfs", {"params": {"k\x85": "v"}})]
    for received in bad:
        onos.received.append(received)
        tally = rest_abuse.Tally()
        rest_abuse.check_received(tally, onos, since=len(onos.received) - 1)
        assert len(tally.failures) == 1, received


def response(status: int, ctype: str) -> requests.Response:
    r = requests.Response()
    r.status_code = status
    r.headers["Content-Type"] = ctype
    return r


def test_refusals_and_server_errors_are_reported():
    tally = rest_abuse.Tally()
    assert rest_abuse.check_refusal_or_success(tally, "ok", response(201, "application/json"))
    assert not rest_abuse.check_refusal_or_success(tally, "refused", response(422, "application/problem+json"))
    assert tally.failures == [] and tally.server_errors == 0
    rest_abuse.check_refusal_or_success(tally, "plain", response(400, "text/html"))
    rest_abuse.check_refusal_or_success(tally, "boom", response(500, "application/problem+json"))
    assert len(tally.failures) == 2 and tally.server_errors == 1 and tally.inputs_tried == 4
