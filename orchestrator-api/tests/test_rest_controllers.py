"""The REST client speaks the controller contract: paths, basic auth, JSON bodies, error mapping. Checked against
a recording HTTP stub on a loopback port (the real ONOS apps are the integration tier's job)."""

from __future__ import annotations

import base64
import json

import pytest
from served_app import served
from werkzeug.wrappers import Request, Response

from wislice_orchestrator.controllers import ControllerError
from wislice_orchestrator.controllers.rest import RestControllers

REPLIES = {
    ("GET", "/onos/wifi/agents"): (200, {"agents": [{"agent_id": "ap-1", "connected": True, "radios": []}]}),
    ("GET", "/onos/wifi/vaps"): (200, {"vaps": []}),
    ("POST", "/onos/wifi/agents/ap-1/vaps"): (201, {"vap": {"vap_id": "v1", "state": "up", "pof_port": 7}}),
    ("DELETE", "/onos/wifi/agents/ap-1/vaps/v1"): (204, None),
    ("DELETE", "/onos/wifi/agents/ap-1/vaps/gone"): (404, {"code": "not_found", "message": "no vap gone"}),
    ("GET", "/onos/wifi/clients"): (200, {"clients": [{"mac": "02:00:00:00:00:01"}]}),
    ("DELETE", "/onos/wifi/agents/ap-1/clients/02:00:00:00:00:01"): (204, None),
    ("POST", "/onos/wifi/clients/02:00:00:00:00:01/steer"): (200, {"mac": "02:00:00:00:00:01", "accepted": True}),
    ("POST", "/onos/wifi/agents/ap-1/radios/phy0/channel"): (200, {"radio": {"name": "phy0", "channel": 11}}),
    ("GET", "/onos/wifi/agents/ap-1/vaps/v1/rates"): (200, {"tx_bps": 5, "rx_bps": 6, "interval_s": 1}),
    ("GET", "/onos/wifi/stats"): (200, {"node": "n1", "agents": [{"agent_id": "ap-1", "ts": 1.0, "interval_s": 5,
                                                                   "vaps": [], "clients": []}]}),
    ("POST", "/onos/wifi/aps/ap-1/firmware"): (202, {"state": "requested"}),
    ("POST", "/onos/wifi/aps/ap-2/firmware"): (503, {"code": "agent_unreachable", "message": "not connected"}),
    ("GET", "/onos/wifi/aps/ap-1"): (200, {"agent_id": "ap-1", "firmware_version": "1.0",
                                           "upgrade": {"version": "2.0", "state": "downloading", "reason": "",
                                                       "updated_ms": 1}}),
    ("GET", "/onos/nfv/nodes"): (200, {"nodes": []}),
    ("GET", "/onos/nfv/vnfs"): (200, {"vnfs": []}),
    ("POST", "/onos/nfv/vnfs"): (201, {"vnf": {"vnf_id": 65538, "state": "running"}, "node": "mec-1"}),
    ("DELETE", "/onos/nfv/vnfs/65538"): (204, None),
    ("GET", "/onos/nfv/vnfs/65538/stats"): (200, {"vnf_id": 65538, "cpu_pct": 1.0}),
    ("GET", "/onos/pof/switches"): (200, {"switches": []}),
    ("GET", "/onos/pof/slices"): (200, {"slices": []}),
    ("POST", "/onos/pof/slices"): (201, {"slice_id": "t1s1-x", "tag": 9, "hops": []}),
    ("PUT", "/onos/wifi/vaps/v1/rate_limit"): (200, {"vap": {"vap_id": "v1", "rate_limit": {"down_kbps": 9}}}),
    ("PUT", "/onos/pof/slices/t1s1-x/rates"): (200, {"slice_id": "t1s1-x", "tag": 9}),
    ("DELETE", "/onos/pof/slices/t1s1-x"): (504, {"code": "timeout", "message": "switch did not answer"}),
}


@pytest.fixture
def onos():
    seen = []

    @Request.application
    def app(request: Request) -> Response:
        body = request.get_json(silent=True)
        seen.append((request.method, request.path, dict(request.args), body, request.headers.get("Authorization")))
        status, reply = REPLIES.get((request.method, request.path), (404, {"code": "not_found", "message": "?"}))
        return Response(json.dumps(reply) if reply is not None else b"", status=status,
                        mimetype="application/json")

    with served(app) as url:
        yield RestControllers(url, "onos", "rocks", timeout_s=5), seen


