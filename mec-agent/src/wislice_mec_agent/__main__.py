"""``python -m wislice_mec_agent --config mec-agent.toml [run|reconcile|create-vnf JSON|delete-vnf ID|list|status]``

run (default): reconcile the node, fill the warm pool, start the scheduler if enabled, then serve the
nfv-controller (or just keep the node converged when no controller is configured) and, with metrics_listen,
GET /metrics. The other commands do one thing locally and print JSON (used by tests and operators)."""

from __future__ import annotations

import argparse
import json
import logging
import signal
import sys
import threading
from typing import TYPE_CHECKING, Any

from wislice_agent_proto.client import AgentClient, parse_controllers
from wislice_agent_proto.errors import AgentError

from . import cgroups
from .catalog import Catalog
from .cgroups import CPU_USAGE, MEMORY, SCHEDULER_NEEDS, CgroupFs
from .config import AgentConfig, load_config
from .handlers import controller_client, method_table
from .manager import VnfManager
from .metrics import MecMetrics
from .pool import WarmPool
from .reconcile import reconcile
from .runtime import DockerRuntime
from .stats import StatsCollector
from .store import Store
from .switch import MgmtSwitch, NoSwitch
from .wiring import PyrouteWiring

if TYPE_CHECKING:
    from .scheduler import SchedulerLoop

log = logging.getLogger("wislice_mec_agent")


def build(config: AgentConfig) -> VnfManager:
    catalog = Catalog.load()
    runtime = DockerRuntime(config.docker_url)
    try:
        if not runtime.client.info().get("LiveRestoreEnabled"):
            # Without it a restart (or crash) of the engine stops every vNF: the slices lose their traffic until
            # reconcile rebuilds them (docs: mec-agent README, "The node's Docker Engine").
            log.warning("the Docker Engine runs without live-restore: its restart stops every vNF")
    except Exception as exc:  # the engine's answer is advice here; reconcile reports an engine that is down
        log.warning("could not ask the Docker Engine about live-restore: %s", exc)
    switch: Any = (MgmtSwitch(config.switch_mgmt, config.switch_veth_args, config.switch_vhost_args)
                   if config.switch_mgmt else NoSwitch())
    pool = WarmPool(config, catalog, runtime) if config.warm_pool else None
    return VnfManager(config, catalog, Store(config.db_path), runtime, PyrouteWiring(config.node_netns), switch,
                      pool=pool)


def refill_forever(pool: WarmPool, stop: threading.Event, every_s: float = 1.0) -> None:
    """Claims empty the pool; put containers back in the background so the next createVnf is warm too."""
    while not stop.wait(every_s):
        try:
            pool.fill()
        except Exception as exc:
            log.warning("warm pool refill: %s", exc)


def reconcile_forever(manager: VnfManager, stop: threading.Event, every_s: float) -> None:
    """Converge again now and then: a dockerd restart or a switch restart while the agent runs is repaired
    without waiting for the agent's own restart."""
    while not stop.wait(every_s):
        try:
            report = reconcile(manager)
            if any(report[k] for k in ("rebuilt", "rolled_back", "failed", "removed_containers", "removed_links")):
                print(json.dumps({"reconcile": report}), flush=True)
        except Exception as exc:
            log.warning("reconcile: %s", exc)


def start_scheduler(config: AgentConfig, manager: VnfManager, cgroup_fs: CgroupFs) -> SchedulerLoop | None:
    """The SchedulerLoop, started; None when it cannot work here. The scheduler is optional (on by default): without
    cgroups that give CPU weights and usage it is refused with the reason logged, and the node still runs its
    vNFs, each within the CPU quota Docker gave it, sharing CPU as the kernel's default does."""
    missing = cgroup_fs.lacks(*SCHEDULER_NEEDS)
    if missing:
        log.error("scheduler not started: the node's cgroups give no %s (%s); vNFs run unscheduled",
                  " and no ".join(missing), cgroup_fs.describe())
        return None
    from .scheduler import SchedulerLoop

    args = config.switch_veth_args.replace(" ", "")
    if config.switch_mgmt and "af_packet" in args and "qdisc_bypass=0" not in args:
        log.warning("switch_veth_args uses DPDK net_af_packet without qdisc_bypass=0: its PACKET_QDISC_BYPASS "
                    "skips the tc egress hook, so backpressure drops at chain heads miss switch traffic")
    scheduler = SchedulerLoop(manager, config.scheduler_interval_s, high=config.backpressure_high_bytes,
                              low=config.backpressure_low_bytes, cgroup_fs=cgroup_fs)
    scheduler.start()
    return scheduler


