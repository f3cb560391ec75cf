"""A tenant's slices and their parts: vAPs (addVapToTenant, removeVap, getVaps), vNFs (addVnfToTenant, removeVnf,
getVnfs), clients (getClients), live statistics and telemetry series."""

from __future__ import annotations

import time
from typing import Any

from flask import abort, current_app, request
from flask_smorest import abort as abort_with
from sqlalchemy import select

from .. import auth
from ..bandwidth import InvalidBandwidth
from ..controllers import ControllerError
from ..json_body import Blueprint
from ..models import Operation, Slice
from ..schemas import (
    ClientListSchema,
    OperationSchema,
    PoliciesSchema,
    SliceCreateSchema,
    SliceListSchema,
    SlicePatchSchema,
    SliceSchema,
    SliceStatsSchema,
    SliceTelemetrySchema,
    TelemetryQuerySchema,
    VapListSchema,
    VapRequestSchema,
    VnfAddSchema,
    VnfListSchema,
)
from ..schemas.base import PRIORITY_CLASSES, latency_budget_errors
from ..service import event
from ..vap_expand import request_errors
from .common import (
    IDEMPOTENCY_HEADER,
    db,
    get_slice,
    get_tenant,
    service,
)

blp = Blueprint("slices", __name__, url_prefix="/api/v1/tenants/<int(max=65535):tenant_id>",
                description="Slices of a tenant: vAPs, vNFs, clients, statistics")

SLICE = "/slices/<int(max=2147483647):slice_id>"


def _key() -> str | None:
    key = request.headers.get("Idempotency-Key")
    if key is not None and not 1 <= len(key) <= 128:
        abort(400, "Idempotency-Key must be 1-128 characters")
    return key


def _accepted(op: Operation) -> tuple[Operation, int, dict[str, str]]:
    return op, 202, {"Location": f"/api/v1/operations/{op.id}"}


@blp.get("/slices")
@blp.response(200, SliceListSchema)
def list_slices(tenant_id: int) -> dict[str, Any]:
    """The tenant's slices (deleted ones are left out)."""
    auth.require_tenant(tenant_id)
    get_tenant(tenant_id)
    rows = db().scalars(select(Slice).where(Slice.tenant_id == tenant_id, Slice.status != "deleted").order_by(Slice.id))
    return {"slices": list(rows)}


@blp.post("/slices")
@blp.arguments(SliceCreateSchema)
@blp.response(202, OperationSchema)
@blp.doc(parameters=[IDEMPOTENCY_HEADER])
def create_slice(body: dict[str, Any], tenant_id: int) -> Any:
    """Ask for an end-to-end slice. Admission runs now (409 with reasons if it does not fit); building runs as an
    operation (poll its Location). A latency slice may ask for in-band latency probes (`probe`; 400 for a
    best_effort slice): its measured p50/p99 then shows in the slice's telemetry (`latency`). A vAP with agent_id
    "*" puts its SSID on every AP with room (see the vAP's agent_id)."""
    auth.require_tenant(tenant_id)
    tenant = get_tenant(tenant_id)
    if body.get("probe") is not None and body["latency_class"] not in PRIORITY_CLASSES:
        abort(400, f"probe: only a latency slice (latency_class {' or '.join(PRIORITY_CLASSES)}, with a budget) is "
                   f"probed; latency class {body['latency_class']} has no budget to measure against")
    if (bad := request_errors(body["vaps"])) is not None:
        abort(400, bad)  # "*" (every AP with room) once, and alone
    op, _created = service().create_slice(db(), tenant, body, _key())
    return _accepted(op)


@blp.get(SLICE)
@blp.response(200, SliceSchema)
def get_slice_view(tenant_id: int, slice_id: int) -> Slice:
    """One slice, with its vAPs and vNFs."""
    auth.require_tenant(tenant_id)
    return get_slice(tenant_id, slice_id)


