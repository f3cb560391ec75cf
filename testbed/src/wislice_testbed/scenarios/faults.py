"""Fault injection on the testbed (issue #13): a part of the system is killed with SIGKILL (or cut from its
controller) once while a slice is being created and once under steady traffic, then started again as its
supervisor would. The system must converge: every slice the orchestrator holds is whole on every part (vAP in
hostapd and the wifi-controller, container and vNF, path, flows on each switch), nothing is left of a slice it does
not hold, the steady slice's station keeps (or regains) its traffic. How long that takes is measured for each.

What "whole" means is read from the parts themselves (`observe`): the orchestrator's slices, ONOS's vAPs, vNFs
and slice paths, the SSIDs hostapd serves, the containers the private dockerd runs, the flow entries each
pof-switch holds (its management socket's `stats`). A healthy snapshot taken before the faults is the reference.
"""

from __future__ import annotations

import statistics
import time
from collections import Counter
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

from wislice_testbed.topology.common import StepLog, wait_for
from wislice_testbed.topology.testbed import CORE_DEV_ID

from . import e2e_slice as e2e
from .fault_parts import FAULTS, Fault

CONVERGE_TIMEOUT_S = 120.0
PING_INTERVAL_S = 0.2
# A part off the data path may cost the steady slice at most this much traffic (a ping or two lost in a busy
# machine), and not its station's association.
OFF_PATH_OUTAGE_S = 1.0


@dataclass
class State:
    """What the parts hold, as counters (a duplicate shows as a count of 2)."""

    slices: Counter[str] = field(default_factory=Counter)      # "t<tenant>s<slice>:<status>" in the orchestrator
    vaps: Counter[str] = field(default_factory=Counter)        # "<vap_id>:<state>" in the wifi-controller
    ssids: Counter[str] = field(default_factory=Counter)       # SSIDs hostapd serves (iw dev in the AP VM)
    vnfs: Counter[str] = field(default_factory=Counter)        # "<vnf_id>:<state>" in the nfv-controller
    containers: Counter[str] = field(default_factory=Counter)  # running vNF containers by vnf_id label
    paths: Counter[str] = field(default_factory=Counter)       # slice paths in the network controller
    flows: Counter[str] = field(default_factory=Counter)       # flow entries per switch (its own count)
    sessions: Counter[str] = field(default_factory=Counter)    # agents and switches connected to ONOS

    def differences(self, expected: State) -> list[str]:
        out = []
        for name in ("sessions", "slices", "vaps", "ssids", "vnfs", "containers", "paths", "flows"):
            have, want = getattr(self, name), getattr(expected, name)
            if have != want:
                extra, missing = have - want, want - have
                out.append(f"{name}: extra {dict(extra)} missing {dict(missing)}")
        return out

    def plus(self, other: State) -> State:
        return State(**{name: getattr(self, name) + getattr(other, name) for name in self.__dataclass_fields__})


def observe(tb: Any, tokens: dict[int, str]) -> State:
    st = State()
    for tenant, token in tokens.items():
        for sl in tb.orch.call("GET", f"/api/v1/tenants/{tenant}/slices", token)[1]["slices"]:
            st.slices[f"t{tenant}s{sl['slice_id']}:{sl['status']}"] += 1
    st.vaps.update(f"{v['vap_id']}:{v.get('state')}" for v in tb.onos.get("/onos/wifi/vaps")["vaps"])
    st.ssids.update(line.split("ssid ", 1)[1].strip() for line in tb.ap.vm.run("iw dev").out.splitlines()
                    if line.strip().startswith("ssid "))
    st.vnfs.update(f"{v['vnf_id']}:{v.get('state')}" for v in tb.onos.get("/onos/nfv/vnfs")["vnfs"])
    st.containers.update(str(vnf_id) for vnf_id in tb.mec.vnf_containers())
    st.paths.update(str(p["slice_id"]) for p in tb.onos.get("/onos/pof/slices")["slices"])
    st.sessions.update(a["agent_id"] for a in tb.onos.get("/onos/wifi/agents")["agents"] if a.get("connected"))
    st.sessions.update(n["agent_id"] for n in tb.onos.get("/onos/nfv/nodes")["nodes"] if n.get("connected"))
    st.sessions.update(s["device_id"] for s in tb.onos.get("/onos/pof/switches")["switches"] if s.get("connected"))
    for name, flows in switch_flows(tb).items():
        st.flows[name] = flows
    return st


