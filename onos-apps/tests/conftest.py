"""Shared fixtures for the onos-apps Python tests: the ONOS runtime on free ports with the apps installed."""
from __future__ import annotations

import base64
import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Iterator

import pytest

HERE = Path(__file__).resolve().parent
ONOS_APPS = HERE.parent
RUNTIME = ONOS_APPS / "runtime" / "onos-runtime"
JAVA_HOME = Path(os.environ.get("WISLICE_CACHE", Path.home() / ".cache" / "wislice")) / "jre11"
sys.path.insert(0, str(HERE))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Onos:
    """A running runtime: REST helpers and the ports its apps listen on."""

    def __init__(self, env: dict[str, str], http_port: int) -> None:
        self.env = env
        self.base = f"http://127.0.0.1:{http_port}"
        self.auth = "Basic " + base64.b64encode(b"onos:rocks").decode()

    def request(self, method: str, path: str, body: Any = None, timeout: float = 30) -> tuple[int, Any]:
        data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
        req = urllib.request.Request(self.base + path, data=data, method=method)
        req.add_header("Authorization", self.auth)
        if data is not None:
            req.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(req, timeout=timeout) as resp:
                raw = resp.read()
                return resp.status, json.loads(raw) if raw else None
        except urllib.error.HTTPError as err:
            raw = err.read()
            try:
                return err.code, json.loads(raw)
            except ValueError:
                return err.code, raw.decode(errors="replace")

    def configure(self, component: str, props: dict[str, Any], timeout: float = 30) -> None:
        """Sets component properties; right after activation ONOS may not list the component yet (207)."""
        deadline = time.monotonic() + timeout
        while True:
            code, body = self.request("POST", f"/onos/v1/configuration/{component}",
                                      {k: str(v) for k, v in props.items()})
            if code == 200 or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        assert code == 200, (code, body)

    def runtime(self, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, str(RUNTIME), *args], env=self.env, check=True, text=True,
                              capture_output=True)


@pytest.fixture(scope="session")
def onos(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Onos]:
    """Boots the runtime on free ports in a temp dir, installs the apps' .oar files, stops it afterwards."""
    oars = sorted(ONOS_APPS.glob("*-controller/target/*.oar"))
    mine = [o for o in oars if o.parent.parent.name in ("wifi-controller", "nfv-controller")]
    if not mine:
        pytest.fail("no .oar built: run make -C onos-apps build")
    http = free_port()
    env = dict(os.environ, ONOS_RUNTIME_DIR=str(tmp_path_factory.mktemp("onos-runtime")),
               ONOS_HTTP_PORT=str(http), ONOS_SSH_PORT=str(free_port()),
               ONOS_RMI_REGISTRY_PORT=str(free_port()), ONOS_RMI_SERVER_PORT=str(free_port()),
               ONOS_CLUSTER_PORT=str(free_port()))
    o = Onos(env, http)
    try:
        out = o.runtime("start", "--fresh")
        print(out.stdout)
        o.boot_log = out.stdout
        o.runtime("install-apps", *map(str, mine))
        yield o
    finally:
        subprocess.run([sys.executable, str(RUNTIME), "stop"], env=env, check=False)
