"""Shared setup for the mec-agent benchmarks: a private dockerd, a node namespace and a manager over them, all
removed at the end (also on failure)."""

from __future__ import annotations

import contextlib
import secrets
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

from wislice_mec_agent.catalog import Catalog  # noqa: E402
from wislice_mec_agent.config import AgentConfig  # noqa: E402
from wislice_mec_agent.manager import VnfManager  # noqa: E402
from wislice_mec_agent.pool import WarmPool  # noqa: E402
from wislice_mec_agent.reconcile import reconcile  # noqa: E402
from wislice_mec_agent.runtime import DockerRuntime  # noqa: E402
from wislice_mec_agent.store import Store  # noqa: E402
from wislice_mec_agent.switch import NoSwitch  # noqa: E402
from wislice_mec_agent.wiring import PyrouteWiring  # noqa: E402


@contextlib.contextmanager
def bench_node(warm_pool: dict[str, int] | None = None, **cfg: Any) -> Iterator[tuple[VnfManager, Any, Any]]:
    from wislice_testbed.dockerd import PrivateDockerd
    from wislice_testbed.netns import Namespace

    dockerd = PrivateDockerd.start("mb")
    ns = Namespace.create("mb")
    state = Path(tempfile.mkdtemp(prefix="wislice-mec-bench-"))
    manager = None
    try:
        config = AgentConfig(agent_id=f"bench-{secrets.token_hex(3)}", state_dir=str(state),
                             docker_url=dockerd.base_url, capacity_cpu=64.0, capacity_memory_mib=65536,
                             veth_prefix=f"wb{secrets.token_hex(2)}", node_netns=ns.name,
                             warm_pool=warm_pool or {}, **cfg)
        catalog = Catalog.load()
        runtime = DockerRuntime(dockerd.base_url)
        pool = WarmPool(config, catalog, runtime) if warm_pool else None
        manager = VnfManager(config, catalog, Store(config.db_path), runtime, PyrouteWiring(ns.name), NoSwitch(),
                             pool=pool)
        yield manager, dockerd, ns
    finally:
        if manager is not None:
            with contextlib.suppress(Exception):
                if manager.pool is not None:
                    manager.pool.drain()
                for rec in manager.store.all():
                    manager.delete(rec.vnf_id)
                reconcile(manager)
        ns.delete()
        dockerd.stop()
        import shutil

        shutil.rmtree(state, ignore_errors=True)
