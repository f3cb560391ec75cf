"""The ap-agent inside the AP VM, driven by a controller on the host over spec/agent: vAPs on real hostapd,
stations associating over mac80211_hwsim, events back to the controller, channel switch, client kick, the radio's
downlink hierarchy (skbedit + fq_codel, which the host kernel lacks) with a capacity measured from the stations' PHY
rates, updateVap, and caps measured with TCP."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from typing import Any

import pytest
from apvm import ApVm
from conftest import AgentRun
from wifi import Station

from wislice_ap_agent.radio_qos import radio_ifb

IFB = radio_ifb("phy0")

PASS_WPA2 = "vm agent wpa2 pass"
PASS_SAE = "vm agent sae pass"


def vap(vap_id: str, ssid: str, mode: str = "open", passphrase: str | None = None, down_kbps: int = 0,
        down_guaranteed_kbps: int = 0, **extra: Any) -> dict[str, Any]:
    security: dict[str, Any] = {"mode": mode}
    if passphrase is not None:
        security["passphrase"] = passphrase
    rates = {"down_kbps": down_kbps, "up_kbps": 0}
    if down_guaranteed_kbps:
        rates["down_guaranteed_kbps"] = down_guaranteed_kbps
    return {"vap_id": vap_id, "radio": "phy0", "ssid": ssid, "security": security, "tenant_id": 1,
            "slice_id": "s-1", "rate_limit": rates, **extra}


@pytest.fixture
def vaps(agent: AgentRun) -> Iterator[list[str]]:
    """vAP ids a test created; deleted through the agent afterwards (quietly if already gone)."""
    created: list[str] = []
    yield created
    for vap_id in created:
        agent.ctl.request("delVap", {"vap_id": vap_id})


def create(agent: AgentRun, vaps: list[str], spec: dict[str, Any]) -> dict[str, Any]:
    reply = agent.ctl.request("createVap", {"vap": spec}, timeout=30)
    assert reply["ok"], f"createVap {spec['vap_id']}: {reply.get('error')}\n{agent.log()}"
    vaps.append(spec["vap_id"])
    return reply["result"]["vap"]


def test_hello_and_status(vm: ApVm, agent: AgentRun) -> None:
    hello = agent.ctl.hello
    assert hello is not None and hello["role"] == "ap" and hello["agent_id"] == "ap-vm-1"
    radio = hello["capabilities"]["radios"][0]
    assert radio["name"] == "phy0" and radio["channel"] == 1 and radio["hw_mode"] == "g"
    assert radio["capacity_source"] in ("default", "measured") and radio["capacity_kbps"] > 0
    status = agent.ctl.call("getStatus")
    assert status["agent_id"] == "ap-vm-1" and status["vaps"] == 0
    assert agent.ctl.schema_errors == []


def test_open_wpa2_sae_vaps_associate_and_report(agent: AgentRun, vaps: list[str],
                                                 clean_stations: list[Station]) -> None:
    sta1, sta2, sta3 = clean_stations
    states = [create(agent, vaps, vap("v-open", "agent-open")),
              create(agent, vaps, vap("v-wpa2", "agent-wpa2", "wpa2-psk", PASS_WPA2)),
              create(agent, vaps, vap("v-sae", "agent-sae", "wpa3-sae", PASS_SAE))]
    assert [s["state"] for s in states] == ["up", "up", "up"]
    assert len({s["bssid"] for s in states}) == 3
    assert all("passphrase" not in s["security"] for s in states)
    beaconing = agent.vm.run("iw dev | grep ssid").out
    for ssid in ("agent-open", "agent-wpa2", "agent-sae"):
        assert f"ssid {ssid}" in beaconing

    sta1.connect("agent-open")
    sta2.connect("agent-wpa2", "wpa2-psk", PASS_WPA2)
    sta3.connect("agent-sae", "wpa3-sae", PASS_SAE)
    for sta, vap_id in ((sta1, "v-open"), (sta2, "v-wpa2"), (sta3, "v-sae")):
        sta.wait_associated()
        agent.ctl.wait_event("clientAssociated", vap_id=vap_id, mac=sta.mac())
    clients = agent.ctl.call("getClient", {"vap_id": "v-wpa2"})["clients"]
    assert [c["mac"] for c in clients] == [sta2.mac()]

    # Removing a vAP drops its own station (event) and no other.
    agent.ctl.call("delVap", {"vap_id": "v-open"})
    agent.ctl.wait_event("clientDisassociated", vap_id="v-open", mac=sta1.mac())
    sta1.wait_disassociated()
    assert sta2.state()["wpa_state"] == "COMPLETED"
    assert sta3.state()["wpa_state"] == "COMPLETED"
    assert {v["vap_id"] for v in agent.ctl.call("getVaps")["vaps"]} == {"v-wpa2", "v-sae"}
    assert "ssid agent-open" not in agent.vm.run("iw dev").out

    # removeClient kicks one station.
    agent.ctl.call("removeClient", {"mac": sta3.mac(), "vap_id": "v-sae"})
    agent.ctl.wait_event("clientDisassociated", vap_id="v-sae", mac=sta3.mac())
    assert agent.ctl.schema_errors == []


def test_change_channel_moves_the_radio(agent: AgentRun, vaps: list[str]) -> None:
    create(agent, vaps, vap("v-chan", "agent-chan"))
    result = agent.ctl.call("changeChannel", {"radio": "phy0", "channel": 6, "cs_count": 3})
    assert result["radio"]["channel"] == 6
    agent.vm.wait_for("iw dev wlan0 info | grep -q 'channel 6 '", timeout=20)
    agent.vm.wait_for("iw dev wlan0_1 info | grep -q 'channel 6 '", timeout=20)
    # And back, so the other tests keep their stations on the channel they scan first.
    agent.ctl.call("changeChannel", {"radio": "phy0", "channel": 1, "cs_count": 3})
    agent.vm.wait_for("iw dev wlan0 info | grep -q 'channel 1 '", timeout=20)


def iperf_mbps(agent: AgentRun, sta: Station, server_ip: str, uplink: bool = False) -> float:
    """TCP goodput AP -> station (iperf3 -R: the AP-side server sends through the vAP's egress), or station -> AP
    with ``uplink`` (through the vAP's ingress, where the agent redirects to its IFB shaper)."""
    agent.vm.spawn(f"iperf3 -s -1 -B {server_ip}", log="/tmp/iperf3-server.log")
    agent.vm.wait_for("netstat -ltn | grep -q ':5201 '", timeout=15)
    reverse = "" if uplink else "-R"
    res = sta.exec(f"iperf3 -c {server_ip} {reverse} -t 8 -O 2 -J", timeout=60)
    return json.loads(res.out)["end"]["sum_received"]["bits_per_second"] / 1e6


def test_downlink_cap_holds_for_tcp(agent: AgentRun, vaps: list[str], clean_stations: list[Station]) -> None:
    spec = vap("v-cap", "agent-cap", "wpa2-psk", PASS_WPA2)
    ifname = create(agent, vaps, spec)["ifname"]
    sta = clean_stations[1]
    agent.vm.run(f"ip addr replace 192.168.50.1/24 dev {ifname}")
    sta.connect("agent-cap", "wpa2-psk", PASS_WPA2, address="192.168.50.2/24")
    sta.wait_associated()
    uncapped = iperf_mbps(agent, sta, "192.168.50.1")

    # The cap changes in place (syncVaps keeps the vAP): the station stays associated.
    capped_spec = {**spec, "rate_limit": {"down_kbps": 5000, "up_kbps": 0}}
    result = agent.ctl.call("syncVaps", {"vaps": [capped_spec]})
    assert result["kept"] == ["v-cap"] and result["created"] == []
    assert sta.state()["wpa_state"] == "COMPLETED"
    capped = iperf_mbps(agent, sta, "192.168.50.1")
    qdisc = agent.vm.run(f"tc -s class show dev {IFB}").out
    print(f"downlink TCP: uncapped {uncapped:.2f} Mbit/s, 5 Mbit/s cap {capped:.2f} Mbit/s")
    if uncapped < 10.0:  # 2x the cap
        # The emulated CPU, not the shaper, limits the flow: on a host this loaded the vCPUs are descheduled for
        # longer than the shaper's burst lasts (measured: uncapped 8.4 -> capped 4.2 Mbit/s at load 15), so a
        # cap measurement would mean nothing. On an idle host uncapped is 19-41 Mbit/s and the test runs.
        pytest.skip(f"AP VM too CPU-starved to test a 5 Mbit/s cap: uncapped TCP only {uncapped:.2f} Mbit/s "
                    f"(host load average {os.getloadavg()[0]:.1f})")
    assert 4.5 <= capped <= 5.25, f"5 Mbit/s cap gave {capped:.2f} Mbit/s (uncapped {uncapped:.2f})\n{qdisc}"


def tc_kbit(rate: str) -> float:
    """A rate as tc prints it (8Kbit, 2500Kbit, 24Mbit, 1200bit) in kbit/s."""
    for unit, scale in (("Gbit", 1e6), ("Mbit", 1e3), ("Kbit", 1.0), ("bit", 1e-3)):
        if rate.endswith(unit):
            return float(rate[: -len(unit)]) * scale
    raise ValueError(rate)


def test_radio_hierarchy_measured_capacity_and_update(agent: AgentRun, vaps: list[str],
                                                     clean_stations: list[Station]) -> None:
    """The production path: every netdev of the radio redirected (skbedit priority + mirred) into one HTB on the
    radio's IFB with fq_codel leaves; the capacity measured from the station's PHY rate reaches the controller in
    a stats event and re-rates the root; updateVap changes the vAP's class while its station stays associated."""
    state = create(agent, vaps, vap("v-qos", "agent-qos", "wpa2-psk", PASS_WPA2, down_guaranteed_kbps=4000))
    ifname, slot = state["ifname"], int(state["ifname"].rsplit("_", 1)[1])
    classid = f"1:{0x100 + slot:x}"
    qdiscs = agent.vm.run(f"tc qdisc show dev {IFB}").out
    assert "htb 1: root" in qdiscs and qdiscs.count("fq_codel") >= 2, qdiscs
    for dev, cls in (("wlan0", "1:100"), (ifname, classid)):
        flt = agent.vm.run(f"tc filter show dev {dev} egress").out
        assert f"priority {cls}" in flt and f"Redirect to device {IFB}" in flt, flt
    assert "rate 4Mbit" in agent.vm.run(f"tc class show dev {IFB} classid {classid}").out

    sta = clean_stations[0]
    agent.vm.run(f"ip addr replace 192.168.52.1/24 dev {ifname}")
    sta.connect("agent-qos", "wpa2-psk", PASS_WPA2, address="192.168.52.2/24")
    sta.wait_associated()
    agent.ctl.wait_event("clientAssociated", vap_id="v-qos", mac=sta.mac())
    # rate control finds the station's PHY rate once frames flow; until then the capacity does not move
    mbps = iperf_mbps(agent, sta, "192.168.52.1")
    agent.ctl.drain_events()
    deadline = time.monotonic() + 30
    while True:
        radio = agent.ctl.wait_event("stats", timeout=30)["data"]["radios"][0]
        if radio["capacity_source"] == "measured" or time.monotonic() > deadline:
            break
    capacity = radio["capacity_kbps"]
    root = agent.vm.run(f"tc class show dev {IFB} classid 1:1").out
    phy = agent.vm.run(f"iw dev {ifname} station dump | grep 'tx bitrate'", check=False).out.strip()
    print(f"downlink {mbps:.1f} Mbit/s (guarantee 4, uncapped); measured capacity {capacity} kbit/s; station {phy}; "
          f"{root.strip()}")
    assert radio["capacity_source"] == "measured", (radio, phy)
    assert 1000 <= capacity <= 300000
    assert 0.75 * capacity <= tc_kbit(root.split(" rate ")[1].split()[0]) <= 1.25 * capacity

    rates = {"down_kbps": 6000, "up_kbps": 0, "down_guaranteed_kbps": 2000}
    assert agent.ctl.call("updateVap", {"vap_id": "v-qos", "rate_limit": rates})["vap"]["rate_limit"] == rates
    assert "rate 2Mbit ceil 6Mbit" in agent.vm.run(f"tc class show dev {IFB} classid {classid}").out
    assert sta.state()["wpa_state"] == "COMPLETED"
    assert [e for e in agent.ctl.drain_events() if e["event"] == "clientDisassociated"] == []
    assert agent.ctl.schema_errors == []


def test_uplink_cap_holds_for_tcp(agent: AgentRun, vaps: list[str], clean_stations: list[Station]) -> None:
    spec = vap("v-upcap", "agent-upcap", "wpa2-psk", PASS_WPA2)
    ifname = create(agent, vaps, spec)["ifname"]
    sta = clean_stations[2]
    agent.vm.run(f"ip addr replace 192.168.51.1/24 dev {ifname}")
    sta.connect("agent-upcap", "wpa2-psk", PASS_WPA2, address="192.168.51.2/24")
    sta.wait_associated()
    uncapped = iperf_mbps(agent, sta, "192.168.51.1", uplink=True)
    result = agent.ctl.call("syncVaps", {"vaps": [{**spec, "rate_limit": {"down_kbps": 0, "up_kbps": 3000}}]})
    assert result["kept"] == ["v-upcap"]
    capped = iperf_mbps(agent, sta, "192.168.51.1", uplink=True)
    print(f"uplink TCP: uncapped {uncapped:.2f} Mbit/s, 3 Mbit/s cap {capped:.2f} Mbit/s")
    if uncapped < 6.0:  # 2x the cap
        pytest.skip(f"AP VM too CPU-starved to test a 3 Mbit/s cap: uncapped TCP only {uncapped:.2f} Mbit/s "
                    f"(host load average {os.getloadavg()[0]:.1f})")
    assert 2.7 <= capped <= 3.15, f"3 Mbit/s uplink cap gave {capped:.2f} Mbit/s (uncapped {uncapped:.2f})"


def test_reconnect_converges_without_touching_matching_vaps(agent: AgentRun, vaps: list[str],
                                                            clean_stations: list[Station]) -> None:
    keep = vap("v-keep", "agent-keep", "wpa2-psk", PASS_WPA2)
    create(agent, vaps, keep)
    create(agent, vaps, vap("v-extra", "agent-extra"))
    sta = clean_stations[0]
    sta.connect("agent-keep", "wpa2-psk", PASS_WPA2)
    sta.wait_associated()
    agent.ctl.wait_event("clientAssociated", vap_id="v-keep", mac=sta.mac())

    sessions = agent.ctl.sessions
    agent.ctl.drop_connection()
    agent.ctl.wait_connected(timeout=60)  # the agent dials again after its 1 s (+-20 %) backoff
    assert agent.ctl.sessions == sessions + 1
    wanted = [keep, vap("v-new", "agent-new")]
    result = agent.ctl.call("syncVaps", {"vaps": wanted})
    vaps.append("v-new")
    assert result == {"created": ["v-new"], "removed": ["v-extra"], "kept": ["v-keep"], "failed": []}
    assert sta.state()["wpa_state"] == "COMPLETED"
    disassoc = [e for e in agent.ctl.drain_events() if e["event"] == "clientDisassociated"]
    assert disassoc == [], "syncVaps touched a vAP that already matched"
    assert agent.ctl.schema_errors == []


# Found by this test: the agent once returned the welcome and dropped every other line read with it (fixed in
# faa8587), losing a syncVaps sent right behind the welcome.
def test_request_in_the_same_segment_as_welcome_is_served(agent: AgentRun) -> None:
    """A controller may push syncVaps right behind the welcome (protocol step 4); TCP can deliver both in one read."""
    agent.ctl.sync_with_welcome = []
    agent.ctl.drop_connection()
    agent.ctl.wait_connected(timeout=60)
    rid = agent.ctl.sync_request_id
    assert rid is not None
    reply = agent.ctl.wait_reply(rid, timeout=8)
    assert reply["ok"], reply


@pytest.mark.parametrize(("spec", "fragment"), [
    (vap("v-bad1", "evil\nwpa_passphrase=x"), "ssid"),
    (vap("v-bad2", "x" * 33), "ssid"),
    (vap("v-bad3", "ok-ssid", "wpa2-psk", "short"), "passphrase"),
    (vap("v-bad4", "ok-ssid", "wpa2-psk", "good passphrase\nctrl_interface=/tmp"), "passphrase"),
    (vap("v-bad5", "ok-ssid", "wpa3-sae", "pass\x7fword!"), "passphrase"),
    (vap("v-bad6", "ok-ssid", "wpa2-psk", None), "passphrase"),
    (vap("v-bad7", "ok-ssid", bssid_override="02:00:00:00:00:99"), "bssid_override"),
])
def test_malicious_vap_specs_are_rejected(agent: AgentRun, spec: dict[str, Any], fragment: str) -> None:
    before = agent.vm.run("ls /run/hostapd").out
    reply = agent.ctl.request("createVap", {"vap": spec})
    assert not reply["ok"]
    assert reply["error"]["code"] == "bad_request"
    assert fragment in reply["error"]["message"]
    assert agent.vm.run("ls /run/hostapd").out == before  # nothing reached hostapd
    assert agent.ctl.call("getVaps")["vaps"] == []
