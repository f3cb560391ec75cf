"""The three-node ONOS cluster as the cluster tests and the cluster-failover bench drive it: onos-cluster up/down
in a private directory, REST on any node, kill -9 of a node's Karaf and its restart with the environment
onos-cluster gave it (docs/onos-cluster.md)."""

from __future__ import annotations

import base64
import contextlib
import importlib.machinery
import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from wislice_testbed.topology.common import wait_for

ONOS_APPS = Path(__file__).resolve().parents[2]
CLUSTER = ONOS_APPS / "runtime" / "onos-cluster"
RUNTIME = ONOS_APPS / "runtime" / "onos-runtime"

# onos-cluster itself (a script): a node is restarted with the environment onos-cluster gives it.
_loader = importlib.machinery.SourceFileLoader("onos_cluster", str(CLUSTER))
CLUSTER_SCRIPT = importlib.util.module_from_spec(importlib.util.spec_from_loader("onos_cluster", _loader))
_loader.exec_module(CLUSTER_SCRIPT)

POF_APP = "org.wislice.pof"


class Cluster:
    def __init__(self, env: dict[str, str], state: dict[str, Any]) -> None:
        self.env, self.state = env, state
        self.nodes: dict[str, dict[str, Any]] = {n["id"]: n for n in state["nodes"]}
        self.errors: dict[tuple[str, str], str] = {}  # (node, device) -> the last flows/meters read that failed

    def get(self, node: str, path: str) -> tuple[int, Any]:
        return self.request(node, "GET", path)

    def request(self, node: str, method: str, path: str, body: Any = None, timeout: float = 5) -> tuple[int, Any]:
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(f"http://127.0.0.1:{self.nodes[node]['http']}{path}", data=data, method=method)
        token = base64.b64encode(f"{self.state['user']}:{self.state['password']}".encode()).decode()
        req.add_header("Authorization", f"Basic {token}")
        if data is not None:
            req.add_header("Content-Type", "application/json")  # on a GET, ONOS's REST answers 415
        try:
            with urllib.request.urlopen(req, timeout=timeout) as resp:
                return resp.status, json.loads(resp.read() or b"null")
        except urllib.error.HTTPError as err:
            return err.code, err.read().decode(errors="replace")
        except OSError as err:
            return 0, str(err)

    def view(self, node: str) -> dict[str, str]:
        code, body = self.get(node, "/onos/v1/cluster")
        return {n["id"]: n["status"] for n in body["nodes"]} if code == 200 else {}

    def all_ready(self, nodes: list[str]) -> bool:
        want = {n: "READY" for n in self.nodes}
        return all(self.view(n) == want for n in nodes)

    def master(self, node: str, device: str) -> str | None:
        code, body = self.get(node, f"/onos/v1/mastership/{device}/master")
        return body.get("nodeId") if code == 200 else None

    def available(self, node: str, device: str) -> bool:
        code, body = self.get(node, f"/onos/v1/devices/{device}")
        return code == 200 and bool(body.get("available"))

    def flows(self, node: str, device: str) -> dict[str, str] | None:
        """The pof app's flows of the device in this node's view, id -> state; None if the node does not answer.
        ONOS answers 404 "Device is not found" for a device without flows. A node that does not master the
        device asks its master (ECFlowRuleStore), which can take up to its 15 s timeout (then a 500)."""
        code, body = self.request(node, "GET", f"/onos/v1/flows/{device}", timeout=20)
        if code == 404:
            return {}
        if code != 200:
            self.errors[(node, device)] = f"flows {code} {str(body)[:160]}"
            return None
        return {f["id"]: f["state"] for f in body["flows"] if f["appId"] == POF_APP}

    def meters(self, node: str, device: str) -> dict[str, tuple[str, str]] | None:
        """The device's meters in this node's view, id -> (state, bands); None if the node does not answer."""
        code, body = self.get(node, f"/onos/v1/meters/{device}")
        if code != 200:
            self.errors[(node, device)] = f"meters {code} {str(body)[:160]}"
            return None
        return {m["id"]: (m["state"], json.dumps(m["bands"], sort_keys=True)) for m in body["meters"]}

    def karaf_pid(self, node: str) -> int:
        return int((Path(self.nodes[node]["run_dir"]) / "karaf.pid").read_text().split()[0])

    def kill(self, node: str) -> float:
        """kill -9 of the node's Karaf (its process group); returns the monotonic time of the kill."""
        pid = self.karaf_pid(node)
        killed = time.monotonic()
        os.killpg(pid, signal.SIGKILL)
        return killed

    def runtime_env(self, node: str) -> dict[str, str]:
        """The environment onos-cluster starts the node with (its ports, agent listeners, cluster.json, keys)."""
        return dict(self.env, **CLUSTER_SCRIPT.node_env(self.state, self.nodes[node]))

    def restart(self, node: str, ready_s: float = 120) -> float:
        """Starts the killed node again on its directory and ports; waits until every node sees every node READY
        and the node serves every WiSlice REST API. A node READY without one of them (seen: pax-web never started
        the wifi app's web context on a restarted node, /onos/wifi answered 404 for good) is killed and started
        once more, as a supervisor's health check would; said in the output. Returns the seconds it took."""
        t0 = time.monotonic()
        self._start_ready(node, ready_s)
        try:
            wait_for(f"{node} serving every WiSlice REST API", lambda: not self.apps_missing(node), 60, 1)
        except TimeoutError:
            print(f"rejoin repair: {node} READY without {self.apps_missing(node)}; killed and started again")
            os.killpg(self.karaf_pid(node), signal.SIGKILL)
            time.sleep(2)
            self._start_ready(node, ready_s)
            wait_for(f"{node} serving every WiSlice REST API", lambda: not self.apps_missing(node), 60, 1)
        return time.monotonic() - t0

    def apps_missing(self, node: str) -> list[str]:
        """The WiSlice REST APIs the node does not answer 200 on."""
        return [path for path in ("/onos/wifi/agents", "/onos/nfv/nodes", "/onos/pof/slices", "/onos/mobility/handovers")
                if self.get(node, path)[0] != 200]

    def _start_ready(self, node: str, ready_s: float) -> None:
        started = subprocess.run([sys.executable, str(RUNTIME), "start"], env=self.runtime_env(node),
                                 capture_output=True, text=True, timeout=300)
        assert started.returncode == 0, started.stdout + started.stderr  # logs: kept for the failure (keep_logs)
        try:
            wait_for(f"{node} READY in every view", lambda: self.all_ready(list(self.nodes)), ready_s, 0.5)
        except TimeoutError as exc:
            views = {n: self.view(n) for n in self.nodes}
            log = Path(self.nodes[node]["run_dir"]) / "karaf" / "data" / "log" / "karaf.log"
            tail = "\n".join(log.read_text(errors="replace").splitlines()[-40:]) if log.exists() else "(no log)"
            raise AssertionError(f"{exc}; views {views}\n{node}'s karaf.log:\n{tail}") from exc


