"""Validation of agent-protocol messages against spec/agent/schema/message.schema.json (by the stdlib validator in
schema.py), plus the one rule the schema leaves to implementations: an SSID is 1-32 bytes once UTF-8 encoded.

Every value that can reach a hostapd config file, a control command or the switch passes through here first. The
schema is read from beside this module when installed (the OpenWrt package, the AP VM) or else from the source
tree's spec/agent/schema/. Constants (patterns, limits, enumerations) come from the schema too.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from .schema import Schema, ValidationError, is_integer

SCHEMA_FILE = "message.schema.json"


def schema_path() -> Path:
    here = Path(__file__).resolve().parent
    for candidate in (here / SCHEMA_FILE, here.parents[2] / "spec" / "agent" / "schema" / SCHEMA_FILE):
        if candidate.is_file():
            return candidate
    raise FileNotFoundError(f"{SCHEMA_FILE} is neither beside {here} nor in the source tree's spec/agent/schema")


def _ssid_bytes(v: str, path: str) -> None:
    """The schema counts characters; hostapd takes 1-32 bytes."""
    size = len(v.encode("utf-8"))
    if not 1 <= size <= 32:
        raise ValidationError(path, f"SSID must be 1-32 bytes as UTF-8, got {size}")


SCHEMA = Schema(json.loads(schema_path().read_text(encoding="utf-8")), refinements={"#/$defs/ssid": _ssid_bytes})


def _message_type(name: str) -> dict[str, Any]:
    """The alternative of the schema's top-level oneOf for messages of this type."""
    for alt in SCHEMA.doc["oneOf"]:
        tag = alt["properties"]["type"]
        if tag.get("const") == name or name in tag.get("enum", ()):
            return alt
    raise KeyError(name)


def _event_data(name: str) -> dict[str, Any]:
    """The schema of an event's data."""
    for rule in _message_type("event")["allOf"]:
        if rule["if"]["properties"]["event"]["const"] == name:
            return rule["then"]["properties"]["data"]
    raise KeyError(name)


METHODS: tuple[str, ...] = tuple(_message_type("request")["properties"]["method"]["enum"])
EVENTS: tuple[str, ...] = tuple(_message_type("event")["properties"]["event"]["enum"])
ERROR_CODES: tuple[str, ...] = tuple(_message_type("reply")["properties"]["error"]["properties"]["code"]["enum"])
MAX_ID: int = _message_type("request")["properties"]["id"]["maximum"]
SECURITY_MODES: tuple[str, ...] = tuple(SCHEMA.resolve("#/$defs/security/properties/mode/enum"))
MAX_KBPS: int = SCHEMA.resolve("#/$defs/rateLimit/properties/down_kbps/maximum")
MAX_STATS_CLIENTS: int = _event_data("stats")["properties"]["clients"]["maxItems"]
IDENT = SCHEMA.regex("#/$defs/ident")
MAC = SCHEMA.regex("#/$defs/mac")
IFNAME = SCHEMA.regex("#/$defs/vapState/properties/ifname")
HEX64 = SCHEMA.regex("#/$defs/security/properties/passphrase/anyOf/1")


class UnknownMethod(ValidationError):
    """A request for a method the protocol does not have (answered unknown_method rather than bad_request)."""


def message(m: Any) -> dict[str, Any]:
    """Validate one decoded protocol message; raises ValidationError (UnknownMethod for a method not in the
    protocol)."""
    if not isinstance(m, dict):
        raise ValidationError("", "a message must be a JSON object")
    if m.get("type") == "request" and not any(m.get("method") == name for name in METHODS):
        raise UnknownMethod("method", f"unknown method {str(m.get('method'))[:64]!r}")
    return SCHEMA.check(m)


# ---- parts of messages, by their schema definitions --------------------------------------------------------------


def vap_spec(v: Any, path: str = "vap") -> dict[str, Any]:
    return SCHEMA.check(v, "#/$defs/vapSpec", path)


def vap_state(v: Any, path: str = "vap") -> dict[str, Any]:
    return SCHEMA.check(v, "#/$defs/vapState", path)


def radio(v: Any, path: str = "radio") -> dict[str, Any]:
    return SCHEMA.check(v, "#/$defs/radio", path)


def rate_limit(v: Any, path: str = "rate_limit") -> dict[str, Any]:
    return SCHEMA.check(v, "#/$defs/rateLimit", path)


def ssid(v: Any, path: str = "ssid") -> str:
    return SCHEMA.check(v, "#/$defs/ssid", path)


def passphrase(v: Any, path: str = "passphrase") -> str:
    return SCHEMA.check(v, "#/$defs/security/properties/passphrase", path)


def ident(v: Any, path: str) -> str:
    return SCHEMA.check(v, "#/$defs/ident", path)


def mac(v: Any, path: str) -> str:
    return SCHEMA.check(v, "#/$defs/mac", path)


def rate_semantics(v: dict[str, Any], path: str = "rate_limit") -> dict[str, Any]:
    """The check the schema cannot express: a guarantee above a non-zero cap (agents answer bad_request)."""
    for direction in ("down", "up"):
        cap, guaranteed = v[f"{direction}_kbps"], v.get(f"{direction}_guaranteed_kbps", 0)
        if cap and guaranteed > cap:
            raise ValidationError(f"{path}.{direction}_guaranteed_kbps",
                                  f"guarantee {guaranteed} kbit/s above the cap of {cap} kbit/s")
    return v


# ---- the same checks for values outside messages (config files, netdev and port names) ---------------------------


def integer(v: Any, path: str, lo: int, hi: int) -> int:
    if not is_integer(v):
        raise ValidationError(path, "must be an integer")
    if not lo <= v <= hi:
        raise ValidationError(path, f"must be between {lo} and {hi}")
    return v


def string(v: Any, path: str, pattern: re.Pattern[str] | None = None, max_len: int | None = None) -> str:
    """A string, at most max_len characters, matching pattern (a Python regex: anchor it with \\Z)."""
    if not isinstance(v, str):
        raise ValidationError(path, "must be a string")
    if max_len is not None and len(v) > max_len:
        raise ValidationError(path, f"longer than {max_len} characters")
    if pattern is not None and not pattern.match(v):
        raise ValidationError(path, f"{v[:80]!r} is not allowed here (pattern {pattern.pattern})")
    return v


def enum(v: Any, path: str, values: tuple[Any, ...]) -> Any:
    if isinstance(v, bool) or v not in values:
        raise ValidationError(path, f"must be one of {', '.join(map(str, values))}")
    return v

