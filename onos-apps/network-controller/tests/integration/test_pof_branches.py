"""A slice path with a branch on real pofswitches (docs/mobility.md): the downlink follows the client.

Topology: h1 ("AP1's client", port 1) and h3 ("AP2's client", port 3) on sw1 (dev 11), sw1 port 2 == link ==
sw2 (dev 12) port 1, h2 ("the MEC side", port 2) on sw2. Main path h1 -> sw1 1->2 -> sw2 1->2 -> h2; branch "ap2":
sw1 3->2, joining the main path on sw1. Down, sw1's client table sends h3's frames to port 3 once h3 is placed on
the branch, and everything else (the default entry) to h1.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pof_helpers import flows_of, start_pofswitch
from wislice_testbed.topology.pofswitch import offloads_off

pytestmark = pytest.mark.integration

SW1, SW2 = "pof:0000000b", "pof:0000000c"


def ping(ns: Any, ip: str, count: int = 3) -> bool:
    return ns.exec(["ping", "-c", str(count), "-i", "0.2", "-W", "1", ip], check=False,
                   capture_output=True).returncode == 0


def mac_of(ns: Any, ifname: str) -> str:
    return ns.exec(["cat", f"/sys/class/net/{ifname}/address"], capture_output=True, text=True).stdout.strip()


@pytest.fixture
def branched(onos: Any, netns: Any, veth: Any, processes: Any, pofswitch_binary: Path,
             tmp_path: Path) -> Any:
    h1, h2, h3 = netns("b1"), netns("b2"), netns("b3")
    e1 = veth(h1, None, addr_a="10.78.0.1/24")
    e2 = veth(h2, None, addr_a="10.78.0.2/24")
    e3 = veth(h3, None, addr_a="10.78.0.3/24")
    link = veth(None, None, mtu=1600)  # the tag word's 4 bytes between switches
    for ns, ifname in ((h1, e1.a), (None, e1.b), (h2, e2.a), (None, e2.b), (h3, e3.a), (None, e3.b),
                       (None, link.a), (None, link.b)):
        offloads_off(ifname, ns.name if ns else None)
    start_pofswitch(processes, pofswitch_binary, tmp_path, 11, [e1.b, link.a, e3.b], onos)
    start_pofswitch(processes, pofswitch_binary, tmp_path, 12, [link.b, e2.b], onos)

    def both_up() -> bool:
        devices = {d["id"]: d for d in onos.get("/onos/v1/devices")["devices"]}
        return all(devices.get(d, {}).get("available") for d in (SW1, SW2))

    onos.wait_for("both switches available in ONOS", both_up)
    yield h1, h2, h3, e3.a
    onos.request("DELETE", "/onos/pof/slices/it-branch")


def test_the_downlink_follows_a_client_placed_on_a_branch(onos: Any, branched: Any) -> None:
    h1, h2, h3, h3_if = branched
    body = {"slice_id": "it-branch", "tenant_id": 9,
            "hops": [{"device_id": SW1, "in_port": 1, "out_port": 2}, {"device_id": SW2, "in_port": 1, "out_port": 2}],
            "branches": [{"branch_id": "ap2", "hops": [{"device_id": SW1, "in_port": 3, "out_port": 2}]}]}
    code, sl = onos.request("POST", "/onos/pof/slices", body)
    assert code == 201, sl
    assert sl["branches"][0]["branch_id"] == "ap2" and sl["clients"] == [], sl
    # pof-switch took the client table, the GOTO into it and its default entry: the main path forwards.
    ours = [f for f in flows_of(onos, SW1) if f["appId"] == "org.wislice.pof"]
    assert len(ours) == 4 and all(f["state"] == "ADDED" for f in ours), ours
    assert ping(h1, "10.78.0.2"), "the main path does not forward h1 <-> h2"
    # h3's uplink reaches h2 (the branch joins on sw1), but h2's answers follow the default entry to h1.
    assert not ping(h3, "10.78.0.2", count=2)

    mac = mac_of(h3, h3_if)
    code, placed = onos.request("PUT", f"/onos/pof/slices/it-branch/clients/{mac}", {"branch": "ap2"})
    assert code == 200, placed
    assert placed["branch"] == "ap2" and 0 <= placed["switched_ms"] < 5000, placed
    assert ping(h3, "10.78.0.2"), "h3 placed on its branch gets no answers"
    assert ping(h1, "10.78.0.2"), "h1 lost the main path when h3 was placed"
    clients = onos.get("/onos/pof/slices/it-branch/clients")["clients"]
    assert [(c["mac"], c["branch"]) for c in clients] == [(mac, "ap2")], clients

    code, _ = onos.request("DELETE", f"/onos/pof/slices/it-branch/clients/{mac}")
    assert code == 204
    assert not ping(h3, "10.78.0.2", count=2), "h3 still gets answers after its placement was removed"

    code, _ = onos.request("DELETE", "/onos/pof/slices/it-branch")
    assert code == 204
    onos.wait_for("branch flows gone", lambda: not [
        f for d in (SW1, SW2) for f in flows_of(onos, d) if f["appId"] == "org.wislice.pof"])
