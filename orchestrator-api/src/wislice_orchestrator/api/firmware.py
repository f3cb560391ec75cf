"""Fleet upgrades (operators, issue 18): signed firmware artifacts and staged rollouts. Agents fetch an artifact
from its download URL, which carries the firmware's own random token instead of an operator's credentials."""

from __future__ import annotations

import hmac
import re
from typing import Any

from flask import Response, current_app, request, send_file
from flask_smorest import abort
from marshmallow import ValidationError
from sqlalchemy import select, update

from .. import auth
from .. import firmware as fw
from ..json_body import Blueprint
from ..models import ROLLOUT_RUNNING, Firmware, Rollout, RolloutAp, event
from ..schemas.firmware import (
    DownloadQuerySchema,
    FirmwareListSchema,
    FirmwareSchema,
    FirmwareUploadSchema,
    RolloutCreateSchema,
    RolloutDetailSchema,
    RolloutListSchema,
)
from .common import MAX_ID, db, service

blp = Blueprint("firmware", __name__, url_prefix="/api/v1", description="Fleet upgrades (operators)")

UPLOAD_PATH = "/api/v1/firmware"
# The download path needs no bearer token (guards.py): the firmware's token in the query is the capability.
DOWNLOAD_PATH = re.compile(r"/api/v1/firmware/[0-9]{1,10}/download")
# Room for the multipart framing and the small parts around the file.
FORM_OVERHEAD = 64 * 1024
UPLOAD_BODY = {"required": True, "description": "multipart/form-data: the artifact as part `file`, and the parts "
               "`version`, `kind` and `signature` (the usign .sig file's text), e.g. `curl -F file=@image.bin -F "
               "version=23.05.3-w1 -F kind=sysupgrade -F signature=<image.bin.sig`",
               "content": {"multipart/form-data": {"schema": FirmwareUploadSchema}}}


def upload_limit(config: Any) -> int:
    """The largest body POST /firmware takes (guards.py lets it past MAX_CONTENT_LENGTH up to this)."""
    return int(config["FIRMWARE_MAX_BYTES"]) + FORM_OVERHEAD


def _store() -> Any:
    """The firmware directory; 409 while none can be chosen (a database that is not a SQLite file needs
    WISLICE_FIRMWARE_DIR)."""
    try:
        return fw.store_dir(current_app.config)
    except fw.FirmwareError as exc:
        abort(409, message=str(exc))


def _get(firmware_id: int) -> Firmware:
    image = db().get(Firmware, firmware_id)
    if image is None:
        abort(404, message=f"firmware {firmware_id} not found")
    return image


@blp.post("/firmware")
@blp.doc(requestBody=UPLOAD_BODY)
@blp.response(201, FirmwareSchema)
def upload() -> Firmware:
    """Upload a signed firmware artifact (a sysupgrade image or a package set). Its usign signature must verify
    against one of the orchestrator's trusted keys (WISLICE_FIRMWARE_KEYS); the sha256 is computed here."""
    auth.require_operator()
    config = current_app.config
    if request.mimetype != "multipart/form-data":
        abort(400, message="the body must be multipart/form-data with the parts file, version, kind and signature")
    fields = {k: request.form[k] for k in ("version", "kind", "signature") if k in request.form}
    extra = sorted(set(request.form) - set(fields)) + sorted(set(request.files) - {"file"})
    try:
        FirmwareUploadSchema(exclude=("file",)).load(fields)
    except ValidationError as exc:
        abort(422, messages=exc.messages)
    part = request.files.get("file")
    if part is None or extra:
        abort(422, messages={**({"file": ["Missing data for required field."]} if part is None else {}),
                             **{name: ["Unknown field."] for name in extra}})
    data = part.stream.read(config["FIRMWARE_MAX_BYTES"] + 1)
    if len(data) > config["FIRMWARE_MAX_BYTES"]:
        abort(413, message=f"the artifact is larger than WISLICE_FIRMWARE_MAX_BYTES ({config['FIRMWARE_MAX_BYTES']})")
    if not data:
        abort(422, messages={"file": ["the artifact is empty"]})
    try:
        key = fw.verify(data, fields["signature"], current_app.extensions["wislice_firmware_keys"])
    except fw.FirmwareError as exc:
        abort(422, message=f"the signature is refused: {exc}", messages={"signature": [str(exc)]})
    sha256 = fw.sha256_hex(data)
    same = db().scalar(select(Firmware).where(Firmware.sha256 == sha256))
    if same is not None:
        abort(409, message=f"this artifact is already stored as firmware {same.id} (version {same.version})")
    fw.write_artifact(_store(), sha256, data)
    image = Firmware(version=fields["version"], kind=fields["kind"], size=len(data), sha256=sha256,
                     signature=fields["signature"], key_id=key.key_id.hex(), download_token=fw.new_token())
    db().add(image)
    db().flush()
    event(db(), "firmware", f"firmware {image.id} uploaded: {image.kind} {image.version}, {image.size} bytes, "
                            f"sha256 {sha256[:16]}..., signed by key {image.key_id} ({key.source})")
    db().commit()
    return image


