"""``make -C testbed bench-faults``: every part of the testbed killed once during a slice creation and once under
steady traffic (scenarios/faults.py); writes bench/results/reliability-faults.json and each fault's outcome to
bench/results/reliability-faults/outcomes.json. ``--kinds a,b`` runs only those; ``--rescore`` judges the
recorded outcomes again. Exits 1 if a fault was not survived."""

from __future__ import annotations

import argparse
import json
import os
import sys

from .topology.common import StepLog, repo_root

RESULT_NAME = "reliability-faults"


def main(argv: list[str] | None = None) -> int:
    from .scenarios.fault_parts import FAULTS
    from .scenarios.faults import Outcome, metrics, run
    from .topology.testbed import up

    parser = argparse.ArgumentParser(prog="bench-faults", description=__doc__)
    parser.add_argument("--kinds", default=",".join(FAULTS), help=f"comma-separated, of: {', '.join(FAULTS)}")
    parser.add_argument("--rescore", action="store_true",
                        help="judge the recorded outcomes again (after a change of the criteria) instead of a run")
    args = parser.parse_args(argv)
    kinds = [k for k in args.kinds.split(",") if k]
    unknown = [k for k in kinds if k not in FAULTS]
    if unknown:
        parser.error(f"unknown fault kinds: {', '.join(unknown)}")
    detail = repo_root() / "bench" / "results" / RESULT_NAME / "outcomes.json"
    if args.rescore:
        recorded = json.loads(detail.read_text())
        outcomes = [Outcome(**{**o, "pings": tuple(o["pings"])}) for o in recorded["outcomes"]]
        load = tuple(recorded["loadavg"])
    else:
        log = StepLog("faults")
        load = os.getloadavg()
        with up(log, stations=2, keep_logs=False) as tb:
            outcomes = run(tb, log, kinds)
    sys.path.insert(0, str(repo_root() / "bench"))
    import benchlib

    m = metrics(outcomes)
    units = {"faults_injected": "faults", "faults_survived": "faults", "converge_p50_s": "s", "converge_max_s": "s",
             "leaks_found": "leaks"}
    failed = [f"{o.kind}/{o.phase}: {o.detail or o.leaks}" for o in outcomes if not o.survived()]
    notes = (f"One-machine testbed; each part killed with SIGKILL during a slice creation and under steady traffic, "
             f"then started again as its supervisor would; converge = from the kill until every part agrees with "
             f"the orchestrator and the steady slice carries traffic. Load average at start {load[0]:.2f}. "
             f"Not survived: {failed or 'none'}.")
    benchlib.write_result(RESULT_NAME, m, units, notes=notes)
    detail.parent.mkdir(exist_ok=True)
    detail.write_text(json.dumps({"loadavg": list(load), "outcomes": [o.to_json() for o in outcomes]}, indent=1)
                      + "\n")
    benchlib.print_table(RESULT_NAME, m, units, {})
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
