"""Firmware artifacts and staged rollouts (issue 18)."""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, ValidationError, fields, validate

from ..firmware import KINDS
from .base import IDENT_PATTERN, FullMatch, Int, Strict, UtcDateTime

# A firmware version as agents report it in their hello (e.g. 23.05.3-wislice1): one token, no spaces.
VERSION = [validate.Length(min=1, max=64),
           FullMatch(r"^[A-Za-z0-9][A-Za-z0-9._+~-]{0,63}$",
                     error="1-64 characters of A-Z a-z 0-9 . _ + ~ - (starting with a letter or digit)")]
MAX_APS = 1000


class FirmwareSchema(Schema):
    firmware_id = fields.Integer(attribute="id")
    version = fields.String()
    kind = fields.String(metadata={"enum": list(KINDS)})
    size = fields.Integer(metadata={"description": "bytes"})
    sha256 = fields.String()
    signature = fields.String(metadata={"description": "the usign signature file's text, as uploaded"})
    key_id = fields.String(metadata={"description": "hex id of the trusted key that verified it"})
    created_at = UtcDateTime()


class FirmwareListSchema(Schema):
    firmware = fields.List(fields.Nested(FirmwareSchema))


class FirmwareUploadSchema(Schema):
    """Documents the multipart body of POST /firmware (the view reads the parts itself, the file unbuffered
    into memory only once)."""

    file = fields.Raw(required=True, metadata={"type": "string", "format": "binary",
                                               "description": "the artifact: a sysupgrade image or a tar of .ipk "
                                                              "files (WISLICE_FIRMWARE_MAX_BYTES at most)"})
    version = fields.String(required=True, validate=VERSION)
    kind = fields.String(required=True, validate=validate.OneOf(KINDS))
    signature = fields.String(required=True, validate=validate.Length(min=1, max=512), metadata={
        "description": "usign signature of the file: 'untrusted comment: ...' and a base64 line (the .sig file)"})


class DownloadQuerySchema(Strict):
    token = fields.String(required=True, validate=validate.Length(min=1, max=128))


class ApsField(fields.Field):
    """"all" (every AP the WiFi controller knows when the rollout starts) or a list of distinct agent ids."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> Any:
        if value == "all":
            return value
        if not isinstance(value, list) or not 1 <= len(value) <= MAX_APS:
            raise ValidationError(f'"all" or a list of 1-{MAX_APS} agent ids')
        for item in value:
            if not isinstance(item, str) or not 1 <= len(item) <= 64 or IDENT_PATTERN.regex.fullmatch(item) is None:
                raise ValidationError(f"{str(item)[:70]!r} is not an agent id (1-64 characters of A-Z a-z 0-9 _ . : -,"
                                      " not starting with a dot)")
        if len(set(value)) != len(value):
            raise ValidationError("an agent id is listed twice")
        return value


class RolloutCreateSchema(Strict):
    firmware_id = Int(required=True, validate=validate.Range(min=1, max=2_147_483_647))
    aps = ApsField(required=True, metadata={"oneOf": [
        {"type": "string", "enum": ["all"]},
        {"type": "array", "minItems": 1, "maxItems": MAX_APS, "uniqueItems": True,
         "items": {"type": "string", "minLength": 1, "maxLength": 64, "pattern": IDENT_PATTERN.regex.pattern}}]})
    stage_size = Int(load_default=1, validate=validate.Range(min=1, max=MAX_APS),
                     metadata={"description": "APs in the first stage; the rest start once it ended"})
    parallel = Int(load_default=10, validate=validate.Range(min=1, max=MAX_APS),
                   metadata={"description": "APs upgrading at once after the first stage"})
    max_failures = Int(load_default=1, validate=validate.Range(min=1, max=MAX_APS),
                       metadata={"description": "halt once this many APs failed or rolled back"})
    timeout_s = Int(load_default=600, validate=validate.Range(min=30, max=86_400),
                    metadata={"description": "an AP not back on the new version in this time restores the old one"})
    retry_offline_s = Int(load_default=3600, validate=validate.Range(min=0, max=7 * 86_400),
                          metadata={"description": "an AP not connected is asked again until this long after it "
                                                   "was first found offline"})


class RolloutApSchema(Schema):
    agent_id = fields.String()
    stage = fields.Integer()
    state = fields.String(metadata={"description": "pending, offline (waiting), requested, downloading, "
                                                   "verifying, installing, restarting; ended: done, failed, "
                                                   "rolled_back, offline, skipped, not_started"})
    ended = fields.Function(lambda ap: ap.ended_at is not None, metadata={"type": "boolean"})
    reason = fields.String()
    from_version = fields.String(allow_none=True)
    attempts = fields.Integer()
    requested_at = UtcDateTime(allow_none=True)
    updated_at = UtcDateTime()


class RolloutSchema(Schema):
    rollout_id = fields.Integer(attribute="id")
    firmware_id = fields.Integer()
    version = fields.Function(lambda r: r.firmware.version, metadata={"type": "string"})
    status = fields.String(metadata={"description": "pending, running, finished, halted, cancelled"})
    reason = fields.String()
    stage_size = fields.Integer()
    parallel = fields.Integer()
    max_failures = fields.Integer()
    timeout_s = fields.Integer()
    retry_offline_s = fields.Integer()
    created_at = UtcDateTime()
    finished_at = UtcDateTime(allow_none=True, metadata={
        "description": "when no AP of it was upgrading or waiting any more"})
    counts = fields.Function(lambda r: _counts(r), metadata={"type": "object", "description": "APs per state",
                                                             "additionalProperties": {"type": "integer"}})


class RolloutDetailSchema(RolloutSchema):
    aps = fields.List(fields.Nested(RolloutApSchema))


def _counts(rollout: Any) -> dict[str, int]:
    counts: dict[str, int] = {}
    for ap in rollout.aps:
        counts[ap.state] = counts.get(ap.state, 0) + 1
    return counts


class RolloutListSchema(Schema):
    rollouts = fields.List(fields.Nested(RolloutSchema))
