"""A WSGI app served on a loopback port from a thread of the test process, for tests that drive it over HTTP."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from werkzeug.serving import make_server

# How often serve_forever looks for shutdown(): its default, 0.5 s, was half a second of every such test's teardown.
POLL_S = 0.02


class ServedApp:
    """``app`` on 127.0.0.1 (a free port), served until stop()."""

    def __init__(self, app: Any, name: str = "served-app", **server_options: Any) -> None:
        self.server = make_server("127.0.0.1", 0, app, threaded=True, **server_options)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": POLL_S},
                                       name=name, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.server.shutdown()
        self.thread.join(timeout=10)


@contextmanager
def served(app: Any) -> Iterator[str]:
    """The app's base URL while the block runs."""
    served_app = ServedApp(app)
    try:
        yield served_app.url
    finally:
        served_app.stop()
