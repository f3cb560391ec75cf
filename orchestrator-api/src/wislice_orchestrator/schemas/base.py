"""What every schema module shares: the identifier patterns, strict request schemas, problem+json."""

from __future__ import annotations

import datetime as dt
import math
import re
import unicodedata
from typing import Any

from marshmallow import Schema, ValidationError, fields, validate


class FullMatch(validate.Regexp):
    """The whole value must match. marshmallow's Regexp uses re.match, and Python's `$` also matches before a final
    newline, so "name\n" passed ^...$. The pattern keeps its ^...$ for the OpenAPI document (ECMA-262, where $ is
    the end of the string)."""

    def __call__(self, value: str) -> str:
        if self.regex.fullmatch(value) is None:
            raise ValidationError(self._format_error(value))
        return value


# Identifiers travel into controller URLs as path segments (agents, radios): never '.' or '..', which a URL
# resolves as a path step, so never a leading dot.
# Each with its length as a rule of its own, so the OpenAPI document states it (minLength/maxLength).
IDENT_PATTERN = FullMatch(r"^[A-Za-z0-9_:-][A-Za-z0-9_.:-]{0,63}$",
                          error="1-64 characters of A-Z a-z 0-9 _ . : - (not starting with a dot)")
IDENT = [validate.Length(min=1, max=64), IDENT_PATTERN]
# A radio's name as the database keeps it (32 characters).
RADIO = [validate.Length(min=1, max=32), IDENT_PATTERN]
NAME = [validate.Length(min=1, max=64),
        FullMatch(r"^[A-Za-z0-9][A-Za-z0-9 _.-]{0,63}$",
                  error="1-64 characters: letters, digits, space, _ . - (starting with a letter or digit)")]
MAC = FullMatch(r"^[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){5}$", error="must be a MAC address aa:bb:cc:dd:ee:ff")
KBPS = validate.Range(min=0, max=10_000_000)
LATENCY_CLASSES = ("best_effort", "low", "ultra_low")
# The classes whose traffic the switches queue first; each needs a latency budget (latency_budget_us).
PRIORITY_CLASSES = ("low", "ultra_low")
MAX_BUDGET_US = 10_000_000


def latency_budget_errors(latency_class: str, budget_us: int | None, caps: tuple[int, int]) -> dict[str, str]:
    """A class, budget and (down, up) caps that belong together: a latency class needs a budget and a cap each way
    (the switches queue its traffic first: the cap is what keeps it from starving the other slices, and pof-switch
    refuses an uncapped latency meter), best effort has no budget. Shared by the create schema and PATCH (which
    merges the change onto the slice before checking), so both say the same."""
    if latency_class in PRIORITY_CLASSES and 0 in caps:
        return {"bandwidth": f"latency class {latency_class} needs a down and an up cap (cap_kbps > 0): its "
                             "traffic is queued first, the cap keeps it from starving the other slices"}
    if latency_class in PRIORITY_CLASSES and budget_us is None:
        return {"latency_budget_us": f"required for latency class {latency_class}: the wired + MEC part's budget "
                                     "in microseconds (> 0)"}
    if latency_class not in PRIORITY_CLASSES and budget_us is not None:
        return {"latency_budget_us": f"latency class {latency_class} has no budget: leave it out or null"}
    return {}
SECURITY_MODES = ("open", "wpa2-psk", "wpa3-sae", "wpa2-wpa3")


