"""The orchestrator against the REAL ONOS runtime with the built WiSlice apps (private ports), and end to end with
a real ap-agent + hostapd in the AP VM: a tenant's slice becomes a beaconing vAP a station associates to.

Missing real parts (an app not built yet, no qemu) skip with the reason; nothing here uses a fake."""

from __future__ import annotations

import time

import pytest
from orch_helpers import slice_body
from real_stack import APPS, Unavailable, ap_vm_agent, onos_runtime

from wislice_orchestrator import auth
from wislice_orchestrator.app import create_app
from wislice_orchestrator.controllers import ControllerError
from wislice_orchestrator.models import Tenant

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def onos():
    try:
        with onos_runtime() as runtime:
            yield runtime
    except Unavailable as exc:
        pytest.skip(str(exc))


def need(onos, name: str) -> None:
    if name not in onos.apps:
        pytest.skip(f"the {name} controller app is not built yet ({APPS[name].name} missing)")


def orchestrator(ctl, tmp_path):
    app = create_app({"DATABASE_URL": f"sqlite:///{tmp_path}/o.db", "START_WORKER": False, "TELEMETRY": False},
                     controllers=ctl)
    with app.extensions["wislice"].session_factory() as db:
        db.add(Tenant(id=1, name="alpha"))
        db.flush()
        token = auth.issue_token(db, "tenant", 1)
        operator = auth.issue_token(db, "operator")
        db.commit()
    return app, {"Authorization": f"Bearer {token}"}, {"Authorization": f"Bearer {operator}"}


def test_wifi_contract(onos):
    need(onos, "wifi")
    ctl = onos.ctl
    assert isinstance(ctl.list_agents(), list)
    assert isinstance(ctl.list_vaps(), list) and isinstance(ctl.list_clients(), list)
    spec = {"vap_id": "t1s1v1", "radio": "phy0", "ssid": "x", "security": {"mode": "open"}, "hidden": False,
            "tenant_id": 1, "slice_id": "t1s1", "rate_limit": {"down_kbps": 0, "up_kbps": 0}}
    with pytest.raises(ControllerError) as info:
        ctl.create_vap("ap-nowhere", spec)
    assert info.value.status in (404, 502, 504), info.value
    with pytest.raises(ControllerError) as info:
        ctl.delete_vap("ap-nowhere", "t1s1v1")
    assert info.value.status in (404, 502), info.value


def test_nfv_contract(onos):
    need(onos, "nfv")
    assert onos.ctl.list_nodes() == [] and onos.ctl.list_vnfs() == []
    with pytest.raises(ControllerError) as info:
        onos.ctl.delete_vnf(0x00010002)
    assert info.value.not_found


def test_pof_contract(onos):
    need(onos, "pof")
    ctl = onos.ctl
    assert ctl.list_switches() == [] and ctl.list_paths() == []
    with pytest.raises(ControllerError):
        ctl.create_path({"slice_id": "t1s1-t1s1v1", "tenant_id": 1, "rate_kbps": 1000,
                         "hops": [{"device_id": "pof:000000ff", "in_port": 1, "out_port": 2}]})
    with pytest.raises(ControllerError) as info:
        ctl.delete_path("t1s1-nothing")
    assert info.value.not_found


def test_guaranteed_rates_contract(onos):
    """docs/guaranteed-slices.md: a path takes down/up, live rates change with PUTs on the vAP and on the path.
    Against unknown ids each must be the controller's own JSON not_found (not a route no app serves)."""
    need(onos, "wifi")
    need(onos, "pof")
    ctl = onos.ctl
    rates = {"down": {"guaranteed_kbps": 1000, "cap_kbps": 5000}, "up": {"guaranteed_kbps": 500, "cap_kbps": 0}}
    with pytest.raises(ControllerError) as info:
        ctl.create_path({"slice_id": "t1s1-t1s1v1", "tenant_id": 1, **rates,
                         "hops": [{"device_id": "pof:000000ff", "in_port": 1, "out_port": 2}]})
    assert "unknown field" not in info.value.message, info.value
    rate_limit = {"down_kbps": 5000, "up_kbps": 0, "down_guaranteed_kbps": 1000, "up_guaranteed_kbps": 500}
    for call in (lambda: ctl.update_vap("t1s1v9", rate_limit), lambda: ctl.update_path_rates("t1s1-nothing", rates)):
        with pytest.raises(ControllerError) as info:
            call()
        assert info.value.not_found and "without a JSON error" not in info.value.message, info.value


