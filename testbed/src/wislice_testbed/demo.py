"""``make demo``: the one-machine testbed, end to end, from real parts.

Brings up ONOS (wifi, nfv and network controller apps), the AP VM (hostapd on mac80211_hwsim, the ap-agent and the
AP's pof-switch, two stations), a core pof-switch, a MEC node (private dockerd, mec-agent, its pof-switch) and the
orchestrator-api; then two tenants each create a slice through the orchestrator's REST API, a station joins each
slice's SSID with WPA2, traffic crosses the whole slice, iperf3 measures each slice's cap alone and side by side,
and the slices are deleted. Everything is removed on exit, also on failure or Ctrl-C.

Prints each step with its time, then a summary; writes bench/results/testbed-e2e-slice.json. Exits 1 if a check
fails. ``--one-slice`` skips the second tenant.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from .topology.common import StepLog, repo_root
from .topology.onos import missing_apps
from .topology.pofswitch import afp_binary, dpdk_binary

RESULT_NAME = "testbed-e2e-slice"
# A capped slice may overshoot its cap by at most this much (token bucket burst, iperf3's own interval edges), and
# must reach at least this much of it: the radio has room for both caps at once (e2e_slice.caps_kbps).
CAP_TOLERANCE = 1.10
CAP_FLOOR = 0.80


def missing_parts(root: Path) -> list[str]:
    """What must be built before the testbed can come up (make build does all of it)."""
    missing = []
    for binary in (afp_binary(), dpdk_binary()):  # the AP and core switches; the MEC node's DPDK switch
        if not binary.exists():
            missing.append(f"{binary} (make -C pof-switch build)")
    missing += [f"ONOS app {name} (make -C onos-apps build)" for name in missing_apps(root)]
    return missing


def evaluate(results: dict[str, Any]) -> dict[str, bool]:
    """Every check the demo promises, as pass/fail."""
    checks = results["checks"]
    verdict = {k: bool(v) for k, v in checks.items() if isinstance(v, bool)}
    verdict["pof_flows_installed"] = checks.get("pof_flows_installed", 0) > 0
    verdict["pof_flows_removed"] = checks.get("pof_flows_after_delete", -1) == 0
    caps = results["caps_mbps"]
    for key, rate in results["rates_mbps"].items():
        verdict[f"{key}_within_cap"] = caps[key] * CAP_FLOOR <= rate <= caps[key] * CAP_TOLERANCE
    return verdict


def write_results(log: StepLog, results: dict[str, Any], verdict: dict[str, bool], notes: str) -> Path:
    sys.path.insert(0, str(repo_root() / "bench"))
    import benchlib

    metrics: dict[str, float] = {f"{k}_s": v for k, v in log.durations.items()}
    units = {k: "s" for k in metrics}
    for key, rate in results["rates_mbps"].items():
        metrics[f"{key}_mbps"] = rate
        units[f"{key}_mbps"] = "Mbit/s"
    metrics["checks_passed"] = sum(verdict.values())
    metrics["checks_total"] = len(verdict)
    units.update(checks_passed="checks", checks_total="checks")
    reference = {f"{k}_cap_mbps": v for k, v in results["caps_mbps"].items() if k in results["rates_mbps"]}
    path = benchlib.write_result(RESULT_NAME, metrics, units, reference=reference, notes=notes)
    benchlib.print_table(RESULT_NAME, metrics, units, reference)
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="make demo", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--one-slice", action="store_true", help="one tenant only (faster)")
    parser.add_argument("--no-fig11", action="store_true", help="skip the Fig. 10/11/13 replays (~10 min)")
    parser.add_argument("--no-fig13", action="store_true", help="skip the Fig. 13 transcoder replay (~3 min)")
    args = parser.parse_args(argv)

    root = repo_root()
    missing = missing_parts(root)
    if missing:
        print("demo: not built yet:\n  " + "\n  ".join(missing) + "\n(make demo builds them; make build alone too)")
        return 1

    from .scenarios import calibrate, e2e_slice, fig11, fig13
    from .topology.testbed import up

    log = StepLog("demo")
    log.say("WiSlice one-machine testbed: ONOS + AP VM (hostapd, hwsim) + 3 pof-switches + MEC node + orchestrator")
    stations = 1 if args.one_slice else 2 if args.no_fig11 else 3 if args.no_fig13 else 4
    fig11_metrics: dict[str, float] = {}
    try:
        with up(log, stations=stations, radio_capacity_kbps=calibrate.UNCAPPED_KBPS) as tb:
            log.say(f"logs of every process: {tb.log_dir}")
            log.say(f"watch it live: {tb.orch.url}/ (the dashboard; operator token {tb.orch.operator_token})")
            capacity = calibrate.radio_capacity(tb, log)
            results = e2e_slice.run(tb, log, capacity, second_slice=not args.one_slice)
            if stations >= 3:
                fig11_metrics = fig11.run(tb, log, results["tokens"], scale=fig11.DEMO_SCALE.scaled(capacity),
                                          with_fig13=stations == 4)["metrics"]
    except Exception as exc:  # the testbed is already torn down here
        log.say(f"demo FAILED: {type(exc).__name__}: {exc}")
        return 1
    verdict = evaluate(results)
    if fig11_metrics:
        verdict.update(fig11.checks(fig11_metrics))
    if stations == 4:
        verdict.update(fig13.checks(fig11_metrics))
    failed = sorted(k for k, ok in verdict.items() if not ok)
    notes = ("One-machine testbed, real parts: ONOS 2.5.6 runtime with the WiSlice apps, hostapd 2.10 in a qemu TCG VM "
             "(mac80211_hwsim), pofswitch-afp x3, mec-agent on a private dockerd, orchestrator-api over SQLite. "
             "Durations are this run's steps; rates are iperf3 TCP server->station through the whole slice "
             f"(WPA2 air, AP switch, core switch, MEC switch, kernel-fwd vNF). Checks failed: {failed or 'none'}.")
    path = write_results(log, results, verdict, notes)
    print(f"\nwrote {path}")
    for key, ok in sorted(verdict.items()):
        print(f"  {'ok  ' if ok else 'FAIL'} {key}")
    print(f"demo: {'FAILED: ' + ', '.join(failed) if failed else 'every check passed'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
