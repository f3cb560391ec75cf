"""The agent as a real process next to the real hostapd (driver=wired in a namespace), driven over the agent
protocol by the in-test controller (every agent message checked against the JSON Schema), with the downlink and
uplink caps measured by iperf3 through the vAP netdev."""

from __future__ import annotations

import sys
import time

import pytest
from conftest import PRIMARY, add_veth, agent_config, iperf_mbps
from support.controller import TestController
from wislice_agent_proto import prometheus as P

from wislice_ap_agent import events as E
from wislice_ap_agent.hostapd_ctrl import CtrlConnection, HostapdControl
from wislice_ap_agent.radio_qos import radio_ifb, uplink_ifb

pytestmark = pytest.mark.integration

VAP_IF = f"{PRIMARY}_1"  # the first vAP slot's netdev
IFB = radio_ifb("phy0")  # the radio's downlink hierarchy
METRICS_PORT = 9690  # the agent's /metrics, on its end of the controller's veth (its own namespace)


def vap(vap_id="t1-cafe", **over):
    s = {"vap_id": vap_id, "radio": "phy0", "ssid": "Café Slice", "security": {"mode": "open"}, "tenant_id": 1,
         "slice_id": "s-1", "rate_limit": {"down_kbps": 0, "up_kbps": 0}}
    s.update(over)
    return s


@pytest.fixture
def setup(wired_ap, netns, veth, processes, sockdir):
    """AP namespace with hostapd, a station namespace behind the first vAP netdev, the controller on a veth."""
    sta = netns("sta")
    add_veth(wired_ap.ns, VAP_IF, f"{VAP_IF}p", peer_ns=sta)
    add_veth(wired_ap.ns, f"{PRIMARY}_2", f"{PRIMARY}_2p")
    wired_ap.ns.exec(["ip", "addr", "add", "10.66.1.1/24", "dev", VAP_IF])
    sta.exec(["ip", "addr", "add", "10.66.1.2/24", "dev", f"{VAP_IF}p"])
    link = veth(None, wired_ap.ns, addr_a="10.66.0.1/30", addr_b="10.66.0.2/30")
    controller = TestController(host="10.66.0.1")
    cfg = agent_config(sockdir / "agent.json", wired_ap, controller.address, sockdir,
                       metrics_listen=f"10.66.0.2:{METRICS_PORT}")
    agent = processes.start([sys.executable, "-m", "wislice_ap_agent", "--config", str(cfg)], netns=wired_ap.ns,
                            log_name="ap-agent")
    yield wired_ap, sta, controller, agent, link
    controller.close()


def qdiscs(ns, dev):
    return ns.exec(["tc", "qdisc", "show", "dev", dev]).stdout


def vap_class(ns, slot=1):
    return ns.exec(["tc", "class", "show", "dev", IFB, "classid", f"1:{0x100 + slot:x}"]).stdout


def redirected(ns, dev, hook="egress"):
    """The IFB dev's traffic in that direction is redirected to, or None."""
    out = ns.exec(["tc", "filter", "show", "dev", dev, hook], check=False).stdout
    found = [w for w in out.split() if w.startswith("ifb")]
    return found[0].rstrip(")") if found else None


