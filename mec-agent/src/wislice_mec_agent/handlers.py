"""The mec-agent's side of the nfv-controller connection: its method table (params arrive checked against the
protocol's schema; the manager checks their values) and the wislice_agent_proto client it runs on. Requests run one
at a time on the client's worker thread, so pings are answered while a createVnf runs."""

from __future__ import annotations

import ssl
from typing import Any

from wislice_agent_proto.client import AgentClient, Identity
from wislice_agent_proto.methods import Handler

from . import SOFTWARE


def method_table(manager: Any, stats: Any) -> dict[str, Handler]:
    return {
        "createVnf": lambda p: {"vnf": manager.create(p["vnf"])},
        "delVnf": lambda p: manager.delete(p["vnf_id"]),
        "getVnfs": lambda p: {"vnfs": manager.list_states()},
        "syncVnfs": lambda p: manager.sync(p["vnfs"]),
        "getStatus": lambda p: manager.status(),
        "getStatistics": lambda p: stats.collect(p.get("vnf_id")),
    }


def controller_client(controllers: list[tuple[str, int]], agent_id: str, secret: bytes | None,
                      table: dict[str, Handler], capabilities: dict[str, Any], stats: Any = None,
                      stats_interval_s: float = 10.0, tls: ssl.SSLContext | None = None,
                      tls_client_cert: bool = False) -> AgentClient:
    """The connection to the nfv-controller (``run()`` it on a thread): the hello says role mec and the node's
    capabilities; with ``stats`` (a StatsCollector) a stats event carries the vNFs and the node."""

    def stats_data(interval_s: float) -> dict[str, Any]:
        data = stats.collect()
        return {"interval_s": float(interval_s), "vnfs": data["vnfs"], "node": data["node"]}

    identity = Identity("mec", agent_id, SOFTWARE, lambda: capabilities, secret, tls_client_cert)
    return AgentClient(controllers, identity, table, tls=(lambda: tls) if tls is not None else None,
                       stats=stats_data if stats is not None else None, stats_interval_s=stats_interval_s,
                       worker=True)
