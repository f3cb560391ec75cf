"""slice-setup benchmark: REST create -> slice active (vAP up, vNF running, flows and meters installed), over 20
slices, p50/p99 overall and per stage, written to bench/results/slice-setup.json through bench/benchlib.py.

It measures a REAL deployment only: the orchestrator driving the ONOS apps (/onos/wifi, /onos/nfv, /onos/pof) with
real agents behind them. Point it at one of:
  --url URL --token TOKEN          an orchestrator already running against the real controllers,
  --onos-url URL --topology FILE   the ONOS REST endpoint (+ ONOS_USER/ONOS_PASSWORD) and the wired topology JSON
                                   (PUT /api/v1/topology shape); the benchmark starts its own orchestrator process,
  --testbed                        bring up the whole one-machine testbed (wislice_testbed.topology: ONOS + apps,
                                   AP VM with hostapd + ap-agent + its pof-switch, core switch, MEC node with
                                   mec-agent + pof-switch on a private dockerd, the orchestrator): full slices,
  --real-stack                     bring up the ONOS runtime with the built apps and an AP VM running the real
                                   ap-agent + hostapd (tests/integration/real_stack.py), and an orchestrator on them
                                   (no MEC node: vAP-only slices).
Without any (or when the controllers have no connected AP) it writes nothing and says why: a run on fake
controllers would not be a slice-setup time. When no MEC node is connected the slices are vAP-only and the result
is written as slice-setup-vap-only.json instead (no vNF, no path stage), never as slice-setup.json.
Each slice is deleted once it is active (deletion is not timed), so the AP's vAP limit does not cap the count.

Stages per slice: admission_s (POST until 202: quota, admission, placement, plan recorded), queue_s (202 until the
first controller call), create_vap_s / create_vnf_s / create_path_s (sum of those saga steps), total_s (POST until
the operation reports succeeded).
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import requests

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
import benchlib  # noqa: E402  (the project's result writer lives outside this package)

STEP_KINDS = ("create_vap", "create_vnf", "create_path")
BENCH_TENANT = 4242


class Skip(Exception):
    pass


class Api:
    def __init__(self, url: str, token: str) -> None:
        self.url = url.rstrip("/") + "/api/v1"
        self.http = requests.Session()
        self.http.headers["Authorization"] = f"Bearer {token}"

    def __call__(self, method: str, path: str, body: Any = None, ok: tuple[int, ...] = (200, 201, 202, 204)) -> Any:
        resp = self.http.request(method, self.url + path, json=body, timeout=60)
        if resp.status_code not in ok:
            raise RuntimeError(f"{method} {path}: {resp.status_code} {resp.text[:500]}")
        return resp.json() if resp.content else None

    def wait(self, op: dict[str, Any], timeout_s: float = 120) -> dict[str, Any]:
        deadline = time.monotonic() + timeout_s
        while op["status"] in ("pending", "running", "rolling_back"):
            if time.monotonic() > deadline:
                raise RuntimeError(f"operation {op['operation_id']} not finished after {timeout_s} s")
            time.sleep(0.01)
            op = self("GET", f"/operations/{op['operation_id']}")
        return op


def start_orchestrator(onos_url: str, workdir: Path) -> tuple[subprocess.Popen[bytes], str, str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    token = "wso_" + secrets.token_urlsafe(32)
    env = dict(os.environ, WISLICE_CONTROLLERS="rest", WISLICE_ONOS_URL=onos_url,
               WISLICE_DATABASE_URL=f"sqlite:///{workdir}/bench.db", WISLICE_BOOTSTRAP_OPERATOR_TOKEN=token,
               WISLICE_ONOS_USER=os.environ.get("ONOS_USER", "onos"),
               WISLICE_ONOS_PASSWORD=os.environ.get("ONOS_PASSWORD", "rocks"))
    log = open(workdir / "orchestrator.log", "wb")  # noqa: SIM115 - closed with the process
    proc = subprocess.Popen([str(Path(sys.executable).with_name("wislice")), "serve", "--port", str(port)], env=env,
                            stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    for _ in range(300):
        try:
            if requests.get(url + "/api/v1/openapi.json", timeout=1).ok:
                return proc, url, token
        except requests.ConnectionError:
            time.sleep(0.1)
    proc.terminate()
    raise RuntimeError("orchestrator did not start; see " + str(workdir / "orchestrator.log"))


def plan_requests(api: Api, count: int) -> list[dict[str, Any]]:
    """One single-vAP, one-vNF slice per request, spread over the connected APs and the MEC catalog."""
    agents = [a for a in api("GET", "/wifi-agents")["agents"] if a.get("connected")]
    try:
        nodes = [n for n in api("GET", "/mec-agents")["nodes"] if n.get("connected")]
    except RuntimeError:  # no nfv-controller installed
        nodes = []
    if not agents:
        raise Skip("the controllers report no connected AP")
    catalog = sorted(set.intersection(*(set(n.get("catalog", [])) for n in nodes))) if nodes else []
    # The plain kernel forwarder when the nodes have it: the vNF every slice of the demo uses.
    catalog.sort(key=lambda image: image != "kernel-fwd")
    radios = [(a["agent_id"], r["name"]) for a in agents for r in a["radios"]]
    bodies = []
    for i in range(count):
        agent, radio = radios[i % len(radios)]
        bodies.append({"name": f"bench-{i}", "latency_class": "best_effort",
                       "bandwidth": {"down_guaranteed_kbps": 1000, "up_guaranteed_kbps": 200, "down_cap_kbps": 5000,
                                     "up_cap_kbps": 1000},
                       "vaps": [{"agent_id": agent, "radio": radio, "ssid": f"wislice-bench-{i}"}],
                       "vnfs": [{"image": catalog[0], "cpu": 0.1, "memory_mib": 64}] if catalog else []})
    return bodies


def run(api: Api, count: int) -> dict[str, list[float]]:
    api("POST", "/tenants", {"tenant_id": BENCH_TENANT, "name": "bench",
                             "quota": {"slices": count, "vaps": count, "bandwidth_kbps": 10**7, "cpu": 64,
                                       "memory_mib": 10**6}}, ok=(201,))
    samples: dict[str, list[float]] = {k: [] for k in ("total_s", "admission_s", "queue_s",
                                                       *(f"{k}_s" for k in STEP_KINDS))}
    created: list[int] = []
    bodies = plan_requests(api, count)
    full = all(b["vnfs"] for b in bodies)
    try:
        for body in bodies:
            t0 = time.time()
            op = api("POST", f"/tenants/{BENCH_TENANT}/slices", body, ok=(202,))
            t_accepted = time.time()
            created.append(op["slice_id"])
            op = api.wait(op)
            t_done = time.time()
            if op["status"] != "succeeded":
                raise RuntimeError(f"slice {body['name']} failed: {op['error']}")
            samples["total_s"].append(t_done - t0)
            samples["admission_s"].append(t_accepted - t0)
            first = min(s["started_at"] for s in op["steps"])
            samples["queue_s"].append(max(0.0, first - t_accepted))
            for kind in STEP_KINDS:
                samples[f"{kind}_s"].append(sum(s.get("seconds", 0.0) for s in op["steps"] if s["kind"] == kind))
            deleted = api.wait(api("DELETE", f"/tenants/{BENCH_TENANT}/slices/{op['slice_id']}", ok=(202,)))
            if deleted["status"] != "succeeded":
                raise RuntimeError(f"deleting slice {body['name']} failed: {deleted['error']}")
            created.remove(op["slice_id"])
    finally:
        for sid in created:
            try:
                api.wait(api("DELETE", f"/tenants/{BENCH_TENANT}/slices/{sid}", ok=(202, 409)) or {"status": "x"})
            except Exception as exc:  # report, keep cleaning up the rest
                print(f"cleanup of slice {sid}: {exc}", file=sys.stderr)
        api("DELETE", f"/tenants/{BENCH_TENANT}", ok=(204, 404, 409))
    if not full:
        for kind in ("create_vnf", "create_path"):
            del samples[f"{kind}_s"]
    return samples


def direct_vap_times(ctl: Any, count: int) -> list[float]:
    """Reference in the same run: the wifi-controller's own POST .../vaps (agent has the vAP up), no orchestrator."""
    agent = next(a for a in ctl.list_agents() if a.get("connected"))
    times = []
    for i in range(count):
        spec = {"vap_id": f"ref{i}", "radio": agent["radios"][0]["name"], "ssid": f"wislice-ref-{i}",
                "security": {"mode": "open"}, "hidden": False, "tenant_id": BENCH_TENANT, "slice_id": f"ref{i}",
                "rate_limit": {"down_kbps": 5000, "up_kbps": 1000}}
        t0 = time.time()
        ctl.create_vap(agent["agent_id"], spec)
        times.append(time.time() - t0)
        ctl.delete_vap(agent["agent_id"], spec["vap_id"])
    return times


