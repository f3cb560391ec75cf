"""The two ways an exchange fails: an AgentError becomes an error reply (its code one of the protocol's), a
ProtocolError closes the connection (never the process)."""

from __future__ import annotations

from .validate import ERROR_CODES


class AgentError(Exception):
    """A refused request: ``code`` is a protocol error code, ``message`` says what and why."""

    def __init__(self, code: str, message: str) -> None:
        if code not in ERROR_CODES:
            raise ValueError(f"unknown error code {code!r}")
        super().__init__(message)
        self.code = code
        self.message = message


def bad_request(message: str) -> AgentError:
    return AgentError("bad_request", message)


class ProtocolError(Exception):
    """The peer broke framing or sent something that cannot be answered: close the connection."""


class Refused(ProtocolError):
    """The controller said bye."""