class Int(fields.Integer):
    """A JSON integer as written: 1.5, 1.0, 1e-42, "5" and true are refused. marshmallow's Integer truncates floats
    unless strict (tenant_id 1.5 became 1, a quota of 1e-42 became 0)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(strict=True, **kwargs)


class Real(fields.Float):
    """A finite JSON number (an integer or a float); a string such as "0.5" is refused, not converted."""

    def _validated(self, value: Any) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.make_error("invalid")
        return super()._validated(value)


class QueryInt(fields.Integer):
    """An integer in a query string: ASCII digits only (int() also takes "\u0663", " 5", "+5" and "1_0")."""

    def _validated(self, value: Any) -> int:
        if isinstance(value, str) and re.fullmatch(r"[0-9]{1,19}", value) is None:
            raise self.make_error("invalid")
        return super()._validated(value)


class QueryReal(fields.Float):
    """A finite decimal number in a query string, ASCII only (float() also takes "\u0663", "1_0" and " 5")."""

    def _validated(self, value: Any) -> float:
        if isinstance(value, str) and re.fullmatch(r"[0-9]{1,20}(\.[0-9]{1,20})?", value) is None:
            raise self.make_error("invalid")
        return super()._validated(value)


class Rounded(fields.Float):
    """A number shown to `places` decimals (a share of steps, a sum of fractional CPUs), so float noise such as
    0.30000000000000004 never reaches a client."""

    def __init__(self, places: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.places = places

    def _serialize(self, value: Any, attr: str | None, obj: Any, **kwargs: Any) -> float | None:
        number = super()._serialize(value, attr, obj, **kwargs)
        return None if number is None else round(number, self.places)


class UtcDateTime(fields.DateTime):
    """A time as RFC 3339 with its UTC offset (2024-05-01T12:00:00.5+00:00). The database keeps naive UTC times
    (models.utcnow), which marshmallow sent without any offset: a client would read them as its own local time."""

    def _serialize(self, value: Any, attr: str | None, obj: Any, **kwargs: Any) -> Any:
        if isinstance(value, dt.datetime) and value.tzinfo is None:
            value = value.replace(tzinfo=dt.UTC)
        return super()._serialize(value, attr, obj, **kwargs)


def invisible(char: str) -> bool:
    """A character that is not visible text: controls (C0, DEL, C1), format characters (bidirectional overrides,
    zero-width spaces and joiners, BOM), lone surrogates, private-use and unassigned code points (Unicode category
    C*), and line and paragraph separators. Such characters let one string pass for another on a screen, or break
    the line-oriented files they end up in."""
    category = unicodedata.category(char)
    return category[0] == "C" or category in ("Zl", "Zp")


def check_text(value: str, what: str) -> None:
    """Refuse invisible characters (above), naming the first."""
    bad = next((c for c in value if invisible(c)), None)
    if bad is not None:
        raise ValidationError(f"{what} must not contain U+{ord(bad):04X} ({unicodedata.category(bad)}): no control, "
                              "format, surrogate, private-use or unassigned characters, no line separators")


def check_ssid(value: str) -> None:
    check_text(value, "SSID")  # first: a lone surrogate cannot even be encoded to count its bytes
    if not 1 <= len(value.encode("utf-8")) <= 32:
        raise ValidationError("SSID must be 1-32 bytes of UTF-8")


# A vNF's catalog parameters, as the mec-agent takes them (mec-agent spec.py: at most 64, names [A-Za-z0-9_]{1,64},
# single-line strings); names here must also start with a letter or _, like the identifiers they become
# (the agent writes them as P_<name>=<value> lines).
MAX_PARAMS = 64
PARAM_NAME = FullMatch(r"^[A-Za-z_][A-Za-z0-9_]{0,63}$", error="a parameter name must match {regex}")
MAX_PARAM_TEXT = 256
MAX_PARAM_INT = 2**63 - 1


def check_vnf_params(params: dict[str, Any]) -> None:
    """A vNF's params are flat: at most 64, identifier names, values single-line strings (at most 256 characters),
    finite numbers (integers within 64 bits) or booleans."""
    if len(params) > MAX_PARAMS:
        raise ValidationError(f"{len(params)} parameters: at most {MAX_PARAMS}", "params")
    for key, value in params.items():
        if not isinstance(key, str) or PARAM_NAME.regex.fullmatch(key) is None:
            raise ValidationError(f"parameter name {key!r} must match {PARAM_NAME.regex.pattern}", "params")
        if isinstance(value, bool):
            continue
        if isinstance(value, str):
            if len(value) > MAX_PARAM_TEXT:
                raise ValidationError(f"parameter {key!r}: at most {MAX_PARAM_TEXT} characters", "params")
            check_text(value, f"parameter {key!r}")
        elif isinstance(value, int):
            if abs(value) > MAX_PARAM_INT:
                raise ValidationError(f"parameter {key!r}: an integer within 64 bits", "params")
        elif isinstance(value, float):
            if not math.isfinite(value):
                raise ValidationError(f"parameter {key!r} must be finite", "params")
        else:
            raise ValidationError(f"parameter {key!r} must be a string, number or boolean", "params")


def params_field(**kwargs: Any) -> fields.Dict:
    """A vNF's params (checked by check_vnf_params in the schema's own hook, which can name the parameter)."""
    return fields.Dict(keys=fields.String(validate=[validate.Length(min=1, max=64), PARAM_NAME]), values=fields.Raw(),
                       load_default=dict, metadata={"maxProperties": MAX_PARAMS, **kwargs.pop("metadata", {})},
                       **kwargs)


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

