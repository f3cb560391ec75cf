"""Two vAPs of one "radio" (capacity 20 Mbit/s, set by the operator) compete for the downlink: vAP A has a
guaranteed rate, vAP B is uncapped and pushed by 10 TCP flows. A keeps its guarantee and the radio never sends more
than its capacity. Then updateVap raises A's guarantee above an equal share of the radio (14 of 20 Mbit/s), on the
running vAP: A follows. The agent is the real process next to the real hostapd (driver=wired on veths)."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest
from conftest import PRIMARY, add_veth, agent_config, need
from support.controller import TestController

pytestmark = pytest.mark.integration

CAPACITY = 20000


def vap(vap_id, ssid, **rates):
    return {"vap_id": vap_id, "radio": "phy0", "ssid": ssid, "security": {"mode": "open"}, "tenant_id": 1,
            "slice_id": f"s-{vap_id}", "rate_limit": {"down_kbps": 0, "up_kbps": 0, **rates}}


def interval_mbps(result: dict, start: float = 0.0, end: float = 1e9) -> float:
    """Mean received rate over the intervals that start within [start, end) (seconds from the client's start)."""
    rates = [i["sum"]["bits_per_second"] for i in result["intervals"]
             if not i["sum"].get("omitted") and start <= i["sum"]["start"] < end]
    assert rates, result.get("error")
    return sum(rates) / len(rates) / 1e6


def compete(ap_ns, sta_a, sta_b, processes, tmp: Path, udp_mbps: int) -> tuple[float, float, float]:
    """B: 10 TCP flows towards its station for 11 s; A: UDP at udp_mbps towards its station, started 2 s later for
    8 s (the first second omitted). Returns A's loss (%), A's rate and B's rate over A's run, in Mbit/s."""
    for port in (5401, 5402):
        processes.start(["iperf3", "-s", "-1", "-p", str(port)], netns=ap_ns, log_name=f"iperf3-s{port}")
    time.sleep(0.5)
    b_log, a_log = tmp / f"b{udp_mbps}.json", tmp / f"a{udp_mbps}.json"
    # -R: the AP-side server sends, through the vAP netdev's egress (the downlink); the station's client measures
    b = processes.start(["iperf3", "-c", "10.68.2.1", "-p", "5402", "-R", "-P", "10", "-t", "11", "-J",
                         "--logfile", str(b_log)], netns=sta_b, log_name="iperf3-b")
    time.sleep(2)
    a = processes.start(["iperf3", "-c", "10.68.1.1", "-p", "5401", "-R", "-u", "-b", f"{udp_mbps}M", "-t", "8",
                         "-O", "1", "-J", "--logfile", str(a_log)], netns=sta_a, log_name="iperf3-a")
    a.wait(30)
    b.wait(30)
    ra, rb = json.loads(a_log.read_text()), json.loads(b_log.read_text())
    loss = ra["end"]["sum"].get("lost_percent", 0.0)
    return loss, interval_mbps(ra), interval_mbps(rb, 3.0, 10.0)


def test_guarantee_holds_against_ten_tcp_flows(wired_ap, netns, veth, processes, sockdir, tmp_path):
    need("iperf3")
    ap = wired_ap
    stations = []
    for slot in (1, 2):
        sta = netns(f"gsta{slot}")
        add_veth(ap.ns, f"{PRIMARY}_{slot}", f"{PRIMARY}_{slot}p", peer_ns=sta)
        ap.ns.exec(["ip", "addr", "add", f"10.68.{slot}.1/24", "dev", f"{PRIMARY}_{slot}"])
        sta.exec(["ip", "addr", "add", f"10.68.{slot}.2/24", "dev", f"{PRIMARY}_{slot}p"])
        stations.append(sta)
    veth(None, ap.ns, addr_a="10.66.4.1/30", addr_b="10.66.4.2/30")
    controller = TestController(host="10.66.4.1")
    try:
        cfg = agent_config(sockdir / "agent.json", ap, controller.address, sockdir, log_level="INFO")
        conf = json.loads(cfg.read_text())
        conf["radios"][0]["capacity_kbps"] = CAPACITY
        cfg.write_text(json.dumps(conf))
        processes.start([sys.executable, "-m", "wislice_ap_agent", "--config", str(cfg)], netns=ap.ns,
                        log_name="ap-agent")
        s = controller.next_session(timeout=20)
        radio = s.hello["capabilities"]["radios"][0]
        assert (radio["capacity_kbps"], radio["capacity_source"]) == (CAPACITY, "operator")
        assert s.request("createVap", {"vap": vap("a", "slice-a", down_guaranteed_kbps=8000)}, timeout=20)["ok"]
        assert s.request("createVap", {"vap": vap("b", "slice-b")}, timeout=20)["ok"]

        loss, a, b = compete(ap.ns, stations[0], stations[1], processes, tmp_path, 8)
        print(f"\nguarantee 8 Mbit/s: A (UDP 8 Mbit/s) {a:.2f} Mbit/s, loss {loss:.2f} %; B (10 TCP) {b:.2f}; "
              f"total {a + b:.2f} of {CAPACITY / 1000:.0f}")
        assert a >= 0.95 * 8
        assert a + b <= 1.05 * CAPACITY / 1000
        assert b >= 0.5 * (CAPACITY / 1000 - 8)  # work-conserving: B gets what A leaves

        r = s.request("updateVap", {"vap_id": "a", "rate_limit": {"down_kbps": 0, "up_kbps": 0,
                                                                 "down_guaranteed_kbps": 14000}})
        assert r["ok"], r
        loss, a, b = compete(ap.ns, stations[0], stations[1], processes, tmp_path, 14)
        print(f"guarantee 14 Mbit/s: A (UDP 14 Mbit/s) {a:.2f} Mbit/s, loss {loss:.2f} %; B (10 TCP) {b:.2f}; "
              f"total {a + b:.2f}")
        assert a >= 0.95 * 14  # more than an equal share of the radio (10): the guarantee, not fairness
        assert a + b <= 1.05 * CAPACITY / 1000
        assert s.schema_errors == []
    finally:
        controller.close()
