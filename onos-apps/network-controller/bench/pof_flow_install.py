#!/usr/bin/env python3
"""Benchmark pof-flow-install: POF flow entries installed per second through ONOS to a real pofswitch.

What is timed: POST /onos/pof/flows with N entries -> FlowRuleService -> the POF flow provider -> FLOW_MODs to
pofswitch-afp -> ECHO barrier -> entries ADDED in ONOS -> the REST call returns. flows_per_s = N / that time
(median of RUNS). Also: 1-entry requests in sequence (per-request rate) and removal. Reference, same run: the
same N FLOW_MODs + ECHO written straight to a second pofswitch by a minimal Python controller (no ONOS).
Needs root (veths), the built apps (the testbed's ONOS runtime on private ports) and pof-switch/build/pofswitch-afp. Writes
bench/results/pof-flow-install.json. Leaves nothing behind (veths, processes, the runtime).
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "pof-switch" / "tests" / "integration"))
from benchlib import write_result  # noqa: E402
from pofctl import SCRIPTED_CONTROLLER_ARGS, Controller, output  # noqa: E402
from wislice_testbed.processes import ProcessManager  # noqa: E402
from wislice_testbed.topology.onos import Onos, onos_runtime  # noqa: E402
from wislice_testbed.veth import create_veth  # noqa: E402

N = int(os.environ.get("POF_BENCH_FLOWS", "1000"))
RUNS = int(os.environ.get("POF_BENCH_RUNS", "5"))
SINGLE = int(os.environ.get("POF_BENCH_SINGLE", "100"))
POFSWITCH = Path(os.environ.get("POFSWITCH_AFP", ROOT / "pof-switch" / "build" / "pofswitch-afp"))
DEV = "pof:000000b1"
IN_PORT = {"field_id": 0xFFFF, "offset": 16, "length": 8}
TAG_WORD = {"field_id": 1, "offset": 96, "length": 32}


def entry(i: int) -> dict:
    """Entry i of the slice table: in_port 1 and tag word 0x88B5:i exact -> output 2."""
    tag = (0x88B5 << 16) | (i & 0xFFFF)
    return {"table_id": 0, "priority": 200,
            "matches": [{**IN_PORT, "value": "01".ljust(32, "0"), "mask": "ff".ljust(32, "0")},
                        {**TAG_WORD, "value": f"{tag:08x}".ljust(32, "0"), "mask": "ffffffff".ljust(32, "0")}],
            "instructions": [{"type": "APPLY_ACTIONS", "actions": [output(2)]}]}


def onos_runs(onos: Onos) -> tuple[list[float], list[float], float]:
    install, remove = [], []
    for _ in range(RUNS):
        flows = [entry(i) for i in range(N)]
        t0 = time.perf_counter()
        code, body = onos.request("POST", "/onos/pof/flows", {"device_id": DEV, "flows": flows})
        t1 = time.perf_counter()
        assert code == 201 and len(body["flow_ids"]) == N, (code, str(body)[:300])
        added = [f for f in onos.get(f"/onos/v1/flows/{DEV}")["flows"] if f["state"] == "ADDED"]
        assert len(added) == N, f"{len(added)} of {N} flows ADDED in ONOS"
        install.append(N / (t1 - t0))
        t0 = time.perf_counter()
        code, body = onos.request("DELETE", f"/onos/pof/flows/{DEV}")
        t1 = time.perf_counter()
        assert code == 200 and body["removed"] == N, (code, body)
        remove.append(N / (t1 - t0))
    t0 = time.perf_counter()
    for i in range(SINGLE):
        code, body = onos.request("POST", "/onos/pof/flows", {"device_id": DEV, "flows": [entry(i)]})
        assert code == 201, (code, body)
    single = SINGLE / (time.perf_counter() - t0)
    onos.request("DELETE", f"/onos/pof/flows/{DEV}")
    return install, remove, single


def direct_runs(ctl: Controller) -> list[float]:
    """The same entries straight on the wire: FLOW_MODs then ECHO, no ONOS."""
    rates = []
    for _ in range(RUNS):
        ctl.table(0, 0, "bench", [IN_PORT, TAG_WORD], size=4000)
        ctl.echo()
        t0 = time.perf_counter()
        for i, e in enumerate(entry(i) for i in range(N)):
            ctl.flow(0, 0, i, e["matches"], e["instructions"], priority=200)
        ctl.echo()
        rates.append(N / (time.perf_counter() - t0))
        ctl.send({"type": "TABLE_MOD", "body": {"command": 2, "table_id": 0, "table_type": 0, "size": 4000,
                                                "slot_id": 0, "name": "bench", "matches": [IN_PORT, TAG_WORD]}})
        ctl.echo()
    return rates


def main() -> int:
    if os.geteuid() != 0:
        print("pof-flow-install: needs root (veths)", file=sys.stderr)
        return 2
    if not POFSWITCH.exists():
        print(f"pof-flow-install: {POFSWITCH} not built (make -C pof-switch build)", file=sys.stderr)
        return 2
    logs = Path(tempfile.mkdtemp(prefix="pof-bench-"))
    procs = ProcessManager(logs)
    pairs = []
    ctl = Controller()
    try:
        pairs = [create_veth(None, None) for _ in range(2)]
        with onos_runtime(say=print) as onos:
            sw = [str(POFSWITCH), "--controller", f"127.0.0.1:{onos.pof_port}", "--dev-id", str(int(DEV[4:], 16)),
                  "--mgmt", str(logs / "m1.sock"), "--port", f"s1={pairs[0].a}", "--port", f"s2={pairs[1].a}"]
            procs.start(sw, log_name="pofswitch-onos")
            onos.wait_for("the switch in ONOS", lambda: any(
                d["id"] == DEV and d["available"] for d in onos.get("/onos/v1/devices")["devices"]))
            install, remove, single = onos_runs(onos)
        ref = [str(POFSWITCH), "--controller", f"127.0.0.1:{ctl.port}", "--dev-id", "178",
               "--mgmt", str(logs / "m2.sock"), *SCRIPTED_CONTROLLER_ARGS, "--port", f"s1={pairs[0].b}", "--port", f"s2={pairs[1].b}"]
        procs.start(ref, log_name="pofswitch-direct")
        ctl.accept()
        for p in ctl.handshake().values():
            ctl.enable_port(p)
        ctl.echo()
        direct = direct_runs(ctl)
    finally:
        ctl.close()
        procs.stop_all()
        for p in pairs:
            p.delete()
    med = statistics.median(install)
    med_direct = statistics.median(direct)
    path = write_result(
        "pof-flow-install",
        {"flows_per_s": round(med, 1), "flows_per_s_single_request": round(single, 1),
         "flows_removed_per_s": round(statistics.median(remove), 1),
         "ratio_vs_direct": round(med / med_direct, 3)},
        {"flows_per_s": "flows/s", "flows_per_s_single_request": "flows/s", "flows_removed_per_s": "flows/s",
         "ratio_vs_direct": "ratio"},
        reference={"flows_per_s_direct": round(med_direct, 1)},
        notes=(f"median of {RUNS} runs of {N} entries in one POST /onos/pof/flows (ONOS 2.5.6 FlowRuleService -> "
               f"POF provider -> pofswitch-afp, ECHO barrier, all ADDED before the call returns); single: "
               f"{SINGLE} sequential 1-entry POSTs; reference: the same {N} FLOW_MODs + ECHO written directly "
               f"by a Python controller to a second pofswitch-afp; install runs {[round(x) for x in install]}, "
               f"direct runs {[round(x) for x in direct]}"))
    print(f"pof-flow-install: {med:.0f} flows/s through ONOS ({med / med_direct:.2f} of direct {med_direct:.0f}); "
          f"single-request {single:.0f}/s -> {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
