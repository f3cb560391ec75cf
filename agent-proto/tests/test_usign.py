"""usign.py: the formats (upgradeFirmware's signature vector among them), trusted keys from a directory or a list,
and each of the two checks (cryptography, a `usign` stand-in on PATH) accepting a good signature and nothing else;
a host with neither refuses every signature. Keys are made here with cryptography."""

from __future__ import annotations

import base64
import os
import sys
import tempfile

import pytest
from conftest import AGENT_VECTORS, load

from wislice_agent_proto import usign

crypto = pytest.importorskip("cryptography.hazmat.primitives.asymmetric.ed25519")

DATA = os.urandom(3000)


def usign_text(raw: bytes) -> str:
    return f"untrusted comment: made by the test\n{base64.b64encode(raw).decode()}\n"


# A usign stand-in: checks usign's -V command line as _verify_usign gives it, then the signature with cryptography.
USIGN = f"""#!{sys.executable}
import base64, sys
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
a = sys.argv[1:]
assert a[:3] == ["-V", "-q", "-m"] and a[4] == "-x" and a[6] == "-p" and len(a) == 8, a
raw = lambda path: base64.b64decode(open(path).read().splitlines()[1])
try:
    Ed25519PublicKey.from_public_bytes(raw(a[7])[10:]).verify(raw(a[5])[10:], open(a[3], "rb").read())
except Exception:
    sys.exit("cannot verify signature")
"""


@pytest.fixture(params=["cryptography", "usign"])
def how(request, tmp_path, monkeypatch):
    """Each check in turn: usign is a stand-in first on PATH (and the only program there)."""
    if request.param != "cryptography":
        monkeypatch.setattr(usign, "have_cryptography", lambda: False)
        bin_dir = tmp_path / "bin"
        bin_dir.mkdir()
        monkeypatch.setenv("PATH", str(bin_dir))
        if request.param == "usign":
            (bin_dir / "usign").write_text(USIGN)
            (bin_dir / "usign").chmod(0o755)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # where usign's files go: checked for leftovers
    assert usign.backend() == request.param
    return request.param


def test_the_spec_vector_and_the_format_errors():
    vector = load(AGENT_VECTORS / "valid" / "req-upgradeFirmware.json")["params"]["signature"]
    sig = usign.parse_signature(vector)
    assert sig.key_hex == "0123456789abcdef" and sig.sig == bytes(64)
    assert usign.parse_signature(vector.splitlines()[1]) == sig  # the comment line is optional
    key = usign.SigningKey()
    parsed = usign.parse_public_key(key.public_text, "k1")
    assert (parsed.key_id, parsed.source) == (key.key_id, "k1")
    for text, error in [("untrusted comment: x\nnot base64!\n", "signature: not base64"),
                        ("", "one base64 line"), (vector + vector, "one base64 line"),
                        (usign_text(b"Xx" + bytes(72)), "not an Ed25519 usign signature"),
                        (key.public_text, "signature: 42 bytes, a usign signature has 74")]:
        with pytest.raises(usign.UsignError, match=error):
            usign.parse_signature(text)
    with pytest.raises(usign.UsignError, match="public key #2: 74 bytes, a usign public key has 42"):
        usign.keys_from_lines([key.public_text, vector])


def test_a_signing_key_writes_usign_files_that_verify():
    key = usign.SigningKey("operator key")
    assert key.public_text.startswith("untrusted comment: public key of operator key\n")
    parsed = usign.parse_public_key(key.public_text)
    assert (parsed.key_id, len(parsed.key)) == (key.key_id, 32) and key.public_line in key.public_text
    signature = usign.parse_signature(key.sign(DATA))
    assert signature.key_id == key.key_id
    assert usign.verify_bytes(DATA, signature, usign.keys_from_lines([key.public_line])).key_id == key.key_id
    with pytest.raises(usign.UsignError, match="does not match the data"):
        usign.verify_bytes(DATA[1:], signature, [parsed])
    with pytest.raises(ValueError, match="8 bytes"):
        usign.SigningKey(key_id=b"short")


