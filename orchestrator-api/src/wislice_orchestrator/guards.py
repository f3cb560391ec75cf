"""Checks every request passes before its view (and before flask-smorest parses its body), and the headers every
response carries.

- Size: a body above MAX_CONTENT_LENGTH is refused (413) from its Content-Length alone, for every caller; a body
  sent without one is cut at the same size while it is read (Flask's own MAX_CONTENT_LENGTH).
- Authentication: every /api/v1 path but the OpenAPI document needs a valid bearer token. Checked here rather
  than in the views, because flask-smorest validates a body before the view runs: an anonymous caller would get
  a 422 listing the schema's fields, and have its body parsed, instead of a 401. An expired or revoked token is
  refused here too, its 401 saying which.
- Headers: no MIME sniffing, no framing (clickjacking), no Referer leaving the dashboard. The dashboard's page
  loads only its own scripts, styles and API (it has no inline script, style or handler, so no 'unsafe-inline');
  every other response is data that nothing should render, so its policy allows nothing.
"""

from __future__ import annotations

from flask import Flask, Response, abort, g, request

from . import auth
from .api.firmware import DOWNLOAD_PATH, UPLOAD_PATH, upload_limit

API_PREFIX = "/api/v1/"
DASHBOARD_POLICY = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
                    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
DATA_POLICY = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
HEADERS = {"X-Content-Type-Options": "nosniff", "X-Frame-Options": "DENY", "Referrer-Policy": "no-referrer"}


def init_app(app: Flask) -> None:
    """Register the checks; call after the hook that loads the caller (g.principal)."""
    public = {API_PREFIX + app.config["OPENAPI_JSON_PATH"]}

    @app.before_request
    def _limit_size() -> None:
        limit = app.config["MAX_CONTENT_LENGTH"]
        if request.path == UPLOAD_PATH and request.method == "POST":
            limit = upload_limit(app.config)  # a firmware artifact is far larger than any JSON body
            request.max_content_length = limit  # also cuts a body sent without a Content-Length
        if limit is not None and request.content_length is not None and request.content_length > limit:
            abort(413, f"the body is {request.content_length} bytes; at most {limit} are accepted")

    @app.before_request
    def _authenticate() -> None:
        if (request.path.startswith(API_PREFIX) and request.path not in public and g.get("principal") is None
                and not DOWNLOAD_PATH.fullmatch(request.path)):  # agents: the firmware's token is the capability
            abort(401, auth.unauthorized())  # says "expired" or "revoked" when that is why

    @app.after_request
    def _security_headers(response: Response) -> Response:
        response.headers.update(HEADERS)
        page = request.blueprint == "dashboard" and response.mimetype == "text/html"
        response.headers["Content-Security-Policy"] = DASHBOARD_POLICY if page else DATA_POLICY
        return response
