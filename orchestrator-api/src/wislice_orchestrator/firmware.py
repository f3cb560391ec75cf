"""Firmware artifacts for fleet upgrades (issue 18): usign signatures, trusted keys, storage on disk.

An artifact is an OpenWrt sysupgrade image or a package set (a tar of .ipk files), signed with OpenWrt's usign
(the upgrade contract, spec/agent/PROTOCOL.md; the format and its check: wislice_agent_proto.usign, which the
ap-agent uses too). The orchestrator verifies an upload against its own trusted keys before storing it, so a
rollout never sends the fleet an image nobody it trusts signed (the agents verify again against theirs).
"""

from __future__ import annotations

import hashlib
import os
import secrets
from pathlib import Path
from typing import Any

from wislice_agent_proto import usign

KINDS = ("sysupgrade", "packages")


class FirmwareError(ValueError):
    """An upload or a key refused; the message says why (shown to the operator)."""


def load_keys(setting: str) -> list[usign.PublicKey]:
    """The trusted keys of WISLICE_FIRMWARE_KEYS: a directory of usign public key files (as OpenWrt's
    /etc/opkg/keys), or base64 key lines separated by commas. A key that does not parse stops the start: an
    operator must not believe a key is trusted while it is not."""
    setting = setting.strip()
    if not setting:
        return []
    try:
        if Path(setting).is_dir():
            return usign.keys_from_dir(setting, strict=True)
        if setting.startswith(("/", ".")):  # a path (base64 keys may hold '/' too, but never start with one)
            raise FirmwareError(f"WISLICE_FIRMWARE_KEYS: {setting} is not a directory")
        return usign.keys_from_lines(setting.split(","))
    except usign.UsignError as exc:
        raise FirmwareError(f"WISLICE_FIRMWARE_KEYS: {exc}") from None


def verify(data: bytes, signature_text: str, keys: list[usign.PublicKey]) -> usign.PublicKey:
    """The trusted key that signed `data`; FirmwareError naming what is wrong otherwise."""
    try:
        signature = usign.parse_signature(signature_text)
        if not keys:
            raise FirmwareError("no trusted firmware keys are configured (WISLICE_FIRMWARE_KEYS): nothing can be "
                                "verified, so nothing is accepted")
        return usign.verify_bytes(data, signature, keys)
    except usign.UsignError as exc:
        raise FirmwareError(str(exc)) from None


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
