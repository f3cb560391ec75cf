"""Real pofswitch-afp switches on a cluster (issue 17): each switch bridges two network namespaces of its own
(h_a <-> port 1 | switch | port 2 <-> h_b, veth pairs) and dials the cluster's POF listeners in its own order, so
switches can have different masters. A slice path over the switch is installed through the pof app's REST
(up and down meters), a 10 ms ping runs h_a -> h_b through it, and the state is read from every node's REST and
from the switch's management socket to count what a failover lost or left over.

Used by the cluster test (test_cluster_failover.py) and the cluster-failover bench. Needs root (namespaces)."""

from __future__ import annotations

import contextlib
import re
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cluster_helpers import ONOS_APPS, Cluster, wait_for
from wislice_testbed.netns import Namespace
from wislice_testbed.processes import ProcessManager
from wislice_testbed.topology.common import repo_root
from wislice_testbed.topology.pofswitch import offloads_off
from wislice_testbed.veth import VethPair, create_veth

sys.path.insert(0, str(ONOS_APPS / "network-controller" / "tests" / "integration"))
from pof_helpers import mgmt  # noqa: E402  (the management-socket client the pof integration tests use)

POFSWITCH = repo_root() / "pof-switch" / "build" / "pofswitch-afp"
RATE_KBPS = 20000  # each slice's up and down meters; a 10 ms ping is ~70 kbit/s
PING_INTERVAL_S = 0.01
_REPLY = re.compile(r"^\[(\d+\.\d+)\] \d+ bytes from [0-9.]+: icmp_seq=(\d+)")
_HANDSHAKE = re.compile(r"controller handshake complete with [^:]+:(\d+)")


class PingStream:
    """ping every 10 ms from h_a to h_b through the switch (-D: each reply's wall-clock time). The largest interval
    between consecutive replies is the stream's interruption; missing sequence numbers are its losses."""

    def __init__(self, ns: Namespace, ip: str, log: Path) -> None:
        self.log = log
        with open(log, "w") as out:
            # stdbuf: each reply line reaches the file as it comes (the test waits on them).
            argv = ["stdbuf", "-oL", "ping", "-D", "-n", "-i", str(PING_INTERVAL_S), "-W", "1", ip]
            self.proc = subprocess.Popen(ns.argv(argv), stdout=out, stderr=subprocess.STDOUT, start_new_session=True)

    def replies(self) -> list[tuple[int, float]]:
        """(icmp_seq, wall-clock time) of every reply so far, in arrival order."""
        out = []
        for line in self.log.read_text(errors="replace").splitlines():
            m = _REPLY.match(line)
            if m:
                out.append((int(m.group(2)), float(m.group(1))))
        return out

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)

    def gaps(self, since: float = 0.0) -> dict[str, float]:
        """Over the replies after wall-clock ``since``: the largest interval between two consecutive replies (ms;
        10 ms when nothing is lost), the requests lost (sequence numbers never answered) and the replies."""
        got = [(s, t) for s, t in self.replies() if t >= since]
        if len(got) < 2:
            return {"gap_ms": float("inf"), "lost": -1, "replies": len(got)}
        gap = max(b[1] - a[1] for a, b in zip(got, got[1:]))
        seqs = {s for s, _ in got}
        span = (got[-1][0] - got[0][0]) % 65536 + 1
        return {"gap_ms": round(gap * 1000, 1), "lost": span - len(seqs), "replies": len(got)}


@dataclass
class Switch:
    dev_id: int
    controllers: list[int]  # the cluster's POF ports in this switch's order
    ns_a: Namespace
    ns_b: Namespace
    ip_b: str
    mgmt: Path
    proc: Any = None
    log: Path | None = None
    stream: PingStream | None = None
    slice_id: str = ""
    slice: dict[str, Any] = field(default_factory=dict)

    @property
    def device(self) -> str:
        return f"pof:{self.dev_id:08x}"

    def command(self, line: str) -> str:
        """One management-socket command and its reply line (spec/switch-mgmt)."""
        return mgmt(self.mgmt, line)

    def stats(self) -> dict[str, int]:
        """The datapath's counters: ``flows`` and ``tables`` are what the switch holds."""
        reply = self.command("stats")
        assert reply.startswith("OK "), reply
        return {k: int(v) for k, v in (item.split("=") for item in reply.split()[1:])}

    def handshakes(self) -> list[int]:
        """The POF port of every controller the switch completed a handshake with, in order (its log)."""
        text = self.log.read_text(errors="replace") if self.log else ""
        return [int(p) for p in _HANDSHAKE.findall(text)]


