"""The node converges after kill -9 of the agent mid-create, and after a dockerd restart."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from wislice_mec_agent.reconcile import reconcile
from wislice_mec_agent.store import Store

from .conftest import RealNode
from .switches import SteeredSwitch

pytestmark = pytest.mark.integration


CONFIG_KEYS = ("agent_id", "state_dir", "docker_url", "capacity_cpu", "capacity_memory_mib", "veth_prefix",
               "node_netns", "switch_mgmt", "switch_veth_args", "switch_vhost_args", "hugepages_dir", "node_cpus",
               "switch_cpus")


def write_config(node: RealNode, path: Path, **extra: Any) -> Path:
    """The node's AgentConfig as TOML for an agent process; ``extra`` overrides (a dict value becomes a table,
    written last)."""
    values = {k: getattr(node.config, k) for k in CONFIG_KEYS}
    values.update(extra)
    tables = {k: v for k, v in values.items() if isinstance(v, dict)}
    lines = [f"{k} = {json.dumps(v)}" for k, v in values.items() if k not in tables]
    for k, table in tables.items():
        lines += [f"[{k}]", *(f"{json.dumps(n)} = {json.dumps(v)}" for n, v in table.items())]
    path.write_text("\n".join(lines) + "\n")
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


def kspec(instance: int, tenant: int = 9) -> dict[str, Any]:
    return {"tenant_id": tenant, "instance_id": instance, "image": "kernel-fwd", "params": {}, "cpu": 0.2,
            "memory_mib": 64, "chain_position": 0}


def dspec(instance: int, tenant: int = 8) -> dict[str, Any]:
    return {"tenant_id": tenant, "instance_id": instance, "image": "dpdk-fwd", "params": {"mode": "macswap"},
            "cpu": 0.5, "memory_mib": 128, "chain_position": 1}


SPECS = {"kernel": kspec, "dpdk": dspec}


@pytest.fixture(params=["noswitch", "pofswitch"])
def node(request: pytest.FixtureRequest, private_dockerd: Any, netns: Any, tmp_path: Path) -> Iterator[Any]:
    """(RealNode, SteeredSwitch | None): a node without a switch, or with the real DPDK pofswitch under a test
    controller (client namespace for traffic, hugepages for DPDK vNFs)."""
    steered = None
    if request.param == "pofswitch":
        steered = SteeredSwitch(request.getfixturevalue("processes"), netns, request.getfixturevalue("veth"),
                                request.getfixturevalue("hugepages"), tmp_path)
        n = RealNode(steered.node_ns, private_dockerd, tmp_path / "state", switch=steered.switch,
                     **steered.config_args())
    else:
        n = RealNode(netns("mec"), private_dockerd, tmp_path / "state")
    try:
        yield n, steered
    finally:
        n.cleanup()
        if steered is not None:
            steered.close()


def expected_holdings(n: RealNode, states: list[dict[str, Any]]) -> dict[str, list[Any]]:
    """Exactly what these vNFs own: containers, host veths, switch ports, records, config dirs."""
    with_switch = n.switch.present
    return {"containers": sorted(f"wv-{n.config.agent_id}-{s['vnf_id']}" for s in states),
            "links": sorted(s["ports"][0]["name"] for s in states if s["class"] == "kernel"),
            "ports": sorted(s["ports"][0]["name"] for s in states) if with_switch else [],
            "records": sorted(s["vnf_id"] for s in states),
            "dirs": sorted(str(s["vnf_id"]) for s in states)}


def check_ports_match_records(n: RealNode) -> None:
    """Every vNF's recorded pof_port is the id its port has on the switch."""
    if not n.switch.present:
        return
    ports = n.switch.ports()
    for rec in Store(n.config.db_path).all():
        for p in rec.ports:
            assert ports[p["name"]].port_id == p["pof_port"], (rec.vnf_id, p, ports)


def check_traffic(n: RealNode, steered: SteeredSwitch | None, state: dict[str, Any], steer: bool = False) -> None:
    """A kernel vNF answers pings (through the switch when there is one, else on its host veth); a DPDK vNF
    returns what the switch sends it."""
    port = state["ports"][0]
    if steered is not None:
        if steer:
            steered.steer(state["address"], port["pof_port"])
        if state["class"] == "kernel":
            steered.ping_kernel(state["address"])
        else:
            steered.roundtrip_dpdk(state["address"], port["name"])
        return
    n.ns.exec(["ip", "route", "replace", f"{state['address']}/32", "dev", port["name"]])
    n.ping(state["address"], count=1)


def pause_in_create(cfg: Path, spec: dict[str, Any], step: str) -> subprocess.Popen[str]:
    """An agent process creating ``spec`` that stops at ``step`` (manager.PAUSE_ENV) until it is killed."""
    victim = agent(cfg, "create-vnf", json.dumps(spec), env={"WISLICE_MEC_TEST_PAUSE_AT": step})
    deadline = time.monotonic() + 60
    while "paused at" not in (line := victim.stderr.readline()):
        if not line or time.monotonic() > deadline:
            victim.kill()
            victim.wait()
            raise AssertionError(f"agent never reached the pause point {step}: {line}{victim.stderr.read()}")
    return victim


# (vNF class, pause step, switch). Pause points in manager._build_steps: "switch" right after a DPDK vNF's
# vhost-user port is hot-added (a kernel vNF has only its record and config dir there), "container" after the
# container started, "wiring" after the veth and, for a kernel vNF, its switch port (the last step before the
# ready file and the 'running' record).
KILL_CASES = [("kernel", "switch", "noswitch"), ("kernel", "container", "noswitch"), ("kernel", "wiring", "noswitch"),
              ("kernel", "container", "pofswitch"), ("kernel", "wiring", "pofswitch"),
              ("dpdk", "switch", "pofswitch"), ("dpdk", "container", "pofswitch"), ("dpdk", "wiring", "pofswitch")]