def test_agent_drives_real_hostapd_and_caps_bandwidth(setup, processes, sockdir):
    ap, sta, controller, agent, _ = setup
    s = controller.next_session(timeout=20)
    radio = s.hello["capabilities"]["radios"][0]
    assert radio["max_vaps"] == 2
    assert radio["capacity_kbps"] == 20000 and radio["capacity_source"] == "default"  # wired: no PHY rates
    assert redirected(ap.ns, PRIMARY) == IFB  # the primary BSS feeds the radio's default class

    # bad input: refused before anything reaches hostapd
    bad = s.request("createVap", {"vap": vap(ssid="x\nctrl_interface=/tmp")})
    assert bad["error"]["code"] == "bad_request" and "ssid" in bad["error"]["message"]
    bad = s.request("createVap", {"vap": vap(security={"mode": "wpa2-psk", "passphrase": "12345678\nwpa=0"})})
    assert bad["error"]["code"] == "bad_request" and "passphrase" in bad["error"]["message"]

    spec = vap(rate_limit={"down_kbps": 5000, "up_kbps": 3000})
    r = s.request("createVap", {"vap": spec}, timeout=20)
    assert r["ok"], r
    assert r["result"]["vap"]["ifname"] == VAP_IF and r["result"]["vap"]["state"] == "up"
    assert r["result"]["vap"]["pof_port"] is None
    s.wait_event("vapState", vap_id="t1-cafe", state="up")
    h = HostapdControl(ap.global_path, str(sockdir))
    assert h.status(VAP_IF)["state"] == "ENABLED"
    assert "clsact" in qdiscs(ap.ns, VAP_IF)
    assert redirected(ap.ns, VAP_IF) == IFB and redirected(ap.ns, VAP_IF, "ingress") == uplink_ifb(VAP_IF)
    assert "rate 8Kbit ceil 5Mbit" in vap_class(ap.ns)

    down = iperf_mbps(ap.ns, sta, processes, "10.66.1.2", 5301)
    up = iperf_mbps(ap.ns, sta, processes, "10.66.1.2", 5302, reverse=True)
    print(f"downlink cap 5 Mbit/s -> {down:.2f}; uplink cap 3 Mbit/s -> {up:.2f}")
    assert 4.5 <= down <= 5.25
    assert 2.7 <= up <= 3.15
    stats = s.wait_event("stats", timeout=5)
    assert stats["data"]["vaps"][0]["vap_id"] == "t1-cafe"
    rate = s.request("getTxRate", {"vap_id": "t1-cafe"})["result"]
    assert rate["vap_id"] == "t1-cafe" and rate["bps"] >= 0
    # /metrics of the process, scraped across the veth: the vAP's netdev counted iperf3's downlink, caps as set
    status, _, body = P.scrape(("10.66.0.2", METRICS_PORT))
    assert status == 200, body
    parsed = P.parse(body)
    labels = {"agent_id": "ap-it", "vap_id": "t1-cafe", "slice_id": "s-1", "tenant_id": "1", "radio": "phy0"}
    sent = {dict(k)["direction"]: v for k, v in parsed["wislice_ap_vap_bytes_total"].samples.items()}
    assert sent["tx"] > 1_000_000 and sent["rx"] > 0, sent
    assert parsed["wislice_ap_vap_cap_kbps"].samples == {
        tuple(sorted({**labels, "direction": d}.items())): kbps for d, kbps in (("down", 5000), ("up", 3000))}
    assert parsed["wislice_ap_connected"].samples == {(("agent_id", "ap-it"),): 1}
    assert P.scrape(("10.66.0.2", METRICS_PORT), "/vaps")[0] == 404

    # the controller goes away and comes back: the agent reconnects and syncVaps keeps the vAP untouched
    events = CtrlConnection(ap.global_path, str(sockdir))
    events.attach()
    s.close()
    s2 = controller.next_session(timeout=20)
    result = s2.request("syncVaps", {"vaps": [spec]})["result"]
    assert result == {"created": [], "removed": [], "kept": ["t1-cafe"], "failed": []}
    time.sleep(0.3)
    lines = []
    while (line := events.recv_event()) is not None:
        lines.append(line)
    assert not [ln for ln in lines if isinstance(E.parse_event(ln), E.BssDisabled)], lines
    assert "ceil 5Mbit" in vap_class(ap.ns)

    # updateVap: new rates on the running vAP, hostapd untouched
    new = {"down_kbps": 8000, "up_kbps": 0, "down_guaranteed_kbps": 2000}
    r = s2.request("updateVap", {"vap_id": "t1-cafe", "rate_limit": new})
    assert r["ok"] and r["result"]["vap"]["rate_limit"] == new, r
    assert "rate 2Mbit ceil 8Mbit" in vap_class(ap.ns)
    assert redirected(ap.ns, VAP_IF, "ingress") is None
    assert uplink_ifb(VAP_IF) not in ap.ns.exec(["ip", "-o", "link", "show", "type", "ifb"]).stdout
    time.sleep(0.3)
    while (line := events.recv_event()) is not None:
        assert not isinstance(E.parse_event(line), E.BssDisabled), line
    spec = {**spec, "rate_limit": new}

    # a second vAP through syncVaps, then the hardware limit (max_vaps=2) is reported as capacity
    result = s2.request("syncVaps", {"vaps": [spec, vap("v2", ssid="guest")]})["result"]
    assert result["created"] == ["v2"] and result["kept"] == ["t1-cafe"]
    full = s2.request("createVap", {"vap": vap("v3", ssid="third")})
    assert full["error"]["code"] == "capacity"
    status = s2.request("getStatus")["result"]
    assert status["vaps"] == 2 and status["radios"][0]["vaps_used"] == 2

    # delete: hostapd drops the BSS, its class and filters go with it; the radio's hierarchy stays
    assert s2.request("delVap", {"vap_id": "t1-cafe"})["ok"]
    s2.wait_event("vapState", vap_id="t1-cafe", state="removed")
    assert VAP_IF not in h.raw("INTERFACES")
    assert "clsact" not in qdiscs(ap.ns, VAP_IF) and vap_class(ap.ns).strip() == ""
    assert [ln.split()[1].rstrip(":") for ln in ap.ns.exec(["ip", "-o", "link", "show", "type", "ifb"]
                                                           ).stdout.splitlines()] == [IFB]
    assert s2.request("syncVaps", {"vaps": []})["result"]["removed"] == ["v2"]
    assert s.schema_errors == [] and s2.schema_errors == []
    events.close()
    h.close()

    # SIGTERM: the agent exits cleanly
    processes.stop(agent)
    assert agent.returncode == 0, processes.log_path(agent).read_text()[-2000:]