@blp.get("/firmware")
@blp.response(200, FirmwareListSchema)
def list_firmware() -> dict[str, Any]:
    """Stored firmware artifacts, newest first."""
    auth.require_operator()
    return {"firmware": list(db().scalars(select(Firmware).order_by(Firmware.id.desc())))}


@blp.get(f"/firmware/<int(max={MAX_ID}):firmware_id>")
@blp.response(200, FirmwareSchema)
def get_firmware(firmware_id: int) -> Firmware:
    """One firmware artifact."""
    auth.require_operator()
    return _get(firmware_id)


@blp.delete(f"/firmware/<int(max={MAX_ID}):firmware_id>")
@blp.response(204)
def delete_firmware(firmware_id: int) -> None:
    """Delete an artifact and its file; refused (409) while a rollout of it is not finished. Its finished rollouts
    go with it (the event log keeps their history)."""
    auth.require_operator()
    image = _get(firmware_id)
    rollouts = list(db().scalars(select(Rollout).where(Rollout.firmware_id == firmware_id)))
    busy = [r.id for r in rollouts if r.finished_at is None]
    if busy:
        abort(409, message=f"firmware {firmware_id} is used by rollout {busy[0]}, which has not finished")
    for rollout in rollouts:
        for ap in rollout.aps:
            db().delete(ap)
        db().delete(rollout)
    db().delete(image)
    event(db(), "firmware", f"firmware {firmware_id} ({image.version}) deleted")
    db().commit()
    (_store() / f"{image.sha256}.bin").unlink(missing_ok=True)


@blp.get(f"/firmware/<int(max={MAX_ID}):firmware_id>/download")
@blp.arguments(DownloadQuerySchema, location="query")
@blp.doc(security=[], responses={"200": {"description": "the artifact's bytes",
                                         "content": {"application/octet-stream": {}}}})
def download(args: dict[str, Any], firmware_id: int) -> Response:
    """The artifact's bytes, for agents: no bearer token, the firmware's download token in the query (it is in the
    URL a rollout gives the WiFi controller). A wrong token is a 404, as an unknown id."""
    image = db().get(Firmware, firmware_id)
    if image is None or not hmac.compare_digest(image.download_token.encode(), args["token"].encode()):
        abort(404, message=f"firmware {firmware_id} not found")
    path = _store() / f"{image.sha256}.bin"
    if not path.is_file():
        abort(404, message=f"the file of firmware {firmware_id} is missing from the firmware directory")
    return send_file(path, mimetype="application/octet-stream", download_name=f"{image.version}-{image.kind}.bin",
                     as_attachment=True, conditional=True, etag=image.sha256)