@pytest.mark.parametrize(("cls", "step", "node"), KILL_CASES, indirect=["node"],
                         ids=[f"{c}-{s}-{w}" for c, s, w in KILL_CASES])
def test_kill_9_mid_create_then_restart_converges(node: Any, tmp_path: Path, cls: str, step: str) -> None:
    n, steered = node
    cfg = write_config(n, tmp_path / "agent.toml")
    # vNFs that must survive the crash untouched: a kernel one, and a DPDK one when there is a switch.
    survivors = [n.manager.create(kspec(1))] + ([n.manager.create(dspec(1))] if steered is not None else [])
    before = {s["vnf_id"]: n.runtime.inspect(s["container_id"]) for s in survivors}
    for s in survivors:
        check_traffic(n, steered, s, steer=True)
    victim_spec = SPECS[cls](2)
    victim_id = victim_spec["tenant_id"] << 16 | 2
    victim = pause_in_create(cfg, victim_spec, step)
    try:
        # What the victim holds at the pause: its record and dir always, then per step (a kernel vNF has no
        # switch port before "wiring"; a DPDK vNF has one from "switch" on).
        held, base = n.holdings(), expected_holdings(n, survivors)
        assert held["records"] == sorted([*base["records"], victim_id])
        assert len(held["containers"]) == len(base["containers"]) + (step != "switch")
        assert len(held["links"]) == len(base["links"]) + (cls == "kernel" and step == "wiring")
        has_port = steered is not None and (cls == "dpdk" or step == "wiring")
        assert len(held["ports"]) == len(base["ports"]) + has_port, held
        victim.send_signal(signal.SIGKILL)
        victim.wait(10)
    finally:
        if victim.poll() is None:
            victim.kill()
            victim.wait()
        victim.stdout.close()
        victim.stderr.close()
    report = json.loads(run_agent(cfg, "reconcile").stdout)
    assert report["rolled_back"] == [victim_id], report
    assert report["adopted"] == sorted(s["vnf_id"] for s in survivors) and not report["rebuilt"], report
    assert not report["failed"], report
    assert n.holdings() == expected_holdings(n, survivors)
    check_ports_match_records(n)
    for s in survivors:  # untouched: same container, same process; and still forwarding
        now = n.runtime.inspect(s["container_id"])
        assert now is not None and now.status == "running" and now.pid == before[s["vnf_id"]].pid
        check_traffic(n, steered, s)
    # The rolled-back vNF can be created again with the same vnf_id, and everything deletes cleanly.
    again = n.manager.create(victim_spec)
    check_traffic(n, steered, again, steer=True)
    for s in [*survivors, again]:
        n.manager.delete(s["vnf_id"])
    assert not any(n.holdings().values()), n.holdings()
    if steered is not None:
        assert set(steered.switch.ports()) == {"c1"}


def restart_dockerd(d: Any) -> None:
    """Stop the private dockerd by its pid (containers stop with it) and start it again on the same state."""
    from wislice_testbed.dockerd import dockerd_argv, have_dockerd

    d.proc.send_signal(signal.SIGTERM)
    d.proc.wait(timeout=30)
    with open(d.log, "ab") as out:
        d.proc = subprocess.Popen(dockerd_argv(d.root, d.cgroup_parent, have_dockerd()), stdout=out,
                                  stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
    d._wait_ready(30)


@pytest.mark.parametrize(("classes", "node"), [(("kernel", "kernel"), "noswitch"), (("kernel", "dpdk"), "pofswitch")],
                         indirect=["node"], ids=["kernel-noswitch", "kernel+dpdk-pofswitch"])
def test_dockerd_restart_converges(node: Any, classes: tuple[str, ...]) -> None:
    n, steered = node
    states = [n.manager.create(SPECS[cls](3 + i)) for i, cls in enumerate(classes)]
    for s in states:
        check_traffic(n, steered, s, steer=True)
    restart_dockerd(n.dockerd)
    # The containers stopped with dockerd; their namespaces and veths are gone (a DPDK vNF's vhost-user port
    # stays on the switch, its peer gone).
    held = n.holdings()
    assert held["links"] == [] and held["ports"] == expected_holdings(n, states)["ports"]
    report = reconcile(n.new_manager())
    # The design (reconcile.py): a recorded vNF that is not healthy is rebuilt from its recorded spec.
    ids = sorted(s["vnf_id"] for s in states)
    assert sorted(report["rebuilt"]) == ids and report["failed"] == [] and not report["rolled_back"], report
    rebuilt = {s["vnf_id"]: s for s in n.manager.list_states()}
    assert all(s["state"] == "running" for s in rebuilt.values()) and sorted(rebuilt) == ids
    assert n.holdings() == expected_holdings(n, list(rebuilt.values()))
    check_ports_match_records(n)
    for s in rebuilt.values():  # a rebuilt vNF may have a new switch port id: steer to it again
        check_traffic(n, steered, s, steer=True)
    # A second reconcile adopts everything and changes nothing.
    again = reconcile(n.new_manager())
    assert sorted(again["adopted"]) == ids and not again["rebuilt"] and not again["removed_ports"], again
    for vnf_id in ids:
        n.manager.delete(vnf_id)
    assert not any(n.holdings().values()), n.holdings()
    if steered is not None:
        assert set(steered.switch.ports()) == {"c1"}