def serve(config: AgentConfig, manager: VnfManager) -> int:
    client: AgentClient | None = None
    cgroup_fs = cgroups.host()
    log.info("cgroups: %s", cgroup_fs.describe())
    if cgroup_fs.lacks(CPU_USAGE, MEMORY):
        log.warning("vNF statistics report 0 for what the node's cgroups do not give: %s",
                    ", ".join(cgroup_fs.lacks(CPU_USAGE, MEMORY)))
    p = manager.planner
    log.info("placement: DPDK vNFs on CPUs %s; the pof-switch's: %s", ",".join(map(str, p.vnf_cores or p.cpus)),
             ",".join(map(str, sorted(p.switch))) or "not given (switch_cpus)")
    stats = StatsCollector(manager, cgroup_fs=cgroup_fs)
    metrics = MecMetrics(config, stats, lambda: client is not None and client.welcomed)
    try:
        metrics.bind()  # before anything touches the node
    except (OSError, ValueError) as exc:
        print(f"mec-agent: cannot serve metrics on {config.metrics_listen}: {exc}", file=sys.stderr)
        return 2
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    print(json.dumps({"reconcile": reconcile(manager)}), flush=True)
    if manager.pool is not None:
        manager.pool.fill()
        threading.Thread(target=refill_forever, args=(manager.pool, stop), daemon=True).start()
    if config.reconcile_interval_s > 0:
        threading.Thread(target=reconcile_forever, args=(manager, stop, config.reconcile_interval_s),
                         daemon=True).start()
    scheduler = None
    if config.scheduler_interval_s > 0:
        scheduler = start_scheduler(config, manager, cgroup_fs)
        stats.scheduler = scheduler
    if config.controller:
        caps = {"capacity": {"cpu": config.capacity_cpu, "memory_mib": config.capacity_memory_mib},
                "catalog": manager.catalog.names(), "dpdk": manager.switch.present,
                "pof_switch": manager.switch.present}
        client = controller_client(parse_controllers(config.controller), config.agent_id, config.secret(),
                                   method_table(manager, stats),
                                   caps, stats, config.stats_interval_s, config.tls_context(),
                                   tls_client_cert=bool(config.tls_cert))
        emit = client.emit
        manager.events.append(lambda vnf_id, state: emit("vnfState", {"vnf_id": vnf_id, "state": state}))
        threading.Thread(target=client.run, daemon=True).start()
    metrics.start()
    stop.wait()
    metrics.close()
    if client is not None:
        client.stop()
    if scheduler is not None:
        scheduler.stop()
    if manager.pool is not None:
        manager.pool.drain()
    manager.close()
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m wislice_mec_agent", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", required=True)
    parser.add_argument("--log-level", default="INFO")
    parser.add_argument("command", nargs="?", default="run",
                        choices=["run", "reconcile", "create-vnf", "delete-vnf", "list", "status"])
    parser.add_argument("arg", nargs="?")
    args = parser.parse_args(argv)
    logging.basicConfig(level=args.log_level, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    try:
        config = load_config(args.config)
    except (OSError, ValueError, TypeError) as exc:
        print(f"mec-agent: bad config {args.config}: {exc}", file=sys.stderr)
        return 2
    manager = build(config)
    if args.command == "run":
        return serve(config, manager)
    try:
        if args.command == "reconcile":
            out: Any = reconcile(manager)
        elif args.command == "create-vnf":
            out = manager.create(json.loads(args.arg or "null"))
        elif args.command == "delete-vnf":
            out = manager.delete(int(args.arg or "-1"))
        elif args.command == "list":
            out = manager.list_states(placement=True)  # local: the placement fields whatever the controller takes
        else:
            out = manager.status()
    except AgentError as exc:
        print(json.dumps({"error": {"code": exc.code, "message": exc.message}}))
        return 1
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
