"""The REST client on an ONOS cluster (ONOS_URL lists the nodes; controllers/nodes.py): it moves to the next node
only when a call certainly did not reach one (any transport failure for a GET), keeps the node that answered, and
never sends a write that may have reached a node to another. Real loopback servers: the fake ONOS apps
(fake_onos.py), a node that hangs, a node that resets after reading the request, closed ports."""

from __future__ import annotations

import logging
import re
import socket
import socketserver
import struct
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from fake_onos import ServedOnos
from rest_abuse import free_port
from served_app import ServedApp
from werkzeug.wrappers import Request, Response

from wislice_orchestrator.app import make_controllers
from wislice_orchestrator.controllers import ControllerError
from wislice_orchestrator.controllers.rest import RestControllers

VNF = {"tenant_id": 1, "instance_id": 2, "image": "kernel-fwd", "cpu": 1, "memory_mib": 64}


class _Server(socketserver.ThreadingTCPServer):
    allow_reuse_address = True  # ResettingNode may take over a port a test used as a closed one
    daemon_threads = True


class ResettingNode:
    """A node that reads a whole request, then resets the connection without an answer (it died mid-call)."""

    def __init__(self, port: int = 0) -> None:
        self.requests: list[str] = []  # request lines, as read
        node = self

        class Handler(socketserver.BaseRequestHandler):
            def handle(self) -> None:
                data = b""
                while b"\r\n\r\n" not in data:
                    chunk = self.request.recv(65536)
                    if not chunk:
                        return
                    data += chunk
                head, _, body = data.partition(b"\r\n\r\n")
                length = re.search(rb"(?im)^content-length: *(\d+)", head)
                while length and len(body) < int(length.group(1)):
                    body += self.request.recv(65536)
                node.requests.append(head.split(b"\r\n")[0].decode())
                # Linger 0: close() sends RST, not FIN.
                self.request.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                self.request.close()

        self.server = _Server(("127.0.0.1", port), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@contextmanager
def node(kind: str) -> Iterator[tuple[str, list[str]]]:
    """A loopback node that reads requests and answers none in time ("hanging") or answers 503 with an HTML page
    ("booting", as Jetty does while a restarted ONOS mounts its apps); yields its URL and the methods it saw."""
    seen: list[str] = []
    release = threading.Event()

    @Request.application
    def app(request: Request) -> Response:
        seen.append(request.method)
        if kind == "hanging":
            release.wait(10)
            return Response("{}", mimetype="application/json")
        return Response("<html><body>Service Unavailable</body></html>", status=503, mimetype="text/html")

    served = ServedApp(app, name=f"{kind}-node")
    try:
        yield served.url, seen
    finally:
        release.set()
        served.stop()


@pytest.fixture
def onos():
    served = ServedOnos()
    yield served
    served.stop()


@pytest.fixture
def resetting():
    served = ResettingNode()
    yield served
    served.stop()


def closed() -> str:
    return f"http://127.0.0.1:{free_port()}"


def test_closed_first_node_moves_on_and_keeps_the_node_that_answered(onos, caplog):
    first = closed()
    ctl = RestControllers(f"{first},{onos.url}", "onos", "rocks", timeout_s=5)
    with caplog.at_level(logging.WARNING, logger="wislice_orchestrator.controllers.nodes"):
        assert len(ctl.list_agents()) == 2
        assert [r.method for r in onos.onos.received] == ["GET"]
        # The first node is back, now resetting whatever reaches it: the next calls must not go there.
        reborn = ResettingNode(port=int(first.rsplit(":", 1)[1]))
        try:
            assert len(ctl.list_agents()) == 2
            ctl.create_vnf(VNF)
        finally:
            reborn.stop()
    assert reborn.requests == []
    assert [r.method for r in onos.onos.received] == ["GET", "GET", "POST"]
    switches = [r.getMessage() for r in caplog.records]
    assert len(switches) == 1 and first in switches[0] and onos.url in switches[0] and "not reached" in switches[0]


def test_write_that_reached_a_node_is_not_sent_to_another(resetting, onos):
    ctl = RestControllers(f"{resetting.url},{onos.url}", "onos", "rocks", timeout_s=5)
    with pytest.raises(ControllerError) as info:
        ctl.create_vnf(VNF)
    assert info.value.status == 502 and info.value.code == "unreachable" and resetting.url in info.value.message
    with pytest.raises(ControllerError) as info:
        ctl.delete_vnf(65538)
    assert info.value.code == "unreachable"
    assert resetting.requests == ["POST /onos/nfv/vnfs HTTP/1.1", "DELETE /onos/nfv/vnfs/65538 HTTP/1.1"]
    assert onos.onos.received == []
    # A GET may move on after any failure: it changes nothing.
    assert ctl.list_vnfs() == []
    assert len(resetting.requests) == 3 and [r.method for r in onos.onos.received] == ["GET"]


def test_read_timeout_moves_a_get_on_but_not_a_post(onos):
    with node("hanging") as (hanging, seen):
        ctl = RestControllers(f"{hanging},{onos.url}", "onos", "rocks", timeout_s=0.5)
        with pytest.raises(ControllerError) as info:
            ctl.create_vnf(VNF)
        assert info.value.status == 504 and info.value.code == "timeout" and hanging in info.value.message
        assert onos.onos.received == []
        assert len(ctl.list_agents()) == 2
        assert seen == ["POST", "GET"] and [r.method for r in onos.onos.received] == ["GET"]
        ctl.create_vnf(VNF)  # the node that answered is kept
        assert seen == ["POST", "GET"] and [r.method for r in onos.onos.received] == ["GET", "POST"]


def test_every_node_down_names_them_all():
    urls = [closed() for _ in range(3)]
    ctl = RestControllers(",".join(urls), "onos", "rocks", timeout_s=2)
    for call in (ctl.list_agents, lambda: ctl.create_vnf(VNF)):
        with pytest.raises(ControllerError) as info:
            call()
        assert info.value.status == 502 and info.value.code == "unreachable"
        assert "no ONOS node answered" in info.value.message and all(url in info.value.message for url in urls)


def test_an_http_answer_of_any_status_is_not_retried_elsewhere(onos):
    with node("booting") as (booting, seen):
        ctl = RestControllers(f"{booting},{onos.url}", "onos", "rocks", timeout_s=5)
        for call in (ctl.list_agents, lambda: ctl.create_vnf(VNF)):
            with pytest.raises(ControllerError) as info:
                call()
            assert info.value.status == 503 and info.value.code == "app_unavailable"
        assert seen == ["GET", "POST"] and onos.onos.received == []


def test_one_url_fails_as_before():
    with pytest.raises(ControllerError) as info:
        RestControllers(closed(), "onos", "rocks", timeout_s=2).list_agents()
    assert info.value.status == 502 and info.value.code == "unreachable"
    assert info.value.message.startswith("GET /onos/wifi/agents: ") and "ONOS node" not in info.value.message
    with node("hanging") as (hanging, seen):
        with pytest.raises(ControllerError) as info:
            RestControllers(hanging + "/", "onos", "rocks", timeout_s=0.5).list_agents()
    assert info.value.status == 504 and info.value.code == "timeout" and seen == ["GET"]
    assert info.value.message == "GET /onos/wifi/agents: controller did not answer in time"


def settings(onos_url: str) -> dict:
    return {"CONTROLLERS": "rest", "ONOS_URL": onos_url, "ONOS_USER": "onos", "ONOS_PASSWORD": "p",
            "ONOS_TIMEOUT_S": 1.0}


def test_node_lists_are_parsed():
    ctl = make_controllers(settings(" http://onos-1:8181/ , https://10.0.0.2:8443,http://[fd00::3]:8181"))
    assert ctl.nodes.urls == ["http://onos-1:8181", "https://10.0.0.2:8443", "http://[fd00::3]:8181"]


@pytest.mark.parametrize("value", ["", "onos-1:8181", "http://onos-1:8181,", "http://onos-1:8181,,http://onos-2:8181",
                                   "ftp://onos-1:8181", "http://:8181", "http://onos-1:81x1", "http://onos-1:99999",
                                   "http://onos-1:8181?x=1", "http://onos-1:8181 http://onos-2:8181",
                                   "http://onos-1:8181,http://onos-1:8181/"])
def test_bad_node_lists_are_refused(value):
    with pytest.raises(ValueError, match="WISLICE_ONOS_URL"):
        make_controllers(settings(value))