class Rig:
    """The switches, their namespaces, veths and processes; ``close()`` removes all of it (also after a failure)."""

    def __init__(self, work: Path) -> None:
        self.work = work
        self.processes = ProcessManager(work / "logs")
        self.namespaces: list[Namespace] = []
        self.veths: list[VethPair] = []
        self.switches: list[Switch] = []

    def add_switch(self, dev_id: int, controllers: list[int]) -> Switch:
        net = f"10.{170 + len(self.switches)}.0"
        ns_a, ns_b = Namespace.create(f"f{dev_id}a"), Namespace.create(f"f{dev_id}b")
        self.namespaces += [ns_a, ns_b]
        ea = create_veth(ns_a, None, addr_a=f"{net}.1/24")
        eb = create_veth(ns_b, None, addr_a=f"{net}.2/24")
        self.veths += [ea, eb]
        for ns, ifname in ((ns_a, ea.a), (None, ea.b), (ns_b, eb.a), (None, eb.b)):
            offloads_off(ifname, ns.name if ns else None)
        # Static neighbours: the stream's gaps are the slice's, not an ARP retry's.
        mac_a, mac_b = (ns.exec(["cat", f"/sys/class/net/{v.a}/address"]).stdout.strip()
                        for ns, v in ((ns_a, ea), (ns_b, eb)))
        ns_a.exec(["ip", "neigh", "replace", f"{net}.2", "lladdr", mac_b, "dev", ea.a, "nud", "permanent"])
        ns_b.exec(["ip", "neigh", "replace", f"{net}.1", "lladdr", mac_a, "dev", eb.a, "nud", "permanent"])
        sw = Switch(dev_id, controllers, ns_a, ns_b, f"{net}.2", self.work / f"mgmt{dev_id}.sock")
        argv = [str(POFSWITCH), "--controller", ",".join(f"127.0.0.1:{p}" for p in controllers),
                "--dev-id", str(dev_id), "--mgmt", str(sw.mgmt), "--port", f"s1={ea.b}", "--port", f"s2={eb.b}"]
        sw.proc = self.processes.start(argv, log_name=f"pofswitch{dev_id}")
        sw.log = self.processes.log_path(sw.proc)
        self.switches.append(sw)
        return sw

    def start_streams(self) -> None:
        for sw in self.switches:
            sw.stream = PingStream(sw.ns_a, sw.ip_b, self.work / f"ping{sw.dev_id}.log")

    def stop_streams(self) -> None:
        for sw in self.switches:
            if sw.stream:
                sw.stream.stop()

    def close(self) -> None:
        self.stop_streams()
        self.processes.stop_all()
        for pair in self.veths:
            with contextlib.suppress(Exception):
                pair.delete()
        for ns in self.namespaces:
            with contextlib.suppress(Exception):
                ns.delete()


def install_slice(cluster: Cluster, node: str, sw: Switch) -> dict[str, Any]:
    """A one-hop slice over the switch (port 1 -> 2 up, back down), each direction metered, POSTed on ``node``
    once that node's device store has the switch's ports (they reach a node that is not the master a little after
    the device: "has no port 1" otherwise, seen once)."""

    def ports() -> set[str]:
        code, body = cluster.get(node, f"/onos/v1/devices/{sw.device}/ports")
        return {p["port"] for p in body["ports"]} if code == 200 else set()

    wait_for(f"{node} lists {sw.device}'s ports 1 and 2", lambda: ports() >= {"1", "2"}, 30)
    sw.slice_id = f"fo-{sw.dev_id}"
    body = {"slice_id": sw.slice_id, "tenant_id": sw.dev_id, "rate_kbps": RATE_KBPS,
            "hops": [{"device_id": sw.device, "in_port": 1, "out_port": 2}]}
    code, sl = cluster.request(node, "POST", "/onos/pof/slices", body, timeout=30)
    assert code == 201, (node, code, sl)
    assert len(sl["meters"]) == 2, sl
    sw.slice = sl
    return sl


