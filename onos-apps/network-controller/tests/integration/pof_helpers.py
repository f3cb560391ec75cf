"""Real pofswitch processes on veths dialling the session's ONOS, and what the suite reads back from ONOS."""

from __future__ import annotations

import os
import socket
from pathlib import Path
from typing import Any

from wislice_testbed.topology.common import repo_root
from wislice_testbed.topology.onos import Onos

POFSWITCH = Path(os.environ.get("POFSWITCH_AFP", repo_root() / "pof-switch" / "build" / "pofswitch-afp"))


def start_pofswitch(processes: Any, binary: Path, tmp_path: Path, dev_id: int, ports: list[str], onos: Onos) -> Any:
    argv = [str(binary), "--controller", f"127.0.0.1:{onos.pof_port}", "--dev-id", str(dev_id),
            "--mgmt", str(tmp_path / f"mgmt{dev_id}.sock")]
    for i, ifname in enumerate(ports, 1):
        argv += ["--port", f"s{i}={ifname}"]
    return processes.start(argv, log_name=f"pofswitch{dev_id}")


def flows_of(onos: Any, dev: str) -> list[dict]:
    """ONOS answers 404 "Device is not found" for a device without flows."""
    code, body = onos.request("GET", f"/onos/v1/flows/{dev}")
    if code == 404:
        return []
    assert code == 200, body
    return body["flows"]


def mgmt(sock: Path, line: str) -> str:
    """One command on a pofswitch's management socket (spec/switch-mgmt), its one-line reply."""
    with socket.socket(socket.AF_UNIX) as s:
        s.settimeout(5)
        s.connect(str(sock))
        s.sendall(line.encode() + b"\n")
        reply = b""
        while not reply.endswith(b"\n"):
            chunk = s.recv(4096)
            if not chunk:
                break
            reply += chunk
    return reply.decode().strip()
