"""Tenants, their quotas and tokens, and who-am-I."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from .base import NAME, Int, Real, Rounded, Strict, UtcDateTime


class QuotaSchema(Strict):
    """A tenant's quota (models.Quota) as the API takes and shows it."""

    slices = Int(validate=validate.Range(min=0, max=10_000), load_default=10)
    vaps = Int(validate=validate.Range(min=0, max=10_000), load_default=8)
    bandwidth_kbps = Int(validate=validate.Range(min=0, max=100_000_000), load_default=100_000)
    cpu = Real(validate=validate.Range(min=0, max=1024), load_default=4.0)
    memory_mib = Int(validate=validate.Range(min=0, max=16_777_216), load_default=4096)


class QuotaPatchSchema(Strict):
    slices = Int(validate=validate.Range(min=0, max=10_000))
    vaps = Int(validate=validate.Range(min=0, max=10_000))
    bandwidth_kbps = Int(validate=validate.Range(min=0, max=100_000_000))
    cpu = Real(validate=validate.Range(min=0, max=1024))
    memory_mib = Int(validate=validate.Range(min=0, max=16_777_216))


class TenantCreateSchema(Strict):
    tenant_id = Int(required=True, validate=validate.Range(min=1, max=65535),
                               metadata={"description": "16-bit tenant id carried by vAPs, vNF ids and slice tags"})
    name = fields.String(required=True, validate=NAME)
    quota = fields.Nested(QuotaSchema, load_default=lambda: QuotaSchema().load({}))


class TenantPatchSchema(Strict):
    quota = fields.Nested(QuotaPatchSchema, required=True)


class UsageSchema(Schema):
    """What a tenant holds now (admission.TenantUsage)."""

    slices = fields.Integer()
    vaps = fields.Integer()
    bandwidth_kbps = fields.Integer()
    cpu = Rounded(3)
    memory_mib = fields.Integer()


class TenantSchema(Schema):
    """A tenant as the API shows it, dumped from its record and its usage (api.common.TenantView)."""

    tenant_id = fields.Integer(attribute="id")
    name = fields.String()
    quota = fields.Nested(QuotaSchema)
    usage = fields.Nested(UsageSchema)
    created_at = UtcDateTime()


class TenantListSchema(Schema):
    tenants = fields.List(fields.Nested(TenantSchema))


# The longest lifetime the schema takes; the configured maximum (WISLICE_TOKEN_MAX_TTL_S) is checked by the view.
TTL_LIMIT_S = 366 * 24 * 3600


class TokenCreateSchema(Strict):
    name = fields.String(validate=NAME, load_default="token")
    ttl_s = Int(validate=validate.Range(min=60, max=TTL_LIMIT_S),
                metadata={"description": "lifetime in seconds; default WISLICE_TOKEN_TTL_S (tenant tokens) or "
                                         "WISLICE_OPERATOR_TOKEN_TTL_S (operator tokens), 24 h unless configured; "
                                         "more than WISLICE_TOKEN_MAX_TTL_S (30 days unless configured) is a 422"})


class TokenInfoSchema(Schema):
    """A token as listed: its record without the secret or any part of it (only the hash is stored)."""

    token_id = fields.Integer(attribute="id")
    role = fields.String()
    tenant_id = fields.Integer(allow_none=True)
    name = fields.String()
    created_at = UtcDateTime()
    expires_at = UtcDateTime(allow_none=True, metadata={"description": "null: the configured bootstrap operator "
                                                                       "token, valid until rotated or revoked"})
    revoked = fields.Boolean()
    revoked_at = UtcDateTime(allow_none=True)
    last_used_at = UtcDateTime(allow_none=True, metadata={"description": "to the minute; null: never used"})


class TokenSchema(TokenInfoSchema):
    """A token just issued: the listing's fields and the token itself, shown in this response only."""

    token = fields.String(metadata={"description": "shown once; only its hash is stored"})
    prefix = fields.String()


class TokenListSchema(Schema):
    tokens = fields.List(fields.Nested(TokenInfoSchema))


class WhoAmISchema(Schema):
    role = fields.String()
    tenant_id = fields.Integer(allow_none=True)