def state(cluster: Cluster, nodes: list[str], switches: list[Switch], elsewhere: bool = False) -> dict[str, Any]:
    """The state the failover must keep: each switch's pof flows in its master's view (``flows``, None where the
    master does not answer), its meters in every node's view (``meters``: WiSlice's cluster-wide meter store), and
    the switch's own flow and table counts. Other nodes' views of the flows are kept apart (``flows_elsewhere``):
    a node that does not master a device reads them from the master through ONOS's flow store, which in this
    runtime (onos-core-dist 2.4.0) can time out or answer empty for minutes (docs/onos-cluster.md); they are
    reported, not required, and read only with ``elsewhere`` (a read can hold a REST thread of the master for
    15 s). The REST reads run in parallel."""
    masters = {sw.device: next((m for n in nodes if (m := cluster.master(n, sw.device))), None) for sw in switches}
    jobs = [(n, sw.device, kind) for n in nodes for sw in switches for kind in ("flows", "meters")
            if kind == "meters" or masters[sw.device] == n or elsewhere]
    with ThreadPoolExecutor(len(jobs)) as pool:
        got = list(pool.map(lambda job: getattr(cluster, job[2])(job[0], job[1]), jobs))
    flows: dict[str, Any] = {sw.device: None for sw in switches}
    others: dict[str, Any] = {n: {} for n in nodes}
    meters: dict[str, Any] = {n: {} for n in nodes}
    for (n, device, kind), value in zip(jobs, got):
        if kind == "meters":
            meters[n][device] = value
        elif masters[device] == n:
            flows[device] = value
        else:
            others[n][device] = value
    errors = {f"{n} {d} {kind}": cluster.errors.get((n, d)) for (n, d, kind), value in zip(jobs, got)
              if value is None and (kind == "meters" or masters[d] == n)}
    others_errors = {f"{n} {d}": cluster.errors.get((n, d)) for (n, d, kind), value in zip(jobs, got)
                     if value is None and kind == "flows" and masters[d] != n}
    return {"masters": masters, "flows": flows, "meters": meters, "flows_elsewhere": others, "errors": errors,
            "errors_elsewhere": others_errors,
            "switch": {sw.device: {k: sw.stats()[k] for k in ("flows", "tables")} for sw in switches}}


def differences(before: dict[str, Any], after: dict[str, Any], nodes: list[str]) -> tuple[int, list[str]]:
    """What ``after`` lost or gained against ``before``: every flow missing, extra or in another state in the
    device's master's view, every meter so in a node of ``nodes``, and every flow or table more or less on a
    switch. ``before``'s meters may come from other nodes (every view is meant to be equal). Returns (count,
    descriptions)."""
    count, what = 0, []
    for device, ref in before["flows"].items():
        now = after["flows"][device]
        if now is None:
            count += 1
            what.append(f"{device}'s master {after['masters'][device]} does not answer for its flows: "
                        f"{after['errors']}")
            continue
        diff = set(ref.items()) ^ set(now.items())
        if diff:
            count += len({k for k, _ in diff})
            what.append(f"{device} flows (master {after['masters'][device]}): {sorted(diff)}")
    reference = next(iter(before["meters"].values()))
    for node in nodes:
        for device, ref in reference.items():
            now = after["meters"][node][device]
            if now is None:
                count += 1
                what.append(f"{node} does not answer for {device} meters: {after['errors']}")
                continue
            diff = set(ref.items()) ^ set(now.items())
            if diff:
                count += len({k for k, _ in diff})
                what.append(f"{node} {device} meters: {sorted(diff)}")
    for device, ref in before["switch"].items():
        for kind, n in ref.items():
            now = after["switch"][device][kind]
            if now != n:
                count += abs(now - n)
                what.append(f"switch {device} {kind}: {n} -> {now}")
    return count, what


