"""Station-initiated roaming between the two-AP testbed's APs, measured with a 10 ms UDP echo stream.

One vAP of the same SSID and PSK on each AP (created through the wifi-controller's REST, POST
/onos/wifi/agents/{agent}/vaps). The echo target is a namespace "wired" inside the AP VM, 10.99.0.1, joined to
both vAP netdevs by tc: each vAP's ingress is redirected into a veth towards "wired", and what "wired" sends is
mirrored out of both vAPs (a hub; mac80211 drops a unicast frame for a station that is not associated to that BSS,
so only the serving AP delivers it). The stream thus crosses the air, the serving vAP and the veth, not the POF
switches: the slice path does not follow the client yet (issue 16's "path follows client"), and the hub has no MAC
learning that could add its own delay, so the gap it shows is the air handover alone.

The prober (guest python3) sends a numbered datagram every 10 ms from the station and appends the arrival time of
each echo to a file; a handover's interruption is the largest gap between consecutive echoes from just before the
roam until echoes flow again on the new AP.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from ..topology.common import wait_for

SSID = "wislice-roam"
PASSPHRASE = "roaming-testbed-psk"
STA_ADDR = "10.99.0.2"
TARGET = "10.99.0.1"
PROBE = "/run/wislice/roam-probe.py"
ECHO_LOG = "/tmp/roam-echo.log"
ARRIVALS = "/tmp/roam-arrivals.txt"
VETH = "vwroot"

PROBE_SRC = r"""
import socket, sys, time, select
mode = sys.argv[1]
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
if mode == "echo":
    s.bind(("0.0.0.0", 7007))
    while True:
        data, peer = s.recvfrom(64)
        s.sendto(data, peer)
target, out, interval = sys.argv[2], open(sys.argv[3], "w", buffering=1), float(sys.argv[4])
seq, next_send = 0, time.monotonic()
while True:
    now = time.monotonic()
    if now >= next_send:
        s.sendto(seq.to_bytes(4, "big"), (target, 7007))
        seq, next_send = seq + 1, next_send + interval
    if select.select([s], [], [], max(0.0, next_send - time.monotonic()))[0]:
        data = s.recv(64)
        out.write(f"{time.monotonic():.6f} {int.from_bytes(data[:4], 'big')}\n")
