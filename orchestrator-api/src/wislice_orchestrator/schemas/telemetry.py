"""A slice's live statistics and telemetry series."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from .base import QueryReal, Strict


class VapRateSchema(Schema):
    vap_id = fields.String()
    tx_bps = fields.Integer()
    rx_bps = fields.Integer()
    clients = fields.Integer()


class SliceStatsSchema(Schema):
    slice_id = fields.Integer()
    ts = fields.Float()
    tx_bps = fields.Integer(metadata={"description": "sum over the slice's vAPs (AP -> clients)"})
    rx_bps = fields.Integer()
    clients = fields.Integer()
    vaps = fields.List(fields.Nested(VapRateSchema))
    vnfs = fields.List(fields.Dict())
    errors = fields.List(fields.String())


class TelemetryQuerySchema(Strict):
    since = QueryReal(validate=validate.Range(min=0), load_default=0.0,
                         metadata={"description": "only points later than this (epoch seconds); 0 = all kept"})


class TelemetryPointSchema(Schema):
    ts = fields.Float(metadata={"description": "epoch seconds of the poll"})
    down_bps = fields.Integer(allow_none=True, metadata={
        "description": "sum over the slice's vAPs, towards the stations; null = the controllers did not answer"})
    up_bps = fields.Integer(allow_none=True)
    clients = fields.Integer(allow_none=True)
    guaranteed_down_kbps = fields.Integer()
    guaranteed_up_kbps = fields.Integer()


class ClientPointSchema(Schema):
    ts = fields.Float()
    down_bps = fields.Integer(allow_none=True, metadata={
        "description": "as the client's ap-agent measures it over its last stats interval (no point at the "
                       "client's first report or after a new association)"})
    up_bps = fields.Integer(allow_none=True)


class SliceTelemetrySchema(Schema):
    slice_id = fields.Integer()
    interval_s = fields.Float(metadata={"description": "the collector's poll interval"})
    points = fields.List(fields.Nested(TelemetryPointSchema))
    clients = fields.Dict(keys=fields.String(), values=fields.List(fields.Nested(ClientPointSchema)),
                          metadata={"description": "client MAC -> its points"})
