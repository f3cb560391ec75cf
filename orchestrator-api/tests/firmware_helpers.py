"""Signing keys and signatures in OpenWrt's usign format for the firmware tests, and a world set up for upgrades."""

from __future__ import annotations

import base64
import copy
import io
import secrets
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from orch_helpers import World, make_world


class SigningKey:
    """An Ed25519 key with a usign key id; `public` and `sign` give usign file texts."""

    def __init__(self) -> None:
        self.private = Ed25519PrivateKey.generate()
        self.key_id = secrets.token_bytes(8)

    @property
    def public(self) -> str:
        raw = self.private.public_key().public_bytes_raw()
        return "untrusted comment: test key\n" + base64.b64encode(b"Ed" + self.key_id + raw).decode() + "\n"

    @property
    def public_line(self) -> str:
        return self.public.splitlines()[1]

    def sign(self, data: bytes) -> str:
        payload = b"Ed" + self.key_id + self.private.sign(data)
        return "untrusted comment: signed by test key\n" + base64.b64encode(payload).decode() + "\n"


def upgrade_world(tmp_path: Any, key: SigningKey, aps: int = 2, **config: Any) -> World:
    """A world whose orchestrator trusts `key`, with `aps` fake APs (ap-1 ...) on firmware 1.0."""
    settings = {"FIRMWARE_KEYS": key.public_line, "FIRMWARE_BASE_URL": "http://orch.test:8080",
                "FIRMWARE_MAX_BYTES": 64 * 1024}
    settings.update(config)
    w = make_world(tmp_path, **settings)
    template = w.fake.agents["ap-1"]
    for i in range(3, aps + 1):
        agent = copy.deepcopy(template)
        agent.update(agent_id=f"ap-{i}", address=f"10.0.0.{i}")
        w.fake.agents[f"ap-{i}"] = agent
    return w


def upload(w: World, data: bytes, signature: str | None, version: str = "2.0", kind: str = "sysupgrade",
           token: str | None = "operator", **extra: Any) -> Any:
    form: dict[str, Any] = {"file": (io.BytesIO(data), "image.bin"), "version": version, "kind": kind, **extra}
    if signature is not None:
        form["signature"] = signature
    who = w.operator if token == "operator" else token
    return w.call("POST", "/api/v1/firmware", who, data=form, content_type="multipart/form-data")
