"""Tenant isolation checked with packets: a station of one slice sends frames straight to another slice's station
and vNF (static neighbour entries, as a hostile tenant on the same AP would), and listeners on those interfaces
count what arrives. A positive control (the same probe to the sender's own vNF) shows the probe and the listeners
work, so a zero means isolation, not a broken probe.

    cross_slice(tb, a, b) -> {"own_vnf": n, "other_station": n, "other_vnf": n}   (frames seen of PROBES sent)
"""

from __future__ import annotations

import secrets
import sys
import time
from typing import Any

from wislice_testbed.topology.common import wait_for

from . import e2e_slice as e2e
from .traffic import start_in_station

PROBES = 20
MAX_LISTEN_S = 90  # a listener left behind by a failure ends by itself
# Counts frames arriving on one interface that carry the marker until SIGTERM, then prints the count; runs in the
# guest (a station) or on the host in a vNF's network namespace (nsenter -n: the host's python, its interfaces).
LISTENER = r'''
import signal, socket, sys, time
marker, secs, iface = sys.argv[1].encode(), float(sys.argv[2]), sys.argv[3]
stop = []
signal.signal(signal.SIGTERM, lambda *a: stop.append(1))
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))
s.bind((iface, 0))
s.settimeout(0.2)
print("ready", flush=True)
seen, end = 0, time.time() + secs
while not stop and time.time() < end:
    try:
        data, addr = s.recvfrom(65535)
        seen += marker in data and addr[2] != socket.PACKET_OUTGOING  # arrived, not a reply quoting it
    except (socket.timeout, InterruptedError):
        pass
print("seen", seen, flush=True)
'''
SENDER = r'''
import socket, sys, time
marker, dst, count = sys.argv[1].encode(), sys.argv[2], int(sys.argv[3])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for _ in range(count):
    s.sendto(marker, (dst, 9))
    time.sleep(0.05)
'''


class StationListener:
    def __init__(self, tb: Any, station: Any, marker: str) -> None:
        self.vm, self.log = station.vm, f"/tmp/probe-{marker}.log"
        self.pid = start_in_station(station, "probe_listen.py", LISTENER, f"{marker} {MAX_LISTEN_S} {station.ifname}",
                                    log=self.log, ready=True)

    def seen(self) -> int:
        self.vm.run(f"kill {self.pid}", check=False)
        out = self.vm.wait_for(f"grep seen {self.log}", timeout=15, interval=0.2).out
        return int(out.split()[-1])


class VnfListener:
    def __init__(self, tb: Any, vnf_pid: int, marker: str) -> None:
        self.processes = tb.processes
        self.proc = tb.processes.start(["nsenter", "-t", str(vnf_pid), "-n", sys.executable, "-c", LISTENER,
                                        marker, str(MAX_LISTEN_S), "in"], log_name=f"probe-{marker}")
        wait_for("probe listener ready", lambda: "ready" in self.processes.log_path(self.proc).read_text(),
                 timeout=15, period=0.1)

    def seen(self) -> int:
        self.processes.stop(self.proc)  # SIGTERM: it prints its count and exits
        return int(self.processes.log_path(self.proc).read_text().split()[-1])


def send(station: Any, marker: str, dst: str, via_mac: str | None = None) -> None:
    """PROBES datagrams from the station to dst; with via_mac, straight to that MAC on the station's own link
    (a host route and a permanent neighbour entry, removed afterwards), past any gateway."""
    dev = station.ifname
    if via_mac:
        station.exec(f"ip route replace {dst}/32 dev {dev}")
        station.exec(f"ip neigh replace {dst} lladdr {via_mac} dev {dev} nud permanent")
    try:
        station.exec(f"python3 /mnt/share/probe_send.py {marker} {dst} {PROBES}")
    finally:
        if via_mac:
            station.exec(f"ip route del {dst}/32 dev {dev}", check=False)
            station.exec(f"ip neigh del {dst} dev {dev}", check=False)


def cross_slice(tb: Any, a: e2e.SliceRun, b: e2e.SliceRun) -> dict[str, int]:
    """From a's station: probes to a's own vNF (the control), to b's station and to b's vNF by their MACs."""
    (a.station.vm.share / "probe_send.py").write_text(SENDER)
    tag = secrets.token_hex(4)
    markers = {k: f"wislice-probe-{k}-{tag}" for k in ("own_vnf", "other_station", "other_vnf")}
    pid_a, pid_b = e2e.vnf_pid(tb, a.vnf_id), e2e.vnf_pid(tb, b.vnf_id)
    station_mac = b.station.exec(f"cat /sys/class/net/{b.station.ifname}/address").out.strip()
    # (the host's /sys shows the host's interfaces even inside the vNF's network namespace: ask ip)
    vnf_mac = e2e.in_vnf(pid_b, "ip", "-o", "link", "show", "dev", "in").split("link/ether ")[1].split()[0]
    listeners: dict[str, Any] = {"own_vnf": VnfListener(tb, pid_a, markers["own_vnf"]),
                                 "other_station": StationListener(tb, b.station, markers["other_station"]),
                                 "other_vnf": VnfListener(tb, pid_b, markers["other_vnf"])}
    send(a.station, markers["own_vnf"], a.gw_addr)
    send(a.station, markers["other_station"], b.sta_addr, via_mac=station_mac)
    send(a.station, markers["other_vnf"], b.gw_addr, via_mac=vnf_mac)
    time.sleep(1.0)  # the last probes' way through the AP, the switches and the vNF
    return {k: listener.seen() for k, listener in listeners.items()}