@blp.post("/rollouts")
@blp.arguments(RolloutCreateSchema)
@blp.response(201, RolloutDetailSchema)
def create_rollout(body: dict[str, Any]) -> Rollout:
    """Start a staged upgrade of APs (a list of agent ids, or "all" the WiFi controller knows now) to a firmware:
    the first stage_size APs first, the rest only if fewer than max_failures of them failed. An AP is in one
    rollout at a time: 409 while another rollout that has not finished holds one of them."""
    auth.require_operator()
    image = _get(body["firmware_id"])
    if not current_app.config["FIRMWARE_BASE_URL"]:
        abort(409, message="WISLICE_FIRMWARE_BASE_URL is not set: the orchestrator's address as agents reach it is "
                           "needed for the download URL")
    known = sorted(a["agent_id"] for a in service().controllers.list_agents())
    aps = known if body["aps"] == "all" else body["aps"]
    unknown = sorted(set(aps) - set(known))
    if unknown:
        abort(422, messages={"aps": [f"unknown to the WiFi controller: {', '.join(unknown[:20])}"]})
    if not aps:
        abort(409, message="the WiFi controller knows no AP")
    with service().admitting(db()):  # across instances: two creates cannot both find an AP free
        busy = db().execute(select(RolloutAp.rollout_id, RolloutAp.agent_id).join(Rollout)
                            .where(Rollout.finished_at.is_(None), RolloutAp.agent_id.in_(aps))).first()
        if busy is not None:
            abort(409, message=f"AP {busy.agent_id} is in rollout {busy.rollout_id}, which has not finished: an AP "
                               "is in one rollout at a time")
        rollout = Rollout(firmware_id=image.id, stage_size=body["stage_size"], parallel=body["parallel"],
                          max_failures=body["max_failures"], timeout_s=body["timeout_s"],
                          retry_offline_s=body["retry_offline_s"])
        rollout.aps = [RolloutAp(agent_id=agent_id, stage=1 if i < body["stage_size"] else 2)
                       for i, agent_id in enumerate(aps)]
        db().add(rollout)
        db().flush()
        event(db(), "rollout", f"rollout {rollout.id} started: {image.version} ({image.kind}) on {len(aps)} APs, "
                               f"first stage {min(len(aps), body['stage_size'])}, max_failures {body['max_failures']}")
        db().commit()
    return rollout


@blp.get("/rollouts")
@blp.response(200, RolloutListSchema)
def list_rollouts() -> dict[str, Any]:
    """Rollouts, newest first (the last 100)."""
    auth.require_operator()
    return {"rollouts": list(db().scalars(select(Rollout).order_by(Rollout.id.desc()).limit(100)))}


@blp.get(f"/rollouts/<int(max={MAX_ID}):rollout_id>")
@blp.response(200, RolloutDetailSchema)
def get_rollout(rollout_id: int) -> Rollout:
    """A rollout with each AP's progress."""
    auth.require_operator()
    rollout = db().get(Rollout, rollout_id)
    if rollout is None:
        abort(404, message=f"rollout {rollout_id} not found")
    return rollout


@blp.post(f"/rollouts/<int(max={MAX_ID}):rollout_id>/cancel")
@blp.response(200, RolloutDetailSchema)
def cancel_rollout(rollout_id: int) -> Rollout:
    """Ask no more APs; those already upgrading go on to their end (an install cannot be stopped midway) and are
    still recorded. 409 once the rollout has ended, halted or was cancelled."""
    auth.require_operator()
    rollout = db().get(Rollout, rollout_id)
    if rollout is None:
        abort(404, message=f"rollout {rollout_id} not found")
    result = db().execute(update(Rollout).where(Rollout.id == rollout_id, Rollout.status.in_(ROLLOUT_RUNNING))
                          .values(status="cancelled", reason="cancelled by an operator")
                          .execution_options(synchronize_session=False))
    if result.rowcount != 1:  # type: ignore[attr-defined]
        abort(409, message=f"rollout {rollout_id} is {rollout.status}: only a pending or running one can be "
                           "cancelled")
    event(db(), "rollout", f"rollout {rollout_id} cancelled by an operator", level="warning")
    db().commit()
    db().refresh(rollout)
    return rollout
