"""The demo scenario: a tenant's slice end to end on the one-machine testbed, then a second, isolated slice.

    run(tb, log) -> dict of results (stage timings, measured rates, checks)

Per slice: the tenant POSTs the slice to the orchestrator (vAP with its own SSID and WPA2, a down cap, one
kernel-fwd vNF, a metered POF path); the orchestrator drives wifi-controller -> ap-agent -> hostapd,
nfv-controller -> mec-agent -> dockerd, network-controller -> the three pof-switches. A station associates with
the passphrase and gets an address; its traffic crosses the air, the AP switch (in the VM), the tap, the core
switch, the veth, the MEC switch into the vNF, which routes it to the server namespace over the MEC node's link
(a veth into the vNF's namespace, see testbed/README.md), and back. iperf3 measures it. Deleting the slice must
remove the vAP, the container and every flow.
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass, field
from typing import Any

from wislice_testbed.topology.common import StepLog, wait_for
from wislice_testbed.topology.pofswitch import offloads_off
from wislice_testbed.veth import create_veth

PASSPHRASE = "demo-pass-1234"
IPERF_SECONDS = 5
# The testbed's slices are bandwidth slices: the latency classes queue a slice's traffic before every other one's
# and need caps and a budget, which the experiments' uncapped slices do not have.
LATENCY = {"latency_class": "best_effort"}


@dataclass
class SliceRun:
    """What one tenant's slice uses on the testbed (addresses are per slice: 10.6<n>.1.0/24 wireless side,
    10.6<n>.2.0/24 server side)."""
    tenant_id: int
    name: str
    down_cap_kbps: int
    station: Any
    token: str = ""
    slice_id: int = 0
    vnf_id: int = 0
    vap_id: str = ""
    cleanup: list[Any] = field(default_factory=list)

    @property
    def sta_addr(self) -> str:
        return f"10.6{self.tenant_id}.1.10"

    @property
    def gw_addr(self) -> str:
        return f"10.6{self.tenant_id}.1.1"

    @property
    def server_addr(self) -> str:
        return f"10.6{self.tenant_id}.2.10"

    @property
    def vnf_out_addr(self) -> str:
        return f"10.6{self.tenant_id}.2.1"

    @property
    def ssid(self) -> str:
        return f"{self.name}-wifi"


def slice_body(s: SliceRun, agent_id: str) -> dict[str, Any]:
    return {"name": s.name,
            "bandwidth": {"down_guaranteed_kbps": s.down_cap_kbps // 2, "up_guaranteed_kbps": s.down_cap_kbps // 10,
                          "down_cap_kbps": s.down_cap_kbps, "up_cap_kbps": s.down_cap_kbps},
            **LATENCY,
            "vaps": [{"agent_id": agent_id, "radio": "phy0", "ssid": s.ssid,
                      "security": {"mode": "wpa2-psk", "passphrase": PASSPHRASE}}],
            "vnfs": [{"image": "kernel-fwd", "cpu": 0.1, "memory_mib": 32}]}


def wait_operation(tb: Any, token: str, location: str, timeout: float = 180) -> dict[str, Any]:
    path = location[location.index("/api/"):]
    return wait_for(f"operation {path}", lambda: (lambda op: op if op["status"] in ("succeeded", "failed") else None)(
        tb.orch.call("GET", path, token)[1]), timeout=timeout, period=0.3)


def operator_setup(tb: Any, log: StepLog, slices: list[SliceRun], topology: dict[str, Any] | None = None) -> None:
    """The wired topology (``topology``, default the testbed's without egress) and each slice's tenant and token."""
    tb.orch.call("PUT", "/api/v1/topology", body=topology or tb.wired_topology())
    for s in slices:
        tb.orch.call("POST", "/api/v1/tenants", body={"tenant_id": s.tenant_id, "name": f"tenant{s.tenant_id}"})
        s.token = tb.orch.call("POST", f"/api/v1/tenants/{s.tenant_id}/tokens", body={"name": "demo"})[1]["token"]
    log.say(f"operator declared the wired topology (AP sw -> core sw -> MEC sw) and {len(slices)} tenant(s)")


def create_slice(tb: Any, log: StepLog, s: SliceRun, body: dict[str, Any] | None = None) -> dict[str, Any]:
    _, op, headers = tb.orch.call("POST", f"/api/v1/tenants/{s.tenant_id}/slices", s.token,
                                  body or slice_body(s, tb.ap.agent_id))
    op = wait_operation(tb, s.token, headers.get("Location") or f"/api/v1/operations/{op['id']}")
    if op["status"] != "succeeded":
        raise RuntimeError(f"slice creation {op['status']}: {json.dumps(op, indent=1)[:3000]}\n"
                           f"ap-agent:\n{tb.ap.agent_log()}")
    s.slice_id = op["slice_id"]
    sl = tb.orch.call("GET", f"/api/v1/tenants/{s.tenant_id}/slices/{s.slice_id}", s.token)[1]
    s.vnf_id, s.vap_id = sl["vnfs"][0]["vnf_id"], sl["vaps"][0]["vap_id"]
    log.say(f"slice {s.slice_id} ({s.name}) {sl['status']}: vAP {s.vap_id} state {sl['vaps'][0]['state']} on "
            f"pof port {sl['vaps'][0]['pof_port']}; vNF {s.vnf_id} ({sl['vnfs'][0]['address']}) on "
            f"{sl['vnfs'][0]['node']}; slice tag {sl['tag']}")
    return sl


def vnf_pid(tb: Any, vnf_id: int) -> int:
    """The vNF's container's pid, on whichever MEC node runs it."""
    for node in tb.mec_nodes:
        container = node.vnf_container(vnf_id, all=False)
        if container is not None:
            return int(container.attrs["State"]["Pid"])
    raise RuntimeError(f"no container for vNF {vnf_id}")


def in_vnf(pid: int, *argv: str) -> str:
    return subprocess.run(["nsenter", "-t", str(pid), "-n", *argv], check=True, capture_output=True,
                          text=True).stdout


def wire_server_side(tb: Any, s: SliceRun) -> None:
    """The vNF routes between the slice's two subnets: 'in' (on the POF path) gets the wireless side's gateway
    address, a second interface 'out' reaches the server namespace (the MEC node's server link)."""
    pid = vnf_pid(tb, s.vnf_id)
    pair = create_veth(tb.server, None, addr_a=f"{s.server_addr}/24", tag="sv")
    s.cleanup.append(pair.delete)
    subprocess.run(["ip", "link", "set", pair.b, "netns", str(pid)], check=True)
    in_vnf(pid, "ip", "link", "set", pair.b, "name", "out")
    in_vnf(pid, "ip", "addr", "add", f"{s.vnf_out_addr}/24", "dev", "out")
    in_vnf(pid, "ip", "link", "set", "out", "up")
    in_vnf(pid, "ip", "addr", "add", f"{s.gw_addr}/24", "dev", "in")
    # Frames as on the wire everywhere an AF_PACKET switch port or the forwarding vNF sees them.
    for argv in (["ethtool", "-K", "out", "tso", "off", "gso", "off", "gro", "off"],
                 ["ethtool", "-K", "in", "tso", "off", "gso", "off", "gro", "off"]):
        in_vnf(pid, *argv)
    offloads_off(pair.a, tb.server.name)
    tb.server.exec(["ip", "route", "replace", f"10.6{s.tenant_id}.1.0/24", "via", s.vnf_out_addr])


def associate(tb: Any, log: StepLog, s: SliceRun, station: Any = None, address: str = "",
              mode: str = "wpa2-psk") -> float:
    """Station (default: the slice's own) joins the slice's SSID with an address in its wireless subnet (mode
    wpa2-ft-psk: asking 802.11r FT-PSK first, for a slice on several APs)."""
    sta = station or s.station
    sta.connect(s.ssid, mode=mode, passphrase=PASSPHRASE, address=f"{address or s.sta_addr}/24")
    took = sta.wait_associated(timeout=60)
    sta.exec(f"ip route replace 10.6{s.tenant_id}.2.0/24 via {s.gw_addr}")
    mac = sta.mac().lower()
    clients = wait_for(f"station {mac} listed by the orchestrator", lambda: [
        c for c in tb.orch.call("GET", f"/api/v1/tenants/{s.tenant_id}/slices/{s.slice_id}/clients",
                                s.token)[1]["clients"] if c["mac"].lower() == mac], timeout=30, period=0.5)
    log.say(f"station {sta.ns} ({mac}) associated to {s.ssid} with WPA2 in {took:.1f} s; "
            f"GET .../clients lists it on vAP {clients[0].get('vap_id', '?')}")
    return took


def ping(tb: Any, s: SliceRun, count: int = 3) -> tuple[bool, str]:
    res = s.station.exec(f"ping -c {count} -W 2 {s.server_addr}", timeout=30, check=False)
    return res.rc == 0, res.out.strip().splitlines()[-1] if res.out.strip() else res.err


def iperf_down(tb: Any, s: SliceRun, seconds: int = IPERF_SECONDS) -> float:
    """Server -> station TCP goodput (Mbit/s) through the whole slice, measured by iperf3 at the station."""
    srv = tb.processes.start(tb.server.argv(["iperf3", "-s", "-1", "-B", s.server_addr]),
                             log_name=f"iperf3-server-{s.tenant_id}")
    try:
        wait_for("iperf3 server listening", lambda: ":5201" in tb.server.exec(
            ["ss", "-ltn"], capture_output=True).stdout, timeout=10, period=0.1)
        res = s.station.exec(f"iperf3 -c {s.server_addr} -R -t {seconds} -J --connect-timeout 5000",
                             timeout=seconds + 40, check=False)
    finally:
        tb.processes.stop(srv)
    out = json.loads(res.out)
    if "error" in out:
        raise RuntimeError(f"iperf3: {out['error']}")
    return out["end"]["sum_received"]["bits_per_second"] / 1e6


def connections(tb: Any, sta: Any) -> int:
    """How many times the station's wpa_supplicant completed an association (its log, since it started)."""
    res = tb.ap.vm.run(f"grep -c CTRL-EVENT-CONNECTED /tmp/wpas-{sta.ns}.log", check=False)
    return int(res.out.strip() or 0)


def patch_bandwidth(tb: Any, log: StepLog, s: SliceRun, bandwidth: dict[str, int]) -> dict[str, Any]:
    """A live change of the slice's rates through the orchestrator (PATCH, an operation applied to the AP and the
    wired path); returns the slice as it reads afterwards."""
    _, _, headers = tb.orch.call("PATCH", f"/api/v1/tenants/{s.tenant_id}/slices/{s.slice_id}", s.token,
                                 {"bandwidth": bandwidth})
    op = wait_operation(tb, s.token, headers["Location"])
    if op["status"] != "succeeded":
        raise RuntimeError(f"slice update {op['status']}: {json.dumps(op, indent=1)[:3000]}")
    sl = tb.orch.call("GET", f"/api/v1/tenants/{s.tenant_id}/slices/{s.slice_id}", s.token)[1]
    log.say(f"slice {s.slice_id} changed live: bandwidth {sl['bandwidth']} ({len(op['steps'])} steps)")
    return sl


def delete_slice(tb: Any, log: StepLog, s: SliceRun) -> dict[str, bool]:
    _, _, headers = tb.orch.call("DELETE", f"/api/v1/tenants/{s.tenant_id}/slices/{s.slice_id}", s.token)
    if headers.get("Location"):
        op = wait_operation(tb, s.token, headers["Location"])
        if op["status"] != "succeeded":
            raise RuntimeError(f"slice deletion {op['status']}: {op}")
    for undo in reversed(s.cleanup):
        undo()
    s.station.disconnect()
    gone = {
        "vap_gone": s.ssid not in tb.ap.vm.run("iw dev").out,
        "vnf_gone": all(node.vnf_container(s.vnf_id) is None for node in tb.mec_nodes),
        "paths_gone": not [p for p in tb.onos.get("/onos/pof/slices")["slices"]
                           if str(p["slice_id"]).startswith(f"t{s.tenant_id}")],
        "wifi_vaps_gone": not [v for v in tb.onos.get("/onos/wifi/vaps")["vaps"] if v.get("vap_id") == s.vap_id],
    }
    log.say(f"slice {s.slice_id} deleted: " + ", ".join(f"{k}={v}" for k, v in gone.items()))
    return gone


def pof_flow_count(tb: Any) -> int:
    return sum(pof_flows_on(tb, dev) or 0 for dev in (tb.ap.device_id, "pof:00000002", tb.mec.device_id))


def pof_flows_on(tb: Any, device: str) -> int | None:
    """The pof app's flows on a device in ONOS's view; None when ONOS does not answer with them."""
    code, body = tb.onos.request("GET", f"/onos/v1/flows/{device}")
    if code == 404 and isinstance(body, dict) and body.get("message") == "Device is not found":
        return 0  # ONOS's flows resource answers so for a device without any flow entry
    if code != 200:
        return None
    return len([f for f in body["flows"] if f.get("appId") == "org.wislice.pof"])


def caps_kbps(radio_capacity_kbps: int) -> dict[str, int]:
    """Each measurement's down cap: slice 1 half the radio, slice 2 a fifth (both fit at once), then three tenths
    after its live change (to 100 kbps)."""
    def share(f: float) -> int:
        return int(radio_capacity_kbps * f / 100) * 100
    return {"slice1_alone": share(0.5), "slice1_concurrent": share(0.5), "slice2_concurrent": share(0.2),
            "slice2_patched": share(0.3)}


def run(tb: Any, log: StepLog, radio_capacity_kbps: int, second_slice: bool = True,
        tokens: dict[int, str] | None = None) -> dict[str, Any]:
    """The tenants' story on a radio of this capacity; results: checks, rates_mbps and each rate's cap. ``tokens``:
    tenants 1 and 2 exist already (a testbed shared with other scenarios), so the operator's part is skipped."""
    caps = caps_kbps(radio_capacity_kbps)
    results: dict[str, Any] = {"checks": {}, "rates_mbps": {}, "caps_mbps": {k: v / 1000 for k, v in caps.items()}}
    checks = results["checks"]
    first = SliceRun(1, "alpha", caps["slice1_alone"], tb.ap.stations[0])
    second = (SliceRun(2, "beta", caps["slice2_concurrent"], tb.ap.stations[1])
              if second_slice and len(tb.ap.stations) > 1 else None)
    c1, c2, c2p = (results["caps_mbps"][k] for k in ("slice1_alone", "slice2_concurrent", "slice2_patched"))
    runs = [first] + ([second] if second else [])
    if tokens:
        for s in runs:
            s.token = tokens[s.tenant_id]
    else:
        with log.step("tenants", "operator: wired topology + tenants through the orchestrator REST API"):
            operator_setup(tb, log, runs)
    with log.step("slice_create", f"tenant 1 creates slice '{first.name}' (vAP WPA2, {c1:g} Mbit/s cap, "
                                  "kernel-fwd vNF, metered POF path)"):
        sl = create_slice(tb, log, first)
    checks["slice_active"] = sl["status"] == "active" and sl["vaps"][0]["state"] == "up"
    checks["pof_flows_installed"] = pof_flow_count(tb)
    log.say(f"network controller: {checks['pof_flows_installed']} slice flow entries on the three switches")
    with log.step("server_wiring", "server side: vNF 'out' link to the server namespace"):
        wire_server_side(tb, first)
    with log.step("associate", "station associates to the slice's SSID (WPA2-PSK)"):
        associate(tb, log, first)
    checks["station_associated"] = True
    with log.step("ping", "ping station -> vAP -> POF path -> vNF -> server"):
        ok, summary = wait_for("ping through the slice", lambda: (lambda r: r if r[0] else None)(ping(tb, first)),
                               timeout=30, period=1)
    log.say(f"ping: {summary}")
    checks["ping"] = ok
    with log.step("iperf_alone", f"iperf3 server -> station through slice 1 ({IPERF_SECONDS} s)"):
        results["rates_mbps"]["slice1_alone"] = round(iperf_down(tb, first), 3)
    log.say(f"slice 1 alone: {results['rates_mbps']['slice1_alone']:.2f} Mbit/s (cap {c1:.2f})")
    if second:
        with log.step("slice2_create", f"tenant 2 creates slice '{second.name}' ({c2:g} Mbit/s cap) on the same AP"):
            create_slice(tb, log, second)
            wire_server_side(tb, second)
            associate(tb, log, second)
            wait_for("ping through slice 2", lambda: ping(tb, second)[0], timeout=30, period=1)
        with log.step("iperf_both", "both slices' iperf3 at once (isolation)"):
            from concurrent.futures import ThreadPoolExecutor
            with ThreadPoolExecutor(2) as pool:
                f1, f2 = pool.submit(iperf_down, tb, first), pool.submit(iperf_down, tb, second)
                results["rates_mbps"]["slice1_concurrent"] = round(f1.result(), 3)
                results["rates_mbps"]["slice2_concurrent"] = round(f2.result(), 3)
        log.say(f"concurrently: slice 1 {results['rates_mbps']['slice1_concurrent']:.2f} Mbit/s (cap {c1:g}), "
                f"slice 2 {results['rates_mbps']['slice2_concurrent']:.2f} Mbit/s (cap {c2:g})")
        with log.step("isolation_probe", "tenant 1's station sends frames straight to tenant 2's station and "
                                         "vNF (and, as a control, to its own vNF)"):
            from .probe import PROBES, cross_slice
            seen = cross_slice(tb, first, second)
        log.say(f"probes seen (of {PROBES} each): {seen}")
        checks["isolation_probe_reaches_own_vnf"] = seen["own_vnf"] >= PROBES * 3 // 4
        checks["isolation_other_station_unreached"] = seen["other_station"] == 0
        checks["isolation_other_vnf_unreached"] = seen["other_vnf"] == 0
        with log.step("slice2_patch", f"tenant 2 raises its slice's cap to {c2p:g} Mbit/s live (PATCH)"):
            before = connections(tb, second.station)
            patched = caps["slice2_patched"]
            sl = patch_bandwidth(tb, log, second, {"down_cap_kbps": patched, "up_cap_kbps": patched})
            checks["slice2_patched"] = sl["bandwidth"]["down_cap_kbps"] == patched and sl["status"] == "active"
            results["rates_mbps"]["slice2_patched"] = round(iperf_down(tb, second), 3)
            # Kept associated: no new association since the change, and still associated now.
            checks["slice2_station_kept"] = (connections(tb, second.station) == before
                                             and second.station.state().get("wpa_state") == "COMPLETED")
        log.say(f"after the change: slice 2 {results['rates_mbps']['slice2_patched']:.2f} Mbit/s (cap {c2p:g}), "
                f"station kept its association: {checks['slice2_station_kept']}")
    for s, key in ((r, f"slice{r.tenant_id}_delete") for r in reversed(runs)):
        with log.step(key, f"tenant {s.tenant_id} deletes its slice"):
            gone = delete_slice(tb, log, s)
        checks.update({f"slice{s.tenant_id}_{k}": v for k, v in gone.items()})
    checks["pof_flows_after_delete"] = pof_flow_count(tb)
    results["tokens"] = {s.tenant_id: s.token for s in runs}
    return results
