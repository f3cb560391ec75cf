"""The mec-agent's GET /metrics (Prometheus text format 0.0.4, wislice_agent_proto.prometheus; README: the table
of metrics). It exports the StatsCollector's last collection of the whole node (``stats.latest``: what the stats
event sends, with each vNF's tenant, image and live state and the node's allocation), no collection of its own.
While no controller session asks for stats events (none configured, or away), a refresher thread makes that
collection every stats_interval_s, so the values stay current; ``wislice_mec_stats_age_seconds`` says how old
they are. The server's threads only read ``stats.latest``: a scrape never waits for Docker or the manager's lock.

Port directions are the vNF's (rx = what the vNF received), as in VnfStats.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from wislice_agent_proto.prometheus import Family, MetricsServer, render

from .config import AgentConfig
from .stats import Collected, StatsCollector
from .store import STATES

log = logging.getLogger(__name__)
VNF_LABELS = ("agent_id", "vnf_id", "tenant_id", "image")


class MecMetrics:
    def __init__(self, config: AgentConfig, stats: StatsCollector, connected: Callable[[], bool],
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.config = config
        self.stats = stats
        self.connected = connected
        self.clock = clock
        self.server: MetricsServer | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # ---- serving ----------------------------------------------------------------------------------------------
    def bind(self) -> None:
        """Binds metrics_listen now (a taken port or a bad token file fails the start before the node is touched:
        OSError, ValueError); start() serves."""
        address = self.config.metrics_address
        if address is not None:
            self.server = MetricsServer(address, self.render, self.config.metrics_token())

    def start(self) -> None:
        if self.server is None:
            return
        self._thread = threading.Thread(target=self._refresh_forever, name="metrics-refresh", daemon=True)
        self._thread.start()
        self.server.start()

    def close(self) -> None:
        self._stop.set()
        if self.server is not None:
            self.server.close()
        if self._thread is not None:
            self._thread.join(10)

    def _refresh_forever(self) -> None:
        every = self.config.stats_interval_s
        while True:
            self.refresh_once()
            if self._stop.wait(max(0.25, every / 4)):
                return

    def refresh_once(self) -> bool:
        """Collects when the last collection is older than stats_interval_s; True when it did."""
        latest = self.stats.latest
        if latest is not None and self.clock() - latest.t < self.config.stats_interval_s:
            return False
        try:
            self.stats.collect()
        except Exception as exc:  # best effort, as the stats event is
            log.warning("stats for /metrics: %s", exc)
        return True

    # ---- rendering --------------------------------------------------------------------------------------------
    def render(self) -> str:
        return render(self.families())

    def families(self) -> list[Family]:
        me, c = self.config.agent_id, self.config
        node = ["agent_id"]
        age = Family("wislice_mec_stats_age_seconds", "Seconds since the values of this scrape were collected",
                     labels=node)
        out = [
            Family("wislice_mec_connected", "1 while the agent has a welcomed session with the nfv-controller",
                   labels=node).add([me], self.connected()),
            age,
            Family("wislice_mec_node_capacity_cpu", "CPU cores the node offers vNFs (capacity_cpu)",
                   labels=node).add([me], c.capacity_cpu),
            Family("wislice_mec_node_capacity_memory_mib", "Memory the node offers vNFs (capacity_memory_mib)",
                   labels=node).add([me], c.capacity_memory_mib),
        ]
        latest = self.stats.latest
        if latest is None:
            return out
        age.add([me], round(max(0.0, self.clock() - latest.t), 3))
        cpu, memory = latest.allocated
        out += [
            Family("wislice_mec_node_allocated_cpu", "CPU cores the vNFs' specs take (getStatus used.cpu)",
                   labels=node).add([me], cpu),
            Family("wislice_mec_node_allocated_memory_mib", "Memory the vNFs' specs take (getStatus used.memory_mib)",
                   labels=node).add([me], memory),
            Family("wislice_mec_node_cpu_pct", "Node CPU busy, percent of all cores, since the collection before",
                   labels=node).add([me], latest.node["cpu_pct"]),
            Family("wislice_mec_node_memory_used_mib", "Node memory in use (MemTotal - MemAvailable)",
                   labels=node).add([me], latest.node["memory_used_mib"]),
        ]
        return out + vnf_families(me, latest)


def vnf_families(me: str, latest: Collected) -> list[Family]:
    cpu = Family("wislice_mec_vnf_cpu_pct", "vNF CPU, percent of one core, since the collection before",
                 labels=VNF_LABELS)
    memory = Family("wislice_mec_vnf_memory_mib", "vNF memory (its cgroup)", labels=VNF_LABELS)
    state = Family("wislice_mec_vnf_state", "1 for the vNF's state (as its container shows it), 0 for the others",
                   labels=[*VNF_LABELS, "state"])
    port = [*VNF_LABELS, "port", "direction"]
    port_bytes = Family("wislice_mec_vnf_port_bytes_total", "Bytes of the vNF's port (rx = received by the vNF)",
                        "counter", port)
    port_packets = Family("wislice_mec_vnf_port_packets_total", "Packets of the vNF's port (rx = received by the "
                          "vNF)", "counter", port)
    throttled = Family("wislice_mec_vnf_throttled", "1 while the chain head drops for backpressure (scheduler)",
                       labels=VNF_LABELS)
    drops = Family("wislice_mec_vnf_backpressure_drops_total", "Packets the chain head dropped for backpressure "
                   "(scheduler)", "counter", VNF_LABELS)
    queue = Family("wislice_mec_vnf_queue_bytes", "Bytes waiting in a downstream vNF's receive queues (scheduler)",
                   labels=VNF_LABELS)
    for v in latest.vnfs:
        about = latest.about.get(v["vnf_id"])
        if about is None:
            continue
        ids = [me, v["vnf_id"], about.tenant_id, about.image]
        cpu.add(ids, v["cpu_pct"])
        memory.add(ids, v["memory_mib"])
        for s in STATES:
            state.add([*ids, s], about.state == s)
        for p in v["ports"]:
            for d in ("rx", "tx"):
                port_bytes.add([*ids, p["name"], d], p[f"{d}_bytes"])
                port_packets.add([*ids, p["name"], d], p[f"{d}_packets"])
        if "throttled" in v:
            throttled.add(ids, v["throttled"])
            drops.add(ids, v.get("backpressure_drops", 0))
        if "queue_bytes" in v:
            queue.add(ids, v["queue_bytes"])
    return [cpu, memory, state, port_bytes, port_packets, throttled, drops, queue]
