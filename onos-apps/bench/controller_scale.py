"""controller-scale: N simulated ap-agents, each hosting 8 vAPs, against the WiFi controller in the real ONOS runtime.

For N in (100, 1000): N agents connect (hmac-sha256 hello, syncVaps), 8 vAPs each are created through
/onos/wifi REST, then every agent sends clientAssociated / clientDisassociated events (one per agent per second)
in 3 measuring windows (the median window is reported). Event latency = time the controller's own WifiListener receives the ONOS event minus the
agent's event timestamp (same host clock): it covers TCP, validation, the ConsistentMap write and ONOS event
dispatch. Heap = the controller JVM's used heap (median of samples during the window).
Writes bench/results/controller-scale.json through bench/benchlib.py; the N=100 run is the reference.
bench/controller_scale_cluster.py runs the same phases on the three-node cluster with these functions: they take
lists of agent ports and of REST request functions (one per node; here one of each).
"""
from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ONOS_APPS = HERE.parent
sys.path.insert(0, str(ONOS_APPS / "tests"))
sys.path.insert(0, str(ONOS_APPS.parent / "bench"))

from benchlib import write_result  # noqa: E402
from onos_helpers import Onos, free_port  # noqa: E402
from fake_agent import FakeAgent  # noqa: E402
from wislice_testbed.topology.onos import OnosUnavailable, onos_runtime  # noqa: E402

SECRET = "bench-secret"
WIFI = "org.wislice.onos.wifi.impl.WifiManager"
VAPS_PER_AGENT = 8

# One node's REST: request(method, path, body=None, timeout=...) -> (HTTP code, JSON answer), as Onos.request.
Request = Callable[..., tuple[int, Any]]


def vap_spec(agent: int, n: int) -> dict:
    return {"vap_id": f"a{agent}-v{n}", "radio": "phy0", "ssid": f"slice-{n}", "security": {"mode": "open"},
            "tenant_id": n, "slice_id": f"s-{n}", "rate_limit": {"down_kbps": 10000, "up_kbps": 2000}}


async def connect_all(ports: list[int], count: int, offset: int, secret: str = SECRET) -> list[FakeAgent]:
    """Agents ap-<offset>... ap-<offset+count-1>; agent k dials ports[k % len(ports)] (round-robin over nodes)."""
    agents = [FakeAgent(f"ap-{k}", port=ports[k % len(ports)], secret=secret)
              for k in range(offset, offset + count)]
    sem = asyncio.Semaphore(50)  # bounded connect burst, as agents would reconnect with jitter

    async def one(a: FakeAgent) -> None:
        async with sem:
            await a.connect(retry_s=30)
            await asyncio.wait_for(a.synced.wait(), 60)

    await asyncio.gather(*(one(a) for a in agents))
    return agents


def vap_node(agent: int, n: int, nodes: int) -> int:
    """The node whose REST creates vAP n of an agent: (agent + n) mod nodes, so with agents dialling round-robin
    (agent mod nodes) the vAPs with n mod nodes != 0 are created on a node the agent is not connected to."""
    return (agent + n) % nodes


def create_vaps(requests: list[Request], agents: list[FakeAgent], offset: int) -> float:
    """Creates 8 vAPs per agent through REST (16 concurrent clients), vAP n of agent a on requests[vap_node(a, n)];
    returns vAPs created per second."""
    jobs = [(offset + i, n) for i in range(len(agents)) for n in range(VAPS_PER_AGENT)]

    def create(job: tuple[int, int]) -> int:
        agent, n = job
        request = requests[vap_node(agent, n, len(requests))]
        code, body = request("POST", f"/onos/wifi/agents/ap-{agent}/vaps", vap_spec(agent, n), timeout=60)
        if code != 201:
            raise RuntimeError(f"vAP create failed: {code} {body}")
        return code

    t0 = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(16) as pool:
        list(pool.map(create, jobs))
    return len(jobs) / (time.monotonic() - t0)


