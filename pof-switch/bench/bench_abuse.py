"""reliability-pof-abuse: the hostile-input tests of the POF channel and the management socket, run once for the
numbers: pof-switch's test_abuse_channel.py and test_abuse_mgmt.py (a hostile controller, hostile local clients)
and the network controller's test_abuse_switch.py (hostile switches against the ONOS runtime). The tests record
how many hostile messages and connections they sent (tests/abuse_tally.py); inputs_tried is their sum,
server_errors the tests that failed (each failure is the server dying, the good peer no longer served, or a
memory bound broken)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

HERE = Path(__file__).resolve().parent
COMPONENT = HERE.parent
ROOT = COMPONENT.parent
sys.path.insert(0, str(ROOT / "bench"))
from benchlib import print_table, write_result  # noqa: E402

SUITES = {
    "controller vs switch": (COMPONENT / "tests" / "integration", ["test_abuse_channel.py"]),
    "mgmt socket": (COMPONENT / "tests" / "integration", ["test_abuse_mgmt.py"]),
    "switch vs network controller": (ROOT / "onos-apps" / "network-controller" / "tests" / "integration",
                                     ["test_abuse_switch.py"]),
}


def run_suite(directory: Path, files: list[str], work: Path) -> dict[str, int]:
    """Runs one suite; its test counts from the JUnit report and the hostile inputs its tests recorded."""
    tally, junit = work / "tally.jsonl", work / "junit.xml"
    env = dict(os.environ, ABUSE_TALLY=str(tally))
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "integration",
                    f"--junitxml={junit}", *files], cwd=directory, env=env, check=False)
    root = ET.parse(junit).getroot()
    suite = root if root.tag == "testsuite" else root.find("testsuite")
    assert suite is not None
    counts = {k: int(suite.get(k, "0")) for k in ("tests", "failures", "errors", "skipped")}
    lines = tally.read_text().splitlines() if tally.exists() else []
    counts["inputs"] = sum(json.loads(line)["inputs"] for line in lines)
    return counts


def main() -> None:
    load_before = os.getloadavg()[0]
    start = time.monotonic()
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for i, (name, (directory, files)) in enumerate(SUITES.items()):
            work = Path(tmp) / str(i)
            work.mkdir()
            results[name] = run_suite(directory, files, work)
    ran = sum(r["tests"] - r["skipped"] for r in results.values())
    if ran == 0:
        raise SystemExit("no abuse test ran")
    metrics = {"inputs_tried": sum(r["inputs"] for r in results.values()),
               "server_errors": sum(r["failures"] + r["errors"] for r in results.values())}
    units = {"inputs_tried": "inputs", "server_errors": "count"}
    notes = "; ".join(f"{name}: {r['tests']} tests ({r['failures']} failed, {r['errors']} errors, {r['skipped']} "
                      f"skipped), {r['inputs']} hostile inputs" for name, r in results.items())
    notes += ("; the controller-vs-switch count includes every message of its two floods (1 KiB ECHOs sent as fast "
              "as TCP takes them), the others count connections, lines and messages")
    notes += (f"; {time.monotonic() - start:.0f} s in all, load average {load_before:.2f} -> "
              f"{os.getloadavg()[0]:.2f} (2 shared cores)")
    write_result("reliability-pof-abuse", metrics, units, notes=notes)
    print_table("reliability-pof-abuse", metrics, units)


if __name__ == "__main__":
    main()
