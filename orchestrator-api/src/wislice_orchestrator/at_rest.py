"""Passphrases at rest: sealed with AES-256-GCM under a key kept in a file of its own, never in the database.

A vAP's passphrase waits in the database only until its agent has it (steps.apply_create_vap clears it); in that
time it is stored sealed, bound to its vAP id (a sealed value copied to another row does not open), padded to one
length (the stored value does not tell a passphrase's length). It is opened only to build the vAP's spec for the
controllers (steps.vap_spec). The key's id (a hash of it, not the key) is recorded in the database at start, so a
missing or wrong key file is refused at start with what to do, instead of failing a slice creation later.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import logging
import os
import secrets
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.orm import Session

log = logging.getLogger(__name__)

KEY_BYTES = 32  # AES-256
NONCE_BYTES = 12
# The longest passphrase (64 hex digits); every one is padded to it, plus its length byte.
PADDED_BYTES = 65
SEALED_PREFIX = "aesgcm1:"
# settings row holding the id of the key the database's passphrases are sealed under.
KEY_ID_SETTING = "passphrase_key_id"
SESSION_INFO_KEY = "passphrases"

settings_table = sa.table("settings", sa.column("key", sa.String()), sa.column("value", sa.JSON()))


class KeyFileError(RuntimeError):
    """The passphrase key file is missing, unreadable or not the key the database was sealed under."""


@dataclass(frozen=True)
class PassphraseBox:
    key: bytes = field(repr=False)

    def __post_init__(self) -> None:
        if len(self.key) != KEY_BYTES:
            raise KeyFileError(f"a passphrase key is {KEY_BYTES} bytes, not {len(self.key)}")

    @property
    def key_id(self) -> str:
        """Names the key without revealing it (a 256-bit random key's hash)."""
        return hashlib.sha256(b"wislice passphrase key id\0" + self.key).hexdigest()[:16]

    def request_digest(self, data: bytes) -> str:
        """HMAC-SHA256 of a request under a key derived from this one (service.request_hash)."""
        digest_key = hashlib.sha256(b"wislice request digest\0" + self.key).digest()
        return hmac.new(digest_key, data, hashlib.sha256).hexdigest()

    def seal(self, plain: str, vap_id: str) -> str:
        data = plain.encode()
        if len(data) > PADDED_BYTES - 1:
            raise ValueError("passphrase longer than 64 bytes")
        padded = bytes([len(data)]) + data + bytes(PADDED_BYTES - 1 - len(data))
        nonce = secrets.token_bytes(NONCE_BYTES)
        sealed = AESGCM(self.key).encrypt(nonce, padded, _aad(vap_id))
        return SEALED_PREFIX + base64.urlsafe_b64encode(nonce + sealed).decode()

    def open(self, sealed: str, vap_id: str) -> str:
        if not sealed.startswith(SEALED_PREFIX):
            raise KeyFileError(f"the passphrase of vAP {vap_id} is not sealed")
        raw = base64.urlsafe_b64decode(sealed[len(SEALED_PREFIX):])
        try:
            padded = AESGCM(self.key).decrypt(raw[:NONCE_BYTES], raw[NONCE_BYTES:], _aad(vap_id))
        except InvalidTag:
            raise KeyFileError(f"the passphrase of vAP {vap_id} does not open with key {self.key_id}") from None
        return padded[1:1 + padded[0]].decode()


def _aad(vap_id: str) -> bytes:
    return b"slice_vaps.passphrase\0" + vap_id.encode()


# --- the key file ---------------------------------------------------------------------------------------------
def key_path(settings: dict[str, Any]) -> Path | None:
    """PASSPHRASE_KEY_FILE, else `<database file>.key` beside a SQLite file; None for an in-memory SQLite database
    (its key lives as long as it does). Another database (PostgreSQL) has no file to sit beside: it needs the
    setting."""
    if settings.get("PASSPHRASE_KEY_FILE"):
        return Path(settings["PASSPHRASE_KEY_FILE"])
    url = make_url(settings["DATABASE_URL"])
    if url.get_backend_name() != "sqlite":
        raise KeyFileError("WISLICE_PASSPHRASE_KEY_FILE must name the passphrase key file for a database that is "
                           "not a SQLite file (the key must not live in the database it protects)")
    if url.database in (None, "", ":memory:"):
        return None
    return Path(url.database + ".key")


def read_key(path: Path) -> bytes:
    try:
        text = path.read_text().strip()
        mode = path.stat().st_mode
    except OSError as exc:
        raise KeyFileError(f"passphrase key file {path} cannot be read: {exc.strerror}") from None
    try:
        key = bytes.fromhex(text)
    except ValueError:
        key = b""
    if len(key) != KEY_BYTES:
        raise KeyFileError(f"passphrase key file {path} does not hold a key ({2 * KEY_BYTES} hex digits)")
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        log.warning("passphrase key file %s is readable by others than its owner: chmod 600 it", path)
    return key


def write_key(path: Path, key: bytes) -> None:
    """Write a key file 0600, whole or not at all: a temporary file renamed into place (an existing key file is
    replaced only by rotate_key, which has re-sealed everything first)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "w") as out:
            out.write(key.hex() + "\n")
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def recorded_key_id(engine: Engine) -> str | None:
    """The id of the key the database's passphrases are sealed under; None before one was recorded."""
    with engine.connect() as conn:
        if not sa.inspect(conn).has_table("settings"):
            return None
        value = conn.scalar(sa.select(settings_table.c.value).where(settings_table.c.key == KEY_ID_SETTING))
    return str(value) if value is not None else None


def record_key_id(engine: Engine, box: PassphraseBox) -> None:
    with engine.begin() as conn:
        conn.execute(settings_table.delete().where(settings_table.c.key == KEY_ID_SETTING))
        conn.execute(settings_table.insert().values(key=KEY_ID_SETTING, value=box.key_id))


def open_box(engine: Engine, path: Path | None) -> PassphraseBox:
    """The key the database's passphrases are (to be) sealed under. A missing file is created (0600) only for a
    database that has recorded no key yet; otherwise a missing or different key is refused here, at start."""
    recorded = recorded_key_id(engine)
    if path is None:
        return PassphraseBox(secrets.token_bytes(KEY_BYTES))
    if not path.exists():
        if recorded is not None:
            raise KeyFileError(f"passphrase key file {path} is missing; this database's passphrases are sealed "
                               f"under key {recorded}: restore that file from backup or point "
                               "WISLICE_PASSPHRASE_KEY_FILE at it (lost: `wislice passphrase-key forget-lost`)")
        write_key(path, secrets.token_bytes(KEY_BYTES))
        log.warning("created passphrase key file %s: back it up with the database", path)
    box = PassphraseBox(read_key(path))
    pending = _pending_rotation(path)
    if recorded is not None and recorded != box.key_id and pending is not None and pending.key_id == recorded:
        os.replace(_rotation_path(path), path)  # a rotation committed its re-sealing but stopped before this
        log.warning("passphrase key rotation finished: %s now holds key %s", path, pending.key_id)
        box = pending
    if recorded is not None and recorded != box.key_id:
        raise KeyFileError(f"passphrase key file {path} holds key {box.key_id}, but this database's passphrases are "
                           f"sealed under key {recorded}: restore the right file or point "
                           "WISLICE_PASSPHRASE_KEY_FILE at it")
    return box


# --- rotation and loss (CLI `wislice passphrase-key`; run while the service is stopped) ---------------------------
vaps_table = sa.table("slice_vaps", sa.column("id", sa.Integer()), sa.column("vap_id", sa.String()),
                      sa.column("sealed_passphrase", sa.String()))


def _rotation_path(path: Path) -> Path:
    return path.with_name(path.name + ".new")


def _pending_rotation(path: Path) -> PassphraseBox | None:
    try:
        return PassphraseBox(read_key(_rotation_path(path))) if _rotation_path(path).exists() else None
    except KeyFileError:
        return None


def rotate_key(engine: Engine, path: Path) -> tuple[str, str, int]:
    """Seal every stored passphrase under a new key: the new key is written beside the old file (`.new`), the
    re-sealing and the new key id are committed in one transaction, then the new file replaces the old one (a
    start finishes that last step if it was interrupted). Returns (old key id, new key id, passphrases re-sealed)."""
    old = open_box(engine, path)
    new = PassphraseBox(secrets.token_bytes(KEY_BYTES))
    write_key(_rotation_path(path), new.key)
    with engine.begin() as conn:
        rows = conn.execute(sa.select(vaps_table.c.id, vaps_table.c.vap_id, vaps_table.c.sealed_passphrase)
                            .where(vaps_table.c.sealed_passphrase.is_not(None))).all()
        for row_id, vap_id, sealed in rows:
            resealed = new.seal(old.open(sealed, vap_id), vap_id)
            conn.execute(vaps_table.update().where(vaps_table.c.id == row_id).values(sealed_passphrase=resealed))
        conn.execute(settings_table.delete().where(settings_table.c.key == KEY_ID_SETTING))
        conn.execute(settings_table.insert().values(key=KEY_ID_SETTING, value=new.key_id))
    os.replace(_rotation_path(path), path)
    return old.key_id, new.key_id, len(rows)


def forget_key(engine: Engine, path: Path) -> int:
    """After the key file was lost: drop the passphrases sealed under it and its recorded id, so the next start
    creates a new key. Only vAPs still being created hold one, and a start rolls their operations back anyway
    (saga recovery), so nothing working is lost. Refused while a key file is at `path`. Returns how many went."""
    if path.exists():
        raise KeyFileError(f"{path} exists: move it away first if it is really not this database's key")
    with engine.begin() as conn:
        dropped = conn.execute(vaps_table.update().where(vaps_table.c.sealed_passphrase.is_not(None))
                               .values(sealed_passphrase=None)).rowcount
        conn.execute(settings_table.delete().where(settings_table.c.key == KEY_ID_SETTING))
    return dropped


# --- sealed passphrases in a session ----------------------------------------------------------------------------
def session_box(db: Session) -> PassphraseBox:
    """The box the session factory was made with (db.make_session_factory)."""
    box = db.info.get(SESSION_INFO_KEY)
    if box is None:
        raise KeyFileError("this database session has no passphrase key (db.make_session_factory(..., box))")
    return box


def seal_passphrase(db: Session, plain: str | None, vap_id: str) -> str | None:
    return None if plain is None else session_box(db).seal(plain, vap_id)


def open_passphrase(db: Session, sealed: str | None, vap_id: str) -> str | None:
    return None if sealed is None else session_box(db).open(sealed, vap_id)
