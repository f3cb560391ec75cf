"""The agent daemon (python -m wislice_mec_agent) against a scripted nfv-controller on loopback, with the real
dockerd: hmac hello, syncVnfs, getVnfs, getStatistics, events, reconnect after the controller drops the link
(the vNF is kept), delVnf, clean shutdown."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from wislice_agent_proto import prometheus, protocol

from wislice_mec_agent import cgroups

from .conftest import RealNode
from .test_recovery import write_config

pytestmark = pytest.mark.integration
SECRET = b"integration-secret"


class Controller:
    def __init__(self) -> None:
        self.server = socket.create_server(("127.0.0.1", 0))
        self.server.settimeout(30)
        self.port = self.server.getsockname()[1]
        self.conn: socket.socket | None = None
        self.reader: Any = None
        self.next_id = 0

    def accept(self) -> dict[str, Any]:
        self.conn, _ = self.server.accept()
        self.conn.settimeout(30)
        self.reader = self.conn.makefile("rb")
        nonce = "5a" * 16
        self.conn.sendall(protocol.encode(protocol.challenge("nfv-test", nonce)))
        hello = self.recv()
        assert hello["auth"]["mac"] == protocol.hmac_mac(SECRET, nonce, hello["agent_id"])
        self.conn.sendall(protocol.encode(protocol.welcome("nfv-test", 1)))
        return hello

    def recv(self) -> dict[str, Any]:
        return json.loads(self.reader.readline())

    def call(self, method: str, params: dict[str, Any], seen: list[dict[str, Any]]) -> dict[str, Any]:
        self.next_id += 1
        self.conn.sendall(protocol.encode(protocol.request(self.next_id, method, params)))
        while True:
            msg = self.recv()
            seen.append(msg)
            if msg["type"] == "ping":
                self.conn.sendall(protocol.encode({"type": "pong", "id": msg["id"]}))
            if msg["type"] == "reply" and msg["id"] == self.next_id:
                return msg

    def drop(self) -> None:
        self.reader.close()
        self.conn.close()

    def close(self) -> None:
        if self.conn is not None:
            self.drop()
        self.server.close()


def vnf_metrics(address: tuple[str, int]) -> dict[str, float]:
    """The vNF's state and memory on the daemon's /metrics, once the node's collection shows it running."""
    deadline = time.monotonic() + 10
    while True:
        status, _, body = prometheus.scrape(address)
        parsed = prometheus.parse(body)
        assert status == 200 and parsed["wislice_mec_connected"].samples.popitem()[1] == 1
        running = {dict(k)["vnf_id"]: v for k, v in parsed["wislice_mec_vnf_state"].samples.items()
                   if dict(k)["state"] == "running"}
        if running.get(str(6 << 16 | 1)) == 1:
            return {"memory": next(iter(parsed["wislice_mec_vnf_memory_mib"].samples.values()))}
        assert time.monotonic() < deadline, body
        time.sleep(0.2)


def test_daemon_serves_the_controller_and_reconnects(real_node: RealNode, tmp_path: Path) -> None:
    ctl = Controller()
    secret = tmp_path / "secret"
    secret.write_bytes(SECRET + b"\n")
    cfg = write_config(real_node, tmp_path / "agent.toml")
    with socket.socket() as probe:  # a free port for /metrics
        probe.bind(("127.0.0.1", 0))
        metrics = probe.getsockname()
    with open(cfg, "a") as f:
        f.write(f'controller = "127.0.0.1:{ctl.port}"\nsecret_file = "{secret}"\nstats_interval_s = 1.0\n'
                f'metrics_listen = "127.0.0.1:{metrics[1]}"\nscheduler_interval_s = 1.0\n')
    log = tmp_path / "agent.log"
    with open(log, "wb") as out:
        agent = subprocess.Popen([sys.executable, "-m", "wislice_mec_agent", "--config", str(cfg)],
                                 stdout=out, stderr=subprocess.STDOUT)
    vnf = {"tenant_id": 6, "instance_id": 1, "image": "kernel-fwd", "params": {}, "cpu": 0.2, "memory_mib": 64,
           "chain_position": 0}
    seen: list[dict[str, Any]] = []
    try:
        hello = ctl.accept()
        assert hello["role"] == "mec" and "dpdk-fwd" in hello["capabilities"]["catalog"]
        r = ctl.call("syncVnfs", {"vnfs": [vnf]}, seen)
        assert r["ok"] and r["result"]["created"] == [6 << 16 | 1], r
        r = ctl.call("getVnfs", {}, seen)
        assert r["result"]["vnfs"][0]["address"] == "0.6.0.1" and r["result"]["vnfs"][0]["state"] == "running"
        r = ctl.call("getStatistics", {"vnf_id": 6 << 16 | 1}, seen)
        assert r["ok"] and r["result"]["vnfs"][0]["memory_mib"] > 0
        r = ctl.call("createVnf", {"vnf": {**vnf, "tenant_id": 70000}}, seen)
        assert r["error"]["code"] == "bad_request"
        while not any(m["type"] == "event" and m["event"] == "stats" for m in seen):
            seen.append(ctl.recv())
        assert vnf_metrics(metrics)["memory"] > 0
        ctl.drop()  # the agent must come back (backoff ~1 s) and keep the vNF through the next sync
        ctl.accept()
        r = ctl.call("syncVnfs", {"vnfs": [vnf]}, seen)
        assert r["result"]["kept"] == [6 << 16 | 1] and r["result"]["created"] == [], r
        r = ctl.call("delVnf", {"vnf_id": 6 << 16 | 1}, seen)
        assert r["ok"], r
        assert any(m["type"] == "event" and m["event"] == "vnfState" and m["data"]["state"] == "removed"
                   for m in [*seen, ctl.recv()])
    finally:
        agent.send_signal(signal.SIGTERM)
        try:
            agent.wait(15)
        except subprocess.TimeoutExpired:
            agent.kill()
            agent.wait()
        ctl.close()
    text = log.read_text()
    assert agent.returncode == 0, text
    fs = cgroups.host()  # the agent logs the cgroups it found, and runs the scheduler where they serve it
    assert f"cgroups: {fs.describe()}" in text, text
    assert ("scheduler not started" in text) == bool(fs.lacks(*cgroups.SCHEDULER_NEEDS)), text
    assert not any(real_node.holdings().values())
