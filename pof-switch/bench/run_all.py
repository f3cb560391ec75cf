"""Runs the pof-switch benchmarks one after another (each writes bench/results/<name>.json)."""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

if __name__ == "__main__":
    sys.path.insert(0, str(HERE))
    names = sys.argv[1:] or ["bench_throughput", "bench_idle_cpu", "bench_latency", "bench_abuse"]
    for name in names:
        print(f"== {name}", flush=True)
        runpy.run_path(str(HERE / f"{name}.py"), run_name="__main__")
