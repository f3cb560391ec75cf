"""Operators' view of the infrastructure: WiFi agents (getWifiAgents) with radios, MEC agents (getMecAgents), every
vAP, vNF and client, the wired topology, operations, the event log and an overview."""

from __future__ import annotations

from typing import Any

from flask import abort
from sqlalchemy import func, select

from .. import auth
from ..controllers import ControllerError
from ..json_body import Blueprint
from ..models import Event, Operation, Setting, Slice, Tenant
from ..saga import ACTIVE_STATES
from ..schemas import (
    AgentListSchema,
    AgentSchema,
    ChannelSchema,
    ClientListSchema,
    ControllerVapListSchema,
    ControllerVnfListSchema,
    EventListSchema,
    EventQuerySchema,
    NodeListSchema,
    OperationListSchema,
    OperationSchema,
    OverviewSchema,
    RadioSchema,
    SteerResultSchema,
    SteerSchema,
    TopologySchema,
)
from ..service import event
from ..topology import Topology
from .common import db, service

blp = Blueprint("infrastructure", __name__, url_prefix="/api/v1", description="Infrastructure (operators)")


@blp.get("/wifi-agents")
@blp.response(200, AgentListSchema)
def wifi_agents() -> dict[str, Any]:
    """getWifiAgents: every AP with its radios, vAP and client counts."""
    auth.require_operator()
    return {"agents": service().controllers.list_agents()}


@blp.get("/wifi-agents/<ident:agent_id>")
@blp.response(200, AgentSchema)
def wifi_agent(agent_id: str) -> dict[str, Any]:
    """One AP, with its vAPs, its firmware_version and its last firmware upgrade (upgrade, absent if none)."""
    auth.require_operator()
    ctl = service().controllers
    try:
        agent = ctl.get_agent(agent_id)
    except ControllerError as exc:
        if exc.not_found:
            abort(404, f"WiFi agent {agent_id} not found")
        raise
    return {"agent": dict(agent, vap_list=ctl.list_vaps(agent_id))}


@blp.post("/wifi-agents/<ident:agent_id>/radios/<ident(maxlength=32):radio>/channel")
@blp.arguments(ChannelSchema)
@blp.response(200, RadioSchema)
def change_channel(body: dict[str, Any], agent_id: str, radio: str) -> dict[str, Any]:
    """Move a radio to another channel (all its vAPs follow)."""
    auth.require_operator()
    result = service().controllers.set_channel(agent_id, radio, body["channel"])
    event(db(), "radio", f"{agent_id} {radio} -> channel {body['channel']}")
    db().commit()
    return {"radio": result}


@blp.get("/wifi-agents/<ident:agent_id>/clients")
@blp.response(200, ClientListSchema)
def agent_clients(agent_id: str) -> dict[str, Any]:
    """Clients of one AP."""
    auth.require_operator()
    return {"clients": service().controllers.list_clients(agent_id)}


@blp.delete("/wifi-agents/<ident:agent_id>/clients/<mac:mac>")
@blp.response(204)
def kick(agent_id: str, mac: str) -> None:
    """Disassociate a client from an AP."""
    auth.require_operator()
    service().controllers.kick_client(agent_id, mac.lower())
    event(db(), "client", f"client {mac.lower()} kicked from {agent_id} by an operator")
    db().commit()


@blp.post("/clients/<mac:mac>/steer")
@blp.arguments(SteerSchema)
@blp.response(200, SteerResultSchema)
def steer(body: dict[str, Any], mac: str) -> dict[str, Any]:
    """Steer a client to another AP or vAP of its SSID (802.11v BSS Transition Management through its serving AP).
    The answer is the station's; that it moved shows in the clients list once it associated at the target."""
    auth.require_operator()
    target = dict(body)
    if "target_bssid" in target:
        target["target_bssid"] = target["target_bssid"].lower()
    try:
        result = service().controllers.steer_client(mac.lower(), target)
    except ControllerError as exc:
        # The client's state refuses it (already on the target, another SSID, its slice has no vAP on that AP, no
        # BSS Transition support): the operator's request does not fit, not a controller failure (502).
        if exc.code in ("bad_request", "conflict", "unsupported"):
            abort(409, f"cannot steer {mac.lower()}: {exc.message}")
        raise
    verdict = "accepted" if result.get("accepted") else f"refused ({result.get('reason', '')})"
    event(db(), "client", f"client {mac.lower()} steered by an operator from {result.get('vap_id')} to "
                          f"{result.get('target_vap_id')}: {verdict}")
    db().commit()
    return result


