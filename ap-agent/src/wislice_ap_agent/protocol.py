"""Agent protocol framing and message helpers (spec/agent/PROTOCOL.md): JSON objects, one per line."""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from typing import Any

from . import validate as V

VERSION = 1
MAX_LINE = 1 << 20  # a longer line is a protocol error: the receiver closes the connection
SOFTWARE = "wislice-ap-agent 0.1"
SECURITY_MODES = ["open", "wpa2-psk", "wpa3-sae", "wpa2-wpa3"]


class ProtocolError(Exception):
    """The peer broke framing or sent something that cannot be answered: close the connection."""


class LineBuffer:
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
    return json.dumps(msg, separators=(",", ":"), ensure_ascii=False).encode("utf-8") + b"\n"


def decode(line: bytes) -> Any:
    """JSON value of one line (not yet validated); ProtocolError if it is not JSON."""
    try:
        return json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise ProtocolError(f"not a JSON line: {e}") from e


def hmac_mac(secret: bytes, nonce: str, agent_id: str) -> str:
    return hmac.new(secret, f"{nonce}|{agent_id}".encode(), hashlib.sha256).hexdigest()


def hello(agent_id: str, nonce: str, secret: bytes | None, tls_client_cert: bool, radios: list[dict[str, Any]],
          pof_switch: bool) -> dict[str, Any]:
    if secret is not None:
        auth: dict[str, Any] = {"scheme": "hmac-sha256", "mac": hmac_mac(secret, nonce, agent_id)}
    elif tls_client_cert:
        auth = {"scheme": "tls-client-cert"}
    else:
        auth = {"scheme": "none"}
    return {"type": "hello", "version": VERSION, "role": "ap", "agent_id": agent_id, "software": SOFTWARE,
            "auth": auth, "capabilities": {"radios": radios, "security": SECURITY_MODES, "pof_switch": pof_switch}}


def reply_ok(req_id: int, result: dict[str, Any]) -> dict[str, Any]:
    return {"type": "reply", "id": req_id, "ok": True, "result": result}


def reply_error(req_id: int, code: str, message: str) -> dict[str, Any]:
    return {"type": "reply", "id": req_id, "ok": False, "error": {"code": code, "message": message[:4096]}}


def event(name: str, data: dict[str, Any]) -> dict[str, Any]:
    return {"type": "event", "event": name, "ts": round(time.time(), 3), "data": data}


def usable_request_id(m: Any) -> int | None:
    """The id of a malformed request if it can still be answered with an error reply."""
    if isinstance(m, dict) and m.get("type") == "request":
        rid = m.get("id")
        if isinstance(rid, int) and not isinstance(rid, bool) and 1 <= rid <= V.MAX_ID:
            return rid
    return None
