"""The orchestrator on the three-node cluster (issue 17, test_orchestrator_on_cluster.py): a real `wislice serve`
whose WISLICE_ONOS_URL lists every node, a tenant's slices made through it, the pof app's paths they leave on a
switch, and the orchestrator's call times sampled while a node dies."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cluster_helpers import Cluster, wait_for
from wislice_testbed.processes import ProcessManager
from wislice_testbed.topology.orchestrator import Orchestrator, orchestrator


@dataclass
class ClusterUrls:
    """What the testbed's orchestrator() reads of an Onos: here every node's REST, comma-separated, in node order
    (the orchestrator calls the first and moves on when it is gone: controllers/nodes.py)."""

    url: str
    user: str
    password: str


@contextmanager
def orchestrator_on(cluster: Cluster, work: Path) -> Iterator[Orchestrator]:
    """`wislice serve` (SQLite) on every node of the cluster; stopped, its database removed, on exit."""
    urls = ",".join(f"http://127.0.0.1:{cluster.nodes[n]['http']}" for n in sorted(cluster.nodes))
    processes = ProcessManager(work)
    try:
        with orchestrator(ClusterUrls(urls, cluster.state["user"], cluster.state["password"]), processes) as orch:
            yield orch
    except BaseException:
        print(f"orchestrator log (last lines):\n{processes.tails(40)}")
        raise
    finally:
        processes.stop_all()


def slice_body(name: str, ap: str) -> dict[str, Any]:
    """One vAP on ``ap``, one kernel-fwd vNF (the MEC node on the AP's switch: the only one a path reaches), up
    and down guaranteed and capped: each direction metered."""
    return {"name": name, "latency_class": "best_effort",
            "bandwidth": {"down_guaranteed_kbps": 1000, "up_guaranteed_kbps": 1000, "down_cap_kbps": 20000,
                          "up_cap_kbps": 20000},
            "vaps": [{"agent_id": ap, "radio": "phy0", "ssid": f"{name}-wifi", "security": {"mode": "open"}}],
            "vnfs": [{"image": "kernel-fwd", "cpu": 0.1, "memory_mib": 32}]}


class Tenant:
    """A tenant of the orchestrator with its own token."""

    def __init__(self, orch: Orchestrator, tenant_id: int) -> None:
        self.orch, self.tenant_id = orch, tenant_id
        orch.call("POST", "/api/v1/tenants", body={"tenant_id": tenant_id, "name": f"tenant{tenant_id}"})
        self.token = orch.call("POST", f"/api/v1/tenants/{tenant_id}/tokens", body={"name": "t"})[1]["token"]
        self.base = f"/api/v1/tenants/{tenant_id}/slices"

    def _operation(self, what: str, headers: dict[str, str], op: dict[str, Any]) -> dict[str, Any]:
        location = headers.get("Location") or f"/api/v1/operations/{op['id']}"
        path = location[location.index("/api/"):]

        def done() -> dict[str, Any] | None:
            now = self.orch.call("GET", path, self.token)[1]
            return now if now["status"] in ("succeeded", "failed") else None

        op = wait_for(f"operation {path}", done, 120, 0.2)
        assert op["status"] == "succeeded", f"{what}: {op}"
        return op

    def create(self, body: dict[str, Any]) -> tuple[dict[str, Any], float]:
        """POSTs the slice and waits for its operation; the slice as GET shows it and the seconds it took."""
        t0 = time.monotonic()
        _, op, headers = self.orch.call("POST", self.base, self.token, body)
        op = self._operation(f"create {body['name']}", headers, op)
        took = time.monotonic() - t0
        return self.get(op["slice_id"]), took

    def delete(self, slice_id: int) -> float:
        t0 = time.monotonic()
        _, op, headers = self.orch.call("DELETE", f"{self.base}/{slice_id}", self.token)
        if headers.get("Location") or (op or {}).get("id"):  # otherwise it was gone at once
            self._operation(f"delete {slice_id}", headers, op)
        return time.monotonic() - t0

    def get(self, slice_id: int) -> dict[str, Any]:
        return self.orch.call("GET", f"{self.base}/{slice_id}", self.token)[1]

    def statuses(self) -> dict[int, str]:
        return {s["slice_id"]: s["status"] for s in self.orch.call("GET", self.base, self.token)[1]["slices"]}


def paths_on(cluster: Cluster, node: str, device: str) -> list[dict[str, Any]]:
    """The pof app's slice paths (in ``node``'s view) with a hop on ``device``."""
    code, body = cluster.request(node, "GET", "/onos/pof/slices", timeout=20)
    assert code == 200, (node, code, body)
    return [p for p in body["slices"] if any(h["device_id"] == device for h in p["hops"])]


def check_path(cluster: Cluster, node: str, device: str, timeout: float = 10) -> dict[str, Any]:
    """The switch carries exactly one slice path, one hop port 1 -> 2 (AP's vAP port to the vNF's), with an up and
    a down meter, both in ``node``'s meter list of the device (within ``timeout``: the path may have been made on
    another node). Returns the path."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            return _path_as_made(cluster, node, device)
        except AssertionError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def _path_as_made(cluster: Cluster, node: str, device: str) -> dict[str, Any]:
    paths = paths_on(cluster, node, device)
    assert len(paths) == 1, paths
    path = paths[0]
    assert [(h["in_port"], h["out_port"]) for h in path["hops"]] == [(1, 2)], path
    assert sorted(m["direction"] for m in path["meters"]) == ["forward", "reverse"], path
    meters = cluster.meters(node, device) or {}
    assert {str(m["meter_id"]) for m in path["meters"]} <= {str(k) for k in meters}, (path["meters"], meters)
    return path


def listed(cluster: Cluster, node: str, kind: str, key: str, value: Any) -> list[dict[str, Any]] | None:
    """The node's GET /onos/{wifi/vaps,nfv/vnfs} items whose ``key`` is ``value``; None if it does not answer."""
    code, body = cluster.get(node, f"/onos/{kind}")
    return [x for x in body[kind.split("/")[1]] if x.get(key) == value] if code == 200 else None


class CallSampler:
    """Calls the orchestrator every 250 ms in a thread (a tenant's slice list, answered from its database, and the
    operator's vAP list, which it asks ONOS for): (path, wall-clock start, HTTP status or 0, ms) of each call."""

    def __init__(self, orch: Orchestrator, tenant: Tenant) -> None:
        self.calls: list[tuple[str, float, int, float]] = []
        self._targets = [(tenant.base, tenant.token), ("/api/v1/vaps", None)]
        self._orch = orch
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            for path, token in self._targets:
                start, t0 = time.time(), time.monotonic()
                try:
                    status = self._orch.call("GET", path, token, expect=tuple(range(100, 600)), timeout=30)[0]
                except OSError:
                    status = 0
                self.calls.append((path, start, status, (time.monotonic() - t0) * 1000))
            self._stop.wait(0.25)

    def summary(self) -> dict[str, dict[str, Any]]:
        """Per path: calls, the slowest (ms), the median, and every call that was not a 200 (status, ms)."""
        self._stop.set()
        self._thread.join(35)
        out = {}
        for path in dict.fromkeys(c[0] for c in self.calls):
            rows = [c for c in self.calls if c[0] == path]
            ms = sorted(c[3] for c in rows)
            out[path] = {"calls": len(rows), "max_ms": round(ms[-1], 1), "p50_ms": round(ms[len(ms) // 2], 1),
                         "not_200": [(c[2], round(c[3], 1)) for c in rows if c[2] != 200]}
        return out
