"""The ONOS runtime (onos-apps/runtime/onos-runtime) with the wifi, nfv and network controller apps, on private
ports in a temporary directory, so it never collides with another engineer's runtime. Stopped by pid on exit."""

from __future__ import annotations

import base64
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .common import free_ports, repo_root, wait_for

APPS = {
    "wifi": "onos-apps/wifi-controller/target/wislice-wifi-controller-0.1.0-SNAPSHOT.oar",
    "nfv": "onos-apps/nfv-controller/target/wislice-nfv-controller-0.1.0-SNAPSHOT.oar",
    "pof": "onos-apps/network-controller/target/wislice-network-controller-0.1.0-SNAPSHOT.oar",
    # Requires wifi and pof: installed after them (a slice client's path follows it between APs).
    "mobility": "onos-apps/mobility/target/wislice-mobility-0.1.0-SNAPSHOT.oar",
}
# Component configuration written before the apps activate: their listening ports and the agents' shared secret.
COMPONENTS = {"wifi": "org.wislice.onos.wifi.impl.WifiManager", "nfv": "org.wislice.onos.nfv.impl.NfvManager",
              "pof": "org.wislice.onos.pof.impl.PofControllerImpl"}
READY_PATHS = {"wifi": "/onos/wifi/agents", "nfv": "/onos/nfv/nodes", "pof": "/onos/pof/switches"}


def karaf_java_pid(pid_file: Path) -> int | None:
    """The Karaf JVM's pid: an onos-runtime pid file names the bin/karaf script, the JVM is its descendant."""
    with suppress(OSError, ValueError):
        todo = [int(pid_file.read_text().split()[0])]
        while todo:
            pid = todo.pop()
            if Path(f"/proc/{pid}/exe").resolve().name == "java":
                return pid
            for task in Path(f"/proc/{pid}/task").iterdir():
                todo += [int(c) for c in (task / "children").read_text().split()]
    return None


class OnosUnavailable(RuntimeError):
    """The runtime or an app is not built on this machine."""


