"""Request and response shapes (marshmallow); the OpenAPI document is generated from them."""

from __future__ import annotations

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

IDENT = validate.Regexp(r"^[A-Za-z0-9_.:-]{1,64}$", error="must match ^[A-Za-z0-9_.:-]{{1,64}}$")
NAME = validate.Regexp(r"^[A-Za-z0-9][A-Za-z0-9 _.-]{0,63}$",
                       error="1-64 characters: letters, digits, space, _ . - (starting with a letter or digit)")
MAC = validate.Regexp(r"^[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){5}$", error="must be a MAC address aa:bb:cc:dd:ee:ff")
KBPS = validate.Range(min=0, max=10_000_000)
LATENCY_CLASSES = ("best_effort", "low", "ultra_low")
SECURITY_MODES = ("open", "wpa2-psk", "wpa3-sae", "wpa2-wpa3")


class Strict(Schema):
    class Meta:
        # Unknown fields are errors: a typo in a request must not be silently dropped.
        unknown = "raise"


# --- problem+json -------------------------------------------------------------------------------------------
class ProblemSchema(Schema):
    type = fields.String(metadata={"description": "URI reference naming the problem type"})
    title = fields.String(required=True)
    status = fields.Integer(required=True)
    detail = fields.String()
    errors = fields.Raw(metadata={"description": "field errors or the list of reasons a request was refused"})


# --- tenants and tokens --------------------------------------------------------------------------------------
class QuotaSchema(Strict):
    slices = fields.Integer(validate=validate.Range(min=0, max=10_000), load_default=10)
    vaps = fields.Integer(validate=validate.Range(min=0, max=10_000), load_default=8)
    bandwidth_kbps = fields.Integer(validate=validate.Range(min=0, max=100_000_000), load_default=100_000)
    cpu = fields.Float(validate=validate.Range(min=0, max=1024), load_default=4.0)
    memory_mib = fields.Integer(validate=validate.Range(min=0, max=16_777_216), load_default=4096)


class QuotaPatchSchema(Strict):
    slices = fields.Integer(validate=validate.Range(min=0, max=10_000))
    vaps = fields.Integer(validate=validate.Range(min=0, max=10_000))
    bandwidth_kbps = fields.Integer(validate=validate.Range(min=0, max=100_000_000))
    cpu = fields.Float(validate=validate.Range(min=0, max=1024))
    memory_mib = fields.Integer(validate=validate.Range(min=0, max=16_777_216))


class TenantCreateSchema(Strict):
    tenant_id = fields.Integer(required=True, validate=validate.Range(min=1, max=65535),
                               metadata={"description": "16-bit tenant id carried by vAPs, vNF ids and slice tags"})
    name = fields.String(required=True, validate=NAME)
    quota = fields.Nested(QuotaSchema, load_default=lambda: QuotaSchema().load({}))


class TenantPatchSchema(Strict):
    quota = fields.Nested(QuotaPatchSchema, required=True)


class UsageSchema(Schema):
    slices = fields.Integer()
    vaps = fields.Integer()
    bandwidth_kbps = fields.Integer()
    cpu = fields.Float()
    memory_mib = fields.Integer()


class TenantSchema(Schema):
    tenant_id = fields.Integer()
    name = fields.String()
    quota = fields.Nested(QuotaSchema)
    usage = fields.Nested(UsageSchema)
    created_at = fields.DateTime()


class TenantListSchema(Schema):
    tenants = fields.List(fields.Nested(TenantSchema))


class TokenCreateSchema(Strict):
    name = fields.String(validate=NAME, load_default="token")


class TokenSchema(Schema):
    token = fields.String(metadata={"description": "shown once; only its hash is stored"})
    prefix = fields.String()
    role = fields.String()
    tenant_id = fields.Integer(allow_none=True)
    name = fields.String()


class WhoAmISchema(Schema):
    role = fields.String()
    tenant_id = fields.Integer(allow_none=True)


# --- slices -------------------------------------------------------------------------------------------------
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


def _check_ssid(value: str) -> None:
    if not 1 <= len(value.encode("utf-8")) <= 32:
        raise ValidationError("SSID must be 1-32 bytes of UTF-8")
    if any(ord(c) < 32 or ord(c) == 127 for c in value):
        raise ValidationError("SSID must not contain control characters")


class VapRequestSchema(Strict):
    agent_id = fields.String(required=True, validate=IDENT, metadata={"description": "the AP (WiFi agent)"})
    radio = fields.String(validate=IDENT, load_default="phy0")
    ssid = fields.String(required=True, validate=_check_ssid)
    security = fields.Nested(SecuritySchema, load_default=lambda: {"mode": "open"})
    hidden = fields.Boolean(load_default=False)
    max_clients = fields.Integer(validate=validate.Range(min=1, max=2007), allow_none=True, load_default=None)


