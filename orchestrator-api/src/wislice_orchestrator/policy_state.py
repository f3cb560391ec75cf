"""The states of a slice policy (policy.py) and a new policy's state: shared by the engine and the slice service."""

from __future__ import annotations

from typing import Any

IDLE, OVERLOADED, DEPLOYING, ACTIVE, RELEASING, REMOVING = (
    "idle", "overloaded", "deploying", "active", "releasing", "removing")


def initial_state() -> dict[str, Any]:
    return {"state": IDLE, "since": None, "vnf_id": None, "operation_id": None, "retry_at": None,
            "reaction_s": None, "reason": ""}
