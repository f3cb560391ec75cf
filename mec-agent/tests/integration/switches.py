"""Switch attachments for integration tests: the real DPDK pofswitch (management socket), and a dpdk-testpmd
vhost-user peer that generates traffic and counts what comes back (used to prove a DPDK vNF forwards, because
the pof-switch only forwards along flows a POF controller installs)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from wislice_mec_agent.switch import MgmtSwitch, SwitchPort

ROOT = Path(os.environ.get("WISLICE_ROOT", Path(__file__).resolve().parents[3]))
POFSWITCH = ROOT / "pof-switch" / "build" / "pofswitch"


def wait_for(path: Path, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        if time.monotonic() > deadline:
            raise TimeoutError(f"{path} did not appear in {timeout} s")
        time.sleep(0.05)


def start_pofswitch(processes: Any, ns: Any, tmp: Path) -> MgmtSwitch:
    """The DPDK pofswitch in the node namespace, no controller, ports hot-added over its management socket."""
    if not os.access(POFSWITCH, os.X_OK):
        pytest.skip(f"{POFSWITCH} is not built (make -C pof-switch build)")
    mgmt = tmp / "pof-mgmt.sock"
    processes.start([str(POFSWITCH), "-l", "1", "--in-memory", "--no-pci", "--file-prefix", f"pof{os.getpid()}",
                     "--", "--controller", "none", "--mgmt", str(mgmt), "--enable-ports"],
                    netns=ns, log_name="pofswitch")
    wait_for(mgmt)
    return MgmtSwitch(str(mgmt), veth_args="net_af_packet_{name},iface={ifname}",
                      vhost_args="net_vhost_{name},iface={socket}")


class TestpmdPeer:
    """SwitchAttachment stand-in: add_vhost starts dpdk-testpmd (vhost-user server, flowgen 64 B) on the socket."""

    present = True
    __test__ = False

    def __init__(self, log_dir: Path) -> None:
        self.log_dir = log_dir
        self.procs: dict[str, tuple[subprocess.Popen[bytes], Path]] = {}

    def add_vhost(self, name: str, socket_path: str) -> int | None:
        log = self.log_dir / f"testpmd-{name}.log"
        with open(log, "wb") as out:
            proc = subprocess.Popen(
                ["dpdk-testpmd", "-l", "0,1", "--in-memory", "--no-pci", "--file-prefix", f"peer{name}",
                 "--vdev", f"net_vhost0,iface={socket_path},queues=1", "--", "--forward-mode=flowgen",
                 "--auto-start", "--stats-period", "1", "--nb-cores", "1", "--total-num-mbufs", "2048"],
                stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
        self.procs[name] = (proc, log)
        wait_for(Path(socket_path))
        return 1

    def add_veth(self, name: str, ifname: str) -> int | None:
        raise NotImplementedError

    def received(self, name: str) -> int:
        """Packets the peer got back: the latest RX-packets of its periodic port statistics."""
        found = re.findall(r"RX-packets:\s+(\d+)", self.procs[name][1].read_text(errors="replace"))
        return int(found[-1]) if found else 0

    def remove(self, name: str) -> bool:
        entry = self.procs.pop(name, None)
        if entry is None:
            return False
        proc = entry[0]
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        return True

    def ports(self) -> dict[str, SwitchPort]:
        return {n: SwitchPort(name=n, port_id=1) for n in self.procs}

    def close(self) -> None:
        for name in list(self.procs):
            self.remove(name)
