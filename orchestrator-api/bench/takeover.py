"""orchestrator-takeover benchmark (issue 17): two orchestrator processes on one PostgreSQL, the one running a slice
creation killed (SIGKILL) mid-saga, N times; writes bench/results/orchestrator-takeover.json through benchlib.

Each run is tests/integration/takeover_scenario.py (the integration test test_ha_processes.py runs it once): a
private PostgreSQL, `wislice serve` as orch-a and orch-b (lease 2 s, renewed every 0.5 s) against fake ONOS apps
on loopback that hold orch-a's create_path call; orch-a is killed there, and orch-b must take the operation over
and roll it back (the design for an interrupted creation) with nothing left at the controllers, nothing created
twice, the lease in its name, and the slice's next operations succeeding.

Metrics: takeover_ok (1 if every run passed every check), takeover_s (median, kill -> the operation ended, read
through orch-b's REST every 50 ms), runs, load1_start / load1_end (1-minute load average around the runs).
Needs root (PostgreSQL's initdb runs as the postgres user) and the postgresql server package.

    python bench/takeover.py [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parents[1] / "bench"), str(HERE.parent / "tests"), str(HERE.parent / "tests" / "integration")]

import benchlib  # noqa: E402  (the project's result writer lives outside this package)
import takeover_scenario  # noqa: E402  (shared with tests/integration/test_ha_processes.py)
from wislice_testbed.processes import ProcessManager  # noqa: E402

UNITS = {"takeover_ok": "bool", "takeover_s": "s", "runs": "count", "load1_start": "load", "load1_end": "load"}


def one_run(k: int) -> tuple[float | None, list[str]]:
    """(kill -> ended seconds or None, the checks that failed) of one run on fresh processes and a fresh database."""
    with tempfile.TemporaryDirectory(prefix=f"wislice-takeover-{k}-") as tmp:
        processes = ProcessManager(Path(tmp) / "logs")
        try:
            with takeover_scenario.private_postgres(processes) as url:
                try:
                    seen = takeover_scenario.run_once(processes, url, Path(tmp))
                finally:
                    processes.stop_all()  # the orchestrators (by pid) before their database
            problems = seen.problems()
        except Exception as exc:  # a run that broke off counts as failed, with why
            seen, problems = None, [f"run broke off: {type(exc).__name__}: {exc}"]
        finally:
            processes.stop_all()
        if problems:
            print(processes.tails(20), file=sys.stderr)
        return (seen.takeover_s if seen else None), problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--results-dir", type=Path, default=None, help="default: bench/results")
    args = parser.parse_args()
    load_start = os.getloadavg()[0]
    started = time.monotonic()
    times: list[float] = []
    failures: list[str] = []
    for k in range(1, args.runs + 1):
        took, problems = one_run(k)
        if took is not None:
            times.append(took)
        failures += [f"run {k}: {p}" for p in problems]
        print(f"run {k}: takeover {'-' if took is None else f'{took:.2f} s'}; " + ("; ".join(problems) or "ok"),
              flush=True)
    load_end = os.getloadavg()[0]
    ok = not failures and len(times) == args.runs
    metrics = {"takeover_ok": int(ok), "runs": args.runs, "load1_start": round(load_start, 2),
               "load1_end": round(load_end, 2)}
    if times:
        metrics["takeover_s"] = round(benchlib.median(times), 3)
    notes = (f"{args.runs} runs in {time.monotonic() - started:.0f} s (2 cores shared); orch-a killed (SIGKILL) while "
             f"the fake controllers held its create_path, orch-b to roll the creation back; lease "
             f"{takeover_scenario.LEASE_S:g} s renewed every {takeover_scenario.RENEW_S:g} s, so a takeover takes "
             f"{takeover_scenario.LEASE_S - takeover_scenario.RENEW_S:g}-{takeover_scenario.LEASE_S:g} s + orch-b's "
             f"next keeper round + the rollback; kill -> ended per run: "
             + ", ".join(f"{t:.2f}" for t in times) + " s"
             + (f"; failed checks: {'; '.join(failures)}"[:2000] if failures else "; every run passed every check"))
    path = benchlib.write_result("orchestrator-takeover", metrics, {k: UNITS[k] for k in metrics}, notes=notes,
                                 results_dir=args.results_dir)
    print(f"wrote {path}\n{notes}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
