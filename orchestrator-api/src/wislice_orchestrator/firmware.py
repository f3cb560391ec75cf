"""Firmware artifacts for fleet upgrades (issue 18): usign signatures, trusted keys, storage on disk.

An artifact is an OpenWrt sysupgrade image or a package set (a tar of .ipk files), signed with OpenWrt's usign
(spec: the upgrade contract, spec/agent/PROTOCOL.md): a signature file is "untrusted comment: ...\\n" then
base64(b"Ed" + 8-byte key id + 64-byte Ed25519 signature over the artifact's bytes); a public key file the same
with a 32-byte key. The orchestrator verifies an upload against its own trusted keys before storing it, so a
rollout never sends the fleet an image nobody it trusts signed (the agents verify again against theirs).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import os
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

KINDS = ("sysupgrade", "packages")
PKALG = b"Ed"
KEY_ID_LEN = 8


class FirmwareError(ValueError):
    """An upload or a key refused; the message says why (shown to the operator)."""


@dataclass(frozen=True)
class PublicKey:
    key_id: bytes
    key: Ed25519PublicKey
    source: str  # file name or list position, for messages


def _payload(text: str, what: str) -> bytes:
    """The base64 line of a usign file (the comment line is optional on input) decoded."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    if lines and lines[0].startswith("untrusted comment:"):
        lines = lines[1:]
    if len(lines) != 1:
        raise FirmwareError(f"{what}: expected 'untrusted comment: ...' and one base64 line (usign format)")
    try:
        raw = base64.b64decode(lines[0], validate=True)
    except (binascii.Error, ValueError) as exc:
        raise FirmwareError(f"{what}: not base64") from exc
    if raw[:2] != PKALG:
        raise FirmwareError(f"{what}: not an Ed25519 usign file (it must start with 'Ed')")
    return raw


def parse_public_key(text: str, source: str) -> PublicKey:
    raw = _payload(text, f"public key {source}")
    if len(raw) != 2 + KEY_ID_LEN + 32:
        raise FirmwareError(f"public key {source}: {len(raw)} bytes, a usign public key has 42")
    return PublicKey(raw[2:10], Ed25519PublicKey.from_public_bytes(raw[10:]), source)


def parse_signature(text: str) -> tuple[bytes, bytes]:
    """(key id, 64-byte signature) of a usign signature file's text."""
    raw = _payload(text, "signature")
    if len(raw) != 2 + KEY_ID_LEN + 64:
        raise FirmwareError(f"signature: {len(raw)} bytes, a usign signature has 74")
    return raw[2:10], raw[10:]


def load_keys(setting: str) -> list[PublicKey]:
    """The trusted keys of WISLICE_FIRMWARE_KEYS: a directory of usign public key files (as OpenWrt's
    /etc/opkg/keys), or base64 key lines separated by commas. A key that does not parse stops the start: an
    operator must not believe a key is trusted while it is not."""
    setting = setting.strip()
    if not setting:
        return []
    path = Path(setting)
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.is_file() and not p.name.startswith("."))
        return [parse_public_key(p.read_text(encoding="utf-8", errors="replace"), p.name) for p in files]
    if setting.startswith(("/", ".")):  # a path (base64 keys may hold '/' too, but never start with one)
        raise FirmwareError(f"WISLICE_FIRMWARE_KEYS: {setting} is not a directory")
    return [parse_public_key(item, f"#{i + 1}") for i, item in enumerate(setting.split(",")) if item.strip()]


def verify(data: bytes, signature_text: str, keys: list[PublicKey]) -> PublicKey:
    """The trusted key that signed `data`; FirmwareError naming what is wrong otherwise."""
    key_id, signature = parse_signature(signature_text)
    if not keys:
        raise FirmwareError("no trusted firmware keys are configured (WISLICE_FIRMWARE_KEYS): nothing can be "
                            "verified, so nothing is accepted")
    candidates = [k for k in keys if k.key_id == key_id]
    if not candidates:
        raise FirmwareError(f"signature: made with key {key_id.hex()}, which is not a trusted key")
    for key in candidates:
        try:
            key.key.verify(signature, data)
            return key
        except InvalidSignature:
            continue
    raise FirmwareError(f"signature: does not match the artifact (key {key_id.hex()}): corrupted or not what "
                        "was signed")


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def new_token() -> str:
    """The per-firmware download token: 256 random bits, the only thing that lets an agent fetch it."""
    return secrets.token_urlsafe(32)


def store_dir(settings: dict[str, Any]) -> Path:
    """WISLICE_FIRMWARE_DIR, or `firmware/` beside a SQLite database file."""
    if settings.get("FIRMWARE_DIR"):
        return Path(settings["FIRMWARE_DIR"])
    url = str(settings["DATABASE_URL"])
    if url.startswith("sqlite:///") and url != "sqlite:///:memory:" and len(url) > len("sqlite:///"):
        return Path(url[len("sqlite:///"):]).resolve().parent / "firmware"
    raise FirmwareError("WISLICE_FIRMWARE_DIR must be set (the database is not a SQLite file)")


def write_artifact(directory: Path, sha256: str, data: bytes) -> Path:
    """Store the bytes under their hash (written to a temporary name, then renamed: never half a file)."""
    directory.mkdir(parents=True, exist_ok=True)
    final = directory / f"{sha256}.bin"
    tmp = directory / f".{sha256}.{secrets.token_hex(4)}.tmp"
    with open(tmp, "wb") as out:
        out.write(data)
        out.flush()
        os.fsync(out.fileno())
    os.replace(tmp, final)
    return final


def download_url(base: str, firmware_id: int, token: str) -> str:
    """The URL an agent fetches the artifact from (WISLICE_FIRMWARE_BASE_URL: the orchestrator as agents reach
    it, e.g. http://10.0.0.254:8080)."""
    return f"{base.rstrip('/')}/api/v1/firmware/{firmware_id}/download?token={token}"
