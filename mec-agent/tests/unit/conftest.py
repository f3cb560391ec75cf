from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from wislice_mec_agent.catalog import Catalog
from wislice_mec_agent.config import AgentConfig
from wislice_mec_agent.manager import VnfManager
from wislice_mec_agent.store import Store

from .fakes import FakeRuntime, FakeSwitch, FakeWiring


class Node:
    """A manager over fakes, plus a helper that says what the node holds."""

    def __init__(self, tmp: Path, switch: Any = None, **cfg: Any) -> None:
        self.tmp = tmp
        self.config = AgentConfig(agent_id="mec-t", state_dir=str(tmp / "state"), capacity_cpu=2.0,
                                  capacity_memory_mib=1024, veth_prefix="wt", **cfg)
        self.runtime = FakeRuntime()
        self.wiring = FakeWiring(self.runtime)
        self.switch = switch if switch is not None else FakeSwitch()
        self.catalog = Catalog.load()
        self.manager = self.new_manager()

    def new_manager(self, pool: Any = None) -> VnfManager:
        """A fresh manager over the same node (an agent restart)."""
        return VnfManager(self.config, self.catalog, Store(self.config.db_path), self.runtime, self.wiring,
                          self.switch, pool=pool)

    def holdings(self) -> dict[str, Any]:
        dirs = sorted(p.name for p in self.config.vnf_dir.iterdir()) if self.config.vnf_dir.exists() else []
        return {"containers": sorted(c.name for c in self.runtime.containers.values()),
                "links": sorted(self.wiring.links), "ports": sorted(getattr(self.switch, "table", {})),
                "records": [r.vnf_id for r in self.manager.store.all()], "dirs": dirs}

    def empty(self) -> bool:
        return not any(self.holdings().values())


def spec(tenant: int = 1, instance: int = 2, image: str = "kernel-fwd", **kw: Any) -> dict[str, Any]:
    s = {"tenant_id": tenant, "instance_id": instance, "image": image, "params": {}, "cpu": 0.5, "memory_mib": 64,
         "chain_position": 0}
    s.update(kw)
    return s


@pytest.fixture
def node(tmp_path: Path) -> Node:
    return Node(tmp_path)
