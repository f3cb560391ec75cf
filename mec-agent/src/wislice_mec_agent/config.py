"""Agent configuration (TOML), validated on load. Example: mec-agent/examples/mec-agent.toml."""

from __future__ import annotations

import os
import ssl
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wislice_agent_proto.client import parse_controllers, tls_context
from wislice_agent_proto.prometheus import parse_listen, read_token_file
from wislice_agent_proto.validate import IDENT

from .ids import check_prefix
from .placement import parse_cpus


@dataclass
class AgentConfig:
    agent_id: str
    state_dir: str
    docker_url: str = "unix:///var/run/docker.sock"
    capacity_cpu: float = float(os.cpu_count() or 1)
    capacity_memory_mib: int = 1024
    veth_prefix: str = "wm"  # host-side veth and switch port names: <prefix><vnf_id as 8 hex>; unique per node
    node_netns: str = ""  # network namespace holding the host side of veths (and the switch); empty = the agent's
    switch_mgmt: str = ""  # path of the pof-switch management socket; empty = node without a switch
    switch_veth_args: str = "{ifname}"
    switch_vhost_args: str = "net_vhost_{name},iface={socket}"
    hugepages_dir: str = "/dev/hugepages"  # hugetlbfs mount bind-mounted into DPDK vNFs
    # DPDK vNF placement (placement.py), CPU lists in the kernel's format ("0-3,6"): the CPUs vNFs may use (empty =
    # the agent's own affinity) and the pof-switch's lcores (its EAL -l; empty = a switch not pinned to a core).
    node_cpus: str = ""
    switch_cpus: str = ""
    # getVnfs / createVnf VnfStates carry "cpus" and "cpu_mode" (spec/agent), which the nfv-controller shows. Turn
    # it off only for an nfv-controller from before them: its VnfState check refuses fields it does not know.
    report_placement: bool = True
    # host:port of the nfv-controller, or of each node of a controller cluster ("h1:p1,h2:p2": dialled in turn);
    # empty = run without one
    controller: str = ""
    tls_ca: str = ""  # CA file: when set the controller connection is TLS and its certificate is checked
    tls_cert: str = ""  # client certificate (PEM) for a controller that requires one (tlsClientCaFile); CN = agent_id
    tls_key: str = ""  # its private key (PEM)
    secret_file: str = ""  # shared secret for hmac-sha256 auth
    stats_interval_s: float = 10.0
    warm_pool: dict[str, int] = field(default_factory=dict)  # catalog image -> warm containers kept ready
    reconcile_interval_s: float = 15.0  # periodic convergence while running; 0 = only at start
    scheduler_interval_s: float = 0.1  # the NFVnice-style CPU-share scheduler's period; 0 = off
    # Chain backpressure (scheduler.py), bytes waiting in a downstream vNF's receive queues: its chain head drops
    # from above the high watermark until every downstream queue is back under the low one. The high default is
    # under a default socket's limit (net.core.rmem_default, 208 KiB): a vNF that never enlarges its receive
    # buffer still passes it before the kernel drops for it.
    backpressure_high_bytes: int = 128 * 1024
    backpressure_low_bytes: int = 32 * 1024
    # DPDK chains: each dpdk-vnf gets the chain file (chainfile.py) and the head drops at entry while a downstream
    # ring is over its watermark, within a burst, instead of the scheduler's throttle; false = the throttle
    dataplane_backpressure: bool = True
    metrics_listen: str = ""  # host:port ([v6]:port) of GET /metrics (Prometheus text format); empty = off
    metrics_token_file: str = ""  # a bearer token scrapes must present; empty = none

    def __post_init__(self) -> None:
        if not IDENT.match(self.agent_id):
            raise ValueError(f"agent_id {self.agent_id!r} must match [A-Za-z0-9_.:-]{{1,64}}")
        check_prefix(self.veth_prefix)
        if not isinstance(self.controller, str):
            raise ValueError("controller must be a string: host:port[,host:port...]")
        if self.controller:
            parse_controllers(self.controller)  # ValueError naming the bad item
        if bool(self.tls_cert) != bool(self.tls_key):
            raise ValueError("tls_cert and tls_key go together")
        if self.tls_cert and not self.tls_ca:
            raise ValueError("tls_cert needs tls_ca (a client certificate is only sent over TLS)")
        if not self.capacity_cpu > 0 or self.capacity_memory_mib <= 0:
            raise ValueError("capacity_cpu and capacity_memory_mib must be positive")
        if not (isinstance(self.backpressure_high_bytes, int) and isinstance(self.backpressure_low_bytes, int)
                and 0 <= self.backpressure_low_bytes < self.backpressure_high_bytes):
            raise ValueError("backpressure watermarks need integers 0 <= backpressure_low_bytes"
                             " < backpressure_high_bytes")
        if not isinstance(self.metrics_listen, str) or not isinstance(self.metrics_token_file, str):
            raise ValueError("metrics_listen and metrics_token_file are strings")
        parse_listen(self.metrics_listen)
        for name in ("node_cpus", "switch_cpus"):
            value = getattr(self, name)
            if not isinstance(value, str):
                raise ValueError(f"{name} must be a CPU list string like \"0-3,6\"")
            parse_cpus(value)  # ValueError naming the bad part
        if not isinstance(self.scheduler_interval_s, int | float) or self.scheduler_interval_s < 0:
            raise ValueError("scheduler_interval_s must be a number >= 0")
        for image, n in self.warm_pool.items():
            if not isinstance(n, int) or not 0 <= n <= 64:
                raise ValueError(f"warm_pool.{image} must be an integer 0-64")

    @property
    def db_path(self) -> Path:
        return Path(self.state_dir) / "vnfs.sqlite"

    @property
    def vnf_dir(self) -> Path:
        return Path(self.state_dir) / "vnfs"

    @property
    def pool_dir(self) -> Path:
        return Path(self.state_dir) / "pool"

    def tls_context(self) -> ssl.SSLContext | None:
        """TLS to the controller when tls_ca is set, presenting tls_cert when that is set too."""
        return tls_context(self.tls_ca, self.tls_cert, self.tls_key) if self.tls_ca else None

    def secret(self) -> bytes | None:
        return Path(self.secret_file).read_bytes().strip() if self.secret_file else None

    @property
    def metrics_address(self) -> tuple[str, int] | None:
        return parse_listen(self.metrics_listen)

    def metrics_token(self) -> str | None:
        return read_token_file(self.metrics_token_file) if self.metrics_token_file else None


def load_config(path: str | Path) -> AgentConfig:
    raw: dict[str, Any] = tomllib.loads(Path(path).read_text())
    known = set(AgentConfig.__dataclass_fields__)
    unknown = set(raw) - known
    if unknown:
        raise ValueError(f"{path}: unknown settings {', '.join(sorted(unknown))}")
    return AgentConfig(**raw)