def check_vnf_params(params: dict) -> None:
    """A vNF's catalog parameters are flat: strings (at most 256 characters), numbers or booleans."""
    for key, value in params.items():
        if isinstance(value, bool) or isinstance(value, int | float | str):
            if isinstance(value, str) and len(value) > 256:
                raise ValidationError(f"parameter {key!r}: at most 256 characters", "params")
            continue
        raise ValidationError(f"parameter {key!r} must be a string, number or boolean", "params")


class VnfRequestSchema(Strict):
    image = fields.String(required=True, validate=IDENT, metadata={"description": "catalog name, e.g. dpdk-fwd"})
    params = fields.Dict(keys=fields.String(validate=validate.Length(min=1, max=64)),
                         values=fields.Raw(), load_default=dict)
    cpu = fields.Float(validate=validate.Range(min=0.01, max=64), load_default=0.5)
    memory_mib = fields.Integer(validate=validate.Range(min=1, max=262_144), load_default=128)

    @validates_schema
    def check_params(self, data, **_kwargs):  # noqa: ANN001 - marshmallow hook signature
        check_vnf_params(data.get("params", {}))


class VnfAddSchema(VnfRequestSchema):
    position = fields.Integer(validate=validate.Range(min=0, max=7), load_default=None, metadata={
        "description": "where in the chain: 0 = the head (next to the wired path); left out = the end"})


class TranscoderSchema(Strict):
    bitrate_kbps = fields.Integer(required=True, validate=validate.Range(min=50, max=100_000),
                                  metadata={"description": "the bitrate each stream is re-encoded at"})
    params = fields.Dict(keys=fields.String(validate=validate.Length(min=1, max=64)), values=fields.Raw(),
                         load_default=dict, metadata={"description": "further catalog parameters of `transcoder`"})
    cpu = fields.Float(validate=validate.Range(min=0.01, max=64), load_default=0.5)
    memory_mib = fields.Integer(validate=validate.Range(min=1, max=262_144), load_default=256)

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
    per_client_down_kbps = fields.Integer(required=True, validate=validate.Range(min=1, max=10_000_000), metadata={
        "description": "the rate each client of the slice's service receives (e.g. the video bitrate)"})
    transcoder = fields.Nested(TranscoderSchema, required=True)
    hold_s = fields.Float(validate=validate.Range(min=0, max=3600), load_default=4.0)
    release_s = fields.Float(validate=validate.Range(min=0, max=86_400), load_default=20.0)


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


def bandwidth_errors(data: dict) -> dict[str, list[str]]:
    """A guarantee above its non-zero cap, per field (empty when the bandwidth is consistent)."""
    errors = {}
    for way in ("down", "up"):
        cap, floor = data.get(f"{way}_cap_kbps", 0), data.get(f"{way}_guaranteed_kbps", 0)
        if cap and floor > cap:
            errors[f"{way}_guaranteed_kbps"] = [f"{way} guarantee {floor} kbps is above its cap {cap} kbps"]
    return errors


class BandwidthSchema(Strict):
    down_guaranteed_kbps = fields.Integer(validate=KBPS, load_default=0)
    up_guaranteed_kbps = fields.Integer(validate=KBPS, load_default=0)
    down_cap_kbps = fields.Integer(validate=KBPS, load_default=0, metadata={"description": "0 = uncapped"})
    up_cap_kbps = fields.Integer(validate=KBPS, load_default=0, metadata={"description": "0 = uncapped"})

    @validates_schema
    def guarantee_within_cap(self, data, **_kwargs):  # noqa: ANN001 - marshmallow hook signature
        errors = bandwidth_errors(data)
        if errors:
            raise ValidationError(errors)


class BandwidthPatchSchema(Strict):
    """Any of the four numbers; the ones left out keep the slice's current values."""

    down_guaranteed_kbps = fields.Integer(validate=KBPS)
    up_guaranteed_kbps = fields.Integer(validate=KBPS)
    down_cap_kbps = fields.Integer(validate=KBPS, metadata={"description": "0 = uncapped"})
    up_cap_kbps = fields.Integer(validate=KBPS, metadata={"description": "0 = uncapped"})


