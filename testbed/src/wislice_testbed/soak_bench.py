"""``make -C testbed bench-soak``: full slices created and deleted CYCLES times (default 300) on the testbed
(scenarios/soak.py); writes bench/results/reliability-soak.json, its plot and every sample to
bench/results/reliability-soak/samples.json. Exits 1 if a process's memory grew by more than GROWTH_LIMIT_PCT
from the early cycles to the late ones."""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from dataclasses import asdict

from .topology.common import StepLog, repo_root

RESULT_NAME = "reliability-soak"
GROWTH_LIMIT_PCT = 10.0  # noise of a JVM's and python's heaps over a few hundred cycles stays well below
FD_GROWTH_LIMIT = 10     # descriptors; one leaked per slice would be hundreds
DB_GROWTH_LIMIT_PCT = 10.0
# The orchestrator keeps this many rows of each kind of history (WISLICE_HISTORY_MAX_ROWS; 100000 by default):
# small enough that the soak's cycles reach it during the warm-up, so the database must stop growing.
SOAK_HISTORY_ROWS = 50


def main(argv: list[str] | None = None) -> int:
    from .scenarios import soak
    from .topology.testbed import up

    parser = argparse.ArgumentParser(prog="bench-soak", description=__doc__)
    parser.add_argument("--cycles", type=int, default=300)
    parser.add_argument("--rescore", action="store_true",
                        help="judge the recorded samples again (after a change of the criteria) instead of a run")
    args = parser.parse_args(argv)
    if args.cycles < 20:
        parser.error("at least 20 cycles: the growth compares the early cycles with the late ones")
    results = repo_root() / "bench" / "results"
    recorded = results / RESULT_NAME / "samples.json"
    if args.rescore:
        samples = [soak.Sample(**x) for x in json.loads(recorded.read_text())]
        notes = json.loads((results / f"{RESULT_NAME}.json").read_text())["notes"]
        load = (float(re.search(r"Load average at start ([0-9]+[.][0-9]+)", notes).group(1)),)  # type: ignore[union-attr]
    else:
        log = StepLog("soak")
        load = os.getloadavg()
        os.environ["WISLICE_HISTORY_MAX_ROWS"] = str(SOAK_HISTORY_ROWS)  # the testbed's orchestrator inherits it
        with up(log, stations=1, keep_logs=False) as tb:
            samples = soak.run(tb, log, args.cycles)
    s = soak.summary(samples)
    soak.plot(samples, results / f"{RESULT_NAME}.png")
    (results / RESULT_NAME).mkdir(exist_ok=True)
    recorded.write_text(json.dumps([asdict(x) for x in samples]) + "\n")
    sys.path.insert(0, str(repo_root() / "bench"))
    import benchlib

    metrics = {"soak_cycles": s["soak_cycles"], "soak_rss_growth_pct": s["soak_rss_growth_pct"],
               "soak_db_growth_pct": s["soak_db_growth_pct"], "soak_db_late_growth_pct": s["soak_db_late_growth_pct"]}
    units = {"soak_cycles": "cycles", "soak_rss_growth_pct": "%", "soak_db_growth_pct": "%",
             "soak_db_late_growth_pct": "%"}
    notes = (f"Slice (WPA2 vAP, kernel-fwd vNF, metered path) created and deleted {s['soak_cycles']} times; growth ="
             f" median of the last fifth of the cycles over the first fifth after a {soak.WARMUP_FRACTION:.0%} "
             f"warm-up. Memory growth per process (%): {s['rss_growth']}; worst {s['worst']}. Open files, last "
             f"minus after warm-up: {s['fd_growth']}. The orchestrator keeps {SOAK_HISTORY_ROWS} rows of each kind "
             f"of history (WISLICE_HISTORY_MAX_ROWS), pruned once a minute. Load average at start {load[0]:.2f}.")
    benchlib.write_result(RESULT_NAME, metrics, units, notes=notes)
    benchlib.print_table(RESULT_NAME, metrics, units, {})
    leaking = [n for n, g in s["rss_growth"].items() if g > GROWTH_LIMIT_PCT]
    leaking += [n for n, g in s["fd_growth"].items() if g > FD_GROWTH_LIMIT]
    if s["soak_db_late_growth_pct"] > DB_GROWTH_LIMIT_PCT:
        leaking.append("orchestrator database")
    if leaking:
        print(f"soak: growth in {sorted(set(leaking))}")
    return 1 if leaking else 0


if __name__ == "__main__":
    sys.exit(main())
