"""Docker Engine through the docker SDK: the only module that talks to dockerd.

``ContainerRuntime`` is the boundary (a fake implements it in unit tests); ``DockerRuntime`` is the real one.
Containers get network_mode "none" (no docker bridge: the agent wires them), the vNF's CPU quota, cpuset (a
placed DPDK vNF's core) and memory limits, the agent's labels, and the vNF's config dir bind-mounted at /run/vnf.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

LABEL_AGENT = "wislice.agent"
LABEL_VNF_ID = "wislice.vnf_id"
LABEL_IMAGE = "wislice.image"
LABEL_POOL = "wislice.pool"
CPU_PERIOD_US = 100_000


def cpu_quota_us(cpu: float) -> int:
    """CFS quota for ``cpu`` cores (a quota/period pair rather than nano_cpus, so a warm container's limit can be
    updated when it is claimed); the kernel refuses quotas under 1 ms."""
    return max(1000, int(cpu * CPU_PERIOD_US))


@dataclass
class ContainerInfo:
    id: str
    name: str
    status: str  # created | running | exited | paused | restarting | removing | dead
    labels: dict[str, str] = field(default_factory=dict)
    pid: int = 0
    cpus: str = ""  # its cpuset (HostConfig.CpusetCpus), "" = any CPU; known from inspect, not from list


@dataclass
class ContainerConfig:
    name: str
    image_ref: str
    labels: dict[str, str]
    cpu: float
    memory_mib: int
    config_dir: str
    cap_add: list[str] = field(default_factory=list)
    sysctls: dict[str, str] = field(default_factory=dict)
    binds: dict[str, str] = field(default_factory=dict)  # host path -> container path (e.g. hugetlbfs)
    cpus: str = ""  # cpuset (kernel CPU list), "" = any CPU


class ContainerRuntime(Protocol):
    def ensure_image(self, image: Any) -> str: ...
    def create(self, cfg: ContainerConfig) -> str: ...
    def start(self, container_id: str) -> int: ...
    def inspect(self, name_or_id: str) -> ContainerInfo | None: ...
    def remove(self, name_or_id: str) -> bool: ...
    def rename(self, container_id: str, name: str) -> None: ...
    def update_limits(self, container_id: str, cpu: float, memory_mib: int, cpus: str = "") -> None: ...
    def list(self, agent_id: str) -> list[ContainerInfo]: ...


class DockerRuntime:
    def __init__(self, base_url: str, timeout: float = 30.0) -> None:
        import docker

        self.client = docker.DockerClient(base_url=base_url, timeout=timeout)
        self._image_refs: dict[str, str] = {}

    def close(self) -> None:
        self.client.close()

    def ensure_image(self, image: Any) -> str:
        from .images import ensure_image

        ref = self._image_refs.get(image.name)
        if ref is None:
            ref = ensure_image(self.client, image)
            self._image_refs[image.name] = ref
        return ref

    def forget_images(self) -> None:
        """After a dockerd restart with another data root the cached refs may be stale."""
        self._image_refs.clear()

    def create(self, cfg: ContainerConfig) -> str:
        """The container's id. The SDK's low-level call: its containers.create() inspects the new container
        afterwards to return a Container object, one more round trip to dockerd that only the id is wanted from."""
        mem = f"{cfg.memory_mib}m"
        volumes = {cfg.config_dir: {"bind": "/run/vnf", "mode": "rw"}}
        volumes.update({host: {"bind": inside, "mode": "rw"} for host, inside in cfg.binds.items()})
        api = self.client.api
        host_config = api.create_host_config(
            binds=volumes, network_mode="none", cpu_period=CPU_PERIOD_US, cpu_quota=cpu_quota_us(cfg.cpu),
            mem_limit=mem, memswap_limit=mem, pids_limit=256, cap_drop=["ALL"], cap_add=cfg.cap_add,
            sysctls=cfg.sysctls or None, cpuset_cpus=cfg.cpus or None)
        resp = api.create_container(cfg.image_ref, name=cfg.name, labels=cfg.labels, detach=True,
                                    volumes=[v["bind"] for v in volumes.values()], host_config=host_config)
        return str(resp["Id"])

    def start(self, container_id: str) -> int:
        """Start and return the container's init pid (its network namespace is /proc/<pid>/ns/net)."""
        self.client.api.start(container_id)
        pid = self.client.api.inspect_container(container_id)["State"]["Pid"]
        if not pid:
            raise RuntimeError(f"container {container_id[:12]} has no pid after start")
        return int(pid)

    def inspect(self, name_or_id: str) -> ContainerInfo | None:
        import docker.errors

        try:
            data = self.client.api.inspect_container(name_or_id)
        except docker.errors.NotFound:
            return None
        return _info(data)

    def remove(self, name_or_id: str) -> bool:
        import docker.errors

        try:
            self.client.api.remove_container(name_or_id, force=True, v=True)
        except docker.errors.NotFound:
            return False
        return True

    def rename(self, container_id: str, name: str) -> None:
        self.client.api.rename(container_id, name)

    def update_limits(self, container_id: str, cpu: float, memory_mib: int, cpus: str = "") -> None:
        """New limits for a running container (a claimed warm one); ``cpus`` = a cpuset to confine it to."""
        mem = memory_mib * 1024 * 1024
        self.client.api.update_container(container_id, cpu_period=CPU_PERIOD_US, cpu_quota=cpu_quota_us(cpu),
                                         mem_limit=mem, memswap_limit=mem, cpuset_cpus=cpus or None)

    def list(self, agent_id: str) -> list[ContainerInfo]:
        out = []
        for c in self.client.api.containers(all=True, filters={"label": f"{LABEL_AGENT}={agent_id}"}):
            out.append(ContainerInfo(id=c["Id"], name=c["Names"][0].lstrip("/"), status=c["State"],
                                     labels=c.get("Labels") or {}))
        return out


def _info(data: dict[str, Any]) -> ContainerInfo:
    return ContainerInfo(id=data["Id"], name=data["Name"].lstrip("/"), status=data["State"]["Status"],
                         labels=data["Config"].get("Labels") or {}, pid=int(data["State"].get("Pid") or 0),
                         cpus=(data.get("HostConfig") or {}).get("CpusetCpus") or "")
