"""A slice's requests (create, change, vAPs, vNFs, policies) and how a slice and its parts are shown."""

from __future__ import annotations

import ipaddress

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from ..bandwidth import bandwidth_errors
from .base import (
    IDENT,
    KBPS,
    LATENCY_CLASSES,
    MAX_BUDGET_US,
    NAME,
    RADIO,
    SECURITY_MODES,
    FullMatch,
    Int,
    Real,
    Strict,
    UtcDateTime,
    check_ssid,
    check_vnf_params,
    latency_budget_errors,
    params_field,
)

HANDOVER_POLICIES = ("best_effort", "steer_back")
HANDOVER_DESCRIPTION = (
    "what the orchestrator does when one of the slice's clients roams to another of its APs whose radio cannot hold "
    "the slice's guarantee with the guarantees already active there (an event handover_refused either way): "
    "best_effort keeps the station there with best effort (its guarantee is not held on that AP); steer_back steers "
    "it back to the AP it came from when that AP's radio holds it (else it stays, best effort). See "
    "docs/mobility.md, Re-admission on handover")
VNF_FOLLOW_DESCRIPTION = (
    "true: after a handover of the slice's clients, its vNF chain moves to the MEC node nearest (fewest wired links) "
    "the AP where most of its stations are, make-before-break (a new chain there, the slice's path switched to it, "
    "the old chain removed; events vnf_follow_started, vnf_followed, vnf_follow_failed); its vNFs are recreated, so "
    "a stateful vNF loses its state. Default false. See docs/mobility.md, The vNF follows")
HANDOVER_POLICY = validate.OneOf(HANDOVER_POLICIES, error="must be one of best_effort (the station stays, its "
                                 "guarantee not held) or steer_back (steered back to the AP it came from)")

BUDGET_DESCRIPTION = ("latency budget of the wired + MEC part in microseconds: required (> 0) for the latency classes "
                      "low and ultra_low, absent or null for best_effort (else 422)")


class SecuritySchema(Strict):
    mode = fields.String(required=True, validate=validate.OneOf(SECURITY_MODES))
    passphrase = fields.String(load_only=True, validate=validate.Length(min=8, max=64))

    @validates_schema
    def check_passphrase(self, data, **_kwargs):  # noqa: ANN001 - marshmallow hook signature
        phrase = data.get("passphrase")
        if data["mode"] == "open":
            if phrase is not None:
                raise ValidationError("an open vAP takes no passphrase", "passphrase")
            return
        if phrase is None:
            raise ValidationError(f"required for security mode {data['mode']}", "passphrase")
        is_hex = len(phrase) == 64 and all(c in "0123456789abcdefABCDEF" for c in phrase)
        if not is_hex and not (len(phrase) <= 63 and all(32 <= ord(c) <= 126 for c in phrase)):
            raise ValidationError("8-63 printable ASCII characters or 64 hex digits", "passphrase")


class VapRequestSchema(Strict):
    agent_id = fields.String(required=True, validate=IDENT, metadata={"description": "the AP (WiFi agent)"})
    radio = fields.String(validate=RADIO, load_default="phy0")
    ssid = fields.String(required=True, validate=[validate.Length(min=1, max=32), check_ssid], metadata={
        "description": "1-32 bytes of UTF-8, visible characters only; one network per SSID on an AP: an SSID (or "
                       "one that looks the same: case, width and spacing aside) already on the AP is a 409"})
    security = fields.Nested(SecuritySchema, load_default=lambda: {"mode": "open"})
    hidden = fields.Boolean(load_default=False)
    max_clients = Int(validate=validate.Range(min=1, max=2007), allow_none=True, load_default=None)


# An AP's agent_id (IDENT), or "*": every AP with room (vap_expand.py).
AP_OR_ALL = [validate.Length(min=1, max=64),
             FullMatch(r"^(\*|[A-Za-z0-9_:-][A-Za-z0-9_.:-]{0,63})$",
                       error="\"*\" or 1-64 characters of A-Z a-z 0-9 _ . : - (not starting with a dot)")]


