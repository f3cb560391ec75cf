"""REST abuse at scale (issue #13): schemathesis over openapi.json as the operator, as a tenant and without a token,
plus the hand-written oversize / unicode / injection set, against a real orchestrator process (`wislice serve`,
SQLite) whose REST client drives fake ONOS apps on loopback (tests/fake_onos.py). Writes
bench/results/reliability-rest.json: inputs_tried, server_errors (notes: seconds, load average, status codes,
check failures). The generation and the checks are tests/rest_abuse.py, which the integration test runs short.

    python bench/rest_abuse.py [--examples 40]     # 43 operations x 3 callers x 40 = 5160 generated requests
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parents[1] / "bench"), str(HERE.parent / "tests")]

import benchlib  # noqa: E402  (the project's result writer lives outside this package)
import rest_abuse  # noqa: E402  (shared with tests/integration/test_rest_abuse.py)
from fake_onos import ServedOnos  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=40, help="generated requests per operation and caller")
    parser.add_argument("--min-inputs", type=int, default=5000)
    args = parser.parse_args()
    tally = rest_abuse.Tally()
    onos = ServedOnos()
    with tempfile.TemporaryDirectory(prefix="wislice-rest-abuse-") as tmp:
        operator = rest_abuse.new_operator_token()
        port = rest_abuse.free_port()
        env = {**os.environ, **rest_abuse.orchestrator_env(Path(tmp), onos.url, operator)}
        with open(Path(tmp) / "orchestrator.log", "wb") as log:
            proc = subprocess.Popen(rest_abuse.orchestrator_command(port), env=env, stdout=log, stderr=log,
                                    start_new_session=True)
            try:
                target = rest_abuse.Target(f"http://127.0.0.1:{port}", operator, onos.onos)
                rest_abuse.wait_ready(target.url, lambda: proc.poll() is None)
                rest_abuse.provision(target)
                started = time.monotonic()
                rest_abuse.fuzz(target, args.examples, tally)
                fuzzed = tally.inputs_tried
                rest_abuse.abuse(target, tally)
                seconds = time.monotonic() - started
                alive = proc.poll() is None
            finally:
                os.killpg(proc.pid, signal.SIGTERM)
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait()
                onos.stop()
        if not alive:
            print((Path(tmp) / "orchestrator.log").read_text()[-3000:], file=sys.stderr)
    load = os.getloadavg()
    histogram = ", ".join(f"{code}: {n}" for code, n in sorted(tally.statuses.items()))
    notes = (f"{seconds:.0f} s, load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} (2 cores shared); "
             f"{fuzzed} schemathesis requests ({args.examples} per operation and caller: operator, tenant, "
             f"anonymous), {tally.inputs_tried - fuzzed} hand-written (oversize, unicode, injection into every "
             f"config/shell/URL string, path segments); status codes {{{histogram}}}; accepted inputs served back "
             f"byte-exact: {tally.served_back} ({len(tally.accepted)} accepted), found byte-exact at the controllers: "
             f"{tally.reached_controllers}; "
             f"oversize uploads refused by closing the connection unread: {tally.closed_unread}; "
             f"world re-provisioned {target.reprovisioned} times after a generated request removed it; "
             f"check failures (conformance, problem+json, escaping): {len(tally.failures)}"
             + (f"; first: {tally.failures[0]}" if tally.failures else "") + ("" if alive else "; PROCESS DIED"))
    metrics = {"inputs_tried": tally.inputs_tried, "server_errors": tally.server_errors}
    path = benchlib.write_result("reliability-rest", metrics, {"inputs_tried": "count", "server_errors": "count"},
                                 notes=notes)
    print(f"wrote {path}\n{notes}")
    print("accepted (legal, stored byte-exact):", "; ".join(tally.accepted))
    for failure in tally.failures:
        print("  ", failure)
    ok = alive and tally.server_errors == 0 and tally.inputs_tried >= args.min_inputs and not tally.failures
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
