"""The network controller in the real ONOS runtime driving real pofswitch processes.

Topology: h1 (netns) -- sw1 (dev 1) == link == sw2 (dev 2) -- h2 (netns); pofswitch-afp on the host ends. The
meter capability test adds a reference-like switch (fake_reference_switch.py) on its own.
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path
from typing import Any

import pytest
from pof_helpers import flows_of, mgmt, start_pofswitch
from wislice_testbed.topology.pofswitch import offloads_off
from fake_reference_switch import FakeReferenceSwitch

pytestmark = pytest.mark.integration

SW1, SW2 = "pof:00000001", "pof:00000002"
RATE_KBPS = 20000


def ping(ns: Any, ip: str, count: int = 3) -> bool:
    return ns.exec(["ping", "-c", str(count), "-i", "0.2", "-W", "1", ip], check=False,
                   capture_output=True).returncode == 0


def tcp_mbps(processes: Any, client: Any, server: Any, ip: str, seconds: int = 3) -> float:
    """Goodput of one TCP stream through the slice, measured by iperf3 at the receiver."""
    srv = processes.start(server.argv(["iperf3", "-s", "-1", "-B", ip]), log_name="iperf3-server")
    try:
        deadline = time.monotonic() + 5
        while ":5201" not in server.exec(["ss", "-ltn"], capture_output=True, text=True).stdout:
            assert time.monotonic() < deadline, "iperf3 server did not listen"
            time.sleep(0.05)
        out = client.exec(["iperf3", "-c", ip, "-t", str(seconds), "-J", "--connect-timeout", "3000"],
                          capture_output=True, text=True, timeout=seconds + 20).stdout
    finally:
        processes.stop(srv)
    result = json.loads(out)
    assert "error" not in result, result["error"]
    return result["end"]["sum_received"]["bits_per_second"] / 1e6


@pytest.fixture
def two_switches(onos: Any, netns: Any, veth: Any, processes: Any, pofswitch_binary: Path,
                 tmp_path: Path) -> tuple[Any, Any]:
    h1, h2 = netns("h1"), netns("h2")
    e1 = veth(h1, None, addr_a="10.77.0.1/24")
    e2 = veth(h2, None, addr_a="10.77.0.2/24")
    # The slice tag adds 4 bytes between switches: the inter-switch link carries 1504-byte IP packets.
    link = veth(None, None, mtu=1600)
    for ns, ifname in ((h1, e1.a), (None, e1.b), (h2, e2.a), (None, e2.b), (None, link.a), (None, link.b)):
        offloads_off(ifname, ns.name if ns else None)
    start_pofswitch(processes, pofswitch_binary, tmp_path, 1, [e1.b, link.a], onos)
    start_pofswitch(processes, pofswitch_binary, tmp_path, 2, [link.b, e2.b], onos)

    def both_up() -> bool:
        devices = {d["id"]: d for d in onos.get("/onos/v1/devices")["devices"]}
        return all(devices.get(d, {}).get("available") for d in (SW1, SW2))

    onos.wait_for("both switches available in ONOS", both_up)
    yield h1, h2
    for sid in [s["slice_id"] for s in onos.get("/onos/pof/slices")["slices"]]:
        onos.request("DELETE", f"/onos/pof/slices/{sid}")


def test_switches_ports_flows_meters_and_slice_forwarding(onos: Any, two_switches: tuple[Any, Any],
                                                          processes: Any) -> None:
    h1, h2 = two_switches
    # Devices and ports through ONOS REST, the contract's view and the CLI.
    for dev in (SW1, SW2):
        ports = [p for p in onos.get(f"/onos/v1/devices/{dev}/ports")["ports"] if p["port"] != "local"]
        assert sorted(p["port"] for p in ports) == ["1", "2"], ports
        assert all(p["isEnabled"] for p in ports)
    switches = {s["device_id"]: s for s in onos.get("/onos/pof/switches")["switches"]}
    assert switches[SW1]["connected"] and [p["name"] for p in switches[SW1]["ports"]] == ["s1", "s2"]
    cli = onos.cli("onos:devices", "onos:pof-switches")
    assert SW1 in cli and SW2 in cli and "driver=wislice-pof" in cli, cli

    # Nothing forwards before the slice exists: the switches drop what no flow matches.
    assert not ping(h1, "10.77.0.2", count=2)

    hops = [{"device_id": SW1, "in_port": 1, "out_port": 2}, {"device_id": SW2, "in_port": 1, "out_port": 2}]
    code, sl = onos.request("POST", "/onos/pof/slices",
                            {"slice_id": "it-slice", "tenant_id": 7, "rate_kbps": RATE_KBPS, "hops": hops})
    assert code == 201, sl
    assert 1 <= sl["tag"] <= 0xFFFF and len(sl["meters"]) == 4

    # ONOS REST shows meter ids in hex.
    slice_meters = {(m["device_id"], m["meter_id"]) for m in sl["meters"]}
    for dev in (SW1, SW2):
        flows = flows_of(onos, dev)
        ours = [f for f in flows if f["appId"] == "org.wislice.pof"]
        assert len(ours) == 2 and all(f["state"] == "ADDED" for f in ours), flows
        meters = [m for m in onos.get(f"/onos/v1/meters/{dev}")["meters"] if (dev, int(m["id"], 16)) in slice_meters]
        assert len(meters) == 2 and all(m["state"] == "ADDED" for m in meters), meters
        assert all(m["bands"][0]["rate"] == RATE_KBPS and m["unit"] == "KB_PER_SEC" for m in meters)
    assert "it-slice" in onos.cli("onos:pof-slices")

    assert ping(h1, "10.77.0.2"), "slice path does not forward h1 -> h2 and back"
    # The per-hop meters hold the slice to its rate (20 Mbit/s; unmetered the switches move hundreds).
    if shutil.which("iperf3"):
        mbps = tcp_mbps(processes, h1, h2, "10.77.0.2")
        assert 0.3 * RATE_KBPS / 1000 < mbps < 1.3 * RATE_KBPS / 1000, f"{mbps:.1f} Mbit/s through the slice"

    # The up rates change on the live path: new two-rate meters, the forward flows re-pointed in place (still
    # ADDED, same flow ids), the old forward meters removed; down keeps its meters.
    flow_ids = {f["id"] for d in (SW1, SW2) for f in flows_of(onos, d) if f["appId"] == "org.wislice.pof"}
    up_rates = {"guaranteed_kbps": 5000, "cap_kbps": RATE_KBPS // 2}
    code, sl = onos.request("PUT", "/onos/pof/slices/it-slice/rates", {"up": up_rates})
    assert code == 200, sl
    assert sl["up"] == up_rates and sl["down"] == {"guaranteed_kbps": 0, "cap_kbps": RATE_KBPS}, sl
    forward = {(m["device_id"], m["meter_id"]) for m in sl["meters"] if m["direction"] == "forward"}
    old_forward = slice_meters - {(m["device_id"], m["meter_id"]) for m in sl["meters"]}
    assert len(sl["meters"]) == 4 and len(forward) == 2 and len(old_forward) == 2, sl
    for dev in (SW1, SW2):
        meters = {int(m["id"], 16): m for m in onos.get(f"/onos/v1/meters/{dev}")["meters"]}
        for d, mid in forward:
            if d == dev:
                assert meters[mid]["state"] == "ADDED", meters[mid]
                bands = {b["type"]: b["rate"] for b in meters[mid]["bands"]}
                assert bands == {"DROP": RATE_KBPS // 2, "MARK_YELLOW": 5000}, meters[mid]
    ours = [f for d in (SW1, SW2) for f in flows_of(onos, d) if f["appId"] == "org.wislice.pof"]
    assert {f["id"] for f in ours} == flow_ids and all(f["state"] == "ADDED" for f in ours), ours
    onos.wait_for("old forward meters gone", lambda: not [
        m for d in (SW1, SW2) for m in onos.get(f"/onos/v1/meters/{d}")["meters"]
        if (d, int(m["id"], 16)) in old_forward])
    assert ping(h1, "10.77.0.2"), "slice path does not forward after its rates changed"
    if shutil.which("iperf3"):
        mbps = tcp_mbps(processes, h1, h2, "10.77.0.2")
        assert mbps < 1.3 * RATE_KBPS / 2 / 1000, f"{mbps:.1f} Mbit/s through the slice after halving its up cap"
    slice_meters = {(m["device_id"], m["meter_id"]) for m in sl["meters"]}

    # A bad request changes nothing.
    code, err = onos.request("POST", "/onos/pof/slices", {"slice_id": "bad", "tenant_id": 7, "hops": [
        {"device_id": SW1, "in_port": 1, "out_port": 9}]})
    assert code == 400 and err["code"] == "bad_request", err

    code, _ = onos.request("DELETE", "/onos/pof/slices/it-slice")
    assert code == 204
    onos.wait_for("slice flows gone", lambda: not [
        f for d in (SW1, SW2) for f in flows_of(onos, d) if f["appId"] == "org.wislice.pof"])

    def slice_meters_left() -> list[tuple[str, str, str]]:
        return [(d, m["id"], m["state"]) for d in (SW1, SW2) for m in onos.get(f"/onos/v1/meters/{d}")["meters"]
                if (d, int(m["id"], 16)) in slice_meters]

    try:
        onos.wait_for("slice meters gone", lambda: not slice_meters_left())
    except AssertionError as exc:
        raise AssertionError(f"{exc}; still in ONOS: {slice_meters_left()}") from None
    assert not ping(h1, "10.77.0.2", count=2)


def port_counters(onos: Any) -> dict[tuple[str, int], dict]:
    """ONOS core REST: {"statistics": [{"device", "ports": [{"port", "packetsReceived", "bytesSent", ...}]}]}."""
    return {(d["device"], int(p["port"])): p for d in onos.get("/onos/v1/statistics/ports")["statistics"]
            for p in d.get("ports", [])}


def test_port_statistics_after_traffic(onos: Any, two_switches: tuple[Any, Any]) -> None:
    """pof-switch answers MULTIPART PORT_STATS; the device provider polls it (portStatsPollSeconds, 5 s)."""
    h1, _ = two_switches
    hops = [{"device_id": SW1, "in_port": 1, "out_port": 2}, {"device_id": SW2, "in_port": 1, "out_port": 2}]
    code, sl = onos.request("POST", "/onos/pof/slices", {"slice_id": "it-stats", "tenant_id": 8, "hops": hops})
    assert code == 201, sl
    assert ping(h1, "10.77.0.2", count=5), "slice path does not forward h1 -> h2 and back"

    # Every port of both switches carried the pings (requests one way, replies the other): rx and tx on each.
    wanted = [(dev, port) for dev in (SW1, SW2) for port in (1, 2)]

    def all_counted() -> dict | None:
        stats = port_counters(onos)
        ok = all(k in stats and all(stats[k][f] > 0 for f in
                                    ("packetsReceived", "packetsSent", "bytesReceived", "bytesSent"))
                 for k in wanted)
        return stats if ok else None

    try:
        stats = onos.wait_for("non-zero port statistics of both switches in ONOS", all_counted, timeout=30,
                              period=1)
    except AssertionError as exc:
        raise AssertionError(f"{exc}; /onos/v1/statistics/ports: {port_counters(onos)}") from None
    for k in wanted:
        # Bytes are whole frames: no Ethernet frame here is shorter than an ARP (42 bytes).
        assert stats[k]["bytesReceived"] >= 42 * stats[k]["packetsReceived"], (k, stats[k])
        assert stats[k]["bytesSent"] >= 42 * stats[k]["packetsSent"], (k, stats[k])
        assert stats[k]["packetsRxErrors"] == 0 and stats[k]["packetsTxErrors"] == 0, (k, stats[k])
    # The per-device path answers the same.
    per_dev = onos.get(f"/onos/v1/statistics/ports/{SW1}")["statistics"][0]
    assert per_dev["device"] == SW1 and {int(p["port"]) for p in per_dev["ports"]} >= {1, 2}, per_dev

    code, _ = onos.request("DELETE", "/onos/pof/slices/it-stats")
    assert code == 204


def classed_pkts(sock: Path, port: str) -> int:
    """Frames a rated port sent as green or best effort: a latency meter's frames count in neither."""
    fields = dict(kv.split("=") for kv in mgmt(sock, f"port-stats {port}").split()[1:])
    return int(fields["green_pkts"]) + int(fields["be_pkts"])