def stale_views(st: dict[str, Any]) -> list[str]:
    """Non-master nodes whose view of a device's flows is not its master's (reported, not required: state())."""
    out = []
    for n, views in st["flows_elsewhere"].items():
        for d, v in views.items():
            if v != st["flows"][d]:
                seen = f"no answer ({st['errors_elsewhere'].get(f'{n} {d}')})" if v is None else f"{len(v)} flows"
                out.append(f"{n} {d}: {seen} (master {st['masters'][d]}: {len(st['flows'][d] or {})})")
    return out


def wait_state(cluster: Cluster, nodes: list[str], switches: list[Switch], want: dict[str, Any],
               timeout: float) -> dict[str, Any]:
    """Polls until the masters' flows, every node's meters in ``nodes`` and every switch show exactly ``want``;
    the last state either way."""
    deadline = time.monotonic() + timeout
    while True:
        now = state(cluster, nodes, switches)
        if differences(want, now, nodes)[0] == 0 or time.monotonic() > deadline:
            return now
        time.sleep(0.1)


def settled(st: dict[str, Any]) -> bool:
    """Every switch has a master, whose view holds its flows, all ADDED; every node's meters are alike, all ADDED."""
    meters = list(st["meters"].values())
    return all(st["masters"].values()) and all(m == meters[0] for m in meters) and all(
        flows and set(flows.values()) == {"ADDED"} for flows in st["flows"].values()) and all(
        m and {s for s, _ in m.values()} == {"ADDED"} for m in meters[0].values())


class SwitchSampler:
    """Samples switches' management socket every 50 ms in a thread (flows, tables, ports enabled, miss and
    dropped counters): what the datapath went through while its controller changed."""

    def __init__(self, switches: list[Switch]) -> None:
        self.switches, self.samples = switches, []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            for sw in self.switches:
                with contextlib.suppress(OSError, AssertionError, ValueError):
                    st, ports = sw.stats(), sw.command("ports").split()[1:]
                    enabled = sum(p.split(":")[2] == "1" for p in ports)
                    self.samples.append((sw.device, st["flows"], st["tables"], enabled, st["miss"], st["dropped"]))
            self._stop.wait(0.05)

    def summary(self) -> dict[str, dict[str, int]]:
        self._stop.set()
        self._thread.join(5)
        out = {}
        for sw in self.switches:
            rows = [r for r in self.samples if r[0] == sw.device]
            if rows:
                out[sw.device] = {"samples": len(rows), "flows_min": min(r[1] for r in rows),
                                  "tables_min": min(r[2] for r in rows), "ports_enabled_min": min(r[3] for r in rows),
                                  "miss": rows[-1][4] - rows[0][4], "dropped": rows[-1][5] - rows[0][5]}
        return out


def wait_settled(cluster: Cluster, nodes: list[str], switches: list[Switch], timeout: float = 60) -> dict[str, Any]:
    """Waits until ``settled``; the settled state, or an AssertionError naming the last state seen."""
    deadline = time.monotonic() + timeout
    while True:
        st = state(cluster, nodes, switches)
        if settled(st):
            return st
        if time.monotonic() > deadline:
            raise AssertionError(f"flows and meters not ADDED alike in every view within {timeout:.0f} s: {st}")
        time.sleep(0.2)


def masters_of(cluster: Cluster, node: str, switches: list[Switch]) -> dict[str, str] | None:
    """Each switch's master in ``node``'s view; None while a read fails (it can, on a loaded machine or while the
    cluster re-elects after a kill: the 5 s REST timeout)."""
    m = {sw.device: cluster.master(node, sw.device) for sw in switches}
    return m if None not in m.values() else None


