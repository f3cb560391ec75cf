"""A headless Chromium page driven by Playwright, for the dashboard's browser tests (the orchestrator's, with fake
controllers, and the testbed's, on the real parts). Debian's chromium package (WISLICE_CHROMIUM overrides its path)
is the browser: Playwright's own downloads are not used."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

CHROMIUM_ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--no-first-run", "--disable-default-apps", "--metrics-recording-only"]


class NoBrowser(RuntimeError):
    """Playwright or Chromium is not installed (the caller decides whether that skips or fails)."""


def chromium_path() -> str:
    path = os.environ.get("WISLICE_CHROMIUM", "/usr/bin/chromium")
    if not os.access(path, os.X_OK):
        raise NoBrowser(f"no Chromium at {path} (Debian package chromium, declared in deps/apt.txt)")
    return path


@contextmanager
def chromium_page(screenshot: Path | None = None) -> Iterator[Any]:
    """A 1280x900 page with a 15 s default timeout; the browser is closed on the way out, after a full-page
    screenshot to `screenshot` if given (what the page showed when a test failed)."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as exc:
        raise NoBrowser(f"playwright is not installed: {exc}") from None
    executable = chromium_path()
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.set_default_timeout(15_000)
            yield page
            if screenshot is not None:
                page.screenshot(path=str(screenshot), full_page=True)
        finally:
            browser.close()
