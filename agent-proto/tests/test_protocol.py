"""Framing (JSON lines of at most 1 MiB), the hello and its HMAC as PROTOCOL.md defines them, the handshake's
checks, and the method table's replies."""

from __future__ import annotations

import hashlib
import hmac

import pytest
from conftest import REFERENCE, VALID, load

from wislice_agent_proto import protocol
from wislice_agent_proto.errors import AgentError, ProtocolError
from wislice_agent_proto.methods import serve

NONCE = "0" * 32


def test_hmac_matches_the_spec_definition():
    mac = protocol.hmac_mac(b"s3cret", NONCE, "mec-1")
    assert mac == hmac.new(b"s3cret", f"{NONCE}|mec-1".encode(), hashlib.sha256).hexdigest()
    hello = protocol.hello("mec", "mec-1", "x 1", NONCE, {"capacity": {"cpu": 2.0, "memory_mib": 1024},
                                                          "catalog": [], "dpdk": True, "pof_switch": True}, b"s3cret")
    assert hello["auth"] == {"scheme": "hmac-sha256", "mac": mac} and REFERENCE.is_valid(hello)
    assert protocol.mac_ok(b"s3cret", NONCE, hello) and not protocol.mac_ok(b"other", NONCE, hello)


@pytest.mark.parametrize("secret, tls, scheme", [(b"k", True, "hmac-sha256"), (None, True, "tls-client-cert"),
                                                 (None, False, "none"), (b"", False, "none")])
def test_hello_auth_schemes(secret, tls, scheme):
    caps = {"radios": [], "security": ["open"], "pof_switch": False}
    hello = protocol.hello("ap", "ap-1", "x", NONCE, caps, secret, tls)
    assert hello["auth"]["scheme"] == scheme and REFERENCE.is_valid(hello)
    assert not protocol.mac_ok(b"k", NONCE, hello) or scheme == "hmac-sha256"


def test_hello_firmware_version_is_optional():
    caps = {"radios": [], "security": ["open"], "pof_switch": False}
    assert "firmware_version" not in protocol.hello("ap", "ap-1", "x", NONCE, caps)
    hello = protocol.hello("ap", "ap-1", "x", NONCE, caps, firmware_version="23.05.3-wislice1")
    assert hello["firmware_version"] == "23.05.3-wislice1" and REFERENCE.is_valid(hello)
    assert not REFERENCE.is_valid({**hello, "firmware_version": "1 0"})


def test_line_buffer_splits_and_limits():
    buf = protocol.LineBuffer(limit=10)
    assert buf.feed(b'{"a":1}\n{"b"') == [b'{"a":1}']
    assert buf.feed(b":2}\n") == [b'{"b":2}']
    with pytest.raises(ProtocolError):
        buf.feed(b"x" * 11)
    with pytest.raises(ProtocolError):
        protocol.LineBuffer(limit=10).feed(b"y" * 11 + b"\n")


def test_encode_decode():
    msg = load(next(p for p in VALID if p.stem == "req-createVap-wpa2"))
    msg["params"]["vap"]["ssid"] = "Café"
    line = protocol.encode(msg)
    assert line.endswith(b"\n") and line.count(b"\n") == 1 and "Café".encode() in line  # UTF-8, not \u escapes
    assert protocol.decode(line[:-1]) == msg
    for bad in (b"[1]", b"\xff", b"not json", b"NaN"):
        with pytest.raises(ProtocolError):
            protocol.decode(bad)
    with pytest.raises(ProtocolError):
        protocol.encode({"type": "event", "ts": float("nan")})
    with pytest.raises(ProtocolError, match="exceeds"):
        protocol.encode({"type": "bye", "reason": "x" * protocol.MAX_LINE})


def test_expect_checks_the_handshake_messages():
    assert protocol.expect(protocol.challenge("ctl", "ab" * 16), "challenge")["nonce"] == "ab" * 16
    with pytest.raises(ProtocolError, match="malformed challenge"):
        protocol.expect({"type": "challenge", "version": 1, "nonce": "XYZ", "controller_id": "c"}, "challenge")
    with pytest.raises(ProtocolError, match="expected welcome or bye, got challenge"):
        protocol.expect(protocol.challenge("ctl"), "welcome", "bye")
    for msg in (protocol.challenge("c"), protocol.welcome("c", 5), protocol.welcome("c"),
                protocol.request(3, "getVaps"), protocol.reply_ok(3, {}), protocol.reply_error(3, "internal", "x"),
                protocol.event("vapState", {"vap_id": "v", "state": "up"})):
        assert REFERENCE.is_valid(msg), msg


def test_usable_request_id():
    assert protocol.usable_request_id({"type": "request", "id": 7, "method": "x"}) == 7
    for bad in ({"type": "request", "id": 0}, {"type": "request", "id": True}, {"type": "ping", "id": 7},
                {"type": "request", "id": 2**53}, [1], None):
        assert protocol.usable_request_id(bad) is None


def boom(params):
    raise RuntimeError("bug")


TABLE = {"getVaps": lambda p: {"vaps": []}, "delVap": lambda p: (_ for _ in ()).throw(AgentError("not_found", "no")),
         "getStatus": boom}


@pytest.mark.parametrize("msg, code", [
    (protocol.request(1, "getVaps"), None),
    (protocol.request(1, "delVap", {"vap_id": "v"}), "not_found"),
    (protocol.request(1, "getStatus"), "internal"),  # a bug in a handler: the agent keeps serving
    (protocol.request(1, "getVaps", {"x": 1}), "bad_request"),  # served, params break the schema
    ({"type": "request", "id": 1, "method": "getVaps"}, "bad_request"),
    (protocol.request(1, "reboot"), "unknown_method"),  # not in the protocol
    (protocol.request(1, "createVnf", {}), "unknown_method"),  # not served here, and not even a valid call
    (protocol.request(1, "getVnfs"), "unsupported"),  # a valid call of another role's method
])
def test_method_table_replies(msg, code):
    reply = serve(TABLE, msg)
    assert reply is not None and REFERENCE.is_valid(reply)
    assert (reply["error"]["code"] if not reply["ok"] else None) == code, reply


def test_request_without_usable_id_gets_no_reply():
    assert serve(TABLE, {"type": "request", "id": 0, "method": "getVaps", "params": {}}) is None