def switch_flows(tb: Any) -> dict[str, int]:
    """The flow entries each switch holds, by its own count (management socket `stats`)."""
    from wislice_agent_proto.switch_mgmt import SwitchMgmt
    core = SwitchMgmt(str(tb.log_dir / "core-mgmt.sock")).stats()["flows"]
    mec = SwitchMgmt(str(tb.mec.mgmt)).stats()["flows"]
    ap = int(tb.ap.vm.run(f"printf 'stats\\n' | python3 -c \"{_GUEST_MGMT}\"").out.split("flows=")[1].split()[0])
    return {"ap": ap, f"core{CORE_DEV_ID}": core, "mec": mec}


# The AP switch's management socket, asked from inside the guest (one line in, one line out).
_GUEST_MGMT = ("import socket,sys;s=socket.socket(socket.AF_UNIX);s.connect('/run/wislice/pof-mgmt.sock');"
               "s.sendall(sys.stdin.buffer.read());print(s.makefile().readline())")


def slice_state(tb: Any, tenant: int, token: str, slice_id: int, per_slice_flows: Counter[str]) -> State:
    """What one active slice adds to the parts (its flow entries counted as the reference slice's)."""
    sl = tb.orch.call("GET", f"/api/v1/tenants/{tenant}/slices/{slice_id}", token)[1]
    st = State(flows=Counter(per_slice_flows))
    st.slices[f"t{tenant}s{slice_id}:active"] += 1
    for vap in sl["vaps"]:
        st.vaps[f"{vap['vap_id']}:up"] += 1
        st.ssids[vap["ssid"]] += 1
        st.paths[f"t{tenant}s{slice_id}-{vap['vap_id']}"] += 1
    for vnf in sl["vnfs"]:
        st.vnfs[f"{vnf['vnf_id']}:running"] += 1
        st.containers[str(vnf["vnf_id"])] += 1
    return st


class PingMonitor:
    """A ping every PING_INTERVAL_S from a station to its slice's server, in the guest, for the whole fault (the
    guest's ping is busybox's: replies say "seq=N")."""

    def __init__(self, s: e2e.SliceRun) -> None:
        self.s, self.log = s, f"/tmp/fault-ping-{s.tenant_id}.log"
        s.station.vm.run(f"rm -f {self.log}", check=False)
        self.pid = s.station.vm.spawn(f"ip netns exec {s.station.ns} ping -i {PING_INTERVAL_S} -W 1 "
                                      f"{s.server_addr}", log=self.log)

    def stop(self) -> tuple[int, int, float]:
        """Sent, answered, and the longest run without an answer in seconds."""
        vm = self.s.station.vm
        vm.run(f"kill -INT {self.pid}; sleep 0.5", check=False)
        return ping_summary(vm.run(f"cat {self.log}; rm -f {self.log}", check=False).out)


def ping_summary(out: str) -> tuple[int, int, float]:
    """(sent, answered, longest run without an answer in seconds) from ping's output (iputils or busybox)."""
    seqs = sorted({int(w.split("=")[1]) for line in out.splitlines() if "bytes from" in line
                   for w in line.split() if w.startswith(("seq=", "icmp_seq="))})
    sent = next((int(line.split()[0]) for line in out.splitlines() if "packets transmitted" in line), 0)
    first = 1 if "icmp_seq=" in out else 0  # iputils counts from 1, busybox from 0
    bounds = [first - 1, *seqs, first + sent]
    longest = max(b - a - 1 for a, b in pairwise(bounds))
    return sent, len(seqs), round(longest * PING_INTERVAL_S, 1)


@dataclass
class Outcome:
    kind: str
    phase: str                   # "create" or "traffic"
    data_path: bool = False      # the part carries the slice's frames
    converged: bool = False
    converge_s: float = 0.0      # from the crash until every part agrees (and the slice carries traffic)
    restart_s: float = 0.0       # how long the part took to start again
    detail: str = ""
    op_status: str = ""          # create: how the interrupted creation ended
    leaks: list[str] = field(default_factory=list)
    outage_s: float = 0.0        # traffic: the longest run of lost pings
    pings: tuple[int, int] = (0, 0)
    clients_kept: bool = True

    def survived(self) -> bool:
        if not self.converged or self.leaks:
            return False
        if self.phase != "traffic":
            return True
        sent, answered = self.pings
        measured = sent >= 10 and answered > 0  # the monitor ran, and the slice carried traffic again
        return measured and (self.data_path or (self.outage_s <= OFF_PATH_OUTAGE_S and self.clients_kept))

    def to_json(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items()}


