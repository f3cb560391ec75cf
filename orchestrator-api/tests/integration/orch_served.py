"""Integration helpers: the orchestrator as a real process (waitress on a loopback port), started and stopped by
pid through the shared testbed helper."""

from __future__ import annotations

import secrets
import socket
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
import requests

TESTS = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Served:
    url: str
    operator: str
    pid: int

    def call(self, method: str, path: str, token: str | None = None, **kw):
        headers = {"Authorization": f"Bearer {token or self.operator}"}
        return requests.request(method, self.url + "/api/v1" + path, headers=headers, timeout=30, **kw)


def start_orchestrator(processes, tmp_path: Path, extra_env: dict | None = None) -> Served:
    """The orchestrator over the fake controllers (tests/fake_server.py) in a process of its own."""
    port = free_port()
    token = "wso_" + secrets.token_urlsafe(32)
    env = {"WISLICE_DATABASE_URL": f"sqlite:///{tmp_path}/orchestrator.db", "WISLICE_BOOTSTRAP_OPERATOR_TOKEN": token,
           **(extra_env or {})}
    proc = processes.start([sys.executable, str(TESTS / "fake_server.py"), "--port", str(port)],
                           log_name="orchestrator", env=env)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"orchestrator exited with {proc.returncode}; see its log")
        try:
            if requests.get(url + "/api/v1/openapi.json", timeout=1).ok:
                return Served(url, token, proc.pid)
        except requests.ConnectionError:
            time.sleep(0.1)
    pytest.fail("orchestrator did not answer within 30 s")
