"""The node converges after kill -9 of the agent mid-create, and after a dockerd restart."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from wislice_mec_agent.reconcile import reconcile
from wislice_mec_agent.store import Store

from .conftest import RealNode

pytestmark = pytest.mark.integration


def write_config(node: RealNode, path: Path) -> Path:
    c = node.config
    path.write_text(f'agent_id = "{c.agent_id}"\nstate_dir = "{c.state_dir}"\ndocker_url = "{c.docker_url}"\n'
                    f'capacity_cpu = {c.capacity_cpu}\ncapacity_memory_mib = {c.capacity_memory_mib}\n'
                    f'veth_prefix = "{c.veth_prefix}"\nnode_netns = "{c.node_netns}"\n')
    return path


def agent(config: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "wislice_mec_agent", "--config", str(config), *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, **(env or {})})


def run_agent(config: Path, *args: str) -> subprocess.CompletedProcess[str]:
    res = subprocess.run([sys.executable, "-m", "wislice_mec_agent", "--config", str(config), *args],
                         capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    return res


def kspec(instance: int) -> str:
    return json.dumps({"tenant_id": 9, "instance_id": instance, "image": "kernel-fwd", "params": {}, "cpu": 0.2,
                       "memory_mib": 64, "chain_position": 0})


@pytest.mark.parametrize("step", ["container", "wiring"])
def test_kill_9_mid_create_then_restart_converges(real_node: RealNode, tmp_path: Path, step: str) -> None:
    cfg = write_config(real_node, tmp_path / "agent.toml")
    # One vNF that must survive the crash untouched.
    run_agent(cfg, "create-vnf", kspec(1))
    record = Store(real_node.config.db_path).get(9 << 16 | 1)
    assert record is not None and record.state == "running"
    survivor = real_node.runtime.inspect(record.container_id)
    assert survivor is not None
    victim = agent(cfg, "create-vnf", kspec(2), env={"WISLICE_MEC_TEST_PAUSE_AT": step})
    try:
        deadline = time.monotonic() + 30
        while "paused at" not in (line := victim.stderr.readline()):
            assert line and time.monotonic() < deadline, "agent never reached the pause point"
        held = real_node.holdings()
        assert len(held["containers"]) == 2 and (step != "wiring" or len(held["links"]) == 2)
        victim.send_signal(signal.SIGKILL)
        victim.wait(10)
    finally:
        if victim.poll() is None:
            victim.kill()
            victim.wait()
        victim.stdout.close()
        victim.stderr.close()
    report = json.loads(run_agent(cfg, "reconcile").stdout)
    assert report["rolled_back"] == [9 << 16 | 2] and report["adopted"] == [9 << 16 | 1]
    held = real_node.holdings()
    assert held["records"] == [9 << 16 | 1] and len(held["containers"]) == 1 and len(held["links"]) == 1
    assert real_node.runtime.inspect(survivor.id).status == "running"
    real_node.ns.exec(["ip", "route", "add", "0.9.0.1/32", "dev", held["links"][0]])
    real_node.ping("0.9.0.1", count=1)
    real_node.manager.delete(9 << 16 | 1)
    assert not any(real_node.holdings().values())


def restart_dockerd(d: Any) -> None:
    """Stop the private dockerd by its pid (containers stop with it) and start it again on the same state."""
    from wislice_testbed.dockerd import dockerd_argv, have_dockerd

    d.proc.send_signal(signal.SIGTERM)
    d.proc.wait(timeout=30)
    with open(d.log, "ab") as out:
        d.proc = subprocess.Popen(dockerd_argv(d.root, d.cgroup_parent, have_dockerd()), stdout=out,
                                  stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
    d._wait_ready(30)


def test_dockerd_restart_converges(real_node: RealNode) -> None:
    states = [real_node.manager.create(json.loads(kspec(i))) for i in (3, 4)]
    restart_dockerd(real_node.dockerd)
    # The containers stopped with dockerd; their namespaces and veths are gone.
    assert real_node.holdings()["links"] == []
    report = reconcile(real_node.new_manager())
    assert sorted(report["rebuilt"]) == [s["vnf_id"] for s in states] and report["failed"] == []
    held = real_node.holdings()
    assert len(held["containers"]) == 2 and len(held["links"]) == 2
    for s in states:
        real_node.ns.exec(["ip", "route", "replace", f"{s['address']}/32", "dev", s["ports"][0]["name"]])
        real_node.ping(s["address"], count=1)
    # A second reconcile adopts everything and changes nothing.
    again = reconcile(real_node.new_manager())
    assert sorted(again["adopted"]) == [s["vnf_id"] for s in states] and not again["rebuilt"]
    for s in states:
        real_node.manager.delete(s["vnf_id"])
    assert not any(real_node.holdings().values())
