"""``make -C testbed bench-isolation``: tenant isolation counted with packets on the testbed. Two tenants' slices on
one AP; each tenant's station, in turn and ROUNDS times, sends probes straight to the other tenant's station and vNF
by their MACs (scenarios/probe.py: a hostile tenant past its gateway) and, as a control, to its own vNF. Writes
bench/results/reliability-isolation.json: isolation_checks (probe frames aimed at another tenant), isolation_failures
(those that arrived), and the control's delivery. Exits 1 if any arrived, or if the control did not arrive (then
the probe proves nothing)."""

from __future__ import annotations

import argparse
import os
import sys

from .topology.common import StepLog, repo_root, wait_for

RESULT_NAME = "reliability-isolation"
ROUNDS = 5
CONTROL_MIN = 0.75  # of the control probes that must arrive (a busy TCG guest loses a few)


def main(argv: list[str] | None = None) -> int:
    from .scenarios import e2e_slice as e2e
    from .scenarios.probe import PROBES, cross_slice
    from .topology.testbed import up

    parser = argparse.ArgumentParser(prog="bench-isolation", description=__doc__)
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error("at least one round")
    log = StepLog("isolation")
    load = os.getloadavg()
    sent = arrived = control_sent = control_seen = 0
    with up(log, stations=2, keep_logs=False) as tb:
        runs = [e2e.SliceRun(1, "alpha", 2000, tb.ap.stations[0]), e2e.SliceRun(2, "beta", 1000, tb.ap.stations[1])]
        e2e.operator_setup(tb, log, runs)
        for s in runs:
            e2e.create_slice(tb, log, s)
            e2e.wire_server_side(tb, s)
            e2e.associate(tb, log, s)
            wait_for(f"ping through slice {s.tenant_id}", lambda s=s: e2e.ping(tb, s)[0], timeout=30, period=1)
        for r in range(args.rounds):
            for a, b in (runs, runs[::-1]):
                seen = cross_slice(tb, a, b)
                log.say(f"round {r + 1}, tenant {a.tenant_id} -> tenant {b.tenant_id}: {seen} (of {PROBES} each)")
                sent += 2 * PROBES
                arrived += seen["other_station"] + seen["other_vnf"]
                control_sent += PROBES
                control_seen += seen["own_vnf"]
        for s in reversed(runs):
            e2e.delete_slice(tb, log, s)
    sys.path.insert(0, str(repo_root() / "bench"))
    import benchlib

    control = control_seen / control_sent
    metrics = {"isolation_checks": sent, "isolation_failures": arrived, "control_delivered_pct": round(100 * control,
                                                                                                        1)}
    units = {"isolation_checks": "probes", "isolation_failures": "probes", "control_delivered_pct": "%"}
    notes = (f"Two tenants' slices on one AP; {args.rounds} rounds each way of {PROBES} UDP probes from a station "
             f"straight to the other tenant's station and vNF by MAC (static neighbour entries, past the gateway), "
             f"and {PROBES} to its own vNF as a control. A failure is a probe frame that arrived at the other "
             f"tenant. Load average at start {load[0]:.2f}.")
    benchlib.write_result(RESULT_NAME, metrics, units, notes=notes)
    benchlib.print_table(RESULT_NAME, metrics, units, {})
    if control < CONTROL_MIN:
        print(f"isolation: only {control:.0%} of the control probes arrived: the probe does not work")
        return 1
    return 1 if arrived else 0


if __name__ == "__main__":
    sys.exit(main())
