"""The radio's downlink hierarchy on a real kernel, with both backends: a primary netdev and two vAP netdevs in an
AP namespace, each a veth to its own station namespace. A vAP's 5 Mbit/s downlink cap and 2 Mbit/s uplink cap
hold for TCP; both backends build the same classes; removing the radio leaves nothing behind.

This host's kernel has no act_skbedit and no fq_codel (docs/runtime-facts.md): the backends detect that and classify
with nftables, leaves keep pfifo; the AP VM (tests/integration/vm) runs the skbedit + fq_codel path."""

from __future__ import annotations

import json
import re
import sys

import pytest
from conftest import iperf_mbps

from wislice_ap_agent.radio_qos import radio_ifb, uplink_ifb

pytestmark = pytest.mark.integration

IFB = radio_ifb("phy0")

# Runs inside the AP namespace: one shaper, the operations given as JSON ([[method, *args], ...]).
SHAPE = ("import json, sys; from wislice_ap_agent.shaping import make_shaper; s = make_shaper(sys.argv[1]); "
         "[getattr(s, op[0])(*op[1:]) for op in json.loads(sys.argv[2])]")


def shape(ns, backend: str, *ops: list) -> None:
    ns.exec([sys.executable, "-c", SHAPE, backend, json.dumps(ops)])


def classes(ns) -> str:
    """The radio's classes as the kernel reports them, without counters."""
    out = ns.exec(["tc", "class", "show", "dev", IFB]).stdout
    return "\n".join(sorted(re.sub(r"\s+", " ", line).strip() for line in out.splitlines() if line.strip()))


@pytest.fixture
def radio(netns, veth):
    ap = netns("shap")
    stations = []
    for i, dev in enumerate(("apw0", "apw0_1", "apw0_2")):
        sta = netns(f"shsta{i}")
        veth(ap, sta, name_a=dev, addr_a=f"10.67.{i}.1/24", addr_b=f"10.67.{i}.2/24")
        stations.append(sta)
    return ap, stations


@pytest.mark.parametrize("backend", ["tc", "pyroute2"])
def test_vap_caps_hold_in_the_radio_hierarchy(backend, radio, processes):
    ap, (_, sta1, _) = radio
    shape(ap, backend, ["add_radio", "phy0", "apw0", 20000],
          ["apply", "phy0", "apw0_1", 1, {"down_kbps": 5000, "up_kbps": 2000, "down_guaranteed_kbps": 1000}],
          ["apply", "phy0", "apw0_2", 2, {"down_kbps": 0, "up_kbps": 0}])
    print(ap.exec(["tc", "-s", "class", "show", "dev", IFB]).stdout)
    down = iperf_mbps(ap, sta1, processes, "10.67.1.2", 5311)
    up = iperf_mbps(ap, sta1, processes, "10.67.1.2", 5312, reverse=True)
    stats = ap.exec(["tc", "-s", "class", "show", "dev", IFB, "classid", "1:101"]).stdout
    print(f"{backend}: downlink cap 5 Mbit/s -> {down:.2f}, uplink cap 2 Mbit/s -> {up:.2f}\n{stats}")
    assert 4.5 <= down <= 5.25
    assert 1.8 <= up <= 2.1
    sent = int(re.search(r"Sent (\d+) bytes", stats).group(1))
    assert sent > 2_000_000  # the downlink went through the vAP's class, not the default one

    shape(ap, backend, ["add_radio", "phy0", "apw0", 20000], ["apply", "phy0", "apw0_1", 1, {"down_kbps": 5000,
          "up_kbps": 2000, "down_guaranteed_kbps": 1000}], ["apply", "phy0", "apw0_2", 2, {"down_kbps": 0,
          "up_kbps": 0}], ["remove_radio", "phy0"])
    assert ap.exec(["ip", "-o", "link", "show", "type", "ifb"]).stdout.strip() == ""
    for dev in ("apw0", "apw0_1", "apw0_2"):
        assert "clsact" not in ap.exec(["tc", "qdisc", "show", "dev", dev]).stdout
    assert "chain" not in ap.exec(["nft", "list", "ruleset"], check=False).stdout


def test_both_backends_build_the_same_hierarchy(radio):
    ap, _ = radio
    ops = [["add_radio", "phy0", "apw0", 30000],
           ["apply", "phy0", "apw0_1", 1, {"down_kbps": 12000, "up_kbps": 3000, "down_guaranteed_kbps": 6000}],
           ["apply", "phy0", "apw0_2", 2, {"down_kbps": 0, "up_kbps": 0, "down_guaranteed_kbps": 2500}],
           ["set_capacity", "phy0", 24000]]
    built = {}
    for backend in ("tc", "pyroute2"):
        shape(ap, backend, *ops)
        built[backend] = (classes(ap), ap.exec(["tc", "class", "show", "dev", uplink_ifb("apw0_1")]).stdout,
                          ap.exec(["tc", "filter", "show", "dev", "apw0_1", "egress"]).stdout.count("mirred"))
        shape(ap, backend, *ops, ["remove_radio", "phy0"])
        assert ap.exec(["ip", "-o", "link", "show", "type", "ifb"]).stdout.strip() == ""
    print(built["tc"][0])
    assert built["tc"] == built["pyroute2"]
    tc_classes = built["tc"][0]
    assert "class htb 1:1 root rate 24Mbit ceil 24Mbit" in tc_classes
    assert "class htb 1:100 parent 1:1 leaf 100: prio 7 rate 240Kbit ceil 24Mbit" in tc_classes \
        or "class htb 1:100 parent 1:1 prio 7 rate 240Kbit ceil 24Mbit" in tc_classes
    assert re.search(r"class htb 1:101 parent 1:1 (leaf 101: )?prio 1 rate 6Mbit ceil 12Mbit", tc_classes)
    assert re.search(r"class htb 1:102 parent 1:1 (leaf 102: )?prio 1 rate 2500Kbit ceil 24Mbit", tc_classes)