@blp.patch(SLICE)
@blp.arguments(SlicePatchSchema)
@blp.response(202, OperationSchema)
def update_slice(body: dict[str, Any], tenant_id: int, slice_id: int) -> Any:
    """Change a live slice's bandwidth and/or latency class and budget.

    `bandwidth` is partial: the fields given replace the slice's current values, the others stay; each resulting
    guarantee must stay within its non-zero cap (422). The change is re-admitted now against everything else (the
    slice's own current reservation left out) and the tenant's guaranteed-bandwidth quota; only what grows is
    checked (per radio: down + up guarantee of each vAP; per wired link and direction: the guarantee of each vAP
    path crossing it), so lowering always fits. A new latency class must be met by the slice's current wired
    paths (no re-routing). `latency_budget_us` merges with the class: a change to best_effort drops the budget
    (giving one is a 422), a latency class needs one (the slice's current one, or given; else 422). Refused: 409
    listing every reason. Accepted: 202 with an operation (poll its Location) that sets each vAP's rate_limit and
    each path's down/up rates on the controllers, undone on failure. Until it
    ends the slice shows the change as `pending_change` (admission holds the larger of old and new values) and
    keeps its `bandwidth` and `latency_class`, which take the new values when it succeeds. The slice must be
    active with no other operation running (else 409). `handover_policy` (best_effort | steer_back) and
    `vnf_follow` are the orchestrator's own: the slice has them as soon as the change is accepted; alone, the
    operation has no steps."""
    auth.require_tenant(tenant_id)
    slice_ = get_slice(tenant_id, slice_id)
    try:
        bandwidth = slice_.bandwidth.merged(body.get("bandwidth") or {})
    except InvalidBandwidth as exc:  # e.g. a new guarantee above the cap the slice keeps
        abort_with(422, messages={"json": {"bandwidth": exc.errors}})
    latency_class = body.get("latency_class") or slice_.latency_class
    budget = body.get("latency_budget_us", slice_.latency_budget_us if latency_class in PRIORITY_CLASSES else None)
    errors = latency_budget_errors(latency_class, budget, (bandwidth.down.cap_kbps, bandwidth.up.cap_kbps))
    if errors:  # the merged result, as a create would be checked: a latency class without budget, or the reverse
        abort_with(422, messages={"json": errors})
    own = {key: body[key] for key in ("handover_policy", "vnf_follow") if key in body}
    return _accepted(service().update_slice(db(), slice_, bandwidth, body.get("latency_class"), budget, own))


@blp.put(SLICE + "/policies")
@blp.arguments(PoliciesSchema)
@blp.response(200, SliceSchema)
def set_policies(body: dict[str, Any], tenant_id: int, slice_id: int) -> Slice:
    """Replace the slice's closed-loop policies (an empty list turns them off). A policy left unchanged at the same
    place keeps its state and the vNF it deployed; the orchestrator's policy loop acts on the others from its next
    telemetry poll. The slice must be active (else 409)."""
    auth.require_tenant(tenant_id)
    slice_ = get_slice(tenant_id, slice_id)
    service().set_policies(db(), slice_, body["policies"])
    return slice_


@blp.delete(SLICE)
@blp.response(202, OperationSchema)
def delete_slice(tenant_id: int, slice_id: int) -> Any:
    """Tear a slice down (paths, vNFs, vAPs) as an operation. A failed slice, too: this also removes anything its
    incomplete rollback left on the controllers. A deleted or failed slice keeps no vNF params."""
    auth.require_tenant(tenant_id)
    return _accepted(service().delete_slice(db(), get_slice(tenant_id, slice_id)))


@blp.get(SLICE + "/vaps")
@blp.response(200, VapListSchema)
def get_vaps(tenant_id: int, slice_id: int) -> dict[str, Any]:
    """getVaps of a slice."""
    auth.require_tenant(tenant_id)
    return {"vaps": get_slice(tenant_id, slice_id).vaps}


@blp.post(SLICE + "/vaps")
@blp.arguments(VapRequestSchema)
@blp.response(202, OperationSchema)
@blp.doc(parameters=[IDEMPOTENCY_HEADER])
def add_vap(body: dict[str, Any], tenant_id: int, slice_id: int) -> Any:
    """addVapToTenant: one more vAP in an active slice."""
    auth.require_tenant(tenant_id)
    op, _ = service().add_vap(db(), get_slice(tenant_id, slice_id), body, _key())
    return _accepted(op)


@blp.delete(SLICE + "/vaps/<ident:vap_id>")
@blp.response(202, OperationSchema)
def remove_vap(tenant_id: int, slice_id: int, vap_id: str) -> Any:
    """removeVap."""
    auth.require_tenant(tenant_id)
    slice_ = get_slice(tenant_id, slice_id)
    vap = next((v for v in slice_.vaps if v.vap_id == vap_id), None)
    if vap is None:
        abort(404, f"vAP {vap_id} not found in slice {slice_id}")
    return _accepted(service().remove_vap(db(), slice_, vap))


@blp.get(SLICE + "/vnfs")
@blp.response(200, VnfListSchema)
def get_vnfs(tenant_id: int, slice_id: int) -> dict[str, Any]:
    """getVnfs of a slice (the chain, in order)."""
    auth.require_tenant(tenant_id)
    return {"vnfs": get_slice(tenant_id, slice_id).vnfs}


@blp.post(SLICE + "/vnfs")
@blp.arguments(VnfAddSchema)
@blp.response(202, OperationSchema)
@blp.doc(parameters=[IDEMPOTENCY_HEADER])
def add_vnf(body: dict[str, Any], tenant_id: int, slice_id: int) -> Any:
    """addVnfToTenant: a vNF into the slice's chain, at its end or at `position`; the slice's paths are
    re-installed through it."""
    auth.require_tenant(tenant_id)
    position = body.pop("position")
    op, _ = service().add_vnf(db(), get_slice(tenant_id, slice_id), body, _key(), position=position)
    return _accepted(op)