def failover_round(cluster: Cluster, rig: Rig, victim: str, before: dict[str, Any],
                   timeout: float = 60) -> dict[str, Any]:
    """kill -9 of ``victim``'s Karaf while every switch's stream runs. Its switches (orphans) dial a survivor;
    the round ends when both survivors show each orphan available and mastered by a survivor and every view and
    switch holds exactly ``before`` again, plus 1 s of streams. Returns the timings (s from the kill), the
    streams' gaps since the kill, and what was lost or left over on the survivors and the switches."""
    survivors = [n for n in sorted(cluster.nodes) if n != victim]
    masters = wait_for("every switch's master", lambda: masters_of(cluster, survivors[0], rig.switches), 20)
    orphans = [sw for sw in rig.switches if masters[sw.device] == victim]
    kept = [sw for sw in rig.switches if sw not in orphans]
    dialled = {sw.device: len(sw.handshakes()) for sw in orphans}
    sampler = SwitchSampler(orphans)
    since = time.time()
    killed = cluster.kill(victim)
    wait_for("the orphaned switches' handshakes with a survivor", lambda: all(
        len(sw.handshakes()) > dialled[sw.device] for sw in orphans), 30, 0.02)
    redial_s = time.monotonic() - killed
    survivor_ports = {cluster.nodes[n]["pof"] for n in survivors}
    assert all(sw.handshakes()[-1] in survivor_ports for sw in orphans), [sw.handshakes() for sw in orphans]

    def moved() -> dict[str, str] | None:
        new = {sw.device: cluster.master(survivors[0], sw.device) for sw in orphans}
        ok = all(m in survivors for m in new.values()) and all(
            cluster.master(n, sw.device) == new[sw.device] and cluster.available(n, sw.device)
            for n in survivors for sw in orphans)
        return new if ok else None

    new_masters = wait_for("the orphans mastered by a survivor and available in both views", moved, timeout, 0.05)
    mastership_s = time.monotonic() - killed
    after = wait_state(cluster, survivors, rig.switches, before, timeout)
    failover_s = time.monotonic() - killed
    lost, what = differences(before, after, survivors)
    stale = stale_views(state(cluster, survivors, rig.switches, elsewhere=True))
    time.sleep(1.0)
    datapath = sampler.summary()
    gaps = {sw.device: sw.stream.gaps(since) for sw in rig.switches if sw.stream}
    still = wait_for("the kept switches' masters", lambda: masters_of(cluster, survivors[0], kept), 20)
    assert still == {sw.device: masters[sw.device] for sw in kept}, (still, masters)
    wait_for(f"{victim} seen down by the survivors", lambda: all(
        cluster.view(n).get(victim) not in ("READY", "ACTIVE") for n in survivors), timeout)
    return {"victim": victim, "orphans": [sw.device for sw in orphans], "new_masters": new_masters,
            "redial_s": round(redial_s, 2), "mastership_s": round(mastership_s, 2),
            "failover_s": round(failover_s, 2), "lost_or_leaked": lost, "differences": what,
            "kept_gap_ms": max((gaps[sw.device]["gap_ms"] for sw in kept), default=None),
            "orphan_gap_ms": max((gaps[sw.device]["gap_ms"] for sw in orphans), default=None),
            "pings_lost": sum(g["lost"] for g in gaps.values()), "gaps": gaps, "orphan_datapath": datapath,
            "stale_views": stale}


def rejoin(cluster: Cluster, rig: Rig, victim: str, before: dict[str, Any], timeout: float = 60) -> dict[str, Any]:
    """Restarts ``victim`` (same directory and ports): READY in every view, then every view (its own too) and
    every switch exactly ``before``."""
    rejoin_s = cluster.restart(victim)
    nodes = sorted(cluster.nodes)
    after = wait_state(cluster, nodes, rig.switches, before, timeout)
    lost, what = differences(before, after, nodes)
    return {"rejoin_s": round(rejoin_s, 1), "lost_or_leaked": lost, "differences": what,
            "stale_views": stale_views(state(cluster, nodes, rig.switches, elsewhere=True))}


def remove_slices(cluster: Cluster, node: str, rig: Rig, empty: dict[str, Any], timeout: float = 30) -> tuple[
        int, list[str]]:
    """DELETE every switch's slice on ``node``; then no node may keep a flow or meter of them, nor a switch a
    flow: what is left (against ``empty``, the state before the slices) is counted as leaked."""
    for sw in rig.switches:
        code, body = cluster.request(node, "DELETE", f"/onos/pof/slices/{sw.slice_id}", timeout=30)
        assert code == 204, (code, body)
    nodes = sorted(cluster.nodes)
    after = wait_state(cluster, nodes, rig.switches, empty, timeout)
    return differences(empty, after, nodes)
