"""Prometheus text exposition format 0.0.4 and the agents' small /metrics HTTP server (stdlib only: runs on
OpenWrt's python3).

Exposition: a ``Family`` is one metric (name, HELP, TYPE, label names) and its samples; ``render(families)`` writes
them as the format says (HELP and TYPE first, one line a sample, ``\\n`` line ends). Checked, so a scrape never
carries a line a Prometheus server would reject: metric and label names against the format's grammar (``__``
label names are reserved), label values and HELP text escaped (backslash, double quote in label values, line
feed), values finite numbers (NaN and the infinities are refused: ValueError), counters named ``*_total`` and
never negative, one sample per label set.

Server: ``MetricsServer((host, port), render, token)`` answers ``GET /metrics`` with ``render()`` on a thread of
its own (threaded, at most MAX_CONNECTIONS at once, the request line and headers at most MAX_REQUEST_BYTES, a
socket timeout); any other path is 404, any other method 405. With a token, a request without
``Authorization: Bearer <token>`` is 401 before its path is looked at (a GET body is never read). The agents bind
it only when configured (``metrics_listen``; off by default).

For tests and checks: ``parse(text)`` reads an exposition back strictly, ``scrape(address)`` asks a server.
"""

from __future__ import annotations

import hmac
import logging
import math
import re
import socket
import socketserver
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

log = logging.getLogger("wislice_agent_proto.metrics")

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
METRIC_NAME = re.compile(r"^[a-zA-Z_:][a-zA-Z0-9_:]*\Z")
LABEL_NAME = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_]*\Z")
KINDS = ("counter", "gauge")
# RFC 6750 b64token; at least 16 characters, so a token is not guessable in a few tries
TOKEN = re.compile(r"^[A-Za-z0-9._~+/-]{16,1024}=*\Z")
LISTEN = re.compile(r"^(?P<host>\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]{1,253}):(?P<port>\d{1,5})\Z")
MAX_REQUEST_BYTES = 8192  # request line and headers
LINGER_S, LINGER_BYTES = 0.5, 256 * 1024  # the most a closing connection waits for and drops of unread input
MAX_CONNECTIONS = 4
TIMEOUT_S = 10.0


# ---- exposition -------------------------------------------------------------------------------------------------
def escape_label_value(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def escape_help(text: str) -> str:
    return text.replace("\\", "\\\\").replace("\n", "\\n")


def format_value(value: float) -> str:
    """A sample value: integers as they are, floats in Python's shortest round-trip form (``1.5``, ``1e+20``)."""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"a metric value must be finite, not {value}")
        return repr(value)
    raise TypeError(f"a metric value must be a number, not {type(value).__name__}")


class Family:
    """One metric: ``Family("x_bytes_total", "what it counts", "counter", ["port"]).add(["eth0"], 1234)``."""

    def __init__(self, name: str, help_text: str, kind: str = "gauge", labels: Sequence[str] = ()) -> None:
        if not METRIC_NAME.match(name):
            raise ValueError(f"bad metric name {name!r}")
        if kind not in KINDS:
            raise ValueError(f"metric {name}: type {kind!r} is not one of {', '.join(KINDS)}")
        if kind == "counter" and not name.endswith("_total"):
            raise ValueError(f"counter {name} must be named *_total")
        for label in labels:
            if not LABEL_NAME.match(label) or label.startswith("__"):
                raise ValueError(f"metric {name}: bad label name {label!r}")
        if len(set(labels)) != len(labels):
            raise ValueError(f"metric {name}: a label name twice")
        self.name, self.help, self.kind, self.labels = name, help_text, kind, tuple(labels)
        self.samples: dict[tuple[str, ...], str] = {}

    def add(self, values: Sequence[object] | Mapping[str, object], value: float) -> Family:
        """One sample: label values in the order of the label names (or by name); str() of each."""
        if isinstance(values, Mapping):
            if set(values) != set(self.labels):
                raise ValueError(f"metric {self.name}: labels {sorted(values)} are not {sorted(self.labels)}")
            values = [values[k] for k in self.labels]
        key = tuple(str(v) for v in values)
        if len(key) != len(self.labels):
            raise ValueError(f"metric {self.name}: {len(key)} label values for {len(self.labels)} labels")
        for v in key:
            v.encode("utf-8")  # a lone surrogate is refused here (UnicodeEncodeError is a ValueError)
        if key in self.samples:
            raise ValueError(f"metric {self.name}: a second sample for {dict(zip(self.labels, key, strict=True))}")
        text = format_value(value)
        if self.kind == "counter" and value < 0:
            raise ValueError(f"counter {self.name} cannot be negative ({value})")
        self.samples[key] = text
        return self

    def lines(self) -> Iterator[str]:
        yield f"# HELP {self.name} {escape_help(self.help)}"
        yield f"# TYPE {self.name} {self.kind}"
        for key, text in self.samples.items():
            if key:
                pairs = ",".join(f'{k}="{escape_label_value(v)}"' for k, v in zip(self.labels, key, strict=True))
                yield f"{self.name}{{{pairs}}} {text}"
            else:
                yield f"{self.name} {text}"


