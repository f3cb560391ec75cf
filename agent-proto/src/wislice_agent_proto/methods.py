"""The method table: one request message -> its handler -> the reply. An agent serves a method by putting its handler
in the table; the schema has already checked the params when the handler runs."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any

from . import validate
from .errors import AgentError
from .protocol import reply_error, reply_ok, usable_request_id

log = logging.getLogger("wislice_agent_proto")

Handler = Callable[[dict[str, Any]], dict[str, Any]]
Table = Mapping[str, Handler]


def serve(table: Table, msg: Any) -> dict[str, Any] | None:
    """The reply to one request message; never raises. None when no reply can name the request (its id is
    unusable): the connection is closed instead.

    - a message that breaks the schema: bad_request, or unknown_method when this agent has no such method;
    - a valid request for a protocol method this agent does not serve (another role's): unsupported;
    - the handler's AgentError: its code and message; any other exception: internal (the agent keeps serving).
    """
    rid = usable_request_id(msg)
    if rid is None:
        return None
    method = msg.get("method")
    served = isinstance(method, str) and method in table
    try:
        validate.message(msg)
    except validate.ValidationError as e:
        unknown = isinstance(e, validate.UnknownMethod) or not served
        return reply_error(rid, "unknown_method" if unknown else "bad_request", str(e))
    if not served:
        return reply_error(rid, "unsupported", f"method {method} is not served by this agent")
    try:
        return reply_ok(rid, table[method](msg["params"]))
    except AgentError as e:
        return reply_error(rid, e.code, e.message)
    except Exception as e:  # a bug must not kill the agent: report it and keep serving
        log.exception("request %s failed", method)
        return reply_error(rid, "internal", f"{type(e).__name__}: {e}")
