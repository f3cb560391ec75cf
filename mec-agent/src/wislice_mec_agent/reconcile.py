"""Converge the node on the agent's records after an agent restart (even a kill -9 mid-create) or a dockerd
restart: roll back half-built vNFs, adopt healthy ones, rebuild broken ones from their recorded spec, and remove
orphans (containers with our label, veths with our prefix, switch ports with our prefix, config dirs). The cores
of DPDK vNFs (placement.py) are rebuilt from the adopted containers' cpusets."""

from __future__ import annotations

import logging
import shutil
from pathlib import Path
from typing import Any

from wislice_agent_proto.errors import AgentError

from .manager import VnfManager
from .placement import wants_latency
from .store import VnfRecord
from .vnf_classes import vnf_class

log = logging.getLogger(__name__)


def is_healthy(m: VnfManager, rec: VnfRecord, running: dict[str, int], switch_ports: set[str]) -> bool:
    pid = running.get(rec.container_name)
    if rec.state != "running" or not pid:
        return False
    if m.switch.present and not set(m.port_names(rec)) <= switch_ports:
        return False
    return vnf_class(rec.vnf_class).healthy(m, rec, pid)


def reconcile(m: VnfManager) -> dict[str, Any]:
    report: dict[str, Any] = {"adopted": [], "readded_ports": [], "rebuilt": [], "rolled_back": [], "failed": [],
                              "removed_containers": [], "removed_links": [], "removed_ports": [], "removed_dirs": []}
    with m.lock:
        running: dict[str, int] = {}
        cpusets: dict[str, str] = {}
        for c in m.runtime.list(m.config.agent_id):
            if c.status == "running":
                info = m.runtime.inspect(c.id)
                running[c.name] = info.pid if info else 0
                cpusets[c.name] = info.cpus if info else ""
        switch_ports = set(m.switch.ports()) if m.switch.present else set()
        if m.pool is not None:  # dead idle containers (dockerd restart): removed here, replaced by the next fill
            report["removed_containers"] += m.pool.prune()
        for rec in m.store.all():
            if rec.state == "creating":
                errors = m.teardown(rec)
                m.store.delete(rec.vnf_id)
                report["rolled_back"].append(rec.vnf_id)
                if errors:
                    report["failed"].append({"vnf_id": rec.vnf_id, "error": "; ".join(errors)})
            elif is_healthy(m, rec, running, _readd_lost_ports(m, rec, running, switch_ports, report)):
                report["adopted"].append(rec.vnf_id)
                latency = wants_latency(rec.spec)
                if vnf_class(rec.vnf_class).placed and not m.planner.adopt(rec.vnf_id, cpusets[rec.container_name],
                                                                           latency):
                    log.info("vNF %d runs on cpuset %r, not one core of this node: left unplaced", rec.vnf_id,
                                cpusets[rec.container_name])
            else:
                _rebuild(m, rec, report)
        _remove_orphans(m, report)
        m.mark_shared_cores()  # the placements adopted: each latency vNF told again whether its core is its own
    log.info("reconcile: %s", {k: v for k, v in report.items() if v})
    return report


def _readd_lost_ports(m: VnfManager, rec: VnfRecord, running: dict[str, int], switch_ports: set[str],
                      report: dict[str, Any]) -> set[str]:
    """A restarted pof-switch has only its command-line ports: a running vNF's ports are added again, each as the
    number it had (the controller's flows name ports by number), instead of rebuilding the vNF. Returns the
    switch's ports now."""
    if not (m.switch.present and rec.state == "running" and running.get(rec.container_name)):
        return switch_ports
    cls = vnf_class(rec.vnf_class)
    for port in rec.ports:
        name, number = port.get("name"), port.get("pof_port")
        if not name or name in switch_ports or number is None:
            continue
        try:
            cls.add_switch_port(m, rec, name, number)
        except AgentError as exc:
            log.warning("vNF %d: the switch refused its port %s again: %s", rec.vnf_id, name, exc.message)
            continue
        switch_ports = switch_ports | {name}
        report["readded_ports"].append(name)
    return switch_ports


def _rebuild(m: VnfManager, rec: VnfRecord, report: dict[str, Any]) -> None:
    errors = m.teardown(rec)
    m.store.delete(rec.vnf_id)
    try:
        if errors:
            raise AgentError("internal", "; ".join(errors))
        m.create(rec.spec.to_json())
        report["rebuilt"].append(rec.vnf_id)
    except AgentError as exc:
        # Keep the record so the controller sees the vNF as failed instead of silently losing it.
        m.store.put(rec.with_(state="failed", container_id="", ports=[]))
        report["failed"].append({"vnf_id": rec.vnf_id, "error": exc.message})


def _remove_orphans(m: VnfManager, report: dict[str, Any]) -> None:
    records = m.store.all()
    containers = m.runtime.list(m.config.agent_id)
    # The pool is asked after listing: a container its refill thread creates meanwhile is in the making before it
    # exists, so it is never taken for an orphan (the same for its dir below).
    pooled = m.pool.owned_names() if m.pool is not None else set()
    names = {r.container_name for r in records} | pooled
    ids = {r.container_id for r in records if r.container_id}
    for c in containers:
        if c.name not in names and c.id not in ids:
            m.runtime.remove(c.id)
            report["removed_containers"].append(c.name)
    links = {ifname for r in records for ifname in m.link_names(r)}
    for ifname in m.wiring.list_links(m.config.veth_prefix):
        if ifname not in links and m.wiring.delete_link(ifname):
            report["removed_links"].append(ifname)
    if m.switch.present:
        ports = {name for r in records for name in m.port_names(r)}
        for name in m.switch.ports():
            if name.startswith(m.config.veth_prefix) and name not in ports and m.switch.remove(name):
                report["removed_ports"].append(name)
    found = [d for parent in (m.config.vnf_dir, m.config.pool_dir) if parent.is_dir() for d in parent.iterdir()]
    dirs = {str(Path(r.config_dir)) for r in records} | (m.pool.owned_dirs() if m.pool is not None else set())
    for d in found:
        if str(d) not in dirs:
            shutil.rmtree(d, ignore_errors=True)
            report["removed_dirs"].append(d.name)
