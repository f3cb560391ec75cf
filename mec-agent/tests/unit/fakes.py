"""In-memory fakes of the agent's boundaries (Docker, netlink, pof-switch) for the fast unit tier. Each can be told
to fail at a named method, to check that a failure anywhere leaves nothing behind."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

import pytest

from wislice_mec_agent import manager as manager_mod
from wislice_mec_agent.runtime import ContainerConfig, ContainerInfo
from wislice_mec_agent.switch import SwitchPort
from wislice_mec_agent.wiring import LinkStats


class Boom(RuntimeError):
    pass


@dataclass
class Failing:
    fail_on: set[str] = field(default_factory=set)

    def maybe_fail(self, what: str) -> None:
        if what in self.fail_on:
            raise Boom(f"injected failure in {what}")


class FakeRuntime(Failing):
    def __init__(self) -> None:
        super().__init__()
        self.containers: dict[str, ContainerInfo] = {}
        self.configs: dict[str, ContainerConfig] = {}
        self.limits: dict[str, tuple[float, int]] = {}
        self.ids = itertools.count(1)

    def ensure_image(self, image: Any) -> str:
        self.maybe_fail("ensure_image")
        return f"wislice-vnf/{image.name}:test"

    def create(self, cfg: ContainerConfig) -> str:
        self.maybe_fail("create")
        if any(c.name == cfg.name for c in self.containers.values()):
            raise Boom(f"name {cfg.name} in use")
        cid = f"{next(self.ids):064x}"
        self.containers[cid] = ContainerInfo(id=cid, name=cfg.name, status="created", labels=dict(cfg.labels),
                                             cpus=cfg.cpus)
        self.configs[cid] = cfg
        return cid

    def start(self, container_id: str) -> int:
        self.maybe_fail("start")
        c = self.containers[container_id]
        c.status, c.pid = "running", 1000 + int(container_id, 16)
        return c.pid

    def _find(self, name_or_id: str) -> ContainerInfo | None:
        return self.containers.get(name_or_id) or next(
            (c for c in self.containers.values() if c.name == name_or_id), None)

    def inspect(self, name_or_id: str) -> ContainerInfo | None:
        return self._find(name_or_id)

    def remove(self, name_or_id: str) -> bool:
        self.maybe_fail("remove")
        c = self._find(name_or_id)
        if c is None:
            return False
        del self.containers[c.id]
        return True

    def rename(self, container_id: str, name: str) -> None:
        self.containers[container_id].name = name

    def update_limits(self, container_id: str, cpu: float, memory_mib: int, cpus: str = "") -> None:
        self.limits[container_id] = (cpu, memory_mib)
        if cpus:
            self.containers[container_id].cpus = cpus

    def list(self, agent_id: str) -> list[ContainerInfo]:
        return [c for c in self.containers.values() if c.labels.get("wislice.agent") == agent_id]

    def stop_all(self) -> None:
        """What a dockerd restart does to containers without a restart policy."""
        for c in self.containers.values():
            c.status, c.pid = "exited", 0


class FakeWiring(Failing):
    def __init__(self, runtime: FakeRuntime) -> None:
        super().__init__()
        self.runtime = runtime
        self.links: dict[str, tuple[int, str]] = {}  # host ifname -> (container pid, address)

    def create_veth(self, host_ifname: str, pid: int, address: str, mac: str, container_ifname: str = "in") -> None:
        self.maybe_fail("create_veth")
        if host_ifname in self.links:
            raise Boom(f"{host_ifname} exists")
        self.links[host_ifname] = (pid, address)

    def delete_link(self, ifname: str) -> bool:
        return self.links.pop(ifname, None) is not None

    def exists(self, ifname: str) -> bool:
        # A veth dies with its peer's namespace: gone when the container's pid is gone.
        entry = self.links.get(ifname)
        alive = entry is not None and any(c.pid == entry[0] for c in self.runtime.containers.values())
        if entry is not None and not alive:
            del self.links[ifname]
        return alive

    def container_has_link(self, pid: int) -> bool:
        return any(p == pid for p, _ in self.links.values())

    def list_links(self, prefix: str) -> list[str]:
        return sorted(n for n in self.links if n.startswith(prefix))

    def stats(self, ifname: str) -> LinkStats | None:
        return LinkStats(1, 100, 2, 200) if ifname in self.links else None


class FakeSwitch(Failing):
    present = True

    def __init__(self) -> None:
        super().__init__()
        self.table: dict[str, tuple[int, str]] = {}
        self.next_id = itertools.count(1)
        self.latency_ports: set[str] = set()  # ports in the switch's latency mode

    def add_veth(self, name: str, ifname: str, port_id: int | None = None) -> int | None:
        self.maybe_fail("add_veth")
        return self._add(name, ifname, port_id)

    def add_vhost(self, name: str, socket_path: str, port_id: int | None = None) -> int | None:
        self.maybe_fail("add_vhost")
        return self._add(name, socket_path, port_id)

    def _add(self, name: str, args: str, port_id: int | None) -> int:
        if name in self.table:
            raise Boom(f"port {name} exists")
        pid = port_id or next(self.next_id)
        self.table[name] = (pid, args)
        return pid

    def remove(self, name: str) -> bool:
        self.latency_ports.discard(name)
        return self.table.pop(name, None) is not None

    def latency(self, name: str, on: bool) -> None:
        if name not in self.table:
            raise Boom(f"no port {name}")
        (self.latency_ports.add if on else self.latency_ports.discard)(name)

    def ports(self) -> dict[str, SwitchPort]:
        return {n: SwitchPort(name=n, port_id=p, rx_packets=5, tx_packets=7, rx_bytes=500, tx_bytes=700)
                for n, (p, _) in self.table.items()}


def create_killed_after_container(node: Any, monkeypatch: pytest.MonkeyPatch, spec: dict[str, Any]) -> None:
    """A kill -9 of the agent in the middle of createVnf, once the container started: the record says 'creating',
    and a killed process undoes nothing. The monkeypatches are undone after."""
    class Killed(BaseException):
        pass

    def die(step: str) -> None:
        if step == "container":
            raise Killed

    monkeypatch.setattr(manager_mod.VnfManager, "_pause", staticmethod(die))
    monkeypatch.setattr(manager_mod.Undo, "run", lambda self: [])
    with pytest.raises(Killed):
        node.manager.create(spec)
    monkeypatch.undo()
