"""OpenWrt usign (Ed25519) public keys and signatures: parsing, trusted keys, verification.

The format of upgradeFirmware's `signature` (spec/agent/PROTOCOL.md): a signature file is
"untrusted comment: ...\\n" then base64(b"Ed" + 8-byte key id + 64-byte Ed25519 signature over the data); a
public key file the same with a 32-byte key, as in OpenWrt's /etc/opkg/keys (each file named by its key id in
hex). The key id only picks the key: the trust is the key's presence among the caller's keys. The orchestrator
checks an upload with it, the ap-agent the artifact it downloaded.

SigningKey makes keys and signatures in the same formats (what `usign -G` and `usign -S` do) for operators and
tests on hosts with python's cryptography.

The check, chosen per call (backend()): python's ``cryptography`` where it is importable (the controllers' host,
the AP VM, an OpenWrt image with python3-cryptography), else OpenWrt's own ``usign -V`` (always on OpenWrt: opkg
uses it); a host with neither refuses every signature, saying so (no hand-written Ed25519 here). Stdlib only at
import: the AP may have no cryptography.
"""

from __future__ import annotations

import base64
import binascii
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass

PKALG = b"Ed"
KEY_ID_LEN = 8
PUBLIC_KEY_LEN = 2 + KEY_ID_LEN + 32
SIGNATURE_LEN = 2 + KEY_ID_LEN + 64
MAX_KEY_FILE = 4096  # a key file is ~100 bytes; opkg's directory may hold larger unrelated files
USIGN_TIMEOUT_S = 60.0


class UsignError(ValueError):
    """A key or signature that does not parse, or a signature that does not verify; the message says why."""


@dataclass(frozen=True)
class PublicKey:
    key_id: bytes
    key: bytes  # the 32-byte Ed25519 public key
    source: str  # file name or list position, for messages

    @property
    def key_hex(self) -> str:
        return self.key_id.hex()


@dataclass(frozen=True)
class Signature:
    key_id: bytes
    sig: bytes  # the 64-byte Ed25519 signature

    @property
    def key_hex(self) -> str:
        return self.key_id.hex()


def _payload(text: str, what: str, kind: str, size: int) -> bytes:
    """The base64 line of a usign file (the comment line is optional on input), decoded and its length checked."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    if lines and lines[0].startswith("untrusted comment:"):
        lines = lines[1:]
    if len(lines) != 1:
        raise UsignError(f"{what}: expected 'untrusted comment: ...' and one base64 line (usign format)")
    try:
        raw = base64.b64decode(lines[0], validate=True)
    except (binascii.Error, ValueError):
        raise UsignError(f"{what}: not base64") from None
    if raw[:2] != PKALG:
        raise UsignError(f"{what}: not an Ed25519 usign {kind} (it must start with 'Ed')")
    if len(raw) != size:
        raise UsignError(f"{what}: {len(raw)} bytes, a usign {kind} has {size}")
    return raw


def parse_public_key(text: str, source: str = "") -> PublicKey:
    """A usign public key file's text (or just its base64 line); source names it in messages."""
    raw = _payload(text, f"public key {source}".strip(), "public key", PUBLIC_KEY_LEN)
    return PublicKey(raw[2:10], raw[10:], source)


def parse_signature(text: str) -> Signature:
    """A usign signature file's text (or just its base64 line)."""
    raw = _payload(text, "signature", "signature", SIGNATURE_LEN)
    return Signature(raw[2:10], raw[10:])


def keys_from_lines(items: Iterable[str]) -> list[PublicKey]:
    """Public keys given as texts or base64 lines (blank items skipped), named #1, #2, ... by position."""
    return [parse_public_key(item, f"#{i + 1}") for i, item in enumerate(items) if item.strip()]


def keys_from_dir(keys_dir: str, strict: bool = False) -> list[PublicKey]:
    """The usign public key files in keys_dir (as OpenWrt's /etc/opkg/keys; hidden files and subdirectories
    ignored), by file name. strict: a file that does not parse, or no directory, is an error (an operator must not
    believe a key is trusted while it is not); else they are skipped (opkg's directory may hold other things)."""
    try:
        names = sorted(os.listdir(keys_dir))
    except OSError as e:
        if strict:
            raise UsignError(f"trusted keys: cannot read the directory {keys_dir}: {e.strerror}") from None
        return []
    keys = []
    for name in names:
        path = os.path.join(keys_dir, name)
        if name.startswith(".") or not os.path.isfile(path):
            continue
        try:
            with open(path, "rb") as f:
                keys.append(parse_public_key(f.read(MAX_KEY_FILE).decode("ascii", errors="replace"), name))
        except OSError as e:
            if strict:
                raise UsignError(f"public key {name}: cannot read it: {e.strerror}") from None
        except UsignError:
            if strict:
                raise
    return keys


def have_cryptography() -> bool:
    try:
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey  # noqa: F401
    except ImportError:
        return False
    return True


def backend() -> str:
    """Which check runs here: "cryptography", "usign", or "none" (verification then refuses, saying why)."""
    if have_cryptography():
        return "cryptography"
    return "usign" if shutil.which("usign") else "none"