class SliceVapRequestSchema(VapRequestSchema):
    """A vAP in a slice's create request: as VapRequestSchema, and agent_id may be "*" (every AP with room)."""

    agent_id = fields.String(required=True, validate=AP_OR_ALL, metadata={
        "description": "the AP (WiFi agent), or \"*\": this SSID, security, hidden and max_clients on every connected "
                       "AP that can take the slice's vAP (a free vAP slot, the slice's guarantees within the radio's "
                       "remaining guaranteed capacity, a wired route to the slice's MEC node: what admission checks "
                       "for each vAP), on the radio with most room (radio is then ignored); APs without room are "
                       "skipped and named in the slice's admitted event; none with room: 409 with every AP's reason. "
                       "Expanded once, at creation: the slice then has one vAP per AP as if they had been listed, "
                       "and APs connected later are not added. At most one \"*\" entry, and it takes no other "
                       "entry beside it (400)"})


class VnfRequestSchema(Strict):
    image = fields.String(required=True, validate=IDENT, metadata={"description": "catalog name, e.g. dpdk-fwd"})
    params = params_field()
    cpu = Real(validate=validate.Range(min=0.01, max=64), load_default=0.5)
    memory_mib = Int(validate=validate.Range(min=1, max=262_144), load_default=128)

    @validates_schema
    def check_params(self, data, **_kwargs):  # noqa: ANN001 - marshmallow hook signature
        check_vnf_params(data.get("params", {}))


class VnfAddSchema(VnfRequestSchema):
    position = Int(validate=validate.Range(min=0, max=7), load_default=None, metadata={
        "description": "where in the chain: 0 = the head (next to the wired path); left out = the end"})


class TranscoderSchema(Strict):
    bitrate_kbps = Int(required=True, validate=validate.Range(min=50, max=100_000),
                       metadata={"description": "the bitrate each stream is re-encoded at"})
    params = params_field(metadata={"description": "further catalog parameters of `transcoder`"})
    cpu = Real(validate=validate.Range(min=0.01, max=64), load_default=0.5)
    memory_mib = Int(validate=validate.Range(min=1, max=262_144), load_default=256)

    @validates_schema
    def check_params(self, data, **_kwargs):  # noqa: ANN001 - marshmallow hook signature
        check_vnf_params(data.get("params", {}))


POLICY_TYPES = ("transcode_on_overload",)


class PolicySchema(Strict):
    type = fields.String(required=True, validate=validate.OneOf(POLICY_TYPES), metadata={
        "description": "transcode_on_overload: when the slice's down demand (its clients x per_client_down_kbps) "
                       "exceeds its down guarantee for hold_s, deploy a transcoding vNF at the head of its chain "
                       "(placement picks the MEC node); remove it when the demand is within the guarantee for "
                       "release_s. Every action is an event (kind policy) with its reason."})
    per_client_down_kbps = Int(required=True, validate=validate.Range(min=1, max=10_000_000), metadata={
        "description": "the rate each client of the slice's service receives (e.g. the video bitrate)"})
    transcoder = fields.Nested(TranscoderSchema, required=True)
    hold_s = Real(validate=validate.Range(min=0, max=3600), load_default=4.0)
    release_s = Real(validate=validate.Range(min=0, max=86_400), load_default=20.0)


class PolicyStateSchema(Schema):
    state = fields.String(metadata={"description": "idle | overloaded | deploying | active | releasing | removing"})
    since = fields.Float(allow_none=True, metadata={"description": "epoch seconds the current condition began"})
    vnf_id = fields.Integer(allow_none=True, metadata={"description": "the vNF the policy deployed"})
    operation_id = fields.Integer(allow_none=True)
    retry_at = fields.Float(allow_none=True)
    reaction_s = fields.Float(allow_none=True, metadata={
        "description": "last deployment: seconds from the demand exceeding the guarantee to the vNF running"})
    reason = fields.String()


class PoliciesSchema(Strict):
    policies = fields.List(fields.Nested(PolicySchema), required=True, validate=validate.Length(max=4))


class BandwidthSchema(Strict):
    """A slice's bandwidth (bandwidth.Bandwidth) as the API takes and shows it."""

    down_guaranteed_kbps = Int(validate=KBPS, load_default=0)
    up_guaranteed_kbps = Int(validate=KBPS, load_default=0)
    down_cap_kbps = Int(validate=KBPS, load_default=0, metadata={"description": "0 = uncapped"})
    up_cap_kbps = Int(validate=KBPS, load_default=0, metadata={"description": "0 = uncapped"})

    @validates_schema
    def guarantee_within_cap(self, data, **_kwargs):  # noqa: ANN001 - marshmallow hook signature
        # The value class's own rules, so a body it would refuse is a 422 here, never a failure further on.
        errors = bandwidth_errors(data)
        if errors:
            raise ValidationError(errors)