def run_on_testbed(count: int) -> dict[str, list[float]]:
    """The whole one-machine testbed, as `make demo` brings it up; its orchestrator process is the one measured."""
    from wislice_testbed.topology.common import StepLog
    from wislice_testbed.topology.testbed import up

    from wislice_orchestrator.controllers.rest import RestControllers

    with up(StepLog("slice-setup"), stations=0) as tb:
        tb.orch.call("PUT", "/api/v1/topology", body=tb.wired_topology())
        samples = run(Api(tb.orch.url, tb.orch.operator_token), count)
        ctl = RestControllers(tb.onos.url, tb.onos.user, tb.onos.password, timeout_s=60)
        samples["reference_controller_create_vap_s"] = direct_vap_times(ctl, count)
        return samples


def run_on_real_stack(count: int, workdir: Path) -> dict[str, list[float]]:
    """ONOS runtime + AP VM ap-agent, and an orchestrator process on them."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "integration"))
    from real_stack import Unavailable, ap_vm_agent, onos_runtime

    try:
        with onos_runtime() as onos, ap_vm_agent(onos, max_vaps=4):
            os.environ.update(ONOS_USER=onos.user, ONOS_PASSWORD=onos.password)
            proc, url, token = start_orchestrator(onos.url, workdir)
            try:
                samples = run(Api(url, token), count)
            finally:
                proc.terminate()
                proc.wait(timeout=10)
            samples["reference_controller_create_vap_s"] = direct_vap_times(onos.ctl, count)
            return samples
    except Unavailable as exc:
        raise Skip(str(exc)) from exc


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--url", default=os.environ.get("WISLICE_BENCH_URL"))
    p.add_argument("--token", default=os.environ.get("WISLICE_BENCH_TOKEN"))
    p.add_argument("--onos-url", default=os.environ.get("WISLICE_BENCH_ONOS_URL"))
    p.add_argument("--topology", default=os.environ.get("WISLICE_BENCH_TOPOLOGY"))
    p.add_argument("--testbed", action="store_true", help="bring up the whole one-machine testbed (see above)")
    p.add_argument("--real-stack", action="store_true", help="bring up ONOS + AP VM agent (see above)")
    p.add_argument("--slices", type=int, default=20)
    args = p.parse_args(argv)
    proc = None
    try:
        with tempfile.TemporaryDirectory(prefix="wislice-bench-") as tmp:
            try:
                if args.testbed:
                    samples = run_on_testbed(args.slices)
                    api = None
                elif args.real_stack:
                    samples = run_on_real_stack(args.slices, Path(tmp))
                    api = None
                elif args.url and args.token:
                    api = Api(args.url, args.token)
                elif args.onos_url and args.topology:
                    proc, url, token = start_orchestrator(args.onos_url, Path(tmp))
                    api = Api(url, token)
                    api("PUT", "/topology", json.loads(Path(args.topology).read_text()))
                else:
                    raise Skip("no real deployment given (--url/--token, or --onos-url/--topology); "
                               "see orchestrator-api/bench/slice_setup.py")
                if api is not None:
                    samples = run(api, args.slices)
            except Skip as exc:
                print(f"slice-setup: SKIPPED, nothing written: {exc}")
                return 0
            finally:
                if proc is not None:
                    proc.terminate()
                    proc.wait(timeout=10)
    except requests.ConnectionError as exc:
        print(f"slice-setup: SKIPPED, nothing written: cannot reach the deployment: {exc}")
        return 0
    reference_samples = samples.pop("reference_controller_create_vap_s", None)
    metrics = {"p50_s": benchlib.median(samples["total_s"]), "p99_s": benchlib.percentile(samples["total_s"], 99)}
    for key, values in samples.items():
        if key != "total_s":
            metrics[f"{key.removesuffix('_s')}_p50_s"] = benchlib.median(values)
    units = {k: "s" for k in metrics}
    reference = {}
    if reference_samples:
        reference["controller_create_vap_p50_s"] = benchlib.median(reference_samples)
        metrics["p50_vs_controller_create_vap"] = metrics["p50_s"] / reference["controller_create_vap_p50_s"]
        units["p50_vs_controller_create_vap"] = "ratio"
    full = "create_vnf_s" in samples
    name = "slice-setup" if full else "slice-setup-vap-only"
    shape = "1 vAP + 1 vNF + 1 metered path" if full else "1 vAP, no vNF and no path (no MEC node connected)"
    where = ("the one-machine testbed (ONOS runtime + WiSlice apps; ap-agent + hostapd in the qemu TCG AP VM; "
             "mec-agent on a private dockerd; three pofswitch-afp)" if args.testbed else
             "the real controllers (ONOS runtime + WiSlice apps, ap-agent + hostapd in the AP VM)")
    notes = (f"{len(samples['total_s'])} slices created one after another ({shape} each) on {where}; each deleted "
             "once active; per-stage values are medians; goal p50 <= 1 s")
    if reference:
        notes += ("; reference: the wifi-controller's own POST /onos/wifi/agents/{id}/vaps (no orchestrator), "
                  "same agent, same run")
    path = benchlib.write_result(name, metrics, units, reference=reference, notes=notes)
    benchlib.print_table(name, metrics, units, reference)
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
