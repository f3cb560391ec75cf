"""Write benchmark results in the project's one format (docs/component-contract.md).

Import it (``from benchlib import write_result``, with bench/ on sys.path) or call it:
``python bench/benchlib.py write --name N --metric key=value:unit ... [--reference key=value] [--notes TEXT]``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import os
import platform
import statistics
import sys
from pathlib import Path

RESULTS_DIR = Path(__file__).resolve().parent / "results"


def machine_info() -> dict[str, object]:
    """What the numbers were measured on: they only compare within one machine and one run."""
    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        load1 = os.getloadavg()[0]
    except OSError:
        load1 = -1.0
    return {
        "hostname": platform.node(),
        "cpus": os.cpu_count(),
        "cpu_model": model,
        "kernel": platform.release(),
        "loadavg_1m_at_write": round(load1, 2),
    }


def median(values: list[float]) -> float:
    if not values:
        raise ValueError("median of no values")
    return statistics.median(values)


def percentile(values: list[float], pct: float) -> float:
    """Nearest-rank percentile (pct in 0..100): honest for the small samples benchmarks take."""
    if not values:
        raise ValueError("percentile of no values")
    ordered = sorted(values)
    rank = max(1, math.ceil(pct / 100.0 * len(ordered)))
    return ordered[rank - 1]


def _check_number(key: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"metric {key!r} must be a finite number, got {value!r}")
    return value


def write_result(
    name: str,
    metrics: dict[str, float],
    units: dict[str, str],
    reference: dict[str, float] | None = None,
    notes: str = "",
    results_dir: Path | None = None,
) -> Path:
    """Validate and write bench/results/<name>.json; returns the path written."""
    if not name or "/" in name or name.startswith("."):
        raise ValueError(f"bad benchmark name {name!r}")
    if not metrics:
        raise ValueError("a benchmark result needs at least one metric")
    for key, value in metrics.items():
        _check_number(key, value)
        if key not in units:
            raise ValueError(f"metric {key!r} has no unit")
    for key, value in (reference or {}).items():
        _check_number(key, value)
    doc = {
        "name": name,
        "when": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "machine": machine_info(),
        "metrics": metrics,
        "units": units,
        "reference": reference or {},
        "notes": notes,
    }
    out_dir = results_dir or RESULTS_DIR
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"{name}.json"
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(doc, indent=2, sort_keys=False) + "\n")
    tmp.replace(path)
    return path


def print_table(name: str, metrics: dict[str, float], units: dict[str, str],
                reference: dict[str, float] | None = None) -> None:
    print(f"\n{name}")
    print(f"{'metric':<32} {'value':>14}  unit")
    for key, value in metrics.items():
        print(f"{key:<32} {value:>14.4g}  {units.get(key, '')}")
    for key, value in (reference or {}).items():
        print(f"{'(ref) ' + key:<32} {value:>14.4g}")


def _parse_pairs(items: list[str], with_unit: bool) -> tuple[dict[str, float], dict[str, str]]:
    values: dict[str, float] = {}
    units: dict[str, str] = {}
    for item in items:
        key, sep, rest = item.partition("=")
        if not sep:
            raise SystemExit(f"expected key=value, got {item!r}")
        unit = ""
        if with_unit:
            rest, _, unit = rest.partition(":")
        try:
            values[key] = float(rest)
        except ValueError:
            raise SystemExit(f"{key}: not a number: {rest!r}") from None
        units[key] = unit
    return values, units


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    sub = parser.add_subparsers(dest="cmd", required=True)
    w = sub.add_parser("write", help="write one result file")
    w.add_argument("--name", required=True)
    w.add_argument("--metric", action="append", default=[], help="key=value:unit")
    w.add_argument("--reference", action="append", default=[], help="key=value")
    w.add_argument("--notes", default="")
    args = parser.parse_args(argv)
    metrics, units = _parse_pairs(args.metric, with_unit=True)
    reference, _ = _parse_pairs(args.reference, with_unit=False)
    path = write_result(args.name, metrics, units, reference, args.notes)
    print_table(args.name, metrics, units, reference)
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