def test_orchestrator_refuses_unknown_ap_on_real_controllers(onos, tmp_path):
    need(onos, "wifi")
    app, tenant, _ = orchestrator(onos.ctl, tmp_path)
    resp = app.test_client().post("/api/v1/tenants/1/slices", json=slice_body(agent="ap-nowhere"), headers=tenant)
    assert resp.status_code == 409, resp.get_json()
    assert "ap-nowhere" in resp.get_json()["detail"]
    assert onos.ctl.list_vaps() == [] and onos.ctl.list_paths() == []
    app.extensions["wislice_engine"].dispose()


def test_vap_slice_end_to_end_with_real_ap_agent(onos, tmp_path):
    """REST create -> wifi-controller -> ap-agent -> hostapd: the SSID beacons, a station associates with the
    slice's passphrase, the orchestrator lists and kicks it, deleting the slice removes the vAP."""
    need(onos, "wifi")
    try:
        stack = ap_vm_agent(onos)
        agent = stack.__enter__()
    except Unavailable as exc:
        pytest.skip(str(exc))
    try:
        app, tenant, operator = orchestrator(onos.ctl, tmp_path)
        client = app.test_client()
        body = slice_body(name="e2e", agent=agent.agent_id, vnfs=0)
        body["vaps"][0]["ssid"] = "wislice-e2e"
        resp = client.post("/api/v1/tenants/1/slices", json=body, headers=tenant)
        assert resp.status_code == 202, resp.get_json()
        op = client.get(resp.headers["Location"], headers=tenant).get_json()
        assert op["status"] == "succeeded", (op, agent.log())
        sid = op["slice_id"]
        slice_ = client.get(f"/api/v1/tenants/1/slices/{sid}", headers=tenant).get_json()
        assert slice_["status"] == "active" and slice_["vaps"][0]["state"] == "up"
        assert "ssid wislice-e2e" in agent.vm.run("iw dev").out

        agent.station.connect("wislice-e2e", mode="wpa2-psk", passphrase="secret-pass-1")
        agent.station.wait_associated(timeout=60)
        mac = agent.station.mac().lower()
        deadline = time.monotonic() + 30
        macs: list[str] = []
        while mac not in macs and time.monotonic() < deadline:
            time.sleep(0.5)
            macs = [c["mac"].lower() for c in
                    client.get(f"/api/v1/tenants/1/slices/{sid}/clients", headers=tenant).get_json()["clients"]]
        assert mac in macs, macs
        stats = client.get(f"/api/v1/tenants/1/slices/{sid}/stats", headers=tenant).get_json()
        assert stats["clients"] >= 1 and stats["errors"] == [], stats
        assert client.delete(f"/api/v1/tenants/1/slices/{sid}/clients/{mac}", headers=tenant).status_code == 204

        resp = client.delete(f"/api/v1/tenants/1/slices/{sid}", headers=tenant)
        assert client.get(resp.headers["Location"], headers=tenant).get_json()["status"] == "succeeded"
        assert "wislice-e2e" not in agent.vm.run("iw dev").out
        assert [v for v in onos.ctl.list_vaps() if v.get("vap_id", "").startswith("t1s")] == []
        app.extensions["wislice_engine"].dispose()
    finally:
        stack.__exit__(None, None, None)
