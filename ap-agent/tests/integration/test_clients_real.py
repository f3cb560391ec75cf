"""Client events with the real hostapd and a real station: on this radio-less host the "station" is
wpa_supplicant doing IEEE 802.1X (EAP-MD5) over a wired vAP, which hostapd reports with the same
AP-STA-CONNECTED / AP-STA-DISCONNECTED events as a WiFi association. The vAP was started before the agent (as
after an agent restart) and is adopted from the agent's state file, so this also covers adoption."""

from __future__ import annotations

import json
import sys

import pytest
from conftest import PRIMARY, add_veth, agent_config, need
from support.controller import TestController

from wislice_ap_agent.hostapd_ctrl import HostapdControl

pytestmark = pytest.mark.integration

VAP_IF = f"{PRIMARY}_1"
SPEC = {"vap_id": "dot1x", "radio": "phy0", "ssid": "wired", "security": {"mode": "open"}, "tenant_id": 2,
        "slice_id": "s-2", "rate_limit": {"down_kbps": 0, "up_kbps": 0}}


def test_station_events_getclient_removeclient_delvap(wired_ap, netns, veth, processes, sockdir):
    need("wpa_supplicant")
    sta = netns("sta")
    add_veth(wired_ap.ns, VAP_IF, "stap", peer_ns=sta)
    (sockdir / "eap_users").write_text('"user" MD5 "password"\n')
    conf_dir = sockdir / "conf"
    conf_dir.mkdir(mode=0o700)
    conf = conf_dir / f"{VAP_IF}.conf"
    conf.write_text(f"interface={VAP_IF}\ndriver=wired\nctrl_interface={wired_ap.ctrl_dir}\nssid=wired\n"
                    f"hw_mode=g\nchannel=6\nieee8021x=1\neap_server=1\neap_user_file={sockdir}/eap_users\n")
    (conf_dir / f"{VAP_IF}.json").write_text(json.dumps(SPEC))
    h = HostapdControl(wired_ap.global_path, str(sockdir))
    h.add_interface(VAP_IF, str(conf))
    assert h.raw("ENABLE", VAP_IF).strip() == "OK"

    veth(None, wired_ap.ns, addr_a="10.66.4.1/30", addr_b="10.66.4.2/30")
    controller = TestController(host="10.66.4.1")
    try:
        cfg = agent_config(sockdir / "agent.json", wired_ap, controller.address, sockdir, conf_dir=str(conf_dir))
        processes.start([sys.executable, "-m", "wislice_ap_agent", "--config", str(cfg)], netns=wired_ap.ns,
                        log_name="ap-agent")
        s = controller.next_session(timeout=20)
        vaps = s.request("getVaps")["result"]["vaps"]
        assert [(v["vap_id"], v["ifname"], v["state"]) for v in vaps] == [("dot1x", VAP_IF, "up")]
        assert s.request("syncVaps", {"vaps": [SPEC]})["result"]["kept"] == ["dot1x"]

        (sockdir / "sta.conf").write_text('ap_scan=0\nnetwork={\n key_mgmt=IEEE8021X\n eap=MD5\n identity="user"\n'
                                          ' password="password"\n eapol_flags=0\n}\n')
        supplicant = ["wpa_supplicant", "-D", "wired", "-i", "stap", "-c", str(sockdir / "sta.conf")]
        station = processes.start(supplicant, netns=sta, log_name="wpa_supplicant")
        ev = s.wait_event("clientAssociated", timeout=20, vap_id="dot1x")
        mac = ev["data"]["mac"]
        assert ev["data"].get("signal_dbm") is None  # wired: no signal, reported as null
        clients = s.request("getClient", {"mac": mac})["result"]["clients"]
        assert len(clients) == 1 and clients[0]["vap_id"] == "dot1x" and clients[0]["signal_dbm"] is None
        assert s.request("getStatus")["result"]["clients"] == 1

        assert s.request("removeClient", {"mac": mac, "reason": 3})["ok"]
        s.wait_event("clientDisassociated", vap_id="dot1x", mac=mac)
        assert s.request("removeClient", {"mac": "02:00:00:00:09:09"})["error"]["code"] == "not_found"

        # the station comes back (a fresh supplicant: a kicked one waits out its held period); removing the vAP
        # then disassociates it (event) and stops the BSS
        processes.stop(station)
        processes.start(supplicant, netns=sta, log_name="wpa_supplicant")
        s.wait_event("clientAssociated", timeout=20, vap_id="dot1x", mac=mac)
        s.discard("clientDisassociated")  # the old supplicant's logoff
        assert s.request("getStatus")["result"]["clients"] == 1
        assert s.request("delVap", {"vap_id": "dot1x"})["ok"]
        s.wait_event("clientDisassociated", vap_id="dot1x", mac=mac)
        s.wait_event("vapState", vap_id="dot1x", state="removed")
        assert VAP_IF not in h.raw("INTERFACES")
        assert list(conf_dir.iterdir()) == []
        assert s.schema_errors == []
    finally:
        controller.close()
        h.close()
