"""The stdlib validator agrees with the JSON Schema on every shared vector, and guards hostapd inputs."""

import json

import pytest
from conftest import INVALID, VALID
from conftest import REFERENCE as VALIDATOR

from wislice_agent_proto import validate as V


def test_vectors_present():
    assert len(VALID) >= 20 and len(INVALID) >= 20


@pytest.mark.parametrize("path", VALID, ids=lambda p: p.stem)
def test_valid_vector_accepted(path):
    msg = json.loads(path.read_text())
    assert not list(VALIDATOR.iter_errors(msg))
    V.message(msg)


@pytest.mark.parametrize("path", INVALID, ids=lambda p: p.stem)
def test_invalid_vector_rejected_like_the_schema(path):
    msg = json.loads(path.read_text())["message"]
    assert list(VALIDATOR.iter_errors(msg)), "the schema itself accepts this vector"
    with pytest.raises(V.ValidationError):
        V.message(msg)


@pytest.mark.parametrize("ssid", ["a", "x" * 32, "Café Slice", "€" * 10, "space ok"])
def test_ssid_ok(ssid):
    assert V.ssid(ssid) == ssid


@pytest.mark.parametrize("ssid", ["", "x" * 33, "€" * 11, "a\nb", "a\rb", "tab\there", "nul\0", "del\x7f", 5, None])
def test_ssid_rejected(ssid):
    with pytest.raises(V.ValidationError):
        V.ssid(ssid)


@pytest.mark.parametrize("pw", ["12345678", "x" * 63, "A" * 64, "0123456789abcdefABCDEF" * 2 + "0" * 20, "sp ace~!"])
def test_passphrase_ok(pw):
    assert V.passphrase(pw) == pw


@pytest.mark.parametrize("pw", ["1234567", "x" * 64, "g" * 64, "pässwörter", "12345678\n", "1234\t5678", "a" * 65])
def test_passphrase_rejected(pw):
    with pytest.raises(V.ValidationError):
        V.passphrase(pw)


def test_error_names_the_field():
    with pytest.raises(V.ValidationError, match=r"params\.vap\.ssid"):
        V.message({"type": "request", "id": 1, "method": "createVap", "params": {"vap": {
            "vap_id": "v", "radio": "phy0", "ssid": "a\nb", "security": {"mode": "open"}, "tenant_id": 1,
            "slice_id": "s", "rate_limit": {"down_kbps": 0, "up_kbps": 0}}}})


def test_unknown_method_is_its_own_error():
    with pytest.raises(V.UnknownMethod):
        V.message({"type": "request", "id": 1, "method": "reboot", "params": {}})


@pytest.mark.parametrize("bad", [True, 1.5, "3"])
def test_integers_are_strict(bad):
    with pytest.raises(V.ValidationError):
        V.message({"type": "ping", "id": bad})


@pytest.mark.parametrize("check,value", [
    (V.ident, "v1\n"), (V.mac, "02:00:00:00:00:01\n"), (V.passphrase, "a" * 64 + "\n"), (V.ssid, "ok\n"),
])
def test_trailing_newline_never_slips_through(check, value):
    # Python's `$` matches before a final newline; the validator must not (the schema's ECMA `$` does not).
    with pytest.raises(V.ValidationError):
        check(value, "x")
