"""Stdlib validator of agent-protocol messages: the same rules as spec/agent/schema/message.schema.json, checked
by hand so the agent runs without jsonschema (OpenWrt). Every value that can reach a hostapd config file or control
command passes through here first; anything unknown is refused, with the path of the offending field.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

IDENT = re.compile(r"^[A-Za-z0-9_.:-]{1,64}\Z")
MAC = re.compile(r"^[0-9a-f]{2}(:[0-9a-f]{2}){5}\Z")
IFNAME = re.compile(r"^[A-Za-z0-9_.-]{1,15}\Z")
PARAM_NAME = re.compile(r"^[A-Za-z0-9_]{1,64}\Z")
HEX64 = re.compile(r"^[0-9a-fA-F]{64}\Z")
HEX32_LOWER = re.compile(r"^[0-9a-f]{32}\Z")
HEX64_LOWER = re.compile(r"^[0-9a-f]{64}\Z")
CONTROL_CHARS = re.compile(r"[\x00-\x1f\x7f]")
MAX_ID = 9007199254740991
SECURITY_MODES = ("open", "wpa2-psk", "wpa3-sae", "wpa2-wpa3")
MAX_STATS_CLIENTS = 2048  # a stats event's clients
ERROR_CODES = ("bad_request", "unknown_method", "not_found", "conflict", "capacity", "unsupported", "internal")


class ValidationError(ValueError):
    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}" if path else message)
        self.path = path


# ---- primitives ---------------------------------------------------------------------------------------------


def obj(v: Any, path: str, required: tuple[str, ...], optional: tuple[str, ...] = ()) -> dict[str, Any]:
    if not isinstance(v, dict):
        raise ValidationError(path, "must be an object")
    for key in required:
        if key not in v:
            raise ValidationError(path, f"missing field {key!r}")
    allowed = set(required) | set(optional)
    for key in v:
        if key not in allowed:
            raise ValidationError(path, f"unknown field {key!r}")
    return v


def integer(v: Any, path: str, lo: int, hi: int) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise ValidationError(path, "must be an integer")
    if not lo <= v <= hi:
        raise ValidationError(path, f"must be between {lo} and {hi}")
    return v


def number(v: Any, path: str, lo: float = 0.0, hi: float | None = None, exclusive_lo: bool = False) -> float:
    if isinstance(v, bool) or not isinstance(v, int | float) or v != v:
        raise ValidationError(path, "must be a number")
    if v < lo or (exclusive_lo and v == lo) or (hi is not None and v > hi):
        raise ValidationError(path, "out of range")
    return v


def boolean(v: Any, path: str) -> bool:
    if not isinstance(v, bool):
        raise ValidationError(path, "must be true or false")
    return v


def string(v: Any, path: str, pattern: re.Pattern[str] | None = None, max_len: int | None = None) -> str:
    if not isinstance(v, str):
        raise ValidationError(path, "must be a string")
    if max_len is not None and len(v) > max_len:
        raise ValidationError(path, f"longer than {max_len} characters")
    if pattern is not None and not pattern.match(v):
        raise ValidationError(path, f"{v[:80]!r} is not allowed here (pattern {pattern.pattern})")
    return v


def ident(v: Any, path: str) -> str:
    return string(v, path, IDENT)


def mac(v: Any, path: str) -> str:
    return string(v, path, MAC)


def enum(v: Any, path: str, values: tuple[Any, ...]) -> Any:
    if isinstance(v, bool) or v not in values:
        raise ValidationError(path, f"must be one of {', '.join(map(str, values))}")
    return v


def array(v: Any, path: str, item: Callable[[Any, str], Any], max_items: int | None = None) -> list[Any]:
    if not isinstance(v, list):
        raise ValidationError(path, "must be an array")
    if max_items is not None and len(v) > max_items:
        raise ValidationError(path, f"more than {max_items} items")
    for i, x in enumerate(v):
        item(x, f"{path}[{i}]")
    return v


def nullable(check: Callable[..., Any]) -> Callable[..., Any]:
    def inner(v: Any, path: str, *a: Any) -> Any:
        return None if v is None else check(v, path, *a)

    return inner


# ---- WiFi values (these reach hostapd) ----------------------------------------------------------------------


def ssid(v: Any, path: str = "ssid") -> str:
    if not isinstance(v, str):
        raise ValidationError(path, "must be a string")
    if CONTROL_CHARS.search(v):
        raise ValidationError(path, "SSID contains a control character or newline")
    size = len(v.encode("utf-8"))
    if not 1 <= size <= 32:
        raise ValidationError(path, f"SSID must be 1-32 bytes as UTF-8, got {size}")
    return v


def passphrase(v: Any, path: str = "passphrase") -> str:
    if not isinstance(v, str):
        raise ValidationError(path, "must be a string")
    if HEX64.match(v):
        return v
    if not all(0x20 <= ord(c) <= 0x7E for c in v):
        raise ValidationError(path, "passphrase must be printable ASCII (no control characters or newlines)")
    if not 8 <= len(v) <= 63:
        raise ValidationError(path, "passphrase must be 8-63 printable ASCII characters or 64 hex digits")
    return v


def security(v: Any, path: str = "security") -> dict[str, Any]:
    obj(v, path, ("mode",), ("passphrase",))
    mode = enum(v["mode"], f"{path}.mode", SECURITY_MODES)
    if "passphrase" in v:
        passphrase(v["passphrase"], f"{path}.passphrase")
    if mode == "open" and "passphrase" in v:
        raise ValidationError(f"{path}.passphrase", "an open vAP takes no passphrase")
    if mode != "open" and "passphrase" not in v:
        raise ValidationError(f"{path}.passphrase", f"required for {mode}")
    return v


MAX_KBPS = 10_000_000
RATE_KEYS = ("down_kbps", "up_kbps")
GUARANTEE_KEYS = ("down_guaranteed_kbps", "up_guaranteed_kbps")
CAPACITY_SOURCES = ("operator", "measured", "default")


def rate_limit(v: Any, path: str = "rate_limit") -> dict[str, Any]:
    obj(v, path, RATE_KEYS, GUARANTEE_KEYS)
    for key in v:
        integer(v[key], f"{path}.{key}", 0, MAX_KBPS)
    return v


def rate_semantics(v: dict[str, Any], path: str = "rate_limit") -> dict[str, Any]:
    """The check the schema cannot express: a guarantee above a non-zero cap (agents answer bad_request)."""
    for direction in ("down", "up"):
        cap, guaranteed = v[f"{direction}_kbps"], v.get(f"{direction}_guaranteed_kbps", 0)
        if cap and guaranteed > cap:
            raise ValidationError(f"{path}.{direction}_guaranteed_kbps",
                                  f"guarantee {guaranteed} kbit/s above the cap of {cap} kbit/s")
    return v


VAP_REQUIRED = ("vap_id", "radio", "ssid", "security", "tenant_id", "slice_id", "rate_limit")
VAP_OPTIONAL = ("hidden", "max_clients")


def _vap_common(v: dict[str, Any], path: str) -> None:
    ident(v["vap_id"], f"{path}.vap_id")
    ident(v["radio"], f"{path}.radio")
    ssid(v["ssid"], f"{path}.ssid")
    integer(v["tenant_id"], f"{path}.tenant_id", 0, 65535)
    ident(v["slice_id"], f"{path}.slice_id")
    rate_limit(v["rate_limit"], f"{path}.rate_limit")
    if "hidden" in v:
        boolean(v["hidden"], f"{path}.hidden")
    if "max_clients" in v:
        integer(v["max_clients"], f"{path}.max_clients", 1, 2007)


def vap_spec(v: Any, path: str = "vap") -> dict[str, Any]:
    obj(v, path, VAP_REQUIRED, VAP_OPTIONAL)
    _vap_common(v, path)
    security(v["security"], f"{path}.security")
    return v


def vap_state(v: Any, path: str = "vap") -> dict[str, Any]:
    obj(v, path, (*VAP_REQUIRED, "ifname", "bssid", "state", "clients"), (*VAP_OPTIONAL, "pof_port"))
    _vap_common(v, path)
    obj(v["security"], f"{path}.security", ("mode",))
    enum(v["security"]["mode"], f"{path}.security.mode", SECURITY_MODES)
    string(v["ifname"], f"{path}.ifname", IFNAME)
    mac(v["bssid"], f"{path}.bssid")
    enum(v["state"], f"{path}.state", ("up", "down", "failed"))
    integer(v["clients"], f"{path}.clients", 0, MAX_ID)
    if "pof_port" in v:
        nullable(integer)(v["pof_port"], f"{path}.pof_port", 1, 65535)
    return v


def radio(v: Any, path: str = "radio") -> dict[str, Any]:
    obj(v, path, ("name", "mac", "channel", "hw_mode", "max_vaps", "vaps_used"), ("capacity_kbps", "capacity_source"))
    if ("capacity_kbps" in v) != ("capacity_source" in v):
        raise ValidationError(path, "capacity_kbps and capacity_source come together")
    if "capacity_kbps" in v:
        integer(v["capacity_kbps"], f"{path}.capacity_kbps", 0, MAX_ID)
        enum(v["capacity_source"], f"{path}.capacity_source", CAPACITY_SOURCES)
    ident(v["name"], f"{path}.name")
    mac(v["mac"], f"{path}.mac")
    integer(v["channel"], f"{path}.channel", 1, 233)
    enum(v["hw_mode"], f"{path}.hw_mode", ("a", "b", "g"))
    integer(v["max_vaps"], f"{path}.max_vaps", 1, 64)
    integer(v["vaps_used"], f"{path}.vaps_used", 0, 64)
    return v


# ---- mec values (the schema is shared; the ap-agent refuses these methods but validates them alike) ----------


def vnf_spec(v: Any, path: str = "vnf") -> dict[str, Any]:
    obj(v, path, ("tenant_id", "instance_id", "image", "cpu", "memory_mib", "chain_position"), ("params",))
    integer(v["tenant_id"], f"{path}.tenant_id", 0, 65535)
    integer(v["instance_id"], f"{path}.instance_id", 0, 65535)
    ident(v["image"], f"{path}.image")
    number(v["cpu"], f"{path}.cpu", 0, 1024, exclusive_lo=True)
    integer(v["memory_mib"], f"{path}.memory_mib", 1, 1_048_576)
    integer(v["chain_position"], f"{path}.chain_position", 0, 255)
    if "params" in v:
        params = v["params"]
        if not isinstance(params, dict) or len(params) > 64:
            raise ValidationError(f"{path}.params", "must be an object of at most 64 entries")
        for key, value in params.items():
            string(key, f"{path}.params", PARAM_NAME)
            if not isinstance(value, str | int | float | bool):
                raise ValidationError(f"{path}.params.{key}", "must be a string, number or boolean")
    return v


# ---- requests -----------------------------------------------------------------------------------------------


def _params(fields_required: tuple[str, ...], fields_optional: tuple[str, ...], **checks: Callable[..., Any]):
    def check(p: Any, path: str) -> None:
        obj(p, path, fields_required, fields_optional)
        for key, fn in checks.items():
            if key in p:
                fn(p[key], f"{path}.{key}")

    return check


def _vnf_id(v: Any, path: str) -> int:
    return integer(v, path, 0, 4294967295)


REQUEST_PARAMS: dict[str, Callable[[Any, str], None]] = {
    "createVap": _params(("vap",), (), vap=vap_spec),
    "delVap": _params(("vap_id",), (), vap_id=ident),
    "updateVap": _params(("vap_id", "rate_limit"), (), vap_id=ident, rate_limit=rate_limit),
    "getVaps": _params((), ()),
    "syncVaps": _params(("vaps",), (), vaps=lambda v, p: array(v, p, vap_spec, 256)),
    "getStatus": _params((), ()),
    "changeChannel": _params(
        ("radio", "channel"),
        ("cs_count",),
        radio=ident,
        channel=lambda v, p: integer(v, p, 1, 233),
        cs_count=lambda v, p: integer(v, p, 1, 255),
    ),
    "getClient": _params((), ("mac", "vap_id"), mac=mac, vap_id=ident),
    "removeClient": _params(
        ("mac",), ("vap_id", "reason"), mac=mac, vap_id=ident, reason=lambda v, p: integer(v, p, 1, 65535)
    ),
    "getTxRate": _params(("vap_id",), (), vap_id=ident),
    "getRxRate": _params(("vap_id",), (), vap_id=ident),
    "createVnf": _params(("vnf",), (), vnf=vnf_spec),
    "delVnf": _params(("vnf_id",), (), vnf_id=_vnf_id),
    "getVnfs": _params((), ()),
    "syncVnfs": _params(("vnfs",), (), vnfs=lambda v, p: array(v, p, vnf_spec, 1024)),
    "getStatistics": _params((), ("vnf_id",), vnf_id=_vnf_id),
}


class UnknownMethod(ValidationError):
    pass


def request(m: dict[str, Any]) -> None:
    obj(m, "", ("type", "id", "method", "params"))
    integer(m["id"], "id", 1, MAX_ID)
    method = m["method"]
    if not isinstance(method, str) or method not in REQUEST_PARAMS:
        raise UnknownMethod("method", f"unknown method {str(method)[:64]!r}")
    REQUEST_PARAMS[method](m["params"], "params")


# ---- other message types ------------------------------------------------------------------------------------


def challenge(m: dict[str, Any]) -> None:
    obj(m, "", ("type", "version", "nonce", "controller_id"))
    enum(m["version"], "version", (1,))
    string(m["nonce"], "nonce", HEX32_LOWER)
    ident(m["controller_id"], "controller_id")


def hello(m: dict[str, Any]) -> None:
    obj(m, "", ("type", "version", "role", "agent_id", "software", "auth", "capabilities"))
    enum(m["version"], "version", (1,))
    role = enum(m["role"], "role", ("ap", "mec"))
    ident(m["agent_id"], "agent_id")
    string(m["software"], "software", max_len=128)
    auth = obj(m["auth"], "auth", ("scheme",), ("mac",))
    scheme = enum(auth["scheme"], "auth.scheme", ("none", "hmac-sha256", "tls-client-cert"))
    if "mac" in auth:
        string(auth["mac"], "auth.mac", HEX64_LOWER)
    if scheme == "hmac-sha256" and "mac" not in auth:
        raise ValidationError("auth.mac", "required for hmac-sha256")
    caps = m["capabilities"]
    if role == "ap":
        obj(caps, "capabilities", ("radios", "security", "pof_switch"))
        array(caps["radios"], "capabilities.radios", radio, 16)
        array(caps["security"], "capabilities.security", lambda v, p: enum(v, p, SECURITY_MODES))
        boolean(caps["pof_switch"], "capabilities.pof_switch")
    else:
        obj(caps, "capabilities", ("capacity", "catalog", "dpdk", "pof_switch"))
        obj(caps["capacity"], "capabilities.capacity", ("cpu", "memory_mib"))
        number(caps["capacity"]["cpu"], "capabilities.capacity.cpu", 0, exclusive_lo=True)
        integer(caps["capacity"]["memory_mib"], "capabilities.capacity.memory_mib", 0, MAX_ID)
        array(caps["catalog"], "capabilities.catalog", ident)
        boolean(caps["dpdk"], "capabilities.dpdk")
        boolean(caps["pof_switch"], "capabilities.pof_switch")


def welcome(m: dict[str, Any]) -> None:
    obj(m, "", ("type", "controller_id"), ("stats_interval_s",))
    ident(m["controller_id"], "controller_id")
    if "stats_interval_s" in m:
        number(m["stats_interval_s"], "stats_interval_s", 1, 3600)


def bye(m: dict[str, Any]) -> None:
    obj(m, "", ("type", "reason"))
    string(m["reason"], "reason", max_len=1024)


def ping(m: dict[str, Any]) -> None:
    obj(m, "", ("type", "id"))
    integer(m["id"], "id", 1, MAX_ID)


def reply(m: dict[str, Any]) -> None:
    obj(m, "", ("type", "id", "ok"), ("result", "error"))
    integer(m["id"], "id", 1, MAX_ID)
    ok = boolean(m["ok"], "ok")
    if ok and ("result" not in m or "error" in m):
        raise ValidationError("", "an ok reply carries result and no error")
    if not ok and ("error" not in m or "result" in m):
        raise ValidationError("", "a failed reply carries error and no result")
    if "result" in m and not isinstance(m["result"], dict):
        raise ValidationError("result", "must be an object")
    if "error" in m:
        err = obj(m["error"], "error", ("code", "message"))
        enum(err["code"], "error.code", ERROR_CODES)
        string(err["message"], "error.message", max_len=4096)


def _signal(v: Any, path: str) -> int | None:
    return nullable(integer)(v, path, -127, 0)


def _stats_vap(v: Any, path: str) -> None:
    obj(v, path, ("vap_id", "tx_bps", "rx_bps", "clients"))
    ident(v["vap_id"], f"{path}.vap_id")
    number(v["tx_bps"], f"{path}.tx_bps")
    number(v["rx_bps"], f"{path}.rx_bps")
    integer(v["clients"], f"{path}.clients", 0, MAX_ID)


def _stats_vnf(v: Any, path: str) -> None:
    obj(v, path, ("vnf_id", "cpu_pct", "memory_mib", "ports"), ("queue_bytes", "throttled", "backpressure_drops"))
    for key in ("queue_bytes", "backpressure_drops"):
        if key in v:
            integer(v[key], f"{path}.{key}", 0, 2**63 - 1)
    if "throttled" in v:
        boolean(v["throttled"], f"{path}.throttled")


def _stats_radio(v: Any, path: str) -> None:
    obj(v, path, ("name", "capacity_kbps", "capacity_source"))
    ident(v["name"], f"{path}.name")
    integer(v["capacity_kbps"], f"{path}.capacity_kbps", 0, MAX_ID)
    enum(v["capacity_source"], f"{path}.capacity_source", CAPACITY_SOURCES)


def _stats_client(v: Any, path: str) -> None:
    obj(v, path, ("mac", "vap_id", "tx_bytes", "rx_bytes"), ("tx_bps", "rx_bps"))
    mac(v["mac"], f"{path}.mac")
    ident(v["vap_id"], f"{path}.vap_id")
    for key in ("tx_bytes", "rx_bytes"):
        integer(v[key], f"{path}.{key}", 0, 2**63 - 1)
    if ("tx_bps" in v) != ("rx_bps" in v):
        raise ValidationError(path, "tx_bps and rx_bps come together")
    for key in ("tx_bps", "rx_bps"):
        if key in v:
            number(v[key], f"{path}.{key}")


def _stats(d: Any, path: str) -> None:
    obj(d, path, ("interval_s",), ("vaps", "radios", "clients", "vnfs", "node"))
    number(d["interval_s"], f"{path}.interval_s", 0, exclusive_lo=True)
    if "vaps" in d:
        array(d["vaps"], f"{path}.vaps", _stats_vap)
    if "radios" in d:
        array(d["radios"], f"{path}.radios", _stats_radio, 16)
    if "clients" in d:
        array(d["clients"], f"{path}.clients", _stats_client, MAX_STATS_CLIENTS)
    if "vnfs" in d:
        array(d["vnfs"], f"{path}.vnfs", _stats_vnf)
    if "node" in d:
        obj(d["node"], f"{path}.node", ("cpu_pct", "memory_used_mib"))


EVENT_DATA: dict[str, Callable[[Any, str], None]] = {
    "clientAssociated": _params(("vap_id", "mac"), ("signal_dbm",), vap_id=ident, mac=mac, signal_dbm=_signal),
    "clientDisassociated": _params(
        ("vap_id", "mac"), ("reason",), vap_id=ident, mac=mac, reason=lambda v, p: integer(v, p, 0, 65535)
    ),
    "vapState": _params(
        ("vap_id", "state"), (), vap_id=ident, state=lambda v, p: enum(v, p, ("up", "down", "failed", "removed"))
    ),
    "vnfState": _params(
        ("vnf_id", "state"),
        (),
        vnf_id=_vnf_id,
        state=lambda v, p: enum(v, p, ("creating", "running", "stopped", "failed", "removed")),
    ),
    "stats": _stats,
}


def event(m: dict[str, Any]) -> None:
    obj(m, "", ("type", "event", "ts", "data"))
    name = enum(m["event"], "event", tuple(EVENT_DATA))
    number(m["ts"], "ts")
    EVENT_DATA[name](m["data"], "data")


MESSAGE_TYPES: dict[str, Callable[[dict[str, Any]], None]] = {
    "challenge": challenge,
    "hello": hello,
    "welcome": welcome,
    "bye": bye,
    "ping": ping,
    "pong": ping,
    "request": request,
    "reply": reply,
    "event": event,
}


def message(m: Any) -> dict[str, Any]:
    """Validate one decoded protocol message; raises ValidationError (UnknownMethod for a bad method)."""
    if not isinstance(m, dict):
        raise ValidationError("", "a message must be a JSON object")
    kind = m.get("type")
    if not isinstance(kind, str) or kind not in MESSAGE_TYPES:
        raise ValidationError("type", f"unknown message type {str(kind)[:64]!r}")
    MESSAGE_TYPES[kind](m)
    return m