def test_calls_follow_the_contract(onos):
    ctl, seen = onos
    assert ctl.list_agents()[0]["agent_id"] == "ap-1"
    assert ctl.list_vaps("ap-1") == []
    assert seen[-1][2] == {"agent": "ap-1"}
    assert ctl.create_vap("ap-1", {"vap_id": "v1"})["pof_port"] == 7
    assert seen[-1][3] == {"vap_id": "v1"}
    ctl.delete_vap("ap-1", "v1")
    assert ctl.list_clients(vap_id="v1")[0]["mac"] == "02:00:00:00:00:01"
    assert seen[-1][2] == {"vap": "v1"}
    ctl.kick_client("ap-1", "02:00:00:00:00:01")
    assert ctl.steer_client("02:00:00:00:00:01", {"target_vap": "v2"})["accepted"] is True
    assert seen[-1][:2] == ("POST", "/onos/wifi/clients/02:00:00:00:00:01/steer")
    assert seen[-1][3] == {"target_vap": "v2"}
    assert ctl.set_channel("ap-1", "phy0", 11)["channel"] == 11 and seen[-1][3] == {"channel": 11}
    assert ctl.vap_rates("ap-1", "v1")["tx_bps"] == 5
    assert ctl.wifi_stats()[0]["agent_id"] == "ap-1" and seen[-1][:2] == ("GET", "/onos/wifi/stats")
    upgrade = {"version": "2.0", "kind": "sysupgrade", "url": "http://o/x", "sha256": "0" * 64, "signature": "s",
               "timeout_s": 600}
    assert ctl.request_upgrade("ap-1", upgrade) == {"state": "requested"}
    assert seen[-1][:2] == ("POST", "/onos/wifi/aps/ap-1/firmware") and seen[-1][3] == upgrade
    assert ctl.get_agent("ap-1")["upgrade"]["state"] == "downloading" and seen[-1][:2] == ("GET", "/onos/wifi/aps/ap-1")
    with pytest.raises(ControllerError) as refused:
        ctl.request_upgrade("ap-2", upgrade)
    assert refused.value.status == 503 and refused.value.code == "agent_unreachable"
    vnf, node = ctl.create_vnf({"tenant_id": 1, "instance_id": 2}, node="mec-1", near_ap="ap-1")
    assert node == "mec-1" and seen[-1][3] == {"tenant_id": 1, "instance_id": 2, "node": "mec-1", "near_ap": "ap-1"}
    ctl.delete_vnf(65538)
    assert ctl.vnf_stats(65538)["cpu_pct"] == 1.0
    assert ctl.create_path({"slice_id": "t1s1-x"})["tag"] == 9
    rate_limit = {"down_kbps": 9, "up_kbps": 0, "down_guaranteed_kbps": 5, "up_guaranteed_kbps": 0}
    assert ctl.update_vap("v1", rate_limit)["vap_id"] == "v1"
    assert seen[-1][:2] == ("PUT", "/onos/wifi/vaps/v1/rate_limit") and seen[-1][3] == rate_limit
    rates = {"down": {"guaranteed_kbps": 5, "cap_kbps": 9}, "up": {"guaranteed_kbps": 0, "cap_kbps": 0}}
    assert ctl.update_path_rates("t1s1-x", rates)["tag"] == 9
    assert seen[-1][:2] == ("PUT", "/onos/pof/slices/t1s1-x/rates") and seen[-1][3] == rates
    assert ctl.list_nodes() == [] and ctl.list_vnfs() == [] and ctl.list_switches() == [] and ctl.list_paths() == []
    expected = "Basic " + base64.b64encode(b"onos:rocks").decode()
    assert all(auth == expected for *_, auth in seen)


def test_errors_map_to_controller_error(onos):
    ctl, _ = onos
    with pytest.raises(ControllerError) as info:
        ctl.delete_vap("ap-1", "gone")
    assert info.value.not_found and info.value.code == "not_found"
    with pytest.raises(ControllerError) as info:
        ctl.delete_path("t1s1-x")
    assert info.value.status == 504 and info.value.code == "timeout" and "switch did not answer" in info.value.message


def test_unreachable_controller():
    ctl = RestControllers("http://127.0.0.1:9", "onos", "rocks", timeout_s=1)
    with pytest.raises(ControllerError) as info:
        ctl.list_agents()
    assert info.value.code == "unreachable" and info.value.status == 502


def test_dot_segments_are_not_sent(onos):
    ctl, seen = onos
    for call in (lambda: ctl.kick_client("ap-1", ".."), lambda: ctl.set_channel("..", "phy0", 1),
                 lambda: ctl.delete_vap("ap-1", "."), lambda: ctl.delete_path("..")):
        with pytest.raises(ValueError):
            call()
    assert seen == []
