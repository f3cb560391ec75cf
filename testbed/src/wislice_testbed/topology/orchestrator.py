"""The orchestrator-api as the real service process (`wislice serve`, waitress), SQLite in a temporary directory,
its REST controller clients pointed at the testbed's ONOS. Callers talk to it over HTTP like a tenant would."""

from __future__ import annotations

import json
import secrets
import shutil
import sys
import tempfile
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .common import free_ports, wait_for
from .onos import Onos


class ApiError(RuntimeError):
    def __init__(self, method: str, path: str, status: int, body: Any) -> None:
        super().__init__(f"{method} {path}: HTTP {status} {body}")
        self.status, self.body = status, body


@dataclass
class Orchestrator:
    url: str
    operator_token: str
    proc: Any
    processes: Any = field(repr=False, default=None)
    db_path: Path | None = None  # its SQLite file

    def wait_ready(self, timeout: float = 60) -> None:
        def answers() -> bool:
            if self.proc.poll() is not None:
                raise RuntimeError(f"orchestrator exited with {self.proc.returncode}: "
                                   f"{self.processes.log_path(self.proc)}")
            return self.call("GET", "/api/v1/me", timeout=5)[0] == 200

        wait_for("orchestrator REST", answers, timeout=timeout, period=0.3)

    def crash(self) -> None:
        self.processes.crash(self.proc)

    def restart(self) -> None:
        """Started again on the same database and port, as its supervisor would; returns once it answers."""
        self.proc = self.processes.restart(self.proc)
        self.wait_ready()

    def call(self, method: str, path: str, token: str | None = None, body: Any = None, expect: tuple[int, ...] = (
            200, 201, 202, 204), timeout: float = 60) -> tuple[int, Any, dict[str, str]]:
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.url + path, data=data, method=method)
        req.add_header("Authorization", f"Bearer {token or self.operator_token}")
        if data is not None:
            req.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(req, timeout=timeout) as resp:
                raw, status, headers = resp.read(), resp.status, dict(resp.headers)
        except urllib.error.HTTPError as err:
            raw, status, headers = err.read(), err.code, dict(err.headers)
        try:
            parsed = json.loads(raw) if raw else None
        except ValueError:
            parsed = raw.decode(errors="replace")
        if status not in expect:
            raise ApiError(method, path, status, parsed)
        return status, parsed, headers


    def upload(self, path: str, fields: dict[str, str], file_name: str, data: bytes,
               expect: tuple[int, ...] = (201,)) -> Any:
        """A multipart/form-data POST (firmware uploads) with the operator's token: fields and one part "file"."""
        boundary = "wislice-" + secrets.token_hex(12)
        parts = [f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'.encode()
                 for k, v in fields.items()]
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{file_name}"\r\n'
                     "Content-Type: application/octet-stream\r\n\r\n".encode() + data + b"\r\n")
        req = urllib.request.Request(self.url + path, data=b"".join(parts) + f"--{boundary}--\r\n".encode(),
                                     method="POST")
        req.add_header("Authorization", f"Bearer {self.operator_token}")
        req.add_header("Content-Type", f"multipart/form-data; boundary={boundary}")
        try:
            with urllib.request.urlopen(req, timeout=60) as resp:
                status, raw = resp.status, resp.read()
        except urllib.error.HTTPError as err:
            status, raw = err.code, err.read()
        body = json.loads(raw) if raw else None
        if status not in expect:
            raise ApiError("POST", path, status, body)
        return body


@contextmanager
def orchestrator(onos: Onos, processes: Any, say: Any = print,
                 firmware_keys: list[str] | None = None) -> Iterator[Orchestrator]:
    """firmware_keys: usign public key lines the orchestrator trusts for firmware uploads (none: uploads are
    refused)."""
    db_dir = Path(tempfile.mkdtemp(prefix="wislice-demo-orch-"))
    port = free_ports(1)[0]
    token = "wso_demo_" + secrets.token_hex(16)
    # The orchestrator's console script sits beside this interpreter (the project's venv).
    beside = Path(sys.executable).parent / "wislice"
    exe = str(beside) if beside.exists() else shutil.which("wislice") or "wislice"
    env = {"WISLICE_DATABASE_URL": f"sqlite:///{db_dir}/orchestrator.db", "WISLICE_CONTROLLERS": "rest",
           "WISLICE_ONOS_URL": onos.url, "WISLICE_ONOS_USER": onos.user, "WISLICE_ONOS_PASSWORD": onos.password,
           "WISLICE_ONOS_TIMEOUT_S": "60", "WISLICE_BOOTSTRAP_OPERATOR_TOKEN": token,
           # Agents download firmware from here: the AP VM (qemu user networking) reaches the host's loopback at
           # 10.0.2.2.
           "WISLICE_FIRMWARE_BASE_URL": f"http://10.0.2.2:{port}",
           "WISLICE_FIRMWARE_KEYS": ", ".join(firmware_keys or []),
           # A slice's vNF may follow its clients once per 5 s (default 30 s): the vNF follow scenario moves it
           # there and back within a minute (scenarios/vnf_follow.py).
           "WISLICE_VNF_FOLLOW_HOLD_S": "5"}
    proc = processes.start([exe, "serve", "--host", "127.0.0.1", "--port", str(port)], log_name="orchestrator",
                           env=env)
    orch = Orchestrator(f"http://127.0.0.1:{port}", token, proc, processes, db_dir / "orchestrator.db")
    try:
        orch.wait_ready()
        say(f"orchestrator-api serving on {orch.url} (SQLite in {db_dir}, controllers: ONOS REST)")
        yield orch
    finally:
        processes.stop(orch.proc)  # the one running now (a fault test may have restarted it)
        shutil.rmtree(db_dir, ignore_errors=True)