def test_trusted_keys_from_a_directory_or_a_list(tmp_path):
    first, second = usign.SigningKey(), usign.SigningKey()
    keys = tmp_path / "keys"
    keys.mkdir()
    (keys / first.key_id.hex()).write_text(first.public_text)
    (keys / "second").write_text(second.public_text)
    (keys / ".hidden").write_text(usign.SigningKey().public_text)
    (keys / "sub").mkdir()
    assert [(k.key_id, k.source) for k in usign.keys_from_dir(str(keys), strict=True)] == [
        (first.key_id, first.key_id.hex()), (second.key_id, "second")]
    listed = usign.keys_from_lines([first.public_text.splitlines()[1], " ", second.public_text])
    assert [(k.key_id, k.source) for k in listed] == [(first.key_id, "#1"), (second.key_id, "#3")]
    (keys / "README").write_text("not a key")  # opkg's directory may hold such: skipped unless strict
    assert len(usign.keys_from_dir(str(keys))) == 2
    with pytest.raises(usign.UsignError, match="public key README: not base64"):
        usign.keys_from_dir(str(keys), strict=True)
    assert usign.keys_from_dir(str(tmp_path / "missing")) == []
    with pytest.raises(usign.UsignError, match="cannot read the directory"):
        usign.keys_from_dir(str(tmp_path / "missing"), strict=True)


def test_each_check_accepts_the_signature_and_nothing_else(how, tmp_path):
    key, other = usign.SigningKey(), usign.SigningKey()
    impostor = usign.SigningKey(key_id=key.key_id)  # claims the trusted key's id
    trusted = usign.keys_from_lines([other.public_text, key.public_text])
    good = usign.parse_signature(key.sign(DATA))
    assert usign.verify_bytes(DATA, good, trusted).key_id == key.key_id
    artifact = tmp_path / "artifact"
    artifact.write_bytes(DATA)
    assert usign.verify_file(str(artifact), good, trusted).source == "#2"
    # two trusted keys under one id: the one that signed is found
    assert usign.verify_bytes(DATA, good, usign.keys_from_lines([impostor.public_text, key.public_text])).source == "#2"
    with pytest.raises(usign.UsignError, match=f"bad signature: key {key.key_id.hex()} is not a trusted key "
                                               f"\\(trusted: {other.key_id.hex()}\\)"):
        usign.verify_bytes(DATA, good, trusted[:1])
    mismatch = f"bad signature: does not match the data \\(key {key.key_id.hex()}\\)"
    if how == "usign":
        mismatch += ".*usign -V: cannot verify signature"
    for at in (0, 31, 32, 63):  # R and S, their first and last bytes
        flipped = bytearray(good.sig)
        flipped[at] ^= 0x01
        with pytest.raises(usign.UsignError, match=mismatch):
            usign.verify_bytes(DATA, usign.Signature(good.key_id, bytes(flipped)), trusted)
    for signature, data in [(good, DATA + b"x"), (usign.parse_signature(impostor.sign(DATA)), DATA)]:
        with pytest.raises(usign.UsignError, match=mismatch):
            usign.verify_bytes(data, signature, trusted)
        artifact.write_bytes(data)
        with pytest.raises(usign.UsignError, match=mismatch):
            usign.verify_file(str(artifact), signature, trusted)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["artifact", *(["bin"] if how != "cryptography"
                                                                               else [])])


def test_without_a_check_every_signature_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(usign, "have_cryptography", lambda: False)
    monkeypatch.setenv("PATH", str(tmp_path))  # no usign
    assert usign.backend() == "none"
    key = usign.SigningKey()
    good, trusted = usign.parse_signature(key.sign(DATA)), usign.keys_from_lines([key.public_text])
    artifact = tmp_path / "artifact"
    artifact.write_bytes(DATA)
    for check in (lambda: usign.verify_bytes(DATA, good, trusted), lambda: usign.verify_file(str(artifact), good,
                                                                                               trusted)):
        with pytest.raises(usign.UsignError, match="neither python's cryptography nor OpenWrt's usign"):
            check()