class BandwidthPatchSchema(Strict):
    """Any of the four numbers; the ones left out keep the slice's current values."""

    down_guaranteed_kbps = Int(validate=KBPS)
    up_guaranteed_kbps = Int(validate=KBPS)
    down_cap_kbps = Int(validate=KBPS, metadata={"description": "0 = uncapped"})
    up_cap_kbps = Int(validate=KBPS, metadata={"description": "0 = uncapped"})


class SlicePatchSchema(Strict):
    bandwidth = fields.Nested(BandwidthPatchSchema, metadata={
        "description": "partial: merged onto the slice's current bandwidth; the result must keep each guarantee "
                       "within its non-zero cap (else 422)"})
    latency_class = fields.String(validate=validate.OneOf(LATENCY_CLASSES))
    latency_budget_us = Int(validate=validate.Range(min=1, max=MAX_BUDGET_US), allow_none=True, metadata={
        "description": BUDGET_DESCRIPTION + "; merged with latency_class onto the slice: a change to best_effort "
                       "drops the budget, a change to a latency class keeps the current one unless given"})
    handover_policy = fields.String(validate=HANDOVER_POLICY, metadata={
        "description": HANDOVER_DESCRIPTION + "; the orchestrator's own setting (nothing on the controllers): the "
                       "slice has it once the change is accepted"})
    vnf_follow = fields.Boolean(metadata={
        "description": VNF_FOLLOW_DESCRIPTION + "; the orchestrator's own setting, as handover_policy"})

    @validates_schema
    def something_to_change(self, data, **_kwargs):  # noqa: ANN001 - marshmallow hook signature
        own = {"latency_class", "latency_budget_us", "handover_policy", "vnf_follow"}
        if not data.get("bandwidth") and not own & data.keys():
            raise ValidationError("give bandwidth (at least one field), latency_class, latency_budget_us, "
                                  "handover_policy and/or vnf_follow")


class PendingChangeSchema(Schema):
    bandwidth = fields.Nested(BandwidthSchema)
    latency_class = fields.String()
    latency_budget_us = fields.Integer(allow_none=True)


PROBE_DESCRIPTION = (
    "in-band latency probes of a latency slice (issue 15): each of the slice's APs sends ICMP echo requests from "
    "source_ip to target_ip every interval_ms through the slice's own path (its flows, meters and queues), and the "
    "slice shows the round trips' p50/p99 against its budget (GET the slice's telemetry: latency). WiSlice does not "
    "run the tenant's IP plan: source_ip is the probe's own address in the tenant's station subnet (no station may "
    "use it), target_ip the far end that answers ping (the slice's first vNF's address, or a server behind it). "
    "Only for the latency classes low and ultra_low: a best_effort slice asking for one is a 400")


def _unicast(value: str) -> None:
    """An IPv4 unicast address in dotted decimal, as the ap-agent takes it (spec/agent VapSpec probe)."""
    try:
        ip = ipaddress.IPv4Address(value)
    except ValueError:
        raise ValidationError("an IPv4 address in dotted decimal (a.b.c.d)") from None
    if ip.is_unspecified or ip.is_multicast or ip.is_loopback or ip == ipaddress.IPv4Address("255.255.255.255"):
        raise ValidationError("a unicast address (not 0.0.0.0, 255.255.255.255, multicast or loopback)")


class ProbeSchema(Strict):
    source_ip = fields.String(required=True, validate=[validate.Length(min=7, max=15), _unicast], metadata={
        "description": "the probe's own address, in the tenant's station subnet (no station may use it)",
        "format": "ipv4"})
    target_ip = fields.String(required=True, validate=[validate.Length(min=7, max=15), _unicast], metadata={
        "description": "what answers the probes: the slice's first vNF or a server behind it", "format": "ipv4"})
    interval_ms = Int(validate=validate.Range(min=10, max=10_000), load_default=100,
                      metadata={"description": "ms between two probes"})

    @validates_schema
    def different(self, data, **_kwargs):  # noqa: ANN001 - marshmallow hook signature
        if data.get("source_ip") is not None and data.get("source_ip") == data.get("target_ip"):
            raise ValidationError("target_ip must differ from source_ip", "target_ip")


