"""The orchestrator against the REAL ONOS runtime (onos-apps/runtime/onos-runtime: Karaf + ONOS 2.5.6 core) with the
WiSlice apps installed from their built .oar files, on private ports so it can share the machine.

No agents connect here (real ap-agents need the AP VM; that end-to-end run is the testbed's), so this checks the
contract the orchestrator relies on: every /onos/wifi, /onos/nfv, /onos/pof read it makes answers in the agreed
shape, errors come back as {"code", "message"}, and a slice on an AP the controller does not know is refused by
admission with nothing left behind on the controllers."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from orch_helpers import slice_body

from wislice_orchestrator import auth
from wislice_orchestrator.app import create_app
from wislice_orchestrator.controllers import ControllerError
from wislice_orchestrator.controllers.rest import RestControllers
from wislice_orchestrator.models import Tenant

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[3]
RUNTIME = ROOT / "onos-apps" / "runtime" / "onos-runtime"
APPS = {
    "wifi": ROOT / "onos-apps" / "wifi-controller" / "target" / "wislice-wifi-controller-0.1.0-SNAPSHOT.oar",
    "nfv": ROOT / "onos-apps" / "nfv-controller" / "target" / "wislice-nfv-controller-0.1.0-SNAPSHOT.oar",
    "pof": ROOT / "onos-apps" / "network-controller" / "target" / "wislice-network-controller-0.1.0-SNAPSHOT.oar",
}
# Component config written before the apps start, so their agent/switch listeners avoid other runtimes' ports.
LISTENERS = {"wifi": ("org.wislice.onos.wifi.impl.WifiManager", "agentPort"),
             "nfv": ("org.wislice.onos.nfv.impl.NfvManager", "agentPort"),
             "pof": ("org.wislice.onos.pof.impl.PofControllerImpl", "pofPort")}


def free_ports(n: int) -> list[int]:
    socks = [socket.socket() for _ in range(n)]
    try:
        for s in socks:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


@pytest.fixture(scope="module")
def onos():
    if not RUNTIME.exists():
        pytest.skip(f"{RUNTIME} is missing (onos-apps not landed)")
    present = {name: oar for name, oar in APPS.items() if oar.exists()}
    if not present:
        pytest.skip("no WiSlice .oar built (make -C onos-apps build)")
    run_dir = Path(tempfile.mkdtemp(prefix="wislice-onos-"))
    http, ssh, rmi_reg, rmi_srv, cluster, *listen = free_ports(5 + len(LISTENERS))
    env = dict(os.environ, ONOS_RUNTIME_DIR=str(run_dir), ONOS_HTTP_PORT=str(http), ONOS_SSH_PORT=str(ssh),
               ONOS_RMI_REGISTRY_PORT=str(rmi_reg), ONOS_RMI_SERVER_PORT=str(rmi_srv), ONOS_CLUSTER_PORT=str(cluster),
               ONOS_USER="onos", ONOS_PASSWORD="wislice-it")

    def runtime(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, str(RUNTIME), *args], env=env, capture_output=True, text=True,
                              timeout=timeout)

    try:
        started = runtime("start")
        if started.returncode != 0:
            pytest.fail(f"onos-runtime start failed:\n{started.stdout}\n{started.stderr}")
        etc = run_dir / "karaf" / "etc"
        for (name, (component, key)), port in zip(LISTENERS.items(), listen, strict=True):
            if name in present:
                (etc / f"{component}.cfg").write_text(f"{key}={port}\n")
        installed = runtime("install-apps", *map(str, present.values()))
        if installed.returncode != 0:
            pytest.fail(f"onos-runtime install-apps failed:\n{installed.stdout}\n{installed.stderr}")
        ctl = RestControllers(f"http://127.0.0.1:{http}", "onos", "wislice-it", timeout_s=20)
        wait_for_rest(ctl, present)
        yield ctl, present
    finally:
        runtime("stop", timeout=120)
        shutil.rmtree(run_dir, ignore_errors=True)


READ = {"wifi": "list_agents", "nfv": "list_nodes", "pof": "list_switches"}


def wait_for_rest(ctl: RestControllers, present: dict, timeout_s: float = 90) -> None:
    """An app is ACTIVE before its REST resources are mounted: wait until each answers."""
    deadline = time.monotonic() + timeout_s
    for name in present:
        while True:
            try:
                getattr(ctl, READ[name])()
                break
            except ControllerError as exc:
                if time.monotonic() > deadline:
                    pytest.fail(f"{name} REST not served {timeout_s} s after activation: {exc}")
                time.sleep(1)


def need(present: dict, name: str) -> None:
    if name not in present:
        pytest.skip(f"the {name} controller app is not built yet ({APPS[name].name} missing)")


def test_wifi_contract(onos):
    ctl, present = onos
    need(present, "wifi")
    assert ctl.list_agents() == []
    assert ctl.list_vaps() == [] and ctl.list_clients() == []
    spec = {"vap_id": "t1s1v1", "radio": "phy0", "ssid": "x", "security": {"mode": "open"}, "hidden": False,
            "tenant_id": 1, "slice_id": "t1s1", "rate_limit": {"down_kbps": 0, "up_kbps": 0}}
    with pytest.raises(ControllerError) as info:
        ctl.create_vap("ap-nowhere", spec)
    assert info.value.status in (404, 502, 504), info.value
    with pytest.raises(ControllerError) as info:
        ctl.delete_vap("ap-nowhere", "t1s1v1")
    assert info.value.status in (404, 502), info.value


def test_nfv_contract(onos):
    ctl, present = onos
    need(present, "nfv")
    assert ctl.list_nodes() == [] and ctl.list_vnfs() == []
    with pytest.raises(ControllerError) as info:
        ctl.delete_vnf(0x00010002)
    assert info.value.not_found


def test_pof_contract(onos):
    ctl, present = onos
    need(present, "pof")
    assert ctl.list_switches() == [] and ctl.list_paths() == []
    with pytest.raises(ControllerError):
        ctl.create_path({"slice_id": "t1s1-t1s1v1", "tenant_id": 1, "rate_kbps": 1000,
                         "hops": [{"device_id": "pof:000000ff", "in_port": 1, "out_port": 2}]})
    with pytest.raises(ControllerError) as info:
        ctl.delete_path("t1s1-nothing")
    assert info.value.not_found


def test_orchestrator_refuses_unknown_ap_on_real_controllers(onos, tmp_path):
    ctl, present = onos
    if set(present) != set(APPS):
        pytest.skip(f"needs all three controller apps; missing {sorted(set(APPS) - set(present))}")
    app = create_app({"DATABASE_URL": f"sqlite:///{tmp_path}/o.db", "START_WORKER": False}, controllers=ctl)
    with app.extensions["wislice"].session_factory() as db:
        db.add(Tenant(id=1, name="alpha"))
        db.flush()
        token = auth.issue_token(db, "tenant", 1)
        db.commit()
    resp = app.test_client().post("/api/v1/tenants/1/slices", json=slice_body(),
                                  headers={"Authorization": f"Bearer {token}"})
    assert resp.status_code == 409, resp.get_json()
    assert "ap-1" in resp.get_json()["detail"]
    assert ctl.list_vaps() == [] and ctl.list_vnfs() == [] and ctl.list_paths() == []
    app.extensions["wislice_engine"].dispose()
