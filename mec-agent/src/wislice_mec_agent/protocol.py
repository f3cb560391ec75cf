"""Agent protocol framing and messages (spec/agent/PROTOCOL.md): one JSON object per line, at most 1 MiB; hello
with HMAC-SHA256 over nonce + "|" + agent_id; requests dispatched to the manager through a method table."""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import time
from collections.abc import Callable
from typing import Any

from . import SOFTWARE
from .errors import AgentError

MAX_LINE = 1 << 20
NONCE_RE = re.compile(r"^[0-9a-f]{32}$")
IDENT_RE = re.compile(r"^[A-Za-z0-9_.:-]{1,64}$")
MAX_ID = 9007199254740991


class ProtocolError(Exception):
    """Malformed input that closes the connection (never the process)."""


def encode(msg: dict[str, Any]) -> bytes:
    line = json.dumps(msg, separators=(",", ":"), allow_nan=False).encode()
    if len(line) >= MAX_LINE:
        raise ProtocolError("message over 1 MiB")
    return line + b"\n"


def decode(line: bytes) -> dict[str, Any]:
    if len(line) > MAX_LINE:
        raise ProtocolError("line over 1 MiB")
    try:
        msg = json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise ProtocolError(f"not JSON: {exc}") from exc
    if not isinstance(msg, dict) or not isinstance(msg.get("type"), str):
        raise ProtocolError("not a message object with a type")
    return msg


def hmac_mac(secret: bytes, nonce: str, agent_id: str) -> str:
    return hmac.new(secret, f"{nonce}|{agent_id}".encode(), hashlib.sha256).hexdigest()


def check_challenge(msg: dict[str, Any]) -> str:
    if (msg.get("type") != "challenge" or msg.get("version") != 1 or not isinstance(msg.get("nonce"), str)
            or not NONCE_RE.match(msg["nonce"]) or not isinstance(msg.get("controller_id"), str)
            or not IDENT_RE.match(msg["controller_id"]) or set(msg) != {"type", "version", "nonce", "controller_id"}):
        raise ProtocolError(f"bad challenge: {msg!r}"[:300])
    return msg["nonce"]


def hello(agent_id: str, nonce: str, secret: bytes | None, capacity: dict[str, Any], catalog: list[str],
          dpdk: bool, pof_switch: bool, tls_client_cert: bool = False) -> dict[str, Any]:
    """The shared secret's HMAC when there is one; else the TLS client certificate names the agent (its CN)."""
    if secret:
        auth = {"scheme": "hmac-sha256", "mac": hmac_mac(secret, nonce, agent_id)}
    else:
        auth = {"scheme": "tls-client-cert"} if tls_client_cert else {"scheme": "none"}
    return {"type": "hello", "version": 1, "role": "mec", "agent_id": agent_id, "software": SOFTWARE, "auth": auth,
            "capabilities": {"capacity": capacity, "catalog": catalog, "dpdk": dpdk, "pof_switch": pof_switch}}


def reply_ok(req_id: int, result: dict[str, Any]) -> dict[str, Any]:
    return {"type": "reply", "id": req_id, "ok": True, "result": result}


def reply_error(req_id: int, code: str, message: str) -> dict[str, Any]:
    return {"type": "reply", "id": req_id, "ok": False, "error": {"code": code, "message": message[:4096]}}


def event(name: str, data: dict[str, Any]) -> dict[str, Any]:
    return {"type": "event", "event": name, "ts": round(time.time(), 3), "data": data}


def _only(params: dict[str, Any], allowed: set[str]) -> None:
    extra = set(params) - allowed
    if extra:
        raise AgentError("bad_request", f"unknown params: {', '.join(sorted(extra))}")


Handler = Callable[[dict[str, Any]], dict[str, Any]]


def method_table(manager: Any, stats: Any) -> dict[str, Handler]:
    """The mec-agent methods; each checks its params' keys, the manager checks their values."""

    def create(p: dict[str, Any]) -> dict[str, Any]:
        _only(p, {"vnf"})
        if "vnf" not in p:
            raise AgentError("bad_request", "createVnf needs params.vnf")
        return {"vnf": manager.create(p["vnf"])}

    def delete(p: dict[str, Any]) -> dict[str, Any]:
        _only(p, {"vnf_id"})
        if "vnf_id" not in p:
            raise AgentError("bad_request", "delVnf needs params.vnf_id")
        return manager.delete(p["vnf_id"])

    def get_vnfs(p: dict[str, Any]) -> dict[str, Any]:
        _only(p, set())
        return {"vnfs": manager.list_states()}

    def sync(p: dict[str, Any]) -> dict[str, Any]:
        _only(p, {"vnfs"})
        if "vnfs" not in p:
            raise AgentError("bad_request", "syncVnfs needs params.vnfs")
        return manager.sync(p["vnfs"])

    def status(p: dict[str, Any]) -> dict[str, Any]:
        _only(p, set())
        return manager.status()

    def statistics(p: dict[str, Any]) -> dict[str, Any]:
        _only(p, {"vnf_id"})
        return stats.collect(p.get("vnf_id"))

    return {"createVnf": create, "delVnf": delete, "getVnfs": get_vnfs, "syncVnfs": sync, "getStatus": status,
            "getStatistics": statistics}


def handle_request(table: dict[str, Handler], msg: dict[str, Any]) -> dict[str, Any] | None:
    """A reply for a request message; None when it is so malformed that no reply can name it (close instead)."""
    req_id = msg.get("id")
    if isinstance(req_id, bool) or not isinstance(req_id, int) or not 1 <= req_id <= MAX_ID:
        return None
    if set(msg) != {"type", "id", "method", "params"} or not isinstance(msg.get("params"), dict):
        return reply_error(req_id, "bad_request", "a request has exactly type, id, method and params (an object)")
    handler = table.get(msg["method"]) if isinstance(msg["method"], str) else None
    if handler is None:
        return reply_error(req_id, "unknown_method", f"unknown method {msg['method']!r}"[:200])
    try:
        return reply_ok(req_id, handler(msg["params"]))
    except AgentError as exc:
        return reply_error(req_id, exc.code, exc.message)
    except Exception as exc:  # a bug must not kill the connection, the controller gets an internal error
        return reply_error(req_id, "internal", f"{type(exc).__name__}: {exc}")
