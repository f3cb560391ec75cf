"""Issue #13 (found by the probe): every response carries security headers, and the dashboard's page runs under a
Content-Security-Policy without 'unsafe-inline' (its page has no inline script, style or handler to need it)."""

from __future__ import annotations

from html.parser import HTMLParser
from typing import Any

import pytest

from wislice_orchestrator.dashboard import blp as dashboard

COMMON = {"X-Content-Type-Options": "nosniff", "X-Frame-Options": "DENY", "Referrer-Policy": "no-referrer"}


def _policy(resp: Any) -> dict[str, str]:
    header = resp.headers["Content-Security-Policy"]
    return {d.split()[0]: d.strip() for d in header.split(";") if d.strip()}


def test_the_dashboard_page_has_a_strict_policy(world):
    resp = world.client.get("/")
    for name, value in COMMON.items():
        assert resp.headers[name] == value
    policy = _policy(resp)
    assert "unsafe-inline" not in resp.headers["Content-Security-Policy"]
    assert "unsafe-eval" not in resp.headers["Content-Security-Policy"]
    assert policy["default-src"] == "default-src 'self'"
    assert policy["script-src"] == "script-src 'self'" and policy["style-src"] == "style-src 'self'"
    assert policy["frame-ancestors"] == "frame-ancestors 'none'"
    assert policy["object-src"] == "object-src 'none'" and policy["base-uri"] == "base-uri 'none'"


@pytest.mark.parametrize("who,method,path", [
    ("operator", "GET", "/api/v1/me"), (None, "GET", "/api/v1/me"), ("operator", "GET", "/api/v1/nothing"),
    (None, "GET", "/api/v1/openapi.json"), (None, "GET", "/static/dashboard.js"), ("operator", "GET", "/metrics"),
])
def test_every_response_carries_the_headers(world, who, method, path):
    resp = world.call(method, path, world.operator if who else None)
    for name, value in COMMON.items():
        assert resp.headers[name] == value, (path, name)
    assert "frame-ancestors 'none'" in resp.headers["Content-Security-Policy"]
    if not path.startswith("/static"):
        assert _policy(resp)["default-src"] == "default-src 'none'"  # nothing else is meant to render
    resp.close()


class InlineFinder(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.inline: list[str] = []
        self.in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        names = {k for k, _ in attrs}
        if tag == "style":
            self.inline.append("<style>")
        if tag == "script" and "src" not in names:
            self.inline.append("<script> without src")
        self.inline += [f"{tag} {k}=" for k in names if k == "style" or k.startswith("on")]
        self.inline += [f"{tag} {k}=javascript:" for k, v in attrs if v and v.strip().lower().startswith("javascript:")]


def test_the_page_and_its_script_need_no_unsafe_inline(world):
    finder = InlineFinder()
    finder.feed(world.client.get("/").get_data(as_text=True))
    assert finder.inline == []
    script = (dashboard.static_folder + "/dashboard.js")
    with open(script, encoding="utf-8") as f:
        code = f.read()
    # A style attribute set from script is inline style to a CSP; CSSOM properties (node.style.width) are not.
    assert "style:" not in code and "setAttribute(\"style\"" not in code
    assert "innerHTML" not in code and "eval(" not in code and "new Function" not in code
