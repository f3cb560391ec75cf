"""Errors that cross the agent boundary carry one of the protocol's error codes (spec/agent/PROTOCOL.md)."""

from __future__ import annotations

ERROR_CODES = ("bad_request", "unknown_method", "not_found", "conflict", "capacity", "unsupported", "internal")


class AgentError(Exception):
    """A failure the controller is told about: ``code`` is a protocol error code, the message says what and why."""

    def __init__(self, code: str, message: str) -> None:
        if code not in ERROR_CODES:
            raise ValueError(f"unknown error code {code!r}")
        super().__init__(message)
        self.code = code
        self.message = message


def bad_request(message: str) -> AgentError:
    return AgentError("bad_request", message)
