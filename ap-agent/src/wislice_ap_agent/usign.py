"""OpenWrt usign signatures (Ed25519) for firmware upgrades: parsing, and checking against trusted public keys.

A signature file is "untrusted comment: ...\\n" then base64(b"Ed" + 8-byte key id + 64-byte signature over the
artifact's bytes); a public key file the same with a 32-byte key, as in OpenWrt's /etc/opkg/keys (where each file
is named by its key id in hex). The key id only picks the key: the trust is the key file's presence in the
trusted directory.

The check, chosen per call: python's ``cryptography`` where it is installed (the host, an OpenWrt image with
python3-cryptography), else OpenWrt's own ``usign -V`` (always on OpenWrt: opkg uses it), else ed25519.py, plain
Python (the AP VM, whose Debian-built image has neither).
"""

from __future__ import annotations

import base64
import binascii
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass

from . import ed25519

PKALG = b"Ed"
USIGN_TIMEOUT_S = 60.0


class SignatureError(ValueError):
    """The signature does not check out; the message says why (reported to the controller)."""


@dataclass(frozen=True)
class Signature:
    key_id: bytes
    sig: bytes
    text: str  # the file as given (for usign -x)

    @property
    def key_hex(self) -> str:
        return self.key_id.hex()


def _payload(text: str, what: str, size: int) -> bytes:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    if lines and lines[0].startswith("untrusted comment:"):
        lines = lines[1:]
    if len(lines) != 1:
        raise SignatureError(f"{what}: expected 'untrusted comment: ...' and one base64 line (usign format)")
    try:
        raw = base64.b64decode(lines[0], validate=True)
    except (binascii.Error, ValueError):
        raise SignatureError(f"{what}: not base64") from None
    if raw[:2] != PKALG or len(raw) != size:
        raise SignatureError(f"{what}: not an Ed25519 usign {what} ({len(raw)} bytes, 'Ed' + {size - 2} expected)")
    return raw


def parse_signature(text: str) -> Signature:
    raw = _payload(text, "signature", 2 + 8 + 64)
    return Signature(raw[2:10], raw[10:], text)


def trusted_keys(keys_dir: str) -> dict[bytes, bytes]:
    """key id -> 32-byte public key of every usign public key file in keys_dir (files that do not parse are
    skipped: opkg's directory may hold other things)."""
    keys: dict[bytes, bytes] = {}
    try:
        names = sorted(os.listdir(keys_dir))
    except OSError:
        return keys
    for name in names:
        path = os.path.join(keys_dir, name)
        if name.startswith(".") or not os.path.isfile(path):
            continue
        try:
            with open(path, encoding="ascii") as f:
                raw = _payload(f.read(4096), "public key", 2 + 8 + 32)
        except (OSError, UnicodeDecodeError, SignatureError):
            continue
        keys[raw[2:10]] = raw[10:]
    return keys


def have_cryptography() -> bool:
    try:
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey  # noqa: F401
    except ImportError:
        return False
    return True


def verifier() -> str:
    """Which check this AP runs: "cryptography", "usign" or "python"."""
    if have_cryptography():
        return "cryptography"
    return "usign" if shutil.which("usign") else "python"


def verify(path: str, signature: Signature, keys_dir: str) -> str:
    """Checks the signature over the file at path against the trusted keys; returns the key id (hex) that signed
    it, or raises SignatureError."""
    keys = trusted_keys(keys_dir)
    if signature.key_id not in keys:
        raise SignatureError(f"bad signature: key {signature.key_hex} is not among the AP's trusted keys "
                             f"({', '.join(k.hex() for k in keys) or 'none'})")
    how = verifier()
    if how == "cryptography":
        _verify_cryptography(path, signature, keys[signature.key_id])
    elif how == "usign":
        _verify_usign(path, signature, keys_dir)
    else:
        with open(path, "rb") as f:
            data = f.read()
        if not ed25519.verify(keys[signature.key_id], signature.sig, data):
            raise SignatureError(f"bad signature: not a signature of this file by key {signature.key_hex}")
    return signature.key_hex


def _verify_cryptography(path: str, signature: Signature, key: bytes) -> None:
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    with open(path, "rb") as f:
        data = f.read()  # Ed25519 hashes the whole message twice: it cannot be streamed
    try:
        Ed25519PublicKey.from_public_bytes(key).verify(signature.sig, data)
    except InvalidSignature:
        raise SignatureError(f"bad signature: not a signature of this file by key {signature.key_hex}") from None


def _verify_usign(path: str, signature: Signature, keys_dir: str) -> None:
    """usign -V -q -m FILE -x SIG -P KEYDIR: usign finds the key by the signature's key id in KEYDIR (its files
    named by key id, as /etc/opkg/keys); our own lookup above already refused an unknown key id with a clearer
    message."""
    with tempfile.NamedTemporaryFile("w", suffix=".sig", dir=os.path.dirname(path), delete=False) as f:
        f.write(signature.text if signature.text.endswith("\n") else signature.text + "\n")
        sig_path = f.name
    try:
        run = subprocess.run(["usign", "-V", "-q", "-m", path, "-x", sig_path, "-P", keys_dir],
                             capture_output=True, text=True, timeout=USIGN_TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise SignatureError(f"usign failed to run: {e}") from None
    finally:
        os.unlink(sig_path)
    if run.returncode != 0:
        detail = (run.stderr or run.stdout).strip()[-200:]
        raise SignatureError(f"bad signature: usign -V refused it (key {signature.key_hex})"
                             f"{': ' + detail if detail else ''}")
