"""One error shape for every response: RFC 9457 problem+json (type, title, status, detail, errors)."""

from __future__ import annotations

import logging
from typing import Any

from flask import Flask, Response, json
from sqlalchemy.exc import IntegrityError
from werkzeug.exceptions import HTTPException, InternalServerError, MethodNotAllowed

from .controllers import ControllerError
from .service import Conflict, Missing, Rejected

PROBLEM = "application/problem+json"
log = logging.getLogger(__name__)


def problem(status: int, title: str, detail: str = "", errors: Any = None, kind: str = "about:blank") -> Response:
    body: dict[str, Any] = {"type": kind, "title": title, "status": status}
    if detail:
        body["detail"] = detail
    if errors is not None:
        body["errors"] = errors
    return Response(json.dumps(body), status=status, mimetype=PROBLEM)


def _http_error(exc: HTTPException) -> Response:
    status = exc.code or 500
    data = getattr(exc, "data", None) or {}
    # webargs/flask-smorest put validation details under data["messages"].
    errors = data.get("messages")
    detail = data.get("message") or exc.description or ""
    if errors and status == 422:
        detail = "the request does not match the schema; see errors"
    response = problem(status, exc.name, detail, errors)
    if status == 401:
        response.headers["WWW-Authenticate"] = 'Bearer realm="wislice"'
    if isinstance(exc, MethodNotAllowed) and exc.valid_methods:
        response.headers["Allow"] = ", ".join(exc.valid_methods)  # RFC 9110: a 405 says what is allowed
    return response


def _controller_error(exc: ControllerError) -> Response:
    status = 404 if exc.not_found else 504 if exc.code == "timeout" else 409 if exc.status == 409 else 502
    return problem(status, "controller error", exc.message, {"controller_code": exc.code},
                   kind="urn:wislice:controller-error")


def _integrity_error(exc: IntegrityError) -> Response:
    # The database refused a write that clashed with a concurrent change (the checks before it are meant to catch
    # every such case; this is the backstop). The request's session is rolled back when it closes.
    log.warning("refused by the database: %s", exc.orig)
    return problem(409, "conflict", "the request clashed with a concurrent change; check the current state and retry")


def _unexpected(exc: Exception) -> Response:
    if isinstance(exc, HTTPException):
        return _http_error(exc)
    log.exception("unhandled error", exc_info=exc)
    return _http_error(InternalServerError())


def init_app(app: Flask) -> None:
    app.register_error_handler(HTTPException, _http_error)
    app.register_error_handler(ControllerError, _controller_error)
    app.register_error_handler(Conflict, lambda exc: problem(409, "conflict", str(exc)))
    app.register_error_handler(Missing, lambda exc: problem(404, "Not Found", str(exc)))
    app.register_error_handler(IntegrityError, _integrity_error)
    app.register_error_handler(Rejected, lambda exc: problem(409, exc.title, "; ".join(exc.reasons), exc.reasons,
                                                             kind="urn:wislice:not-admitted"))
    app.register_error_handler(Exception, _unexpected)