"""


def vap_spec(vap_id: str, radio: str, fast_transition: bool) -> dict[str, Any]:
    return {"vap_id": vap_id, "radio": radio, "ssid": SSID, "tenant_id": 7, "slice_id": "roam",
            "security": {"mode": "wpa2-psk", "passphrase": PASSPHRASE, "fast_transition": fast_transition},
            "rate_limit": {"down_kbps": 0, "up_kbps": 0}}


@dataclass
class RoamVap:
    agent_id: str
    vap_id: str
    ifname: str
    bssid: str
    ctrl_dir: str


@dataclass
class Handover:
    source: str
    target: str
    interruption_ms: float
    echoes_after: int
    key_mgmt: str = ""  # how the station joined the new BSS (wpa_supplicant's status): FT-PSK for a fast transition


class Roaming:
    """The two vAPs, the hub to "wired", the echo server and prober; ``close()`` removes them all."""

    def __init__(self, tb: Any, fast_transition: bool = True, keep_neighbours: bool = True) -> None:
        self.tb, self.vm, self.onos = tb, tb.ap.vm, tb.onos
        # 802.11r FT-PSK on both vAPs and the station (a roam skips the 4-way handshake); False: plain WPA2-PSK.
        self.fast_transition = fast_transition
        # The station keeps its neighbour entries across a roam (arp_evict_nocarrier 0, a roaming client's
        # setting); False: Linux's default, an ARP exchange after every move (testbed/README.md).
        self.keep_neighbours = keep_neighbours
        self.sta = tb.ap.stations[0]
        self.vaps: list[RoamVap] = []
        self.pids: list[int] = []

    def open(self) -> Roaming:
        ap2 = self.tb.ap2
        assert ap2 is not None, "the roaming scenario needs up(..., aps=2)"
        for agent, radio, ctrl in ((self.tb.ap.agent_id, "phy0", self.tb.ap.hostapd.ctrl_dir),
                                   (ap2.agent_id, "phy1", ap2.hostapd.ctrl_dir)):
            vap_id = f"roam-{agent}"
            code, body = self.onos.request("POST", f"/onos/wifi/agents/{agent}/vaps",
                                           vap_spec(vap_id, radio, self.fast_transition), timeout=60)
            if code != 201:
                raise RuntimeError(f"vAP on {agent}: HTTP {code} {body}")
            self.vaps.append(RoamVap(agent, vap_id, body["vap"]["ifname"], body["vap"]["bssid"].lower(), ctrl))
        self._hub()
        self.vm.run(f"cat > {PROBE} <<'WISLICE_EOF'\n{PROBE_SRC}WISLICE_EOF")
        self.pids.append(self.vm.spawn(f"ip netns exec wired python3 {PROBE} echo", log=ECHO_LOG))
        self.sta.evict_neighbours_on_carrier_loss(not self.keep_neighbours)
        self.sta.connect(SSID, mode="wpa2-ft-psk" if self.fast_transition else "wpa2-psk", passphrase=PASSPHRASE,
                         address=f"{STA_ADDR}/24")
        self.sta.wait_associated(timeout=60)
        self.stream_to(TARGET)
        return self

    def stream_to(self, target: str) -> None:
        """Starts the station's 10 ms prober toward target's echo server; returns once echoes come back."""
        self.pids.append(self.sta_spawn(f"python3 {PROBE} send {target} {ARRIVALS} 0.01"))
        wait_for(f"echoes flowing from {target}", lambda: len(self.arrivals()) > 20, timeout=30, period=0.5)

    def stop_stream(self) -> None:
        """Stops the station's side (prober, VM processes, their files) and gives it Linux's default eviction."""
        for pid in self.pids:
            self.vm.run(f"kill {pid}", check=False)
        self.pids = []
        self.sta.evict_neighbours_on_carrier_loss(True)  # the testbed's stations as they were
        self.vm.run(f"rm -f {ARRIVALS} {PROBE}", check=False)

    def sta_spawn(self, cmd: str) -> int:
        return int(self.vm.spawn(f"ip netns exec {self.sta.ns} {cmd}", log="/tmp/roam-probe.log"))

    def _hub(self) -> None:
        """veth VETH (root) <-> veth0 in "wired" (TARGET); vAP ingress -> VETH; VETH ingress -> both vAPs."""
        run = self.vm.run
        run("ip netns add wired && ip link add vwroot type veth peer name veth0 netns wired && "
            f"ip link set {VETH} up && ip -n wired link set lo up && ip -n wired link set veth0 up && "
            f"ip -n wired addr add {TARGET}/24 dev veth0")
        run("for m in sch_ingress cls_matchall act_mirred; do modprobe $m 2>/dev/null; done", check=False)
        for vap in self.vaps:
            # The agent may hold the vAP's ingress qdisc already (its uplink shaping): add to it, first in line.
            run(f"tc qdisc show dev {vap.ifname} | grep -q 'ingress\\|clsact' || tc qdisc add dev {vap.ifname} "
                f"ingress; tc filter add dev {vap.ifname} ingress pref 1 matchall "
                f"action mirred egress redirect dev {VETH}")
        first, second = self.vaps[0].ifname, self.vaps[1].ifname
        run(f"tc qdisc add dev {VETH} ingress && tc filter add dev {VETH} parent ffff: matchall "
            f"action mirred egress mirror dev {first} pipe action mirred egress redirect dev {second}")

    def arrivals(self) -> list[float]:
        text = self.vm.run(f"cat {ARRIVALS}", check=False).out
        return [float(line.split()[0]) for line in text.splitlines() if len(line.split()) == 2]

    def serving(self) -> str:
        return self.sta.state().get("bssid", "").lower()

    def vap_of(self, bssid: str) -> RoamVap:
        return next(v for v in self.vaps if v.bssid == bssid)

    def roam(self, target: RoamVap, start: Callable[[], None] | None = None) -> Handover:
        """Moves the station to ``target`` and measures the move: ``wpa_cli roam`` (station-initiated), or
        ``start`` (e.g. the wifi-controller's steer) when given."""
        source = self.serving()
        assert source != target.bssid, f"already on {target.bssid}"
        if start is None:
            self._scan_for(target.bssid)
        before = len(self.arrivals())
        if start is None:
            res = self.sta.exec(f"wpa_cli -p {self.sta.ctrl_dir} -i {self.sta.ifname} roam {target.bssid}")
            assert "OK" in res.out, res.out
        else:
            start()
        wait_for(f"station on {target.bssid}", lambda: self.sta.state().get("wpa_state") == "COMPLETED"
                 and self.serving() == target.bssid, timeout=20, period=0.1)
        times = wait_for("echoes through the new AP", lambda: (t := self.arrivals()) and len(t) > before + 30 and t,
                         timeout=20, period=0.3)
        window = times[max(0, before - 1):]
        gap = max(b - a for a, b in pairwise(window))
        return Handover(source, target.bssid, round(gap * 1000, 1), len(times) - before,
                        self.sta.state().get("key_mgmt", ""))

    def steer(self, mac: str, target: RoamVap) -> tuple[int, dict[str, Any]]:
        """The wifi-controller's 802.11v steer of the station to target's BSS (POST .../clients/{mac}/steer)."""
        return self.onos.request("POST", f"/onos/wifi/clients/{mac}/steer", {"target_bssid": target.bssid})

    def steer_accepted(self, mac: str, target: RoamVap) -> None:
        """steer(), which the station must accept (HTTP 200 and accepted), else RuntimeError."""
        code, body = self.steer(mac, target)
        if code != 200 or not body.get("accepted"):
            raise RuntimeError(f"steer to {target.bssid}: HTTP {code} {body}")

    def _scan_for(self, bssid: str) -> None:
        """wpa_supplicant roams only to a BSS in its scan results: a scan of channel 1 only (both APs are there,
        so the station never leaves the serving channel), before the measured window, and a pause so that no
        scan still runs when the roam starts."""
        cli = f"wpa_cli -p {self.sta.ctrl_dir} -i {self.sta.ifname}"
        deadline = time.monotonic() + 20
        self.sta.exec(f"{cli} scan freq=2412", check=False)
        time.sleep(1.0)
        while bssid not in self.sta.exec(f"{cli} scan_results").out.lower():
            assert time.monotonic() < deadline, f"{bssid} never in the station's scan results"
            self.sta.exec(f"{cli} scan freq=2412", check=False)
            time.sleep(1.0)

    def hostapd_stations(self, vap: RoamVap) -> set[str]:
        res = self.vm.run(f"hostapd_cli -p {vap.ctrl_dir} -i {vap.ifname} all_sta", check=False)
        return {line.strip().lower() for line in res.out.splitlines() if line.count(":") == 5 and "=" not in line}

    def controller_agents(self, mac: str) -> set[str]:
        """The agents GET /onos/wifi/clients lists the station at (on the roaming vAPs)."""
        clients = self.onos.get("/onos/wifi/clients")["clients"]
        ours = {v.vap_id for v in self.vaps}
        return {c["agent_id"] for c in clients if c.get("vap_id") in ours and c["mac"].lower() == mac}

    def release_old(self, mac: str, new: RoamVap) -> list[str]:
        """Once the wifi-controller lists the station at the new AP, removes the association the old AP still
        holds (the controller's kick, DELETE /onos/wifi/agents/{old}/clients/{mac}); returns the agents kicked.

        Needed because nothing tells the old AP: the station's reassociation goes to the new AP only, and the
        old AP's hostapd keeps the station (it still ACKs on the shared channel) until its inactivity timeout,
        minutes later. Doing this on every association at another AP is the controllers' job in "path follows
        client" (issue 16); until they do, the scenario does it in their place, through their REST."""
        wait_for(f"the wifi-controller lists {mac} at {new.agent_id}",
                 lambda: new.agent_id in self.controller_agents(mac), timeout=20, period=0.3)
        stale = sorted(self.controller_agents(mac) - {new.agent_id})
        for agent in stale:
            code, body = self.onos.request("DELETE", f"/onos/wifi/agents/{agent}/clients/{mac}")
            if code not in (204, 404):  # 404: the controllers removed it meanwhile
                raise RuntimeError(f"kick of {mac} at {agent}: HTTP {code} {body}")
        return stale

    def close(self) -> None:
        self.stop_stream()
        self.vm.run(f"ip link del {VETH}; ip netns del wired", check=False)
        for vap in self.vaps:
            self.onos.request("DELETE", f"/onos/wifi/agents/{vap.agent_id}/vaps/{vap.vap_id}", timeout=60)
        self.vaps = []


def summary(handovers: list[Handover]) -> dict[str, Any]:
    gaps = sorted(h.interruption_ms for h in handovers)
    return {"handovers": len(gaps), "interruption_max_ms": gaps[-1] if gaps else None,
            "interruption_p50_ms": gaps[len(gaps) // 2] if gaps else None,
            "gaps_ms": [h.interruption_ms for h in handovers]}
