"""Framing and messages of the agent protocol (spec/agent/PROTOCOL.md): UTF-8 JSON objects, one per line, a line at
most 1 MiB; the hello's HMAC-SHA256 over nonce + "|" + agent_id. Both sides use these: the agents and the test
controllers."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import time
from typing import Any

from . import validate
from .errors import ProtocolError
from .validate import ValidationError

VERSION = 1
MAX_LINE = 1 << 20  # a longer line is a protocol error: the receiver closes the connection


class LineBuffer:
    """Bytes in, complete lines out (without their newline); ProtocolError once a line exceeds the limit."""

    def __init__(self, limit: int = MAX_LINE) -> None:
        self.limit = limit
        self.buf = bytearray()

    def feed(self, data: bytes) -> list[bytes]:
        self.buf += data
        lines = []
        while True:
            nl = self.buf.find(b"\n")
            if nl < 0:
                break
            if nl > self.limit:
                raise ProtocolError(f"line of {nl} bytes exceeds {self.limit}")
            lines.append(bytes(self.buf[:nl]))
            del self.buf[: nl + 1]
        if len(self.buf) > self.limit:
            raise ProtocolError(f"line exceeds {self.limit} bytes")
        return lines


def encode(msg: dict[str, Any]) -> bytes:
    """One message as its line on the wire (ProtocolError if that would be over 1 MiB or is not JSON)."""
    try:
        line = json.dumps(msg, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode("utf-8")
    except (TypeError, ValueError) as e:
        raise ProtocolError(f"not a JSON message: {e}") from e
    if len(line) > MAX_LINE:
        raise ProtocolError(f"message of {len(line)} bytes exceeds {MAX_LINE}")
    return line + b"\n"


def decode(line: bytes) -> dict[str, Any]:
    """The JSON object of one line, not yet validated; ProtocolError if it is not one."""
    try:
        msg = json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise ProtocolError(f"not a JSON line: {e}") from e
    if not isinstance(msg, dict):
        raise ProtocolError("a message must be a JSON object")
    return msg


def expect(msg: dict[str, Any], *types: str) -> dict[str, Any]:
    """msg if it is a valid message of one of these types; else ProtocolError (the handshake's checks)."""
    try:
        validate.message(msg)
    except ValidationError as e:
        raise ProtocolError(f"malformed {str(msg.get('type'))[:32]} message: {e}") from e
    if msg["type"] not in types:
        raise ProtocolError(f"expected {' or '.join(types)}, got {msg['type']}")
    return msg


def hmac_mac(secret: bytes, nonce: str, agent_id: str) -> str:
    return hmac.new(secret, f"{nonce}|{agent_id}".encode(), hashlib.sha256).hexdigest()


def mac_ok(secret: bytes, nonce: str, hello: dict[str, Any]) -> bool:
    """The controller's check of an hmac-sha256 hello, in constant time."""
    auth = hello.get("auth") if isinstance(hello.get("auth"), dict) else {}
    if auth.get("scheme") != "hmac-sha256" or not isinstance(auth.get("mac"), str):
        return False
    return hmac.compare_digest(hmac_mac(secret, nonce, str(hello.get("agent_id"))), auth["mac"])


def challenge(controller_id: str, nonce: str | None = None) -> dict[str, Any]:
    return {"type": "challenge", "version": VERSION, "nonce": nonce or os.urandom(16).hex(),
            "controller_id": controller_id}


def hello(role: str, agent_id: str, software: str, nonce: str, capabilities: dict[str, Any],
          secret: bytes | None = None, tls_client_cert: bool = False,
          firmware_version: str | None = None) -> dict[str, Any]:
    """With a shared secret the hello carries its HMAC; else a TLS client certificate names the agent (its CN).
    firmware_version (optional: agents from before it leave it out) is what the AP runs, for fleet upgrades."""
    if secret:
        auth: dict[str, Any] = {"scheme": "hmac-sha256", "mac": hmac_mac(secret, nonce, agent_id)}
    elif tls_client_cert:
        auth = {"scheme": "tls-client-cert"}
    else:
        auth = {"scheme": "none"}
    msg = {"type": "hello", "version": VERSION, "role": role, "agent_id": agent_id, "software": software,
           "auth": auth, "capabilities": capabilities}
    if firmware_version is not None:
        msg["firmware_version"] = firmware_version
    return msg


def welcome(controller_id: str, stats_interval_s: float | None = None) -> dict[str, Any]:
    msg: dict[str, Any] = {"type": "welcome", "controller_id": controller_id}
    if stats_interval_s is not None:
        msg["stats_interval_s"] = stats_interval_s
    return msg


def request(req_id: int, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"type": "request", "id": req_id, "method": method, "params": params or {}}


def reply_ok(req_id: int, result: dict[str, Any]) -> dict[str, Any]:
    return {"type": "reply", "id": req_id, "ok": True, "result": result}


def reply_error(req_id: int, code: str, message: str) -> dict[str, Any]:
    return {"type": "reply", "id": req_id, "ok": False, "error": {"code": code, "message": message[:4096]}}


def event(name: str, data: dict[str, Any]) -> dict[str, Any]:
    return {"type": "event", "event": name, "ts": round(time.time(), 3), "data": data}


def usable_request_id(m: Any) -> int | None:
    """The id of a request, even a malformed one, if an error reply can still name it."""
    if isinstance(m, dict) and m.get("type") == "request":
        rid = m.get("id")
        if isinstance(rid, int) and not isinstance(rid, bool) and 1 <= rid <= validate.MAX_ID:
            return rid
    return None
