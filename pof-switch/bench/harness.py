"""Benchmark plumbing: hugepages, the DPDK pofswitch under a test controller, dpdk-testpmd, rate sampling.

Every process is started here and stopped here by pid; hugepages are given back in release().
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
COMPONENT = HERE.parent
ROOT = COMPONENT.parent
sys.path[:0] = [str(COMPONENT / "tests" / "integration"), str(ROOT / "bench"), str(ROOT / "testbed" / "src")]

from pofctl import SCRIPTED_CONTROLLER_ARGS, Controller, mgmt_command, mx, output, parse_ports  # noqa: E402
from wislice_testbed.hugepages import Hugepages  # noqa: E402

BUILD = Path(os.environ.get("POFSWITCH_BUILD", COMPONENT / "build"))
POFSWITCH = BUILD / "pofswitch"
TESTPMD = "dpdk-testpmd"
SWITCH_CPU = "1"
OTHER_CPU = "0"
ODD16 = {"field_id": 7, "offset": 99, "length": 16}   # 16 bits at a non-byte-aligned offset
ETH_DST = {"field_id": 0, "offset": 0, "length": 48}
MD_IN_PORT = {"field_id": 0xFFFF, "offset": 16, "length": 8}
EM0 = 20


def odd16_of(frame: bytes) -> bytes:
    bits = int.from_bytes(frame[12:15], "big")  # bits 96..119
    return ((bits >> (24 - 3 - 16)) & 0xFFFF).to_bytes(2, "big")


class Bench:
    """Owns hugepages, a work dir and every process it starts."""

    def __init__(self, pages: int = 768) -> None:
        self.hp = Hugepages.reserve(pages)
        self.dir = Path(tempfile.mkdtemp(prefix="pofbench-"))
        self.procs: list[subprocess.Popen[Any]] = []
        self.prefixes: list[str] = []
        self.n = 0

    def release(self) -> None:
        for p in list(self.procs):
            self.stop(p)
        self.hp.release()
        subprocess.run(["rm", "-rf", str(self.dir)], check=False)
        for prefix in self.prefixes:  # EAL leaves an empty runtime dir even with --in-memory
            shutil.rmtree(Path("/var/run/dpdk") / prefix, ignore_errors=True)

    def eal(self, cpus: str, prefix: str, single_file: bool = False) -> list[str]:
        # virtio-user shares its memory with the vhost side: a single file keeps it under the 8-region limit
        self.prefixes.append(prefix)
        return ["--in-memory", *(["--single-file-segments"] if single_file else []),
                "--huge-dir", str(self.hp.mount), "--no-pci", "--file-prefix", prefix,
                "--log-level=lib.eal:error", "--no-telemetry", *(["--lcores", cpus] if "@" in cpus else ["-l", cpus])]

    def start(self, argv: list[str], name: str) -> subprocess.Popen[Any]:
        self.n += 1
        log = open(self.dir / f"{name}-{self.n}.log", "w")
        p = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        log.close()
        p.log_path = self.dir / f"{name}-{self.n}.log"  # type: ignore[attr-defined]
        self.procs.append(p)
        return p

    def stop(self, p: subprocess.Popen[Any]) -> str:
        if p.poll() is None:
            p.send_signal(signal.SIGINT)
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        if p in self.procs:
            self.procs.remove(p)
        return Path(p.log_path).read_text(errors="replace")  # type: ignore[attr-defined]

    # --- the switch -------------------------------------------------------------------------------

    def start_switch(self, ports: list[tuple[str, str]], extra: list[str] | None = None,
                     cpus: str = SWITCH_CPU) -> tuple[subprocess.Popen[Any], Controller, dict, Path]:
        ctl = Controller()
        mgmt = self.dir / f"mgmt{self.n}.sock"
        argv = [str(POFSWITCH), *self.eal(cpus, f"pof{os.getpid()}_{self.n}"), "--",
                "--controller", f"127.0.0.1:{ctl.port}", "--mgmt", str(mgmt), *SCRIPTED_CONTROLLER_ARGS]
        for name, devargs in ports:
            argv += ["--port", f"{name}={devargs}"]
        proc = self.start(argv + (extra or []), "pofswitch")
        try:
            ctl.accept(timeout=20)
        except TimeoutError as e:
            raise RuntimeError(f"pofswitch did not connect: {self.stop(proc)[-2000:]}") from e
        found = ctl.handshake()
        for p in found.values():
            ctl.enable_port(p)
        ctl.echo()
        return proc, ctl, found, mgmt

    def start_testpmd(self, vdevs: list[str], cpus: str, args: list[str], name: str) -> subprocess.Popen[Any]:
        argv = [TESTPMD, *self.eal(cpus, f"{name}{os.getpid()}_{self.n}", single_file=any("virtio" in v for v in vdevs))]
        for v in vdevs:
            argv += ["--vdev", v]
        return self.start(argv + ["--", "--nb-cores=1", "--auto-start", "--stats-period=1", "--total-num-mbufs=16384",
                                  *args], name)


def program_pipeline(ctl: Controller, ports: dict, frame: bytes, flows: int = 300) -> None:
    """The benchmark pipeline: MM 0 matches 16 bits at bit offset 99 and GOTOs EM 0; EM 0 matches the
    destination MAC and the input port (metadata), then METER + OUTPUT to the other port. `flows` entries in EM 0
    (the others for MACs that never come)."""
    ids = sorted(p["port_id"] for p in ports.values())
    ctl.table(0, 0, "classify", [ODD16])
    ctl.table(2, 0, "forward", [ETH_DST, MD_IN_PORT], size=max(1024, 2 * flows))
    ctl.meter(1, 100_000_000)  # 100 Gbit/s: the meter runs per packet but never limits
    ctl.flow(0, 0, 0, [mx(ODD16, odd16_of(frame))],
             [{"type": "GOTO_TABLE", "next_table_id": EM0, "packet_offset": 0, "matches": [ETH_DST, MD_IN_PORT]}],
             priority=1)
    dst = frame[:6]
    index = 0
    for a in ids:
        b = ids[1] if a == ids[0] and len(ids) > 1 else ids[0]
        ctl.flow(2, 0, index, [mx(ETH_DST, dst), mx(MD_IN_PORT, bytes([a]))],
                 [{"type": "METER", "meter_id": 1}, {"type": "APPLY_ACTIONS", "actions": [output(b)]}])
        index += 1
    while index < flows:
        mac = bytes([0x0A, 0, 0, 0, index >> 8, index & 0xFF])
        ctl.flow(2, 0, index, [mx(ETH_DST, mac), mx(MD_IN_PORT, bytes([ids[0]]))],
                 [{"type": "METER", "meter_id": 1}, {"type": "APPLY_ACTIONS", "actions": [output(ids[-1])]}])
        index += 1
    ctl.echo()
    ctl.expect_no("ERROR", wait=0.2)


def port_counters(path: Path) -> dict[str, tuple[int, int]]:
    """name -> (rx packets, tx packets) from the management socket's `ports`."""
    return {name: (p["rx_packets"], p["tx_packets"]) for name, p in parse_ports(mgmt_command(path, "ports")).items()}


