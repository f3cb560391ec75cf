"""Sum the reliability parts (bench/results/reliability-<part>.json, each written by the benchmark that measured
it: faults on the testbed, protocol abuse, REST abuse, fuzzing, isolation, soak) into
bench/results/reliability.json, the report issue #13 asks for. Counts add up; times and growth take the worst
part; the median convergence time comes from the part that injected faults."""

from __future__ import annotations

import json
import sys
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH_DIR))

import benchlib  # noqa: E402 - the bench directory is not a package

COUNTS = {"faults_injected": "faults", "faults_survived": "faults", "inputs_tried": "inputs",
          "server_errors": "errors", "leaks_found": "leaks", "isolation_checks": "checks",
          "isolation_failures": "checks", "soak_cycles": "cycles"}
WORST = {"converge_max_s": "s", "soak_rss_growth_pct": "%"}
FROM_FAULTS = {"converge_p50_s": "s"}


def combine(parts: list[dict]) -> tuple[dict[str, float], dict[str, str], str]:
    metrics: dict[str, float] = {}
    for part in parts:
        m = part["metrics"]
        for key in COUNTS:
            if key in m:
                metrics[key] = metrics.get(key, 0) + m[key]
        for key in WORST:
            if key in m:
                metrics[key] = max(metrics.get(key, m[key]), m[key])
        for key in FROM_FAULTS:
            if key in m and "faults_injected" in m:
                metrics[key] = m[key]
    units = {k: u for k, u in {**COUNTS, **WORST, **FROM_FAULTS}.items() if k in metrics}
    notes = "Sum of: " + "; ".join(f"{p['name']} ({p.get('when', '?')})" for p in parts)
    return metrics, units, notes


def main() -> int:
    parts = []
    for path in sorted((BENCH_DIR / "results").glob("reliability-*.json")):
        doc = json.loads(path.read_text())
        if isinstance(doc.get("metrics"), dict):
            parts.append(doc)
    if not parts:
        print("reliability: no parts measured yet (bench/results/reliability-*.json)")
        return 0
    metrics, units, notes = combine(parts)
    path = benchlib.write_result("reliability", metrics, units, notes=notes)
    print(f"reliability: {len(parts)} parts -> {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
