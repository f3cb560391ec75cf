"""Warm pool: per catalog image, containers already created and started, idle behind the ready gate of
vnfs/common/entry.sh (they wait for /run/vnf/ready). Claiming one skips image lookup, create and start: the
agent renames it, sets its CPU/memory limits, writes its params and wires it. Pool containers carry the label
wislice.pool=<image> and the name wvp-<agent>-<image>-<n> (dir <pool_dir>/wvp-<n>); they are not vNFs (no record, no
capacity)."""

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
from .runtime import LABEL_AGENT, LABEL_IMAGE, LABEL_POOL, ContainerRuntime
from .vnf_classes import vnf_class

log = logging.getLogger(__name__)
POOL_PREFIX = "wvp-"
IDLE_CPU = 0.05
IDLE_MEMORY_MIB = 64


@dataclass
class Claimed:
    container_id: str
    pid: int
    config_dir: str
    name: str = ""  # the pool container's name (wvp-<agent>-<image>-<n>) until a claim renames it


class WarmPool:
    """Thread-safe: the daemon's refill thread fills while requests claim and reconcile prunes. Pool dirs are
    <pool_dir>/wvp-<n>, short on purpose: a DPDK vNF's vhost-user socket lives there and a unix socket path has
    at most 107 bytes (the container name carries the agent id, which may be 64 characters)."""

    def __init__(self, config: AgentConfig, catalog: Catalog, runtime: ContainerRuntime) -> None:
        self.config = config
        self.catalog = catalog
        self.runtime = runtime
        self.ready: dict[str, list[Claimed]] = {name: [] for name in config.warm_pool}
        self.lock = threading.Lock()
        self.idle = threading.Condition(self.lock)  # notified whenever a make ends
        self.making: dict[str, str] = {}  # being created right now (not yet in ready): container name -> its dir
        self.closed = False  # drained: the agent is stopping, fill() makes nothing more
        self.counter = itertools.count(int(time.time() * 1000) % 1_000_000)

    def claim(self, image: str) -> Claimed | None:
        """An idle container of ``image`` that still runs, or None. One that died (a dockerd restart stops them,
        its pid and namespace are gone) is removed and the next one tried."""
        while True:
            with self.lock:
                slots = self.ready.get(image)
                if not slots:
                    return None
                c = slots.pop()
            info = self.runtime.inspect(c.container_id)
            if info is not None and info.status == "running" and info.pid == c.pid:
                return c
            log.warning("warm pool: %s is %s, removing it", c.name or c.container_id[:12],
                        info.status if info is not None else "gone")
            self._discard(c)

    def owned_names(self) -> set[str]:
        """Names of the containers the pool holds or is making: not orphans."""
        with self.lock:
            return {c.name for cs in self.ready.values() for c in cs} | set(self.making)

    def owned_dirs(self) -> set[str]:
        """Their config dirs (as str paths)."""
        with self.lock:
            return {str(Path(c.config_dir)) for cs in self.ready.values() for c in cs} | set(self.making.values())

    def prune(self) -> list[str]:
        """Remove idle containers that no longer run (after a dockerd restart), so that fill() replaces them;
        returns their names."""
        with self.lock:
            slots = [c for cs in self.ready.values() for c in cs]
        dead = []
        for c in slots:
            info = self.runtime.inspect(c.container_id)
            if info is None or info.status != "running" or info.pid != c.pid:
                dead.append(c)
        with self.lock:
            for cs in self.ready.values():
                cs[:] = [c for c in cs if all(c is not d for d in dead)]
        for c in dead:
            self._discard(c)
        return [c.name for c in dead]

    def fill(self) -> int:
        """Create and start containers until every image has its target count; returns how many were added."""
        added = 0
        for image_name, target in self.config.warm_pool.items():
            image = self.catalog.get(image_name)
            while True:
                with self.lock:
                    if self.closed or len(self.ready.setdefault(image_name, [])) >= target:
                        break
                    name, cdir = self._reserve(image_name)  # in making from now on: reconcile leaves it alone
                try:
                    made = self._make(image, name, cdir)  # slow (docker create + start): outside the lock
                except BaseException:
                    self._done(name)
                    raise
                with self.lock:
                    keep = not self.closed
                    if keep:
                        self.ready[image_name].append(made)
                if not keep:  # drained meanwhile: the agent is stopping, nothing may outlive it
                    self._discard(made)
                self._done(name)
                if not keep:
                    break
                added += 1
        return added

    def _reserve(self, image_name: str) -> tuple[str, Path]:
        """A fresh container name and dir, recorded in making (call with the lock held)."""
        while True:
            n = next(self.counter)
            cdir = self.config.pool_dir / f"{POOL_PREFIX}{n}"
            name = f"{POOL_PREFIX}{self.config.agent_id.replace(':', '_')}-{image_name}-{n}"
            if name not in self.making and str(cdir) not in self.making.values() and not cdir.exists():
                self.making[name] = str(cdir)
                return name, cdir

    def _done(self, name: str) -> None:
        with self.lock:
            self.making.pop(name, None)
            self.idle.notify_all()

    def _make(self, image: object, name: str, cdir: Path) -> Claimed:
        cdir.mkdir(parents=True, exist_ok=False)
        cls = vnf_class(image.vnf_class)
        try:
            labels = {LABEL_AGENT: self.config.agent_id, LABEL_POOL: image.name, LABEL_IMAGE: image.name}
            cid = self.runtime.create(cls.container(self.config, self.runtime.ensure_image(image), name, labels,
                                                    IDLE_CPU, max(IDLE_MEMORY_MIB, image.memory_mib), cdir))
            try:
                pid = self.runtime.start(cid)
            except BaseException:
                self.runtime.remove(cid)
                raise
        except BaseException:
            shutil.rmtree(cdir, ignore_errors=True)
            raise
        return Claimed(container_id=cid, pid=pid, config_dir=str(cdir), name=name)

    def _discard(self, c: Claimed) -> None:
        try:
            self.runtime.remove(c.container_id)
        except Exception as exc:  # the dir goes anyway; reconcile removes a container left behind
            log.warning("warm pool: removing %s: %s", c.name or c.container_id[:12], exc)
        shutil.rmtree(c.config_dir, ignore_errors=True)

    def drain(self, timeout: float = 60.0) -> None:
        """Remove every unclaimed pool container and its directory, waiting for those being made; the pool is
        closed afterwards (fill() makes nothing more): called when the agent stops."""
        with self.lock:
            self.closed = True
            self.idle.wait_for(lambda: not self.making, timeout)
            slots = [c for cs in self.ready.values() for c in cs]
            for cs in self.ready.values():
                cs.clear()
        for c in slots:
            self._discard(c)


def is_pool_dir(path: Path) -> bool:
    return path.name.startswith(POOL_PREFIX)