async def event_load(agents: list[FakeAgent], phase_no: int, seconds: float, period: float = 1.0) -> int:
    """Each agent: a client associates, half a period later it disassociates, every `period` s (1 s: 2 events per
    agent per second); agents are spread over the first period. Returns the associations sent: the events whose latency the controller records (map
    inserts). MACs carry the phase number, so no client of an earlier phase is ever updated instead of inserted."""
    sent = 0

    async def run(i: int, a: FakeAgent) -> None:
        nonlocal sent
        await asyncio.sleep(period * i / len(agents))
        end = time.monotonic() + seconds
        pair = 0
        while time.monotonic() < end:
            vap = f"a{i}-v{pair % VAPS_PER_AGENT}"
            mac = "02:%02x:%02x:%02x:%02x:01" % (phase_no, i >> 8 & 0xff, i & 0xff, pair % 256)
            await a.event("clientAssociated", {"vap_id": vap, "mac": mac, "signal_dbm": -50})
            sent += 1
            await asyncio.sleep(period / 2)
            await a.event("clientDisassociated", {"vap_id": vap, "mac": mac})
            await asyncio.sleep(period / 2)
            pair += 1

    await asyncio.gather(*(run(i, a) for i, a in enumerate(agents)))
    return sent


def java_rss_mib(pid: int | None) -> float:
    """The resident set of a process (the Karaf JVM), NaN when it cannot be read."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


async def window(requests: list[Request], agents: list[FakeAgent], phase_no: int, seconds: float,
                 period: float = 1.0) -> list[dict]:
    """One measuring window: every node's metrics reset, `seconds` of events, each node's latency percentiles
    (one dict per node, in the order of `requests`)."""
    for request in requests:
        await asyncio.to_thread(request, "DELETE", "/onos/wifi/metrics")
    heap: list[list[float]] = [[] for _ in requests]

    async def sample_heap() -> None:
        while True:
            await asyncio.sleep(2)
            for samples, request in zip(heap, requests):
                _, mm = await asyncio.to_thread(request, "GET", "/onos/wifi/metrics")
                samples.append(mm["heap_used_mib"])

    sampler = asyncio.get_running_loop().create_task(sample_heap())
    sent = await event_load(agents, phase_no, seconds, period)
    await asyncio.sleep(1)  # let the last events drain
    sampler.cancel()
    out = []
    for samples, request in zip(heap, requests):
        _, m = await asyncio.to_thread(request, "GET", "/onos/wifi/metrics")
        out.append({"assoc_sent": sent, "events_seen": m["events"], "event_p50_ms": m["event_p50_ms"],
                    "event_p99_ms": m["event_p99_ms"],
                    "heap_mib": statistics.median(samples) if samples else m["heap_used_mib"],
                    "violations": m["protocol_violations"]})
    return out


async def grow_and_measure(requests: list[Request], ports: list[int], n: int, existing: list[FakeAgent],
                           seconds: float, phase_no: int, windows: int, secret: str = SECRET,
                           period: float = 1.0) -> dict:
    """Grows the agent population to n (round-robin over `ports`, vAPs over `requests`), checks the nodes count n
    agents between them, then measures `windows` windows of `seconds`. Returns the agents, connect_s,
    vap_create_per_s, vaps (as node 0 lists them) and runs: per window, one dict per node."""
    offset = len(existing)
    t0 = time.monotonic()
    new = await connect_all(ports, n - offset, offset, secret)
    connect_s = time.monotonic() - t0
    vaps_per_s = await asyncio.to_thread(create_vaps, requests, new, offset)
    agents = existing + new
    connected = []
    for request in requests:
        _, m = await asyncio.to_thread(request, "GET", "/onos/wifi/metrics")
        connected.append(m["agents_connected"])
    assert sum(connected) == n, connected
    runs = [await window(requests, agents, phase_no * windows + w, seconds, period) for w in range(windows)]
    _, vaps = await asyncio.to_thread(requests[0], "GET", "/onos/wifi/vaps")
    return {"agents": agents, "connect_s": connect_s, "vap_create_per_s": vaps_per_s, "vaps": len(vaps["vaps"]),
            "agents_connected": connected, "runs": runs}


async def run_sizes(phase: Callable[[int, list[FakeAgent], int], Awaitable[dict]], sizes: list[int]) -> list[dict]:
    """phase(n, agents so far, phase number) -> {"agents", "result"} for each size; every agent closed at the end."""
    agents: list[FakeAgent] = []
    results = []
    try:
        for phase_no, n in enumerate(sizes):
            out = await phase(n, agents, phase_no)
            agents = out["agents"]
            results.append(out["result"])
    finally:
        await asyncio.gather(*(a.close() for a in agents), return_exceptions=True)
    return results


async def phase(onos: Onos, port: int, n: int, existing: list[FakeAgent], seconds: float, phase_no: int,
                windows: int) -> dict:
    """Grows the agent population to n, then measures events in `windows` windows of `seconds`: the result is
    the median window (one JVM pause decides a window's p99 on this 2-core machine)."""
    out = await grow_and_measure([onos.request], [port], n, existing, seconds, phase_no, windows)
    agents, connect_s, vaps_per_s = out["agents"], out["connect_s"], out["vap_create_per_s"]
    runs = [per_node[0] for per_node in out["runs"]]
    result = {"agents": n, "vaps": out["vaps"],
              "assoc_sent": sum(r["assoc_sent"] for r in runs), "events_seen": sum(r["events_seen"] for r in runs),
              **{k: statistics.median(r[k] for r in runs) for k in ("event_p50_ms", "event_p99_ms", "heap_mib")},
              "event_p99_ms_windows": [r["event_p99_ms"] for r in runs],
              "rss_mib": java_rss_mib(onos.java_pid()), "connect_s": connect_s, "vap_create_per_s": vaps_per_s,
              "violations": max(r["violations"] for r in runs)}
    print(f"[controller-scale] {result}", flush=True)
    return {"agents": agents, "result": result}


async def run(onos: Onos, port: int, sizes: list[int], seconds: float, windows: int) -> list[dict]:
    return await run_sizes(lambda n, agents, phase_no: phase(onos, port, n, agents, seconds, phase_no, windows),
                           sizes)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="100,1000")
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--heap", default="1G", help="ONOS -Xmx")
    parser.add_argument("--windows", type=int, default=3, help="measuring windows per size (the median is reported)")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    try:
        with onos_runtime(say=print, heap=args.heap) as onos:
            port = free_port()
            onos.configure(WIFI, {"agentPort": port, "sharedSecret": SECRET, "statsIntervalS": 3600})
            time.sleep(1)
            results = asyncio.run(run(onos, port, sizes, args.seconds, args.windows))
    except OnosUnavailable as exc:
        sys.exit(f"{exc}: build first (make -C onos-apps build)")
    ref, big = results[0], results[-1]
    for r in results:
        if r["events_seen"] < 0.95 * r["assoc_sent"]:
            sys.exit(f"controller saw {r['events_seen']} of {r['assoc_sent']} associations: run invalid")
    metrics = {"agents": big["agents"], "event_p50_ms": big["event_p50_ms"], "event_p99_ms": big["event_p99_ms"],
               "heap_mib": round(big["heap_mib"], 1), "rss_mib": round(big["rss_mib"], 1),
               "vaps": big["vaps"], "events_per_s": round(2 * big["assoc_sent"] / (args.seconds * args.windows), 1),
               "p99_ratio_vs_ref": round(big["event_p99_ms"] / max(ref["event_p99_ms"], 0.001), 2)}
    units = {"agents": "agents", "event_p50_ms": "ms", "event_p99_ms": "ms", "heap_mib": "MiB", "rss_mib": "MiB",
             "vaps": "vAPs", "events_per_s": "events/s", "p99_ratio_vs_ref": "x"}
    reference = {"agents_ref": ref["agents"], "event_p50_ms_ref": ref["event_p50_ms"],
                 "event_p99_ms_ref": ref["event_p99_ms"], "heap_mib_ref": round(ref["heap_mib"], 1)}
    notes = (f"WiFi controller in the real ONOS 2.5.6 runtime (Karaf 4.2.9, Java 11, -Xmx{args.heap}), agents are "
             f"protocol-level fakes (onos-apps/tests/fake_agent.py) on loopback in one asyncio process; the NFV and network controller apps are installed too (idle). "
             f"{VAPS_PER_AGENT} vAPs per agent created through REST; 1 event/agent/s in {args.windows} windows of "
             f"{args.seconds:.0f} s per size, the median window reported (event_p99_ms_windows lists them); "
             f"latency = controller's WifiListener time - agent event ts (same clock) for every clientAssociated "
             f"(ConsistentMap insert -> CLIENT_ASSOCIATED event) of the window; heap = median of used-heap samples every 2 s. Reference = first size of the same run. "
             f"Phases: " + "; ".join(str(r) for r in results))
    write_result("controller-scale", metrics, units, reference=reference, notes=notes)
    return 0


if __name__ == "__main__":
    sys.exit(main())
