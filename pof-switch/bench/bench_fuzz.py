"""reliability-pof-fuzz: a long libFuzzer run of each C parser target (the short one is `make fuzz`, in
test-integration). Each target starts from a copy of its checked-in seed corpus and runs --seconds under ASan and
UBSan with leak detection. inputs_tried = executions over all targets; server_errors = crash, leak, timeout and
out-of-memory artifacts found (libFuzzer stops a target at its first). Usage: bench_fuzz.py [--seconds N]."""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
COMPONENT = HERE.parent
sys.path.insert(0, str(COMPONENT.parent / "bench"))
from benchlib import print_table, write_result  # noqa: E402

TARGETS = ("fuzz_decode", "fuzz_pipeline", "fuzz_ctladdr")
BUILD = COMPONENT / "build-fuzz"
ARTIFACT_KINDS = ("crash", "leak", "timeout", "oom")


def run_target(name: str, seconds: int) -> dict[str, object]:
    binary = BUILD / "tests" / "fuzz" / name
    if not binary.exists():
        raise SystemExit(f"{binary} not built (make -C pof-switch build-fuzz)")
    corpus = BUILD / f"corpus-long-{name}"
    artifacts = BUILD / f"artifacts-long-{name}"
    for d in (corpus, artifacts):
        shutil.rmtree(d, ignore_errors=True)
    shutil.copytree(COMPONENT / "tests" / "fuzz" / "corpus" / name, corpus)
    artifacts.mkdir()
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=1", UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1")
    load_before = os.getloadavg()[0]
    start = time.monotonic()
    out = subprocess.run([str(binary), f"-max_total_time={seconds}", "-print_final_stats=1",
                          f"-artifact_prefix={artifacts}/", str(corpus)],
                         env=env, capture_output=True, text=True, errors="replace")
    took = time.monotonic() - start
    log = out.stderr
    (BUILD / f"fuzz-long-{name}.log").write_text(log)
    execs = re.search(r"stat::number_of_executed_units:\s*(\d+)", log)
    progress = [line for line in log.splitlines() if re.match(r"#\d+\s", line)]
    last = progress[-1] if progress else ""
    cov = re.search(r"cov: (\d+)", last)
    ft = re.search(r"ft: (\d+)", last)
    found = [p.name for p in artifacts.iterdir() if p.name.split("-")[0] in ARTIFACT_KINDS]
    return {
        "target": name, "seconds": round(took), "execs": int(execs.group(1)) if execs else 0,
        "cov": int(cov.group(1)) if cov else 0, "ft": int(ft.group(1)) if ft else 0,
        "corpus": sum(1 for _ in corpus.iterdir()), "found": found, "rc": out.returncode,
        "load": (round(load_before, 2), round(os.getloadavg()[0], 2)), "last": last.strip(),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seconds", type=int, default=600, help="per target")
    args = ap.parse_args()
    runs = [run_target(t, args.seconds) for t in TARGETS]
    for r in runs:
        print(f"{r['target']}: {r['execs']} execs in {r['seconds']} s, cov {r['cov']} ft {r['ft']}, "
              f"corpus {r['corpus']}, found {r['found'] or 'nothing'}, load {r['load']}")
        if r["execs"] == 0:
            raise SystemExit(f"{r['target']} ran no input (rc {r['rc']}): see build-fuzz/fuzz-long-*.log")
    metrics = {"inputs_tried": sum(int(r["execs"]) for r in runs),
               "server_errors": sum(len(r["found"]) for r in runs)}
    units = {"inputs_tried": "inputs", "server_errors": "count"}
    notes = "; ".join(
        f"{r['target']}: {r['execs']} execs in {r['seconds']} s, corpus {r['corpus']} inputs, cov {r['cov']} "
        f"ft {r['ft']} (libFuzzer's last line: {r['last']}), artifacts {r['found'] or 'none'}, "
        f"load average {r['load'][0]} -> {r['load'][1]}" for r in runs)
    notes += "; ASan+UBSan build with leak detection, seeds tests/fuzz/corpus (copied), 2 shared cores"
    write_result("reliability-pof-fuzz", metrics, units, notes=notes)
    print_table("reliability-pof-fuzz", metrics, units)


if __name__ == "__main__":
    main()
