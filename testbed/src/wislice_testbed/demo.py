"""``make demo`` for now: say what is missing, then run the most complete real thing available.

Runs ``make -C <component> demo`` for every component whose Makefile has a ``demo:`` target; if none has one,
runs the testbed's own integration tier (real namespaces, veths, a private dockerd, hugepages).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

COMPONENTS = ("pof-switch", "ap-agent", "mec-agent", "onos-apps", "orchestrator-api", "openwrt")
DEMO_TARGET = re.compile(r"^demo\s*:", re.MULTILINE)


def repo_root() -> Path:
    env = os.environ.get("WISLICE_ROOT")
    return Path(env) if env else Path(__file__).resolve().parents[3]


def components_with_demo(root: Path) -> list[str]:
    found = []
    for c in COMPONENTS:
        makefile = root / c / "Makefile"
        if makefile.is_file() and DEMO_TARGET.search(makefile.read_text(errors="replace")):
            found.append(c)
    return found


def main() -> int:
    root = repo_root()
    print("WiSlice demo: the full end-to-end testbed (AP VM + pof-switch + ONOS + orchestrator) is NOT built yet.")
    demos = components_with_demo(root)
    failed: list[str] = []
    if demos:
        print(f"Running the component demos that exist: {', '.join(demos)}")
        for c in demos:
            print(f"== make -C {c} demo", flush=True)
            if subprocess.run(["make", "--no-print-directory", "-C", str(root / c), "demo"]).returncode != 0:
                failed.append(c)
    else:
        print("No component has a demo yet: running the testbed integration tier (real netns, veths, dockerd, "
              "hugepages) instead.", flush=True)
        if subprocess.run(["make", "--no-print-directory", "-C", str(root / "testbed"), "test-integration"]
                          ).returncode != 0:
            failed.append("testbed")
    print(f"demo: {'FAILED in ' + ', '.join(failed) if failed else 'done'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