@blp.delete(SLICE + "/vnfs/<int(max=4294967295):vnf_id>")
@blp.response(202, OperationSchema)
def remove_vnf(tenant_id: int, slice_id: int, vnf_id: int) -> Any:
    """removeVnf."""
    auth.require_tenant(tenant_id)
    slice_ = get_slice(tenant_id, slice_id)
    vnf = next((v for v in slice_.vnfs if v.vnf_id == vnf_id), None)
    if vnf is None:
        abort(404, f"vNF {vnf_id} not found in slice {slice_id}")
    return _accepted(service().remove_vnf(db(), slice_, vnf))


@blp.get(SLICE + "/clients")
@blp.response(200, ClientListSchema)
def get_clients(tenant_id: int, slice_id: int) -> dict[str, Any]:
    """getClients: stations associated to the slice's vAPs."""
    auth.require_tenant(tenant_id)
    slice_ = get_slice(tenant_id, slice_id)
    clients = []
    for vap in slice_.vaps:
        if vap.state == "up":
            clients += service().controllers.list_clients(vap.agent_id, vap.vap_id)
    return {"clients": clients}


@blp.delete(SLICE + "/clients/<mac:mac>")
@blp.response(204)
def kick_client(tenant_id: int, slice_id: int, mac: str) -> None:
    """Disassociate one of the slice's clients."""
    auth.require_tenant(tenant_id)
    slice_ = get_slice(tenant_id, slice_id)
    mac = mac.lower()
    for vap in slice_.vaps:
        for client in service().controllers.list_clients(vap.agent_id, vap.vap_id) if vap.state == "up" else []:
            if client["mac"].lower() == mac:
                service().controllers.kick_client(vap.agent_id, mac)
                event(db(), "client", f"client {mac} kicked from {vap.vap_id}", tenant_id)
                db().commit()
                return
    abort(404, f"client {mac} is not associated to slice {slice_id}")


@blp.get(SLICE + "/stats")
@blp.response(200, SliceStatsSchema)
def slice_stats(tenant_id: int, slice_id: int) -> dict[str, Any]:
    """Live statistics: per-vAP rates and clients, per-vNF counters. Parts that cannot be read are listed in errors."""
    auth.require_tenant(tenant_id)
    slice_ = get_slice(tenant_id, slice_id)
    ctl = service().controllers
    vaps, vnfs, errors = [], [], []
    for vap in slice_.vaps:
        if vap.state != "up":
            continue
        try:
            rates = ctl.vap_rates(vap.agent_id, vap.vap_id)
            clients = len(ctl.list_clients(vap.agent_id, vap.vap_id))
            vaps.append({"vap_id": vap.vap_id, "tx_bps": int(rates.get("tx_bps", 0)),
                         "rx_bps": int(rates.get("rx_bps", 0)), "clients": clients})
        except ControllerError as exc:
            errors.append(f"vAP {vap.vap_id}: {exc.message}")
    for vnf in slice_.vnfs:
        if vnf.state != "running":
            continue
        try:
            vnfs.append(ctl.vnf_stats(vnf.vnf_id))
        except ControllerError as exc:
            errors.append(f"vNF {vnf.vnf_id}: {exc.message}")
    return {"slice_id": slice_.id, "ts": time.time(), "tx_bps": sum(v["tx_bps"] for v in vaps),
            "rx_bps": sum(v["rx_bps"] for v in vaps), "clients": sum(v["clients"] for v in vaps), "vaps": vaps,
            "vnfs": vnfs, "errors": errors}


@blp.get(SLICE + "/telemetry")
@blp.arguments(TelemetryQuerySchema, location="query")
@blp.response(200, SliceTelemetrySchema)
def slice_telemetry(args: dict[str, Any], tenant_id: int, slice_id: int) -> dict[str, Any]:
    """The slice's rates and its clients' rates as time series.

    One point per poll of the orchestrator's telemetry collector (every `interval_s`; the last 15 minutes are kept
    by default): the down/up rate and client count over the slice's vAPs, with its guarantees at that time; per
    client MAC its down/up rate as its ap-agent measures it. A slice's rate is null where the controllers could not
    be read; a client has no point at its first report or after a new association (its agent has no rate yet).
    `since` returns only newer points: poll with the last `ts` seen. Empty while the collector is off
    (WISLICE_TELEMETRY) or has not polled the slice yet.

    A latency slice that asked for probes also has `latency` (issue 15): per vAP the latest p50/p99 round trip its
    AP measured through the slice's path, the worst p99 over them against the budget, and whether the budget is
    broken now (after 3 samples in a row over it; restored after 3 within; each change is an event
    `latency_budget_broken` / `latency_budget_restored` with the numbers)."""
    auth.require_tenant(tenant_id)
    slice_ = get_slice(tenant_id, slice_id)
    telemetry = current_app.extensions["wislice_telemetry"]
    result = telemetry.series(slice_.id, args["since"])
    measured = telemetry.snapshot().latency.get(slice_.id)
    if measured is not None:
        watched = current_app.extensions["wislice_latency_watch"].state(slice_.id)
        result["latency"] = {**measured, **(watched or {"budget_broken": False, "since": None})}
    return result
