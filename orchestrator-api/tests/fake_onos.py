"""The ONOS apps' REST contract (/onos/wifi, /onos/nfv, /onos/pof) served on a loopback port over FakeControllers,
recording every request as it arrived (method, raw URI, body): the REST abuse runs (tests/rest_abuse.py) drive a
real orchestrator process through its real REST client and check what reached the controllers, byte for byte.
Test code only (never shipped, never the testbed)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from fake_controllers import FakeControllers
from served_app import ServedApp
from werkzeug.serving import WSGIRequestHandler
from werkzeug.wrappers import Request, Response

from wislice_orchestrator.controllers import ControllerError
from wislice_orchestrator.controllers.rest import WIFI_APS


@dataclass
class Received:
    method: str
    raw_uri: str  # as sent, still percent-encoded
    path: str  # decoded
    body: Any


Route = tuple[str, re.Pattern[str], Callable[..., Any]]


@dataclass
class FakeOnos:
    fake: FakeControllers = field(default_factory=lambda: FakeControllers(aps=2, mec_nodes=2))
    received: list[Received] = field(default_factory=list)

    def routes(self) -> list[Route]:
        f = self.fake
        seg = "([^/]+)"
        table: list[tuple[str, str, Callable[..., Any]]] = [
            ("GET", "/onos/wifi/agents", lambda q, b: {"agents": f.list_agents()}),
            ("GET", "/onos/wifi/vaps", lambda q, b: {"vaps": f.list_vaps(q.get("agent"))}),
            ("POST", f"/onos/wifi/agents/{seg}/vaps", lambda q, b, a: {"vap": f.create_vap(a, b)}),
            ("DELETE", f"/onos/wifi/agents/{seg}/vaps/{seg}", lambda q, b, a, v: f.delete_vap(a, v)),
            ("PUT", f"/onos/wifi/vaps/{seg}/rate_limit", lambda q, b, v: {"vap": f.update_vap(v, b)}),
            ("GET", "/onos/wifi/clients", lambda q, b: {"clients": f.list_clients(q.get("agent"), q.get("vap"))}),
            ("DELETE", f"/onos/wifi/agents/{seg}/clients/{seg}", lambda q, b, a, m: f.kick_client(a, m)),
            ("POST", f"/onos/wifi/clients/{seg}/steer", lambda q, b, m: f.steer_client(m, b)),
            ("POST", f"/onos/wifi/agents/{seg}/radios/{seg}/channel",
             lambda q, b, a, r: {"radio": f.set_channel(a, r, b["channel"])}),
            ("GET", f"/onos/wifi/agents/{seg}/vaps/{seg}/rates", lambda q, b, a, v: f.vap_rates(a, v)),
            ("GET", "/onos/wifi/stats", lambda q, b: {"agents": f.wifi_stats()}),
            ("POST", f"{WIFI_APS}/{seg}/firmware", lambda q, b, a: f.request_upgrade(a, b)),
            ("GET", f"{WIFI_APS}/{seg}", lambda q, b, a: f.get_agent(a)),
            ("GET", "/onos/nfv/nodes", lambda q, b: {"nodes": f.list_nodes()}),
            ("GET", "/onos/nfv/vnfs", lambda q, b: {"vnfs": f.list_vnfs()}),
            ("POST", "/onos/nfv/vnfs", self._create_vnf),
            ("DELETE", r"/onos/nfv/vnfs/(\d+)", lambda q, b, i: f.delete_vnf(int(i))),
            ("GET", r"/onos/nfv/vnfs/(\d+)/stats", lambda q, b, i: f.vnf_stats(int(i))),
            ("GET", "/onos/pof/switches", lambda q, b: {"switches": f.list_switches()}),
            ("GET", "/onos/pof/slices", lambda q, b: {"slices": f.list_paths()}),
            ("POST", "/onos/pof/slices", lambda q, b: f.create_path(b)),
            ("DELETE", f"/onos/pof/slices/{seg}", lambda q, b, s: f.delete_path(s)),
            ("PUT", f"/onos/pof/slices/{seg}/rates", lambda q, b, s: f.update_path_rates(s, b)),
            ("PUT", f"/onos/pof/slices/{seg}/clients/{seg}", lambda q, b, s, m: f.place_client(s, m, b["branch"])),
        ]
        return [(m, re.compile(p + "$"), h) for m, p, h in table]

    def _create_vnf(self, _q: Any, body: dict[str, Any]) -> dict[str, Any]:
        spec = {k: v for k, v in body.items() if k not in ("node", "near_ap")}
        vnf, node = self.fake.create_vnf(spec, node=body.get("node"), near_ap=body.get("near_ap"))
        return {"vnf": vnf, "node": node}

    def wsgi(self) -> Callable[..., Any]:
        routes = self.routes()

        @Request.application
        def app(request: Request) -> Response:
            body = request.get_json(silent=True)
            raw = request.environ.get("REQUEST_URI") or request.environ.get("RAW_URI") or request.full_path
            self.received.append(Received(request.method, raw, request.path, body))
            for method, pattern, handler in routes:
                match = pattern.match(request.path)
                if method == request.method and match:
                    try:
                        reply = handler(request.args, body, *match.groups())
                    except ControllerError as exc:
                        return _json(exc.status, {"code": exc.code, "message": str(exc)})
                    return _json(204, None) if reply is None else _json(200, reply)
            return _json(404, {"code": "not_found", "message": f"no route {request.method} {request.path}"})

        return app


def _json(status: int, body: Any) -> Response:
    return Response(b"" if body is None else json.dumps(body), status=status, mimetype="application/json")


class _Quiet(WSGIRequestHandler):
    def log_request(self, *_args: Any) -> None:  # thousands of requests: no line each
        pass


class ServedOnos:
    """A FakeOnos on a loopback port, in a thread of this process; stop() ends it."""

    def __init__(self, onos: FakeOnos | None = None) -> None:
        self.onos = onos or FakeOnos()
        self.served = ServedApp(self.onos.wsgi(), name="fake-onos", request_handler=_Quiet)
        self.url = self.served.url

    def stop(self) -> None:
        self.served.stop()
