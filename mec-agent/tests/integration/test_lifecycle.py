"""createVnf / delVnf on the real Docker Engine and netlink: traffic to each vnf_id and back, nothing left."""

from __future__ import annotations

import json
import subprocess

import pytest
from wislice_agent_proto.errors import AgentError

from .conftest import RealNode

pytestmark = pytest.mark.integration


def kspec(instance: int, image: str = "kernel-fwd", **kw: object) -> dict:
    s = {"tenant_id": 1, "instance_id": instance, "image": image, "params": {}, "cpu": 0.2, "memory_mib": 64,
         "chain_position": 0}
    s.update(kw)
    return s


def test_kernel_vnf_answers_on_its_vnf_id_and_delete_leaves_nothing(real_node: RealNode) -> None:
    state = real_node.manager.create(kspec(2))
    assert state["address"] == "0.1.0.2" and state["state"] == "running"
    host = state["ports"][0]["name"]
    real_node.ns.exec(["ip", "route", "add", "0.1.0.2/32", "dev", host])
    out = real_node.ping("0.1.0.2")
    assert "3 received" in out
    stats = real_node.manager  # counters seen from the vNF's side
    from wislice_mec_agent.stats import StatsCollector

    vs = StatsCollector(stats).collect(state["vnf_id"])["vnfs"][0]
    assert vs["ports"][0]["rx_packets"] >= 3 and vs["ports"][0]["tx_packets"] >= 3
    assert vs["memory_mib"] > 0
    # A forwarder that sends out of the interface it received on must not ICMP-redirect the sender.
    pid = real_node.runtime.inspect(real_node.manager.store.get(state["vnf_id"]).container_id).pid
    redirects = subprocess.run(["nsenter", "-t", str(pid), "-n", "cat", "/proc/sys/net/ipv4/conf/in/send_redirects"],
                               capture_output=True, text=True, check=True).stdout.strip()
    assert redirects == "0"
    link = subprocess.run(["nsenter", "-t", str(pid), "-n", "ip", "-j", "link", "show", "in"], capture_output=True,
                          text=True, check=True).stdout
    assert json.loads(link)[0]["address"] == "02:00:00:01:00:02"  # fixed per vnf_id: survives a rebuild
    real_node.manager.delete(state["vnf_id"])
    assert not any(real_node.holdings().values()), real_node.holdings()


def test_firewall_rules_come_from_params(real_node: RealNode) -> None:
    state = real_node.manager.create(kspec(7, "firewall", params={"allow_tcp": "80,443", "allow_icmp": False}))
    ruleset = real_node.manager.vnf_dir(state["vnf_id"]) / "ruleset.txt"
    import time

    deadline = time.monotonic() + 10
    # `nft list ruleset > ruleset.txt`: the file exists (empty) before nft has written it
    while not (ruleset.exists() and ruleset.read_text().strip()) and time.monotonic() < deadline:
        time.sleep(0.1)
    text = ruleset.read_text()
    assert "tcp dport { 80, 443 } accept" in text and "icmp" not in text and "policy drop" in text
    host = state["ports"][0]["name"]
    real_node.ns.exec(["ip", "route", "add", "0.1.0.7/32", "dev", host])
    res = real_node.ns.exec(["ping", "-c", "2", "-W", "1", "0.1.0.7"], check=False)
    assert res.returncode != 0, "ICMP should be dropped by the firewall"
    real_node.manager.delete(state["vnf_id"])
    assert not any(real_node.holdings().values())


@pytest.mark.parametrize(("change", "code"), [
    ({"image": "no-such-image"}, "bad_request"),
    ({"tenant_id": 65536}, "bad_request"),
    ({"cpu": 64.0}, "capacity"),
    ({"memory_mib": 999999}, "capacity"),
])
def test_bad_input_is_refused_without_partial_state(real_node: RealNode, change: dict, code: str) -> None:
    with pytest.raises(AgentError) as err:
        real_node.manager.create(kspec(3, **change))
    assert err.value.code == code
    assert not any(real_node.holdings().values())


def test_duplicate_instance_is_refused_and_the_first_keeps_working(real_node: RealNode) -> None:
    state = real_node.manager.create(kspec(4))
    with pytest.raises(AgentError) as err:
        real_node.manager.create(kspec(4, "monitor"))
    assert err.value.code == "conflict"
    real_node.ns.exec(["ip", "route", "add", "0.1.0.4/32", "dev", state["ports"][0]["name"]])
    real_node.ping("0.1.0.4", count=1)
    real_node.manager.delete(state["vnf_id"])
    assert not any(real_node.holdings().values())


def test_scheduler_writes_cpu_weights_into_the_vnf_cgroups(real_node: RealNode) -> None:
    """On whichever cgroup version this host has: the scheduler's weights land in the vNFs' cgroups (found from
    their pids, wherever Docker's driver and cgroup parent put them), and Docker's limits read back through the
    same module."""
    from wislice_mec_agent import cgroups
    from wislice_mec_agent.runtime import CPU_PERIOD_US, cpu_quota_us
    from wislice_mec_agent.scheduler import SchedulerLoop

    fs = cgroups.host()
    states = [real_node.manager.create(kspec(i, chain_position=i - 10)) for i in (10, 11)]
    loop = SchedulerLoop(real_node.manager, 1.0)
    shares = loop.step()
    for s in states:
        rec = real_node.manager.store.get(s["vnf_id"])
        cg = fs.of_pid(real_node.runtime.inspect(rec.container_id).pid)
        assert cg is not None, fs.describe()
        assert fs.cpu_weight(cg) == fs.native_weight(shares[s["vnf_id"]])
        assert fs.cpu_max(cg) == cgroups.CpuMax(cpu_quota_us(0.2), CPU_PERIOD_US)
        assert fs.memory_max(cg) == 64 * 1024 * 1024
        assert fs.memory_bytes(cg) > 0 and fs.cpu_usage_ns(cg) > 0
        assert fs.throttling(cg) is not None
    assert fs.set_cpu_shares(cg, 300) and fs.cpu_weight(cg) == fs.native_weight(300)
    for s in states:
        real_node.manager.delete(s["vnf_id"])
    assert fs.cpu_weight(cg) is None and not fs.set_cpu_shares(cg, 300)  # its cgroup went with the container
    assert not any(real_node.holdings().values())