def keep_logs(run_dir: Path) -> Path:
    """Copies every node's karaf.log and the Atomix nodes' logs out of the cluster directory (removed at the end)."""
    kept = Path(tempfile.mkdtemp(prefix="wislice-cluster-failure-"))
    for log in [*run_dir.glob("onos-*/karaf/data/log/karaf.log"), *run_dir.glob("atomix-*.log")]:
        shutil.copy(log, kept / (log.parts[len(run_dir.parts)] + ("-karaf.log" if log.name == "karaf.log" else "")))
    return kept


@contextlib.contextmanager
def running_cluster(say: Callable[[str], None] = print) -> Iterator[Cluster]:
    """onos-cluster up in a private directory; down (every process by its pid, the directory removed) on exit."""
    run_dir = tempfile.mkdtemp(prefix="wislice-onos-cluster-")
    env = dict(os.environ, ONOS_CLUSTER_DIR=run_dir)
    try:
        up = subprocess.run([sys.executable, str(CLUSTER), "up"], env=env, capture_output=True, text=True,
                            timeout=420)
        say(up.stdout)
        assert up.returncode == 0, f"onos-cluster up failed:\n{up.stdout}\n{up.stderr[-3000:]}"
        try:
            yield Cluster(env, json.loads((Path(run_dir) / "cluster.json").read_text()))
        except BaseException:
            say(f"cluster logs kept in {keep_logs(Path(run_dir))}")
            raise
    finally:
        subprocess.run([sys.executable, str(CLUSTER), "down"], env=env, capture_output=True, timeout=300)
