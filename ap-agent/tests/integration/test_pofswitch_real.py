"""vAP netdevs join the real pof-switch (AF_PACKET build) through its management socket; the port number
reaches the controller as pof_port and the port goes away with the vAP; the switch's uplink port is rated at the
radio's capacity (port-rate); the vAP's latency probe runs on its port (no flows here: the switch keeps asking ARP
for the target, and getLatency reports a session that has sent nothing) and goes with the vAP."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest
from conftest import PRIMARY, add_veth, agent_config
from support.controller import TestController
from wislice_agent_proto.switch_mgmt import SwitchMgmt

pytestmark = pytest.mark.integration

ROOT = Path(os.environ.get("WISLICE_ROOT", Path(__file__).resolve().parents[3]))
POFSWITCH = ROOT / "pof-switch" / "build" / "pofswitch-afp"


def mgmt(path: Path, line: str) -> str:
    return SwitchMgmt(str(path)).request(line)


def test_vap_port_on_pof_switch(wired_ap, veth, processes, sockdir):
    if not POFSWITCH.exists():
        pytest.skip(f"{POFSWITCH} not built (make -C pof-switch build)")
    add_veth(wired_ap.ns, f"{PRIMARY}_1", f"{PRIMARY}_1p")
    add_veth(wired_ap.ns, "upl0", "upl0p")
    mgmt_path = sockdir / "pof.sock"
    processes.start([str(POFSWITCH), "--controller", "none", "--mgmt", str(mgmt_path), "--port", "up=upl0"],
                    netns=wired_ap.ns, log_name="pofswitch")
    deadline = time.monotonic() + 10
    while not mgmt_path.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    veth(None, wired_ap.ns, addr_a="10.66.3.1/30", addr_b="10.66.3.2/30")
    controller = TestController(host="10.66.3.1")
    try:
        cfg = agent_config(sockdir / "agent.json", wired_ap, controller.address, sockdir,
                           pof_switch_socket=str(mgmt_path), shaping="none", default_capacity_kbps=12000)
        processes.start([sys.executable, "-m", "wislice_ap_agent", "--config", str(cfg)], netns=wired_ap.ns,
                        log_name="ap-agent")
        s = controller.next_session(timeout=20)
        assert s.hello["capabilities"]["pof_switch"] is True
        up = mgmt(mgmt_path, "port-stats up")
        if not up.startswith("ERROR unknown command"):  # a switch older than port-rate: the agent only warns
            assert "rate=12000 " in up, up
        spec = {"vap_id": "v1", "radio": "phy0", "ssid": "pof", "security": {"mode": "open"}, "tenant_id": 1,
                "slice_id": "s-1", "rate_limit": {"down_kbps": 0, "up_kbps": 0},
                "probe": {"source_ip": "10.61.1.250", "target_ip": "10.61.1.1", "interval_ms": 50}}
        r = s.request("createVap", {"vap": spec}, timeout=20)
        assert r["ok"], r
        port = r["result"]["vap"]["pof_port"]
        assert isinstance(port, int) and port >= 1
        assert f" {port}:{PRIMARY}_1:" in " " + mgmt(mgmt_path, "ports")[3:]
        assert s.request("getVaps")["result"]["vaps"][0]["pof_port"] == port
        lat = s.request("getLatency", {"vap_id": "v1"})
        assert lat["ok"] and lat["result"] == {"vap_id": "v1", "sent": 0, "received": 0, "lost": 0, "p50_us": 0,
                                               "p90_us": 0, "p99_us": 0, "max_us": 0, "samples": 0}, lat
        probe = mgmt(mgmt_path, f"probe-stats {PRIMARY}_1 1")
        assert probe.startswith("OK sent=0 ") and probe.endswith(" resolved=0"), probe  # waits for its ARP answer
        assert s.request("delVap", {"vap_id": "v1"})["ok"]
        assert f"{PRIMARY}_1" not in mgmt(mgmt_path, "ports")
        assert mgmt(mgmt_path, f"probe-stats {PRIMARY}_1 1") == f"ERROR no probe {PRIMARY}_1 1"
        assert s.schema_errors == []
    finally:
        controller.close()
