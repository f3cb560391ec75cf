"""The ONOS cluster's nodes as the REST client sees them (docs/onos-cluster.md): every node answers every WiSlice
call alike, so the client keeps calling the node that answered last and moves on to the next one in the list only
when a call certainly did not reach it (or, for a GET, failed in any way before an answer)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from urllib.parse import urlsplit

import requests
from urllib3.exceptions import ConnectTimeoutError, MaxRetryError, NewConnectionError

from .base import ControllerError

log = logging.getLogger(__name__)


def parse_node_urls(value: str) -> list[str]:
    """The base URLs of a comma-separated ONOS_URL; ValueError names the first bad one."""
    urls = [part.strip().rstrip("/") for part in value.split(",")]
    for url in urls:
        try:
            parts = urlsplit(url)
            ok = parts.scheme in ("http", "https") and bool(parts.hostname) and not parts.query and not parts.fragment
            parts.port  # noqa: B018 - raises ValueError on a port that is not a number in range
        except ValueError:
            ok = False
        if not ok:
            raise ValueError(f"WISLICE_ONOS_URL: {url!r} is not an http(s) URL with a host; expected one ONOS node "
                             "base URL or a comma-separated list of them, e.g. http://onos-1:8181,http://onos-2:8181")
    if len(set(urls)) != len(urls):
        raise ValueError(f"WISLICE_ONOS_URL lists a node twice: {value!r}")
    return urls


def _reason(exc: requests.RequestException) -> object:
    """What urllib3 raised under a requests exception (requests passes it, or MaxRetryError around it, as args[0])."""
    cause = exc.args[0] if exc.args else None
    return cause.reason if isinstance(cause, MaxRetryError) else cause


def not_sent(exc: requests.RequestException) -> bool:
    """The request certainly did not reach the node: no connection was made (refused, no route, connect timeout)."""
    if isinstance(exc, requests.ConnectTimeout):
        return True
    reason = _reason(exc)
    return isinstance(exc, requests.ConnectionError) and isinstance(reason, NewConnectionError | ConnectTimeoutError)


def describe(exc: requests.RequestException) -> str:
    kind = "not reached" if not_sent(exc) else "timed out" if isinstance(exc, requests.Timeout) else "failed"
    return f"{kind}: {_reason(exc) or exc}"


class ClusterNodes:
    def __init__(self, urls: list[str]) -> None:
        self.urls = urls
        self.current = 0  # index of the node calls go to first
        self._lock = threading.Lock()

    def send(self, method: str, path: str, request: Callable[[str], requests.Response]) -> requests.Response:
        """request(base_url) on the current node, then on the next ones while it may move on; an HTTP answer of
        any status is returned. A POST/PUT/PATCH/DELETE that may have reached a node is never sent to another: the
        node may have done it, and the saga's undo and leases decide what happens next."""
        start = self.current
        failures: list[tuple[str, requests.RequestException]] = []
        for step in range(len(self.urls)):
            index = (start + step) % len(self.urls)
            try:
                response = request(self.urls[index])
            except requests.RequestException as exc:
                failures.append((self.urls[index], exc))
                if method == "GET" or not_sent(exc):
                    continue
                break
            if index != start:
                self._switch(start, index, failures[0][1])
            return response
        raise self._error(method, path, failures) from failures[-1][1]

    def _switch(self, old: int, new: int, why: requests.RequestException) -> None:
        with self._lock:
            if self.current != old:
                return  # another call already moved on (and said so)
            self.current = new
        log.warning("ONOS node %s %s; calls go to ONOS node %s from now on", self.urls[old], describe(why),
                    self.urls[new])

    def _error(self, method: str, path: str, failures: list[tuple[str, requests.RequestException]]) -> ControllerError:
        url, exc = failures[-1]
        if len(self.urls) > 1 and len(failures) == len(self.urls) and (method == "GET" or not_sent(exc)):
            tried = "; ".join(f"{node} {describe(e)}" for node, e in failures)
            return ControllerError(502, "unreachable", f"{method} {path}: no ONOS node answered: {tried}")
        # One node, or a call that may have reached this one: as the single-node client always answered.
        where = f"{method} {path}" + (f" on ONOS node {url}" if len(self.urls) > 1 else "")
        if isinstance(exc, requests.Timeout):
            return ControllerError(504, "timeout", f"{where}: controller did not answer in time")
        return ControllerError(502, "unreachable", f"{where}: {exc}")