def test_latency_slice_meters_carry_the_class(onos: Any, two_switches: tuple[Any, Any], tmp_path: Path) -> None:
    """A latency-class path's METER_MODs arrive with the LATENCY flag: pof-switch announced latency meters, and
    on its rated port the slice's frames leave through the latency queue (neither green nor best effort); back to
    best effort the same meters' frames count as green or best effort again."""
    h1, _ = two_switches
    sock = tmp_path / "mgmt1.sock"
    assert onos.get(f"/onos/v1/devices/{SW1}")["annotations"].get("latencyMeters") == "true"
    # Rated far above the pings: SW1's port to the link counts its frames per class.
    assert mgmt(sock, "port-rate s2 100000") == "OK"
    caps = {"cap_kbps": RATE_KBPS}
    hops = [{"device_id": SW1, "in_port": 1, "out_port": 2}, {"device_id": SW2, "in_port": 1, "out_port": 2}]
    code, sl = onos.request("POST", "/onos/pof/slices", {"slice_id": "it-lat", "tenant_id": 11, "up": caps,
                                                         "down": caps, "latency_class": "low", "hops": hops})
    assert code == 201, sl
    assert sl["latency_class"] == "low" and [h["latency_queue"] for h in sl["hops"]] == [True, True], sl
    assert ping(h1, "10.77.0.2", count=5), "latency slice does not forward"
    assert classed_pkts(sock, "s2") == 0, mgmt(sock, "port-stats s2")

    code, sl = onos.request("PUT", "/onos/pof/slices/it-lat/rates", {"latency_class": "best_effort"})
    assert code == 200 and sl["latency_class"] == "best_effort" and "latency_queue" not in sl["hops"][0], sl
    assert ping(h1, "10.77.0.2", count=5), "slice does not forward after leaving the latency class"
    assert classed_pkts(sock, "s2") >= 5, mgmt(sock, "port-stats s2")
    code, err = onos.request("PUT", "/onos/pof/slices/it-lat/rates", {"latency_class": "warp"})
    assert code == 400 and err["code"] == "bad_request", err
    assert onos.request("DELETE", "/onos/pof/slices/it-lat")[0] == 204
    out = onos.cli("onos:pof-slice-add --latency-class ultra_low it-cli 12 20000 "
                   f"{SW1}/1/2 {SW2}/1/2")
    assert '"latency_class":"ultra_low"' in out and '"latency_queue":true' in out, out