@dataclass
class Bench:
    """The testbed with the reference slice (tenant 1, its station associated and reaching its server) and
    tenant 2, whose slice is created under each fault."""

    tb: Any
    log: StepLog
    steady: e2e.SliceRun
    other: e2e.SliceRun
    baseline: State
    per_slice_flows: Counter[str]
    wired_pid: int = 0  # the reference vNF's container the server link was wired into

    @property
    def tokens(self) -> dict[int, str]:
        return {self.steady.tenant_id: self.steady.token, self.other.tenant_id: self.other.token}


def prepare(tb: Any, log: StepLog, tokens: dict[int, str] | None = None) -> Bench:
    """tokens: tenants 1 and 2 exist already (a testbed shared with other scenarios)."""
    steady = e2e.SliceRun(1, "alpha", 2000, tb.ap.stations[0])
    other = e2e.SliceRun(2, "beta", 1000, tb.ap.stations[1] if len(tb.ap.stations) > 1 else tb.ap.stations[0])
    if tokens:
        steady.token, other.token = tokens[1], tokens[2]
    else:
        e2e.operator_setup(tb, log, [steady, other])
    empty = observe(tb, {1: steady.token, 2: other.token})
    e2e.create_slice(tb, log, steady)
    e2e.wire_server_side(tb, steady)
    e2e.associate(tb, log, steady)
    wait_for("ping through the reference slice", lambda: e2e.ping(tb, steady)[0], timeout=30, period=1)
    bench = Bench(tb, log, steady, other, State(), Counter(), e2e.vnf_pid(tb, steady.vnf_id))
    bench.baseline = wait_for("a settled baseline", lambda: _settled(bench), timeout=30, period=1)
    bench.per_slice_flows = bench.baseline.flows - empty.flows
    log.say(f"baseline: {sum(bench.baseline.flows.values())} flow entries, "
            f"{dict(bench.per_slice_flows)} per slice")
    return bench


def _settled(bench: Bench) -> State | None:
    """A snapshot equal to the one a second later: nothing is still being installed."""
    first = observe(bench.tb, bench.tokens)
    time.sleep(1)
    return first if not observe(bench.tb, bench.tokens).differences(first) else None


def converge(bench: Bench, expected: State, started: float) -> tuple[bool, float, str]:
    """Waits until the parts hold `expected` and the reference slice carries traffic; (converged, seconds since
    `started`, the last differences)."""
    last: list[str] = []

    def agreed() -> bool:
        nonlocal last
        last = observe(bench.tb, bench.tokens).differences(expected)
        if not last:
            rewire_if_rebuilt(bench)
            ok, summary = e2e.ping(bench.tb, bench.steady, count=2)
            last = [] if ok else [f"ping: {summary}"]
        return not last

    try:
        wait_for("the system to converge", agreed, timeout=CONVERGE_TIMEOUT_S, period=1)
        return True, round(time.monotonic() - started, 1), ""
    except TimeoutError:
        return False, round(time.monotonic() - started, 1), "; ".join(last)


def rewire_if_rebuilt(bench: Bench) -> None:
    """A vNF container rebuilt by its agent lost the testbed's link to the server namespace (the testbed's
    stand-in for the vNF's egress, not part of the product): wire the new one."""
    s, tb = bench.steady, bench.tb
    if e2e.vnf_pid(tb, s.vnf_id) != bench.wired_pid:
        for undo in reversed(s.cleanup):
            undo()
        s.cleanup.clear()
        e2e.wire_server_side(tb, s)
        bench.wired_pid = e2e.vnf_pid(tb, s.vnf_id)


def inject(bench: Bench, fault: Fault) -> float:
    """Crash, hold, restart; returns how long the restart took."""
    fault.crash(bench.tb)
    time.sleep(fault.hold_s)
    began = time.monotonic()
    fault.restart(bench.tb)
    return round(time.monotonic() - began, 1)