@blp.get("/clients")
@blp.response(200, ClientListSchema)
def all_clients() -> dict[str, Any]:
    """Every associated client (getClients across all APs)."""
    auth.require_operator()
    return {"clients": service().controllers.list_clients()}


@blp.get("/vaps")
@blp.response(200, ControllerVapListSchema)
def all_vaps() -> dict[str, Any]:
    """Every vAP the WiFi controller holds."""
    auth.require_operator()
    return {"vaps": service().controllers.list_vaps()}


@blp.get("/mec-agents")
@blp.response(200, NodeListSchema)
def mec_agents() -> dict[str, Any]:
    """getMecAgents: MEC nodes with capacity, use and catalog."""
    auth.require_operator()
    return {"nodes": service().controllers.list_nodes()}


@blp.get("/vnfs")
@blp.response(200, ControllerVnfListSchema)
def all_vnfs() -> dict[str, Any]:
    """Every vNF the NFV controller holds."""
    auth.require_operator()
    return {"vnfs": service().controllers.list_vnfs()}


@blp.get("/topology")
@blp.response(200, TopologySchema)
def get_topology() -> dict[str, Any]:
    """The wired topology used for placement."""
    auth.require_operator()
    row = db().get(Setting, "topology")
    return Topology.from_json(row.value if row else None).to_json()


@blp.put("/topology")
@blp.arguments(TopologySchema)
@blp.response(200, TopologySchema)
def put_topology(body: dict[str, Any]) -> dict[str, Any]:
    """Replace the wired topology. Live slices keep their reserved links."""
    auth.require_operator()
    topo = Topology.from_json(body)
    row = db().get(Setting, "topology")
    if row is None:
        db().add(Setting(key="topology", value=topo.to_json()))
    else:
        row.value = topo.to_json()
    event(db(), "topology", f"topology replaced: {len(topo.links)} links, {len(topo.attachments)} attachments")
    db().commit()
    return topo.to_json()


@blp.get("/operations")
@blp.response(200, OperationListSchema)
def list_operations() -> dict[str, Any]:
    """Recent operations: all for operators, own for tenants."""
    principal = auth.current()
    query = select(Operation).order_by(Operation.id.desc()).limit(100)
    if not principal.is_operator:
        query = query.where(Operation.tenant_id == principal.tenant_id)
    return {"operations": list(db().scalars(query))}


@blp.get("/operations/<int(max=2147483647):operation_id>")
@blp.response(200, OperationSchema)
def get_operation(operation_id: int) -> Operation:
    """An operation's status and progress."""
    principal = auth.current()
    op = db().get(Operation, operation_id)
    if op is None or (not principal.is_operator and op.tenant_id != principal.tenant_id):
        abort(404, f"operation {operation_id} not found")
    return op


@blp.get("/events")
@blp.arguments(EventQuerySchema, location="query")
@blp.response(200, EventListSchema)
def events(args: dict[str, Any]) -> dict[str, Any]:
    """The event log, newest first (ids above `after`)."""
    auth.require_operator()
    rows = db().scalars(select(Event).where(Event.id > args["after"]).order_by(Event.id.desc()).limit(args["limit"]))
    return {"events": list(rows)}


@blp.get("/overview")
@blp.response(200, OverviewSchema)
def overview() -> dict[str, Any]:
    """Counts for the dashboard's front page."""
    auth.require_operator()
    session = db()
    by_status = dict(session.execute(select(Slice.status, func.count()).group_by(Slice.status)).all())
    result: dict[str, Any] = {
        "tenants": session.scalar(select(func.count()).select_from(Tenant)) or 0,
        "slices": {str(k): int(v) for k, v in by_status.items()},
        "operations_active": session.scalar(select(func.count()).select_from(Operation)
                                            .where(Operation.status.in_(ACTIVE_STATES))) or 0,
        "controllers_ok": True, "controller_error": None,
        "aps": 0, "aps_connected": 0, "vaps": 0, "clients": 0, "mec_nodes": 0, "vnfs": 0,
    }
    ctl = service().controllers
    try:
        agents = ctl.list_agents()
        result.update(aps=len(agents), aps_connected=sum(1 for a in agents if a.get("connected")),
                      vaps=len(ctl.list_vaps()), clients=len(ctl.list_clients()), mec_nodes=len(ctl.list_nodes()),
                      vnfs=len(ctl.list_vnfs()))
    except ControllerError as exc:
        result.update(controllers_ok=False, controller_error=exc.message)
    return result