@dataclass
class Onos:
    url: str
    user: str
    password: str
    wifi_port: int
    nfv_port: int
    pof_port: int
    secret: str
    run_dir: Path
    ssh_port: int = 0
    boot_log: str = ""  # what `onos-runtime start` printed (it says how long boot took)
    runtime_env: dict[str, str] = field(default_factory=dict, repr=False)  # the runtime's ports and credentials

    def runtime(self, *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
        """Runs onos-apps/runtime/onos-runtime on this runtime's directory and ports."""
        runtime = repo_root() / "onos-apps" / "runtime" / "onos-runtime"
        return subprocess.run([sys.executable, str(runtime), *args], env=self.runtime_env, capture_output=True,
                              text=True, timeout=timeout)

    def start(self) -> None:
        """Boots Karaf (apps installed before come back active) and waits until ONOS's REST answers."""
        started = self.runtime("start")
        if started.returncode != 0:
            raise RuntimeError(f"onos-runtime start failed:\n{started.stdout}\n{started.stderr}")
        self.boot_log = started.stdout + started.stderr

    def configure_apps(self) -> None:
        # ONOS's component configuration service re-applies the wifi/nfv defaults when those components register
        # (at every boot), so their .cfg files only cover the first moments: set the same values through ONOS, as
        # an operator would. (The network controller keeps its .cfg value; it does not register with it.)
        for name, port in (("wifi", self.wifi_port), ("nfv", self.nfv_port)):
            self.configure(COMPONENTS[name], {"agentPort": port, "sharedSecret": self.secret}, timeout=60)
        wait_for("agent and switch listeners on the private ports", lambda: all(
            _listening(port) for port in (self.wifi_port, self.nfv_port, self.pof_port)), timeout=60, period=0.5)
        for name, path in READY_PATHS.items():
            # An app turns ACTIVE before the web extender mounts its REST resources.
            try:
                wait_for(f"{name} controller REST", lambda p=path: self.request("GET", p)[0] == 200, timeout=120,
                         period=0.5)
            except TimeoutError as exc:
                # Seen once (2026-11-25, the pof REST never mounted, passing on a rerun): keep what Karaf said.
                raise TimeoutError(f"{exc}\nkaraf.log (last 60 lines):\n{self.karaf_log_tail(60)}") from exc

    def crash(self) -> None:
        """SIGKILL to Karaf's process group, as a crash of the controller host's JVM."""
        pid = int((self.run_dir / "karaf.pid").read_text().split()[0])
        with suppress(ProcessLookupError):
            os.killpg(pid, signal.SIGKILL)
        wait_for("Karaf gone", lambda: not _group_alive(pid), timeout=20, period=0.1)

    def restart(self) -> None:
        """Karaf started again on the same directory and ports, as its supervisor would."""
        self.start()
        self.configure_apps()

    def request(self, method: str, path: str, body: Any = None, timeout: float = 30) -> tuple[int, Any]:
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.url + path, data=data, method=method)
        req.add_header("Authorization", "Basic " + base64.b64encode(f"{self.user}:{self.password}".encode()).decode())
        req.add_header("Accept", "application/json")
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

    def get(self, path: str) -> Any:
        code, body = self.request("GET", path)
        if code != 200:
            raise RuntimeError(f"GET {path}: HTTP {code} {body}")
        return body

    def configure(self, component: str, props: dict[str, Any], timeout: float = 30) -> None:
        """Sets component properties, as an operator would (onos:cfg); right after an app activates ONOS may not
        list its component yet (HTTP 207), so this retries until 200."""
        body = {k: str(v) for k, v in props.items()}
        answer: list[Any] = []

        def accepted() -> bool:
            answer[:] = self.request("POST", f"/onos/v1/configuration/{component}", body)
            return answer[0] == 200

        try:
            wait_for(f"configuration of {component}", accepted, timeout=timeout, period=0.5)
        except TimeoutError as exc:
            raise TimeoutError(f"{exc}; ONOS answered {answer}\n{self.karaf_log_tail(20)}") from exc

    def cli(self, *commands: str, timeout: float = 60) -> str:
        """Runs ONOS CLI commands through Karaf's client (batch mode); returns stdout and stderr."""
        client = self.run_dir / "karaf" / "bin" / "client"
        env = dict(os.environ, JAVA_HOME=str(java_home()))
        out = subprocess.run([str(client), "-a", str(self.ssh_port), "-u", self.user, "-p", self.password, "-b"],
                             input="\n".join(commands) + "\n", capture_output=True, text=True, timeout=timeout,
                             env=env)
        return out.stdout + out.stderr

    def wait_for(self, what: str, check: Any, timeout: float = 30, period: float = 0.25) -> Any:
        return wait_for(what, check, timeout=timeout, period=period)

    def java_pid(self) -> int | None:
        return karaf_java_pid(self.run_dir / "karaf.pid")

    def switch_connected(self, device_id: str) -> bool:
        return any(s["device_id"] == device_id and s.get("connected")
                   for s in self.get("/onos/pof/switches")["switches"])

    def karaf_log_tail(self, lines: int = 40) -> str:
        log = self.run_dir / "karaf" / "data" / "log" / "karaf.log"
        try:
            return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no karaf.log)"


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def _listening(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(1)
        return s.connect_ex(("127.0.0.1", port)) == 0


def java_home() -> Path:
    """The Java 11 runtime onos-runtime downloads (make deps)."""
    return Path(os.environ.get("WISLICE_CACHE", Path.home() / ".cache" / "wislice")) / "jre11"


def missing_apps(root: Path | None = None) -> list[str]:
    root = root or repo_root()
    return [name for name, rel in APPS.items() if not (root / rel).exists()]


@contextmanager
def onos_runtime(say: Any = print, keep_log_in: Path | None = None, heap: str = "768M") -> Iterator[Onos]:
    """``keep_log_in``: a directory that receives karaf.log when the runtime stops (for failure reports);
    ``heap``: the JVM's -Xmx."""
    root = repo_root()
    runtime = root / "onos-apps" / "runtime" / "onos-runtime"
    if not runtime.exists():
        raise OnosUnavailable(f"{runtime} is missing")
    missing = missing_apps(root)
    if missing:
        raise OnosUnavailable(f"ONOS apps not built: {', '.join(missing)} (make -C onos-apps build)")
    run_dir = Path(tempfile.mkdtemp(prefix="wislice-demo-onos-"))
    http, ssh, rmi_reg, rmi_srv, cluster, wifi, nfv, pof = free_ports(8)
    password, secret = secrets.token_hex(12), secrets.token_hex(16)
    env = dict(os.environ, ONOS_RUNTIME_DIR=str(run_dir), ONOS_HTTP_PORT=str(http), ONOS_SSH_PORT=str(ssh),
               ONOS_RMI_REGISTRY_PORT=str(rmi_reg), ONOS_RMI_SERVER_PORT=str(rmi_srv),
               ONOS_CLUSTER_PORT=str(cluster), ONOS_USER="onos", ONOS_PASSWORD=password, ONOS_HEAP=heap)

    onos = Onos(f"http://127.0.0.1:{http}", "onos", password, wifi, nfv, pof, secret, run_dir, ssh, runtime_env=env)
    try:
        onos.start()
        say(f"ONOS core up on {onos.url} (private ports; run dir {run_dir})")
        etc = run_dir / "karaf" / "etc"
        (etc / f"{COMPONENTS['wifi']}.cfg").write_text(f"agentPort={wifi}\nsharedSecret={secret}\n")
        (etc / f"{COMPONENTS['nfv']}.cfg").write_text(f"agentPort={nfv}\nsharedSecret={secret}\n")
        (etc / f"{COMPONENTS['pof']}.cfg").write_text(f"pofPort={pof}\n")
        installed = onos.runtime("install-apps", *(str(root / rel) for rel in APPS.values()))
        if installed.returncode != 0:
            raise RuntimeError(f"onos-runtime install-apps failed:\n{installed.stdout}\n{installed.stderr}")
        onos.configure_apps()
        yield onos
    finally:
        onos.runtime("stop", timeout=120)
        if keep_log_in is not None:
            with suppress(OSError):
                shutil.copy(run_dir / "karaf" / "data" / "log" / "karaf.log", keep_log_in / "karaf.log")
        shutil.rmtree(run_dir, ignore_errors=True)
