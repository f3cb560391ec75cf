#!/usr/bin/env python3
"""vap-latency in the AP VM: boot the VM, start hostapd on phy0, run ap-agent/bench/vap_latency.py inside it
(createVap/delVap through the agent next to raw hostapd ADD/REMOVE, same hostapd, same run), then publish
bench/results/vap-latency.json on the host through bench/benchlib.py.

    python3 testbed/ap-vm/bench_vap_latency.py [--ops 50]

The benchmark script is copied into the VM's 9p share; the agent it drives is the one the image installed from
this checkout's packages (make -C openwrt packages), so the numbers are for exactly what is checked out. The VM
is powered off and qemu reaped by pid afterwards, also on failure.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from apvm import ApVm
from wifi import CTRL_DIR, GLOBAL_SOCKET, Hostapd

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
AGENT = REPO / "ap-agent"
BENCH_SCRIPT = AGENT / "bench" / "vap_latency.py"
METRICS = ("create_p50_ms", "create_p99_ms", "remove_p50_ms", "remove_p99_ms", "hostapd_add_p50_ms",
           "hostapd_remove_p50_ms")


def stage(share: Path) -> None:
    """The benchmark script alone: the ../src and ../../agent-proto/src it puts on its path are not there, so it
    imports the ap-agent and its protocol package the image installed from the .ipk (site-packages), the agent
    the AP VM runs."""
    (share / "ap-agent" / "bench").mkdir(parents=True)
    shutil.copy2(BENCH_SCRIPT, share / "ap-agent" / "bench" / BENCH_SCRIPT.name)


def run(ops: int) -> int:
    if not BENCH_SCRIPT.exists():
        print(f"{BENCH_SCRIPT} missing: the ap-agent benchmark is not in this checkout", file=sys.stderr)
        return 2
    started = time.monotonic()
    with ApVm(radios=1) as vm:
        print(f"AP VM booted in {vm.boot_s:.1f} s", flush=True)
        Hostapd(vm).start()
        stage(vm.share)
        raw_out = "/mnt/share/vap-latency.raw.json"
        res = vm.run(f"cd /tmp && PYTHONDONTWRITEBYTECODE=1 python3 /mnt/share/ap-agent/bench/vap_latency.py "
                     f"--global {GLOBAL_SOCKET} --radio phy0 --iface wlan0 --ctrl-dir {CTRL_DIR} --ops {ops} "
                     f"--json-out {raw_out}", timeout=60 + 10 * ops, check=False)
        if res.rc != 0:
            print(f"benchmark failed in the VM (rc {res.rc}):\n{res.out}\n{res.err}", file=sys.stderr)
            return 1
        raw_path = vm.share / "vap-latency.raw.json"
        raw = json.loads(raw_path.read_text())
        missing = [m for m in METRICS if m not in raw.get("metrics", {})]
        if missing:
            print(f"benchmark result lacks {missing}", file=sys.stderr)
            return 1
        published = Path(tempfile.mkstemp(prefix="vap-latency-", suffix=".json")[1])
        shutil.copy2(raw_path, published)
    try:
        # The ap-agent benchmark's own publisher: one result format, with the ADE2WiNFV anchors as reference.
        subprocess.run([sys.executable, str(BENCH_SCRIPT), "--publish", str(published)], check=True)
    finally:
        published.unlink(missing_ok=True)
    print(f"vap-latency in the AP VM: {time.monotonic() - started:.0f} s in all")
    return 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ops", type=int, default=50, help="create/delete pairs per side (default 50)")
    args = parser.parse_args(argv)
    if not 1 <= args.ops <= 1000:
        parser.error("--ops must be 1..1000")
    return run(args.ops)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
