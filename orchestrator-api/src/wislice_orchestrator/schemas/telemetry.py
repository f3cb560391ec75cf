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


class VapLatencySchema(Schema):
    agent_id = fields.String()
    vap_id = fields.String()
    p50_us = fields.Integer(allow_none=True, metadata={
        "description": "median probe round trip over the AP's latest samples (us); null until its AP reported one"})
    p99_us = fields.Integer(allow_none=True)
    lost = fields.Integer(allow_none=True, metadata={"description": "probes without a reply within 1 s"})
    samples = fields.Integer(allow_none=True, metadata={
        "description": "round trips the percentiles are over (0: none yet, e.g. while the next hop's ARP is out)"})
    updated = fields.Float(allow_none=True, metadata={
        "description": "time of the AP's stats event that carried these numbers (the AP's clock, epoch s)"})


class SliceLatencySchema(Schema):
    budget_us = fields.Integer(metadata={"description": "the slice's latency budget (wired + MEC part)"})
    worst_p99_us = fields.Integer(allow_none=True, metadata={
        "description": "the largest p99 over the slice's vAPs with samples; null while none has"})
    budget_broken = fields.Boolean(metadata={
        "description": "worst_p99_us exceeded the budget for 3 samples in a row (a sample: a newer report from "
                       "an AP), and has not been within it for 3 samples in a row since"})
    since = fields.Float(allow_none=True, metadata={"description": "poll time budget_broken last changed"})
    vaps = fields.List(fields.Nested(VapLatencySchema))


class SliceTelemetrySchema(Schema):
    slice_id = fields.Integer()
    interval_s = fields.Float(metadata={"description": "the collector's poll interval"})
    points = fields.List(fields.Nested(TelemetryPointSchema))
    clients = fields.Dict(keys=fields.String(), values=fields.List(fields.Nested(ClientPointSchema)),
                          metadata={"description": "client MAC -> its points"})
    latency = fields.Nested(SliceLatencySchema, metadata={
        "description": "a latency slice with probes (its request's `probe`): its measured latency at the last "
                       "poll; absent for the other slices"})