class SlicePatchSchema(Strict):
    bandwidth = fields.Nested(BandwidthPatchSchema, metadata={
        "description": "partial: merged onto the slice's current bandwidth; the result must keep each guarantee "
                       "within its non-zero cap (else 422)"})
    latency_class = fields.String(validate=validate.OneOf(LATENCY_CLASSES))

    @validates_schema
    def something_to_change(self, data, **_kwargs):  # noqa: ANN001 - marshmallow hook signature
        if not data.get("bandwidth") and "latency_class" not in data:
            raise ValidationError("give bandwidth (at least one field) and/or latency_class")


class PendingChangeSchema(Schema):
    bandwidth = fields.Nested(BandwidthSchema)
    latency_class = fields.String()


class SliceCreateSchema(Strict):
    name = fields.String(required=True, validate=NAME)
    bandwidth = fields.Nested(BandwidthSchema, load_default=lambda: BandwidthSchema().load({}))
    latency_class = fields.String(validate=validate.OneOf(LATENCY_CLASSES), load_default="best_effort")
    vaps = fields.List(fields.Nested(VapRequestSchema), required=True, validate=validate.Length(min=1, max=16))
    vnfs = fields.List(fields.Nested(VnfRequestSchema), load_default=list, validate=validate.Length(max=8),
                       metadata={"description": "the service chain, in order"})
    mec_node = fields.String(validate=IDENT, allow_none=True, load_default=None,
                             metadata={"description": "pin the vNFs to this MEC node"})
    policies = fields.List(fields.Nested(PolicySchema), load_default=list, validate=validate.Length(max=4),
                           metadata={"description": "closed-loop assurance the orchestrator runs for the slice"})


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
    pending_change = fields.Nested(PendingChangeSchema, allow_none=True, metadata={
        "description": "a change (PATCH) being applied; bandwidth and latency_class take it when it succeeds"})
    mec_node = fields.String(allow_none=True)
    tag = fields.Integer(allow_none=True)
    vaps = fields.List(fields.Nested(VapSchema))
    vnfs = fields.List(fields.Nested(VnfSchema))
    policies = fields.List(fields.Nested(PolicySchema))
    policy_state = fields.List(fields.Nested(PolicyStateSchema), metadata={
        "description": "the policy engine's state of each policy, in the same order"})
    created_at = fields.DateTime()


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
    since = fields.Float(validate=validate.Range(min=0), load_default=0.0,
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


# --- operations ---------------------------------------------------------------------------------------------
class StepSchema(Schema):
    kind = fields.String()
    ref = fields.Dict()
    state = fields.String()
    error = fields.String(allow_none=True)
    started_at = fields.Float(metadata={"description": "epoch seconds when the step began"})
    seconds = fields.Float(metadata={"description": "how long the step took"})


class OperationSchema(Schema):
    operation_id = fields.Integer()
    kind = fields.String()
    tenant_id = fields.Integer()
    slice_id = fields.Integer(allow_none=True)
    status = fields.String()
    progress = fields.Float(metadata={"description": "0..1, steps done / steps"})
    steps = fields.List(fields.Nested(StepSchema))
    error = fields.String()
    created_at = fields.DateTime()
    finished_at = fields.DateTime(allow_none=True)


class OperationListSchema(Schema):
    operations = fields.List(fields.Nested(OperationSchema))


# --- infrastructure -----------------------------------------------------------------------------------------
class ChannelSchema(Strict):
    channel = fields.Integer(required=True, validate=validate.Range(min=1, max=196))


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
    a_port = fields.Integer(required=True, validate=validate.Range(min=0, max=65535))
    b = fields.String(required=True, validate=IDENT)
    b_port = fields.Integer(required=True, validate=validate.Range(min=0, max=65535))
    capacity_kbps = fields.Integer(required=True, validate=validate.Range(min=1, max=400_000_000))


class TopologySchema(Strict):
    attachments = fields.Dict(keys=fields.String(validate=IDENT), values=fields.String(validate=IDENT),
                              load_default=dict, metadata={"description": "agent_id -> pof device_id"})
    links = fields.List(fields.Nested(LinkSchema), load_default=list)
    egress = fields.Dict(keys=fields.String(validate=IDENT), values=fields.Integer(validate=validate.Range(0, 65535)),
                         load_default=dict, metadata={"description": "MEC device_id -> port toward the servers"})


class EventSchema(Schema):
    id = fields.Integer()
    ts = fields.DateTime()
    level = fields.String()
    kind = fields.String()
    tenant_id = fields.Integer(allow_none=True)
    message = fields.String()


class EventListSchema(Schema):
    events = fields.List(fields.Nested(EventSchema))


class EventQuerySchema(Strict):
    limit = fields.Integer(validate=validate.Range(min=1, max=1000), load_default=100)
    after = fields.Integer(validate=validate.Range(min=0), load_default=0)


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