CAPABILITIES = "org.wislice.onos.pof.impl.PofMeterCapabilityManager"
REF = "pof:00000010"


def test_reference_like_switch_is_flagged_and_guarantees_through_it_refused(onos: Any) -> None:
    """A switch with the reference's identity (not pof-switch's vendor_id) does not enforce meter rates: a rated
    path through it is refused unless best effort is accepted, and an operator's override changes that."""
    rated = {"slice_id": "ref-rated", "tenant_id": 9, "up": {"guaranteed_kbps": 5000, "cap_kbps": 20000},
             "down": {"cap_kbps": 20000}, "hops": [{"device_id": REF, "in_port": 1, "out_port": 2}]}
    with FakeReferenceSwitch(onos.pof_port, 0x10) as ref:
        try:
            onos.wait_for(f"{REF} connected", lambda: onos.switch_connected(REF))
            switches = {s["device_id"]: s for s in onos.get("/onos/pof/switches")["switches"]}
            assert switches[REF]["meters_enforced"] is False, switches[REF]
            assert switches[REF]["meters_enforced_source"] == "features", switches[REF]
            annotations = onos.get(f"/onos/v1/devices/{REF}")["annotations"]
            assert annotations.get("metersEnforced") == "false", annotations
            cli = onos.cli("onos:pof-switches")
            assert f"{REF} " in cli and "meters_enforced=false(features)" in cli, cli

            code, err = onos.request("POST", "/onos/pof/slices", rated)
            assert code == 409 and err["code"] == "meters_not_enforced", err
            assert err["message"].startswith(f"{REF} does not enforce meter rates"), err
            assert not ref.of_type("METER_MOD") and not ref.of_type("FLOW_MOD"), "a refused path installs nothing"

            code, sl = onos.request("POST", "/onos/pof/slices", {**rated, "require_enforcement": False})
            assert code == 201, sl
            assert sl["unenforced_devices"] == [REF] and sl["require_enforcement"] is False, sl
            assert len(sl["meters"]) == 2, sl
            # The switch took the meters (with the two-rate extension in its pad bytes), silently, as the
            # reference does.
            adds = [m["body"] for m in ref.of_type("METER_MOD") if m["body"].get("command") == 0]
            assert {(m["rate"], m["committed_rate"]) for m in adds} == {(20000, 5000), (20000, 0)}, adds
            assert onos.get("/onos/pof/slices")["slices"][0]["unenforced_devices"] == [REF]
            assert onos.request("DELETE", "/onos/pof/slices/ref-rated")[0] == 204

            # The operator knows better: the override makes the same request pass, with nothing flagged.
            onos.configure(CAPABILITIES, {"meterEnforcementOverrides": f"{REF}=true"})
            onos.wait_for("override applied", lambda: {s["device_id"]: s for s in onos.get(
                "/onos/pof/switches")["switches"]}[REF]["meters_enforced_source"] == "override")
            code, sl = onos.request("POST", "/onos/pof/slices", rated)
            assert code == 201 and sl["unenforced_devices"] == [], sl
            assert onos.request("DELETE", "/onos/pof/slices/ref-rated")[0] == 204
            assert ref.error is None, ref.error
        finally:
            onos.configure(CAPABILITIES, {"meterEnforcementOverrides": ""})
            for sid in [s["slice_id"] for s in onos.get("/onos/pof/slices")["slices"]]:
                onos.request("DELETE", f"/onos/pof/slices/{sid}")