def during_creation(bench: Bench, fault: Fault, at_s: float = 0.3) -> Outcome:
    tb, o = bench.tb, bench.other
    out = Outcome(fault.kind, "create", fault.data_path)
    _, op, headers = tb.orch.call("POST", f"/api/v1/tenants/{o.tenant_id}/slices", o.token,
                                  e2e.slice_body(o, tb.ap.agent_id))
    location = headers.get("Location") or f"/api/v1/operations/{op['id']}"
    time.sleep(at_s)
    started = time.monotonic()
    out.restart_s = inject(bench, fault)
    try:
        done = e2e.wait_operation(tb, o.token, location, timeout=CONVERGE_TIMEOUT_S)
    except TimeoutError as exc:
        out.detail = str(exc)
        return out
    out.op_status = done["status"]
    slice_id = done.get("slice_id")
    expected = bench.baseline
    if done["status"] == "succeeded":
        expected = expected.plus(slice_state(tb, o.tenant_id, o.token, slice_id, bench.per_slice_flows))
    elif slice_id is not None:  # a failed slice stays listed, with nothing of it on the parts
        expected = expected.plus(State(slices=Counter({f"t{o.tenant_id}s{slice_id}:failed": 1})))
    out.converged, out.converge_s, out.detail = converge(bench, expected, started)
    if slice_id is not None:
        out.leaks = remove_and_check(bench, slice_id)
    return out


def remove_and_check(bench: Bench, slice_id: int) -> list[str]:
    """Deletes tenant 2's slice; what is left of it anywhere once the parts settle is a leak."""
    tb, o = bench.tb, bench.other
    _, _, headers = tb.orch.call("DELETE", f"/api/v1/tenants/{o.tenant_id}/slices/{slice_id}", o.token,
                                 expect=(200, 202, 204, 404))
    if headers.get("Location"):
        e2e.wait_operation(tb, o.token, headers["Location"])
    ok, _, left = converge(bench, bench.baseline, time.monotonic())
    return [] if ok else [left]


def under_traffic(bench: Bench, fault: Fault) -> Outcome:
    tb, s = bench.tb, bench.steady
    out = Outcome(fault.kind, "traffic", fault.data_path)
    before = e2e.connections(tb, s.station)
    monitor = PingMonitor(s)
    try:
        time.sleep(2)
        started = time.monotonic()
        out.restart_s = inject(bench, fault)
        out.converged, out.converge_s, out.detail = converge(bench, bench.baseline, started)
        time.sleep(2)
    finally:
        sent, answered, out.outage_s = monitor.stop()
    out.pings = (sent, answered)
    out.clients_kept = (e2e.connections(tb, s.station) == before
                        and s.station.state().get("wpa_state") == "COMPLETED")
    return out


def run(tb: Any, log: StepLog, kinds: list[str] | None = None,
        tokens: dict[int, str] | None = None) -> list[Outcome]:
    """Each fault of kinds during a creation and under traffic; the reference slice is deleted at the end (its
    leftovers: the last outcome's leaks)."""
    bench = prepare(tb, log, tokens)
    outcomes = []
    for kind in kinds or list(FAULTS):
        fault = FAULTS[kind]
        for phase in (during_creation, under_traffic):
            # Each fault is judged against the system as it was just before it (one that was not survived counts
            # once, not again in every fault after it).
            bench.baseline = wait_for("a settled system", lambda: _settled(bench), timeout=60, period=1)
            with log.step(f"fault_{kind}_{phase.__name__}", f"{kind} killed {phase.__name__.replace('_', ' ')}"):
                out = phase(bench, fault)
            log.say(f"{kind}/{out.phase}: " + ", ".join(f"{k}={v}" for k, v in out.to_json().items()
                                                        if k not in ("kind", "phase") and v not in ("", [])))
            outcomes.append(out)
    gone = e2e.delete_slice(tb, log, bench.steady)
    if outcomes and not all(gone.values()):
        outcomes[-1].leaks.append(f"the reference slice's deletion left: {sorted(k for k, v in gone.items() if not v)}")
    return outcomes


def metrics(outcomes: list[Outcome]) -> dict[str, float]:
    times = [o.converge_s for o in outcomes if o.converged]
    return {"faults_injected": len(outcomes), "faults_survived": sum(o.survived() for o in outcomes),
            "converge_p50_s": round(statistics.median(times), 1) if times else 0.0,
            "converge_max_s": max(times, default=0.0),
            "leaks_found": sum(len(o.leaks) for o in outcomes)}

