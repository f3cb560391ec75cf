"""Warm pool: per catalog image, containers already created and started, idle behind the ready gate of
vnfs/common/entry.sh (they wait for /run/vnf/ready). Claiming one skips image lookup, create and start: the
agent renames it, sets its CPU/memory limits, writes its params and wires it. Pool containers carry the label
wislice.pool=<image> and the name wvp-<agent>-<image>-<n>; they are not vNFs (no record, no capacity)."""

from __future__ import annotations

import itertools
import logging
import shutil
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from .catalog import Catalog
from .config import AgentConfig
from .manager import DPDK_CAPS, KERNEL_CAPS, KERNEL_SYSCTLS
from .runtime import LABEL_AGENT, LABEL_IMAGE, LABEL_POOL, ContainerConfig, ContainerRuntime

log = logging.getLogger(__name__)
POOL_PREFIX = "wvp-"
IDLE_CPU = 0.05
IDLE_MEMORY_MIB = 64


@dataclass
class Claimed:
    container_id: str
    pid: int
    config_dir: str


class WarmPool:
    def __init__(self, config: AgentConfig, catalog: Catalog, runtime: ContainerRuntime) -> None:
        self.config = config
        self.catalog = catalog
        self.runtime = runtime
        self.ready: dict[str, list[Claimed]] = {name: [] for name in config.warm_pool}
        self.lock = threading.Lock()
        self.making: set[str] = set()  # names being created right now (not yet in ready)
        self.counter = itertools.count(int(time.time() * 1000) % 1_000_000)

    def claim(self, image: str) -> Claimed | None:
        with self.lock:
            slots = self.ready.get(image)
            return slots.pop() if slots else None

    def owned_names(self) -> set[str]:
        """Container names (and config dir names) the pool holds or is making: not orphans."""
        with self.lock:
            return {Path(c.config_dir).name for cs in self.ready.values() for c in cs} | set(self.making)

    def fill(self) -> int:
        """Create and start containers until every image has its target count; returns how many were added."""
        added = 0
        for name, target in self.config.warm_pool.items():
            image = self.catalog.get(name)
            while True:
                with self.lock:
                    if len(self.ready.setdefault(name, [])) >= target:
                        break
                made = self._make(image)  # slow (docker create + start): outside the lock, claims go on
                with self.lock:
                    self.ready[name].append(made)
                    self.making.discard(Path(made.config_dir).name)
                added += 1
        return added

    def _make(self, image: object) -> Claimed:
        name = f"{POOL_PREFIX}{self.config.agent_id.replace(':', '_')}-{image.name}-{next(self.counter)}"
        cdir = self.config.pool_dir / name
        with self.lock:
            self.making.add(name)
        cdir.mkdir(parents=True, exist_ok=False)
        kernel = image.vnf_class == "kernel"
        try:
            ref = self.runtime.ensure_image(image)
            cid = self.runtime.create(ContainerConfig(
                name=name, image_ref=ref, cpu=IDLE_CPU, memory_mib=max(IDLE_MEMORY_MIB, image.memory_mib),
                labels={LABEL_AGENT: self.config.agent_id, LABEL_POOL: image.name, LABEL_IMAGE: image.name},
                config_dir=str(cdir), cap_add=KERNEL_CAPS if kernel else DPDK_CAPS,
                sysctls=KERNEL_SYSCTLS if kernel else {},
                binds={self.config.hugepages_dir: "/dev/hugepages"} if not kernel and self.config.hugepages_dir
                else {}))
            try:
                pid = self.runtime.start(cid)
            except BaseException:
                self.runtime.remove(cid)
                raise
        except BaseException:
            shutil.rmtree(cdir, ignore_errors=True)
            with self.lock:
                self.making.discard(name)
            raise
        return Claimed(container_id=cid, pid=pid, config_dir=str(cdir))

    def drain(self) -> None:
        """Remove every unclaimed pool container and its directory."""
        with self.lock:
            slots = [c for cs in self.ready.values() for c in cs]
            for cs in self.ready.values():
                cs.clear()
        for c in slots:
            self.runtime.remove(c.container_id)
            shutil.rmtree(c.config_dir, ignore_errors=True)


def is_pool_dir(path: Path) -> bool:
    return path.name.startswith(POOL_PREFIX)
