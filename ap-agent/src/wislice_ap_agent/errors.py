"""Errors that become protocol error replies (code from PROTOCOL.md)."""

from __future__ import annotations


class AgentError(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
