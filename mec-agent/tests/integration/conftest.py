"""Integration fixtures: a real MEC node = a network namespace the test created (host side of the vNF veths, the
switch) + the session's private dockerd + the real pyroute2 wiring. Everything is removed at teardown and the
test fails if the agent itself left anything (containers, veths, switch ports, records, dirs)."""

from __future__ import annotations

import contextlib
import secrets
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from wislice_mec_agent.catalog import Catalog
from wislice_mec_agent.config import AgentConfig
from wislice_mec_agent.manager import VnfManager
from wislice_mec_agent.runtime import DockerRuntime
from wislice_mec_agent.store import Store
from wislice_mec_agent.switch import NoSwitch
from wislice_mec_agent.wiring import PyrouteWiring

pytest_plugins = ["wislice_testbed.pytest_plugin"]
NODE_ADDRESS = "10.255.0.1"


class RealNode:
    def __init__(self, ns: Any, dockerd: Any, state_dir: Path, switch: Any = None, **cfg: Any) -> None:
        self.ns = ns
        self.dockerd = dockerd
        self.config = AgentConfig(agent_id=f"mec-{secrets.token_hex(3)}", state_dir=str(state_dir),
                                  docker_url=dockerd.base_url, capacity_cpu=2.0, capacity_memory_mib=2048,
                                  veth_prefix=f"wi{secrets.token_hex(2)}", node_netns=ns.name, **cfg)
        self.catalog = Catalog.load()
        self.switch = switch if switch is not None else NoSwitch()
        self.runtime = DockerRuntime(dockerd.base_url)
        self.wiring = PyrouteWiring(ns.name)
        self.manager = self.new_manager()
        # The node's own address: the source of test traffic; vNFs reply to it on-link (their default route).
        ns.exec(["ip", "addr", "add", f"{NODE_ADDRESS}/32", "dev", "lo"])

    @classmethod
    def beside_dpdk_switch(cls, ns: Any, dockerd: Any, hugepages: Any, tmp_path: Path) -> RealNode:
        """A node for tests through the real DPDK pofswitch: vNFs on the hugepages mount, kept off the switch's
        lcore (bench/common.py SWITCH_CPU) as on a MEC node; skips the test when the switch is not built."""
        from .switches import POFSWITCH, ROOT

        if not POFSWITCH.exists():
            pytest.skip(f"{POFSWITCH} is not built (make -C pof-switch build)")
        sys.path.insert(0, str(ROOT / "mec-agent" / "bench"))
        from common import SWITCH_CPU

        return cls(ns, dockerd, tmp_path / "state", hugepages_dir=str(hugepages.mount), switch_cpus=str(SWITCH_CPU))

    @contextlib.contextmanager
    def on_steered_switch(self, hugepages: Any, tmp: Path, ports: list[tuple[str, str]], tag: str) -> Iterator[Any]:
        """The real DPDK pofswitch steered by pofctl (bench/common.py SteeredPofSwitch, with ``ports``) as this
        node's switch. On the way out the node is cleaned while the switch is still there (its vNFs' ports are
        removed through it), also when the test failed; without the switch if it never came up."""
        from common import SteeredPofSwitch

        cleaned = False
        try:
            with SteeredPofSwitch(self.ns, str(hugepages.mount), tmp, ports, tag=tag) as sw:
                self.switch = self.manager.switch = sw.switch
                try:
                    yield sw
                finally:
                    self.cleanup()
                    cleaned = True
        finally:
            if not cleaned:
                self.switch = NoSwitch()
                self.cleanup()

    def new_manager(self, pool: Any = None) -> VnfManager:
        return VnfManager(self.config, self.catalog, Store(self.config.db_path), self.runtime, self.wiring,
                          self.switch, pool=pool)

    def holdings(self) -> dict[str, list[Any]]:
        vnf_dir = self.config.vnf_dir
        return {"containers": sorted(c.name for c in self.runtime.list(self.config.agent_id)),
                "links": self.wiring.list_links(self.config.veth_prefix),
                "ports": sorted(n for n in self.switch.ports() if n.startswith(self.config.veth_prefix)),
                "records": [r.vnf_id for r in Store(self.config.db_path).all()],
                "dirs": sorted(p.name for p in vnf_dir.iterdir()) if vnf_dir.is_dir() else []}

    def ping(self, address: str, count: int = 3) -> str:
        res = self.ns.exec(["ping", "-c", str(count), "-i", "0.2", "-W", "2", address], check=False)
        assert res.returncode == 0, f"ping {address} failed:\n{res.stdout}{res.stderr}"
        return res.stdout if isinstance(res.stdout, str) else res.stdout.decode()

    def cleanup(self) -> None:
        for c in self.runtime.list(self.config.agent_id):
            self.runtime.remove(c.id)
        for link in self.wiring.list_links(self.config.veth_prefix):
            self.wiring.delete_link(link)
        for name in self.switch.ports():
            if name.startswith(self.config.veth_prefix):
                self.switch.remove(name)
        self.runtime.close()


@pytest.fixture
def real_node(private_dockerd: Any, netns: Any, tmp_path: Path) -> Iterator[RealNode]:
    node = RealNode(netns("mec"), private_dockerd, tmp_path / "state")
    try:
        yield node
    finally:
        node.cleanup()