def render(families: Iterable[Family]) -> str:
    """The exposition of ``families`` (a family without samples still says HELP and TYPE)."""
    out: list[str] = []
    seen: set[str] = set()
    for f in families:
        if f.name in seen:
            raise ValueError(f"metric {f.name} twice")
        seen.add(f.name)
        out.extend(f.lines())
    return "".join(line + "\n" for line in out)


_SAMPLE = re.compile(r"^(?P<name>[a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(?P<labels>.*)\})? "
                     r"(?P<value>[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|[-+]?Inf|NaN)\Z")
_LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"(?:,|\Z)')
_UNESCAPE = re.compile(r"\\(.)")


def _unescape(text: str) -> str:
    return _UNESCAPE.sub(lambda m: "\n" if m.group(1) == "n" else m.group(1), text)


class Parsed:
    """One family read back: ``samples`` maps the sorted (label, value) pairs to the value."""

    def __init__(self, kind: str, help_text: str) -> None:
        self.kind, self.help = kind, help_text
        self.samples: dict[tuple[tuple[str, str], ...], float] = {}


def parse(text: str) -> dict[str, Parsed]:
    """Reads an exposition back, strictly (tests, and checks of other exporters): every line a HELP, a TYPE or a
    sample of the family TYPE'd last, label values unescaped; ValueError on anything else."""
    if text and not text.endswith("\n"):
        raise ValueError("an exposition ends with a line feed")
    out: dict[str, Parsed] = {}
    helps: dict[str, str] = {}
    current: str | None = None
    for line in text.splitlines():
        if line.startswith("# HELP "):
            name, _, help_text = line[7:].partition(" ")
            helps[name] = _unescape(help_text)
        elif line.startswith("# TYPE "):
            name, _, kind = line[7:].partition(" ")
            if kind not in KINDS or name in out or not METRIC_NAME.match(name):
                raise ValueError(f"bad TYPE line {line!r}")
            out[name] = Parsed(kind, helps.get(name, ""))
            current = name
        else:
            m = _SAMPLE.match(line)
            if not m or m.group("name") != current:
                raise ValueError(f"not a sample of the current family: {line!r}")
            labels = m.group("labels") or ""
            pairs = _LABEL.findall(labels)
            if "".join(f'{k}="{v}",' for k, v in pairs).rstrip(",") != labels:
                raise ValueError(f"bad labels in {line!r}")
            value = float(m.group("value"))
            key = tuple(sorted((k, _unescape(v)) for k, v in pairs))
            if key in out[current].samples:
                raise ValueError(f"a second sample for one label set: {line!r}")
            out[current].samples[key] = value
    return out


def scrape(address: tuple[str, int], path: str = "/metrics", token: str | None = None, method: str = "GET",
           timeout: float = 5.0) -> tuple[int, dict[str, str], str]:
    """One request to a metrics server (tests, checks): (status, headers, body), error statuses included."""
    import urllib.error
    import urllib.request

    host = f"[{address[0]}]" if ":" in address[0] else address[0]
    req = urllib.request.Request(f"http://{host}:{address[1]}{path}", method=method)
    if token is not None:
        req.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return resp.status, dict(resp.headers), resp.read().decode()
    except urllib.error.HTTPError as e:
        with e:
            return e.code, dict(e.headers), e.read().decode()


# ---- configuration helpers --------------------------------------------------------------------------------------
def parse_listen(text: str) -> tuple[str, int] | None:
    """``host:port`` (``[v6]:port`` for IPv6) -> (host, port); "" -> None (metrics off). Port 0 binds any free
    port (tests)."""
    if text == "":
        return None
    m = LISTEN.match(text) if isinstance(text, str) else None
    if not m or int(m.group("port")) > 65535:
        raise ValueError(f"metrics_listen: {text!r} is not host:port (or empty for off)")
    return m.group("host").strip("[]"), int(m.group("port"))


def check_token(token: str) -> str:
    if not isinstance(token, str) or not TOKEN.match(token):
        raise ValueError("metrics token: 16 to 1024 characters of A-Z a-z 0-9 - . _ ~ + / (then = padding)")
    return token


def read_token_file(path: str) -> str:
    """The bearer token in ``path`` (surrounding white space stripped)."""
    try:
        text = Path(path).read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as e:
        raise ValueError(f"metrics_token_file: {e}") from None
    return check_token(text)


