"""Operations (the sagas' journals) and the operators' view of the infrastructure."""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, ValidationError, fields, post_dump, validate, validates_schema

from .base import IDENT, MAC, Int, QueryInt, Rounded, Strict, UtcDateTime


class StepSchema(Schema):
    """A journal entry of Operation.steps; its `result` (what a controller answered) stays private."""

    kind = fields.String()
    ref = fields.Dict()
    state = fields.String()
    error = fields.String(allow_none=True)
    started_at = fields.Float(metadata={"description": "epoch seconds when the step began"})
    seconds = fields.Float(metadata={"description": "how long the step took"})

    @post_dump
    def _leave_out_unset(self, data: dict[str, Any], **_kwargs: Any) -> dict[str, Any]:
        # A step not yet started or without an error has those keys as null in the journal, or not at all: shown
        # the same way, absent.
        return {k: v for k, v in data.items() if v is not None}


class OperationSchema(Schema):
    """An operation as the API shows it, dumped from the Operation record (models.py)."""

    operation_id = fields.Integer(attribute="id")
    kind = fields.String()
    tenant_id = fields.Integer()
    slice_id = fields.Integer(allow_none=True)
    status = fields.String()
    progress = Rounded(3, metadata={"description": "0..1, steps done / steps"})
    steps = fields.List(fields.Nested(StepSchema))
    error = fields.String()
    created_at = UtcDateTime()
    finished_at = UtcDateTime(allow_none=True)


class OperationListSchema(Schema):
    operations = fields.List(fields.Nested(OperationSchema))


# --- infrastructure -----------------------------------------------------------------------------------------
class ChannelSchema(Strict):
    channel = Int(required=True, validate=validate.Range(min=1, max=196))


class SteerSchema(Strict):
    """Where to steer a client: a vAP (on one agent, or wherever it is), a BSSID the WiFi controller knows, or an AP
    (its vAP of the client's SSID). A BSS transition stays within the client's SSID, i.e. its slice."""

    target_vap = fields.String(validate=IDENT, metadata={"description": "the target vAP's vap_id"})
    target_agent = fields.String(validate=IDENT, metadata={
        "description": "the agent of target_vap; alone: that AP's vAP of the client's SSID (409 if its slice has none "
                       "there)"})
    target_bssid = fields.String(validate=[validate.Length(min=17, max=17), MAC],
                                 metadata={"description": "the target BSS, instead of target_vap"})
    disassoc_timer_tbtt = Int(validate=validate.Range(min=0, max=65535), metadata={
        "description": "Disassociation Imminent: the serving AP disassociates the station after this many beacon "
                       "intervals (0: at any time); absent: the station may stay"})

    @validates_schema
    def _one_target(self, data: dict[str, Any], **_kwargs: Any) -> None:
        if "target_vap" in data and "target_bssid" in data:
            raise ValidationError("give target_vap or target_bssid, not both")
        if not {"target_vap", "target_bssid", "target_agent"} & data.keys():
            raise ValidationError("give target_vap, target_bssid or target_agent")
        if "target_agent" in data and "target_bssid" in data:
            raise ValidationError("target_agent goes with target_vap or alone, not with target_bssid", "target_agent")


class SteerResultSchema(Schema):
    """The station's answer to the BSS Transition Management request (steerClient, spec/agent/PROTOCOL.md)."""

    agent_id = fields.String()
    vap_id = fields.String()
    mac = fields.String()
    target_agent_id = fields.String()
    target_vap_id = fields.String()
    target_bssid = fields.String()
    accepted = fields.Boolean(metadata={"description": "the station answered accept (status 0)"})
    status_code = fields.Integer(allow_none=True, metadata={
        "description": "the BSS Transition Management response status, null when the station did not answer"})
    reason = fields.String()


class AgentListSchema(Schema):
    agents = fields.List(fields.Dict())


class AgentSchema(Schema):
    agent = fields.Dict()


class RadioSchema(Schema):
    radio = fields.Dict()


class NodeListSchema(Schema):
    nodes = fields.List(fields.Dict())


class LinkSchema(Strict):
    a = fields.String(required=True, validate=IDENT)
    a_port = Int(required=True, validate=validate.Range(min=0, max=65535))
    b = fields.String(required=True, validate=IDENT)
    b_port = Int(required=True, validate=validate.Range(min=0, max=65535))
    capacity_kbps = Int(required=True, validate=validate.Range(min=1, max=400_000_000))
    latency_us = Int(validate=validate.Range(min=0, max=10_000_000), allow_none=True, metadata={
        "description": "estimated one-way latency for latency admission; absent: the configured default "
                       "(measured values replace it once the switches report them)"})


class TopologySchema(Strict):
    # Both required: a PUT without them (no body, {}) would otherwise replace the topology with an empty one.
    attachments = fields.Dict(keys=fields.String(validate=IDENT), values=fields.String(validate=IDENT),
                              required=True, metadata={"description": "agent_id -> pof device_id"})
    links = fields.List(fields.Nested(LinkSchema), required=True)
    egress = fields.Dict(keys=fields.String(validate=IDENT), values=Int(validate=validate.Range(0, 65535)),
                         load_default=dict, metadata={"description": "MEC device_id -> port toward the servers"})
    switch_latency_us = fields.Dict(keys=fields.String(validate=IDENT),
                                    values=Int(validate=validate.Range(0, 10_000_000)), load_default=dict,
                                    metadata={"description": "pof device_id -> estimated latency per pass, "
                                                             "microseconds (absent: the configured default)"})


class EventSchema(Schema):
    """One line of the event log, dumped from the Event record (models.py)."""

    id = fields.Integer()
    ts = UtcDateTime()
    level = fields.String()
    kind = fields.String()
    tenant_id = fields.Integer(allow_none=True)
    message = fields.String()


class EventListSchema(Schema):
    events = fields.List(fields.Nested(EventSchema))


class EventQuerySchema(Strict):
    limit = QueryInt(validate=validate.Range(min=1, max=1000), load_default=100)
    after = QueryInt(validate=validate.Range(min=0), load_default=0)


class OverviewSchema(Schema):
    tenants = fields.Integer()
    slices = fields.Dict()
    aps = fields.Integer()
    aps_connected = fields.Integer()
    vaps = fields.Integer()
    clients = fields.Integer()
    mec_nodes = fields.Integer()
    vnfs = fields.Integer()
    operations_active = fields.Integer()
    controllers_ok = fields.Boolean()
    controller_error = fields.String(allow_none=True)


class ControllerVapListSchema(Schema):
    vaps = fields.List(fields.Dict())


class ControllerVnfListSchema(Schema):
    vnfs = fields.List(fields.Dict())
