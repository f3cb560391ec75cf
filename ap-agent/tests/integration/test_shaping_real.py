"""Both shaping backends on a veth between two namespaces: a 5 Mbit/s downlink cap holds a TCP flow to
4.5-5.25 Mbit/s, the IFB uplink cap likewise, and remove() leaves nothing behind."""

from __future__ import annotations

import sys

import pytest
from conftest import iperf_mbps

pytestmark = pytest.mark.integration

# Runs inside the AP namespace: make_shaper(backend).apply(dev, down, up), or .remove(dev) when down == "remove".
SHAPE = ("import sys; from wislice_ap_agent.shaping import make_shaper; s = make_shaper(sys.argv[1]); "
         "s.remove(sys.argv[2]) if sys.argv[3] == 'remove' else "
         "s.apply(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))")


@pytest.mark.parametrize("backend", ["tc", "pyroute2"])
def test_caps_hold_for_tcp(backend, netns, veth, processes):
    ap, sta = netns("shap"), netns("shsta")
    pair = veth(ap, sta, addr_a="10.67.0.1/24", addr_b="10.67.0.2/24")
    ap.exec([sys.executable, "-c", SHAPE, backend, pair.a, "5000", "2000"])
    down = iperf_mbps(ap, sta, processes, "10.67.0.2", 5311)
    up = iperf_mbps(ap, sta, processes, "10.67.0.2", 5312, reverse=True)
    print(f"{backend}: downlink cap 5 Mbit/s -> {down:.2f}, uplink cap 2 Mbit/s -> {up:.2f}")
    assert 4.5 <= down <= 5.25
    assert 1.8 <= up <= 2.1
    ap.exec([sys.executable, "-c", SHAPE, backend, pair.a, "remove", "0"])
    assert "htb" not in ap.exec(["tc", "qdisc", "show", "dev", pair.a]).stdout
    assert "ingress" not in ap.exec(["tc", "qdisc", "show", "dev", pair.a]).stdout
    assert ap.exec(["ip", "-o", "link", "show", "type", "ifb"]).stdout.strip() == ""
