"""The real ONOS runtime (onos-apps/runtime/onos-runtime) with the network-controller app, for tests and benches."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[4]
RUNTIME = ROOT / "onos-apps" / "runtime" / "onos-runtime"
RUN_DIR = Path(os.environ.get("ONOS_RUNTIME_DIR", ROOT / "onos-apps" / "runtime" / "run"))
OAR = ROOT / "onos-apps" / "network-controller" / "target" / "wislice-network-controller-0.1.0-SNAPSHOT.oar"
REST = os.environ.get("ONOS_REST", "http://127.0.0.1:8181")
AUTH = "Basic " + base64.b64encode(
    f"{os.environ.get('ONOS_USER', 'onos')}:{os.environ.get('ONOS_PASSWORD', 'rocks')}".encode()).decode()


class Onos:
    """Starts the runtime unless it already runs (then leaves it running), installs the app, talks REST and CLI."""

    def __init__(self) -> None:
        self.started_here = False

    def runtime(self, *args: str, timeout: float = 240) -> None:
        subprocess.run(["python3", str(RUNTIME), *args], check=True, timeout=timeout)

    def up(self) -> None:
        if not RUNTIME.exists():
            raise RuntimeError(f"{RUNTIME} missing: the ONOS runtime script is not in the tree yet")
        if not OAR.exists():
            raise RuntimeError(f"{OAR} missing: run `make -C onos-apps build` first")
        running = subprocess.run(["python3", str(RUNTIME), "status"], capture_output=True, text=True).returncode == 0
        if not running:
            self.runtime("start")
            self.started_here = True
        # Uninstall first so Karaf loads the jar just built (a reinstall of the same version may keep the old one).
        if self.request("GET", "/onos/v1/applications/org.wislice.pof")[0] == 200:
            self.request("DELETE", "/onos/v1/applications/org.wislice.pof")
            self.wait_for("old app uninstalled",
                          lambda: self.request("GET", "/onos/v1/applications/org.wislice.pof")[0] == 404)
        self.runtime("install-apps", str(OAR))
        # The app's REST context is registered by the web extender shortly after the app turns ACTIVE.
        self.wait_for("/onos/pof REST context", lambda: self.request("GET", "/onos/pof/switches")[0] == 200)

    def down(self) -> None:
        if self.started_here:
            self.runtime("stop", timeout=90)

    def request(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        data = None if body is None else json.dumps(body).encode()
        headers = {"Authorization": AUTH, "Accept": "application/json"}
        if data is not None:
            headers["Content-Type"] = "application/json"
        req = urllib.request.Request(REST + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=60) as resp:
                raw = resp.read()
                return resp.status, json.loads(raw) if raw else None
        except urllib.error.HTTPError as e:
            raw = e.read()
            try:
                return e.code, json.loads(raw)
            except ValueError:
                return e.code, raw.decode(errors="replace")

    def get(self, path: str) -> Any:
        code, body = self.request("GET", path)
        assert code == 200, f"GET {path}: {code} {body}"
        return body

    def cli(self, *commands: str) -> str:
        """Runs ONOS CLI commands through Karaf's client (batch mode, commands on stdin)."""
        client = RUN_DIR / "karaf" / "bin" / "client"
        out = subprocess.run([str(client), "-b"], input="\n".join(commands) + "\n", capture_output=True,
                             text=True, timeout=60)
        return out.stdout + out.stderr

    def wait_for(self, what: str, check: Any, timeout: float = 30, period: float = 0.25) -> Any:
        deadline = time.monotonic() + timeout
        last: Any = None
        while time.monotonic() < deadline:
            last = check()
            if last:
                return last
            time.sleep(period)
        raise AssertionError(f"timed out waiting for {what} (last: {last!r})")