# ---- the HTTP server --------------------------------------------------------------------------------------------
class _Bounded:
    """The request's input, at most ``limit`` bytes of it; ``exceeded`` once a read was cut short."""

    def __init__(self, raw: Any, limit: int) -> None:
        self.raw, self.left, self.exceeded = raw, limit, False

    def readline(self, size: int | None = -1) -> bytes:
        if self.left <= 0:
            self.exceeded = True
            return b""
        line: bytes = self.raw.readline(self.left if size is None or size < 0 else min(size, self.left))
        self.left -= len(line)
        if self.left <= 0 and not line.endswith(b"\n"):
            self.exceeded = True
        return line

    def close(self) -> None:
        self.raw.close()


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    server_version = "wislice-metrics"
    sys_version = ""
    protocol_version = "HTTP/1.0"  # one request a connection

    def setup(self) -> None:
        self.timeout = self.server.timeout_s
        super().setup()
        self.rfile = _Bounded(self.rfile, MAX_REQUEST_BYTES)  # type: ignore[assignment]

    def parse_request(self) -> bool:
        if self.rfile.exceeded:  # type: ignore[attr-defined]  # the request line alone is over the bound
            self.command, self.request_version, self.requestline = None, "HTTP/1.0", ""  # type: ignore[assignment]
            self.close_connection = True
            self.send_error(414)
            return False
        return super().parse_request()

    def _admitted(self) -> bool:
        """Refuses (and answers) an oversized request or one without the token."""
        if self.rfile.exceeded:  # type: ignore[attr-defined]
            self.send_error(431, "Request header fields too large")
            return False
        token = self.server.token
        if token is not None:
            given = self.headers.get("Authorization", "")
            scheme, _, value = given.partition(" ")
            if scheme.lower() != "bearer" or not hmac.compare_digest(value.strip().encode(), token.encode()):
                self.send_response(401)
                self.send_header("WWW-Authenticate", 'Bearer realm="metrics"')
                self.send_header("Content-Length", "0")
                self.end_headers()
                return False
        return True

    def do_GET(self) -> None:
        if not self._admitted():
            return
        if urlsplit(self.path).path != "/metrics":
            self.send_error(404)
            return
        try:
            body = self.server.render().encode("utf-8")
        except Exception:
            log.exception("rendering metrics failed")
            self.send_error(500)
            return
        self.send_response(200)
        self.send_header("Content-Type", CONTENT_TYPE)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _not_get(self) -> None:
        if self._admitted():
            self.send_response(405)
            self.send_header("Allow", "GET")
            self.send_header("Content-Length", "0")
            self.end_headers()

    do_HEAD = do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = _not_get

    def finish(self) -> None:
        """A lingering close: after the answer, read (and drop) what the client still sends, bounded in bytes and
        time. Closing with unread input makes the kernel send a reset, which can destroy the answer (a 414 or 431
        to an oversized request) before the client reads it."""
        super().finish()
        try:
            self.connection.shutdown(socket.SHUT_WR)
            self.connection.settimeout(LINGER_S)
            left = LINGER_BYTES
            while left > 0 and (chunk := self.connection.recv(min(left, 65536))):
                left -= len(chunk)
        except OSError:
            pass  # the client is gone or slow: close now

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("%s %s", self.address_string(), format % args)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False

    def __init__(self, address: tuple[str, int], render: Callable[[], str], token: str | None,
                 max_connections: int, timeout_s: float) -> None:
        self.address_family = socket.AF_INET6 if ":" in address[0] else socket.AF_INET
        self.render, self.token, self.timeout_s = render, token, timeout_s
        self.slots = threading.BoundedSemaphore(max_connections)
        super().__init__(address, _Handler)

    def server_bind(self) -> None:
        # HTTPServer's would look the host's name up (getfqdn): a DNS query an AP may wait seconds for.
        socketserver.TCPServer.server_bind(self)
        self.server_name, self.server_port = str(self.server_address[0]), int(self.server_address[1])

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self.slots.acquire(blocking=False):  # busy: close at once rather than queue threads
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self.slots.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.slots.release()

    def handle_error(self, request: Any, client_address: Any) -> None:
        log.debug("metrics request from %s failed", client_address, exc_info=True)


class MetricsServer:
    """``GET /metrics`` -> ``render()``, served from a daemon thread once start()ed; close() stops it."""

    def __init__(self, listen: tuple[str, int], render: Callable[[], str], token: str | None = None, *,
                 max_connections: int = MAX_CONNECTIONS, timeout_s: float = TIMEOUT_S) -> None:
        self.httpd = _Server(listen, render, check_token(token) if token is not None else None, max_connections,
                             timeout_s)
        self.thread: threading.Thread | None = None

    @property
    def address(self) -> tuple[str, int]:
        """Where it listens (the port the system chose for port 0)."""
        host, port = self.httpd.server_address[:2]
        return str(host), int(port)

    def start(self) -> MetricsServer:
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.5},
                                       name="metrics-http", daemon=True)
        self.thread.start()
        host, port = self.address
        log.info("metrics on http://%s:%d/metrics%s", f"[{host}]" if ":" in host else host, port,
                 " (bearer token)" if self.httpd.token else "")
        return self

    def close(self) -> None:
        if self.thread is not None:
            self.httpd.shutdown()
            self.thread.join(5)
            self.thread = None
        self.httpd.server_close()
