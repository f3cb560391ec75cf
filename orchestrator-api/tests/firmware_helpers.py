"""A world set up for upgrades and firmware uploads (keys: wislice_agent_proto.usign.SigningKey)."""

from __future__ import annotations

import copy
import io
from typing import Any

from orch_helpers import World, make_world
from wislice_agent_proto.usign import SigningKey


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