def switch_rate(path: Path, seconds: float, tx_ports: list[str]) -> list[float]:
    """Per-interval transmit rates (Mpps) summed over tx_ports, one sample a second."""
    samples = []
    before, t0 = port_counters(path), time.monotonic()
    for _ in range(int(seconds)):
        time.sleep(1)
        after, t1 = port_counters(path), time.monotonic()
        sent = sum(after[p][1] - before[p][1] for p in tx_ports)
        samples.append(sent / (t1 - t0) / 1e6)
        before, t0 = after, t1
    return samples


def testpmd_tx_mpps(log: str, ports: list[int] | None = None) -> list[float]:
    """Per-second Tx-pps sums from testpmd's periodic stats (ports in print order)."""
    blocks = re.split(r"#+ NIC statistics for port (\d+)", log)
    per_port: dict[int, list[float]] = {}
    for i in range(1, len(blocks) - 1, 2):
        port = int(blocks[i])
        m = re.search(r"Tx-pps:\s+(\d+)", blocks[i + 1])
        if m:
            per_port.setdefault(port, []).append(int(m.group(1)) / 1e6)
    chosen = ports if ports is not None else sorted(per_port)
    n = min(len(per_port.get(p, [])) for p in chosen) if chosen else 0
    return [sum(per_port[p][k] for p in chosen) for k in range(n)]


def cpu_share(pid: int, seconds: float) -> float:
    """Fraction of one CPU the process got over the next `seconds` (others share this machine)."""
    c0, t0 = cpu_seconds(pid), time.monotonic()
    time.sleep(seconds)
    return (cpu_seconds(pid) - c0) / (time.monotonic() - t0)


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