class SliceCreateSchema(Strict):
    name = fields.String(required=True, validate=NAME)
    bandwidth = fields.Nested(BandwidthSchema, load_default=lambda: BandwidthSchema().load({}))
    latency_class = fields.String(validate=validate.OneOf(LATENCY_CLASSES), load_default="best_effort")
    latency_budget_us = Int(validate=validate.Range(min=1, max=MAX_BUDGET_US), allow_none=True, load_default=None,
                            metadata={"description": BUDGET_DESCRIPTION})
    vaps = fields.List(fields.Nested(SliceVapRequestSchema), required=True, validate=validate.Length(min=1, max=16))
    vnfs = fields.List(fields.Nested(VnfRequestSchema), load_default=list, validate=validate.Length(max=8),
                       metadata={"description": "the service chain, in order"})
    mec_node = fields.String(validate=IDENT, allow_none=True, load_default=None,
                             metadata={"description": "pin the vNFs to this MEC node"})
    policies = fields.List(fields.Nested(PolicySchema), load_default=list, validate=validate.Length(max=4),
                           metadata={"description": "closed-loop assurance the orchestrator runs for the slice"})
    probe = fields.Nested(ProbeSchema, allow_none=True, load_default=None, metadata={"description": PROBE_DESCRIPTION})
    handover_policy = fields.String(validate=HANDOVER_POLICY, load_default="best_effort",
                                    metadata={"description": HANDOVER_DESCRIPTION})
    vnf_follow = fields.Boolean(load_default=False, metadata={"description": VNF_FOLLOW_DESCRIPTION})

    @validates_schema
    def budget_fits_class(self, data, **_kwargs):  # noqa: ANN001 - marshmallow hook signature
        bandwidth = data.get("bandwidth") or {}
        caps = (bandwidth.get("down_cap_kbps", 0), bandwidth.get("up_cap_kbps", 0))
        errors = latency_budget_errors(data.get("latency_class", "best_effort"), data.get("latency_budget_us"), caps)
        if errors:
            raise ValidationError(errors)


class VapSchema(Schema):
    vap_id = fields.String()
    agent_id = fields.String()
    radio = fields.String()
    ssid = fields.String()
    security_mode = fields.String()
    hidden = fields.Boolean()
    max_clients = fields.Integer(allow_none=True)
    state = fields.String()
    pof_port = fields.Integer(allow_none=True)


class VnfSchema(Schema):
    vnf_id = fields.Integer()
    address = fields.String()
    instance_id = fields.Integer()
    image = fields.String()
    params = fields.Dict()
    cpu = fields.Float()
    memory_mib = fields.Integer()
    chain_position = fields.Integer()
    node = fields.String(allow_none=True)
    state = fields.String()


class SliceSchema(Schema):
    """A slice as the API shows it, dumped from the Slice record (models.py)."""

    slice_id = fields.Integer(attribute="id")
    tenant_id = fields.Integer()
    name = fields.String()
    status = fields.String()
    status_reason = fields.String()
    bandwidth = fields.Nested(BandwidthSchema)
    latency_class = fields.String()
    latency_budget_us = fields.Integer(allow_none=True)
    pending_change = fields.Nested(PendingChangeSchema, allow_none=True, metadata={
        "description": "a change (PATCH) being applied; bandwidth and latency_class take it when it succeeds"})
    mec_node = fields.String(allow_none=True)
    tag = fields.Integer(allow_none=True)
    vaps = fields.List(fields.Nested(VapSchema))
    vnfs = fields.List(fields.Nested(VnfSchema))
    policies = fields.List(fields.Nested(PolicySchema))
    probe = fields.Nested(ProbeSchema, allow_none=True, metadata={
        "description": "the latency probes the slice asked for (null: none); its vAPs run them while it has a "
                       "latency class"})
    handover_policy = fields.String(metadata={"description": HANDOVER_DESCRIPTION})
    vnf_follow = fields.Boolean(metadata={"description": VNF_FOLLOW_DESCRIPTION})
    policy_state = fields.List(fields.Nested(PolicyStateSchema), metadata={
        "description": "the policy engine's state of each policy, in the same order"})
    created_at = UtcDateTime()


class SliceListSchema(Schema):
    slices = fields.List(fields.Nested(SliceSchema))


class VapListSchema(Schema):
    vaps = fields.List(fields.Nested(VapSchema))


class VnfListSchema(Schema):
    vnfs = fields.List(fields.Nested(VnfSchema))


class ClientSchema(Schema):
    mac = fields.String()
    vap_id = fields.String()
    agent_id = fields.String()
    signal_dbm = fields.Integer(allow_none=True)
    connected_s = fields.Integer()
    tx_bytes = fields.Integer()
    rx_bytes = fields.Integer()


class ClientListSchema(Schema):
    clients = fields.List(fields.Nested(ClientSchema))