def test_wrong_secret_is_refused(wired_ap, veth, processes, sockdir):
    veth(None, wired_ap.ns, addr_a="10.66.2.1/30", addr_b="10.66.2.2/30")
    controller = TestController(host="10.66.2.1", secret=b"another-secret")
    try:
        cfg = agent_config(sockdir / "agent.json", wired_ap, controller.address, sockdir)
        processes.start([sys.executable, "-m", "wislice_ap_agent", "--config", str(cfg)], netns=wired_ap.ns,
                        log_name="ap-agent")
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and not controller.rejected:
            time.sleep(0.1)
        assert controller.rejected and controller.rejected[0] == "bad hmac"
        assert controller.sessions.empty()
    finally:
        controller.close()


def test_hostapd_restart_is_healed(setup, processes, sockdir):
    """hostapd crashes and comes back with only its primary BSS: the agent notices (PING), attaches again and adds
    the lost vAP back with its caps, without the controller doing anything."""
    ap, _, controller, _, _ = setup
    s = controller.next_session(timeout=20)
    assert s.request("createVap", {"vap": vap(rate_limit={"down_kbps": 5000, "up_kbps": 0})}, timeout=20)["ok"]
    processes.stop(ap.proc)
    ap.ns.exec(["tc", "qdisc", "del", "dev", VAP_IF, "clsact"])  # as if the netdev had gone with hostapd
    processes.start(["hostapd", "-g", ap.global_path, str(sockdir / "primary.conf")], netns=ap.ns,
                    log_name="hostapd-restarted")
    h = None
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            h = h or HostapdControl(ap.global_path, str(sockdir))
            if VAP_IF in h.raw("INTERFACES") and redirected(ap.ns, VAP_IF) == IFB:
                break
        except Exception:  # hostapd is still starting
            pass
        time.sleep(0.2)
    assert h is not None and h.status(VAP_IF)["state"] == "ENABLED"
    assert redirected(ap.ns, VAP_IF) == IFB and "ceil 5Mbit" in vap_class(ap.ns)
    assert s.request("getVaps")["result"]["vaps"][0]["state"] == "up"
    h.close()