def _no_backend() -> UsignError:
    return UsignError("cannot check signatures here: neither python's cryptography nor OpenWrt's usign is installed")


def verify_bytes(data: bytes, signature: Signature, keys: Iterable[PublicKey]) -> PublicKey:
    """The key among keys that made signature over data; UsignError saying why not otherwise."""
    candidates = _candidates(signature, keys)
    how = backend()
    if how == "none":
        raise _no_backend()
    if how == "cryptography":
        return _verify_cryptography(data, signature, candidates)
    with tempfile.TemporaryDirectory(prefix="usign-") as tmp:
        path = os.path.join(tmp, "data")
        with open(path, "wb") as f:
            f.write(data)
        return _verify_usign(path, signature, candidates)


def verify_file(path: str, signature: Signature, keys: Iterable[PublicKey]) -> PublicKey:
    """verify_bytes over the file at path (usign reads it itself; the others need it in memory: Ed25519 hashes the
    message twice, it cannot be streamed)."""
    candidates = _candidates(signature, keys)
    how = backend()
    if how == "none":
        raise _no_backend()
    if how == "usign":
        return _verify_usign(path, signature, candidates)
    with open(path, "rb") as f:
        return _verify_cryptography(f.read(), signature, candidates)


def _candidates(signature: Signature, keys: Iterable[PublicKey]) -> list[PublicKey]:
    keys = list(keys)
    candidates = [k for k in keys if k.key_id == signature.key_id]
    if not candidates:
        trusted = ", ".join(k.key_hex for k in keys) or "none"
        raise UsignError(f"bad signature: key {signature.key_hex} is not a trusted key (trusted: {trusted})")
    return candidates


def _mismatch(signature: Signature, detail: str = "") -> UsignError:
    return UsignError(f"bad signature: does not match the data (key {signature.key_hex}): corrupted, or not what "
                      f"was signed{detail}")


def _verify_cryptography(data: bytes, signature: Signature, candidates: list[PublicKey]) -> PublicKey:
    """Several candidates: keys that share a key id."""
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    for key in candidates:
        try:
            Ed25519PublicKey.from_public_bytes(key.key).verify(signature.sig, data)
            return key
        except (InvalidSignature, ValueError):
            continue
    raise _mismatch(signature)


def _file_text(comment: str, raw: bytes) -> str:
    return f"untrusted comment: {comment}\n{base64.b64encode(raw).decode()}\n"


def _verify_usign(path: str, signature: Signature, candidates: list[PublicKey]) -> PublicKey:
    """usign -V -q -m FILE -x SIG -p PUBKEY with the candidate key (the key id matched already: usign's own
    lookup in a key directory would only say less)."""
    detail = ""
    with tempfile.TemporaryDirectory(prefix="usign-") as tmp:
        sig_path, pub_path = os.path.join(tmp, "data.sig"), os.path.join(tmp, "key.pub")
        with open(sig_path, "w", encoding="ascii") as f:
            f.write(_file_text("signature", PKALG + signature.key_id + signature.sig))
        for key in candidates:
            with open(pub_path, "w", encoding="ascii") as f:
                f.write(_file_text(f"public key {key.key_hex}", PKALG + key.key_id + key.key))
            try:
                run = subprocess.run(["usign", "-V", "-q", "-m", path, "-x", sig_path, "-p", pub_path],
                                     capture_output=True, text=True, timeout=USIGN_TIMEOUT_S, check=False)
            except (OSError, subprocess.TimeoutExpired) as e:
                raise UsignError(f"usign failed to run: {e}") from None
            if run.returncode == 0:
                return key
            detail = (run.stderr or run.stdout).strip()[-200:]
    raise _mismatch(signature, f" (usign -V: {detail or 'refused'})")


class SigningKey:
    """An Ed25519 signing key with a random usign key id: `public_text` is its public key file (for the
    orchestrator's WISLICE_FIRMWARE_KEYS and OpenWrt's /etc/opkg/keys/<key_hex>), `sign` a signature file's text.
    Needs python's cryptography (ImportError otherwise)."""

    def __init__(self, comment: str = "wislice firmware key", key_id: bytes | None = None) -> None:
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

        if key_id is not None and len(key_id) != KEY_ID_LEN:
            raise ValueError(f"a usign key id has {KEY_ID_LEN} bytes")
        self._private = Ed25519PrivateKey.generate()
        self.key_id = key_id or os.urandom(KEY_ID_LEN)
        self.comment = comment
        raw = self._private.public_key().public_bytes_raw()
        self.public_text = _file_text(f"public key of {comment}", PKALG + self.key_id + raw)

    @property
    def key_hex(self) -> str:
        return self.key_id.hex()

    @property
    def public_line(self) -> str:
        """The public key's base64 line alone (WISLICE_FIRMWARE_KEYS takes a list of them)."""
        return self.public_text.splitlines()[1]

    def sign(self, data: bytes) -> str:
        return _file_text(f"signed by key {self.key_hex}", PKALG + self.key_id + self._private.sign(data))
