"""REST clients for the ONOS apps (/onos/wifi, /onos/nfv, /onos/pof on port 8181, HTTP basic auth), on one node
or on a cluster's nodes (nodes.py)."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import requests

from .base import ControllerError, Controllers, Json
from .nodes import ClusterNodes, parse_node_urls

# The WiFi controller's per-AP resources of the upgrade contract (issue 18).
WIFI_APS = "/onos/wifi/aps"


def segment(value: str) -> str:
    """One path segment of a controller URL: quoted (a '/', '?' or '#' in it stays part of it), and never '.' or
    '..', which the server would resolve as a step along the path (DELETE .../clients/.. is DELETE the agent).
    The API refuses such ids before they get here; this keeps any other caller from sending one."""
    if value in ("", ".", ".."):
        raise ValueError(f"{value!r} is not a path segment")
    return quote(value, safe=":@")


class RestControllers(Controllers):
    def __init__(self, base_url: str, user: str, password: str, timeout_s: float = 10.0) -> None:
        # base_url: one ONOS node's base URL, or a comma-separated list of a cluster's nodes (nodes.py).
        self.nodes = ClusterNodes(parse_node_urls(base_url))
        self.timeout_s = timeout_s
        self.http = requests.Session()
        self.http.auth = (user, password)
        self.http.headers["Accept"] = "application/json"

    def _call(self, method: str, path: str, body: Json | None = None, params: dict[str, str] | None = None) -> Any:
        resp = self.nodes.send(method, path, lambda node: self.http.request(
            method, node + path, json=body, params=params, timeout=self.timeout_s))
        if resp.status_code >= 400:
            fallback = "not_found" if resp.status_code == 404 else "internal"
            try:
                err = resp.json()
                # ONOS's own errors carry a numeric code; the contract's carry a word.
                code = err.get("code") if isinstance(err.get("code"), str) else fallback
                message = str(err.get("message", ""))
            except (ValueError, AttributeError):
                # Not the contract's JSON error: Jetty's HTML page, a path no ONOS app serves (not installed, or
                # not mounted yet while ONOS starts). Not "not found": an undo must not count it as done.
                raise ControllerError(503, "app_unavailable", f"{method} {path}: HTTP {resp.status_code} without a "
                                      "JSON error (is the ONOS app installed and started?)") from None
            raise ControllerError(resp.status_code, code, f"{method} {path}: {message}")
        if resp.status_code == 204 or not resp.content:
            return None
        try:
            return resp.json()
        except ValueError as exc:
            raise ControllerError(502, "bad_reply", f"{method} {path}: reply is not JSON") from exc

    # --- wifi ---------------------------------------------------------------------------------------------
    def list_agents(self) -> list[Json]:
        return self._call("GET", "/onos/wifi/agents")["agents"]

    def list_vaps(self, agent_id: str | None = None) -> list[Json]:
        params = {"agent": agent_id} if agent_id else None
        return self._call("GET", "/onos/wifi/vaps", params=params)["vaps"]

    def create_vap(self, agent_id: str, spec: Json) -> Json:
        return self._call("POST", f"/onos/wifi/agents/{segment(agent_id)}/vaps", spec)["vap"]

    def delete_vap(self, agent_id: str, vap_id: str) -> None:
        self._call("DELETE", f"/onos/wifi/agents/{segment(agent_id)}/vaps/{segment(vap_id)}")

    def update_vap(self, vap_id: str, rate_limit: Json) -> Json:
        reply = self._call("PUT", f"/onos/wifi/vaps/{segment(vap_id)}/rate_limit", rate_limit)
        return (reply.get("vap", reply) if isinstance(reply, dict) else None) or {}

    def change_vap(self, vap_id: str, changes: Json) -> Json:
        reply = self._call("PATCH", f"/onos/wifi/vaps/{segment(vap_id)}", changes)
        return (reply.get("vap", reply) if isinstance(reply, dict) else None) or {}

    def list_clients(self, agent_id: str | None = None, vap_id: str | None = None) -> list[Json]:
        params = {k: v for k, v in (("agent", agent_id), ("vap", vap_id)) if v}
        return self._call("GET", "/onos/wifi/clients", params=params or None)["clients"]

    def kick_client(self, agent_id: str, mac: str) -> None:
        self._call("DELETE", f"/onos/wifi/agents/{segment(agent_id)}/clients/{segment(mac)}")

    def steer_client(self, mac: str, target: Json) -> Json:
        return self._call("POST", f"/onos/wifi/clients/{segment(mac)}/steer", target)

    def set_channel(self, agent_id: str, radio: str, channel: int) -> Json:
        path = f"/onos/wifi/agents/{segment(agent_id)}/radios/{segment(radio)}/channel"
        return self._call("POST", path, {"channel": channel})["radio"]

    def vap_rates(self, agent_id: str, vap_id: str) -> Json:
        return self._call("GET", f"/onos/wifi/agents/{segment(agent_id)}/vaps/{segment(vap_id)}/rates")

    def wifi_stats(self) -> list[Json]:
        return self._call("GET", "/onos/wifi/stats")["agents"]

    def request_upgrade(self, agent_id: str, body: Json) -> Json:
        return self._call("POST", f"{WIFI_APS}/{segment(agent_id)}/firmware", body) or {}

    def get_agent(self, agent_id: str) -> Json:
        return self._call("GET", f"{WIFI_APS}/{segment(agent_id)}")

    # --- nfv ----------------------------------------------------------------------------------------------
    def list_nodes(self) -> list[Json]:
        return self._call("GET", "/onos/nfv/nodes")["nodes"]

    def list_vnfs(self) -> list[Json]:
        return self._call("GET", "/onos/nfv/vnfs")["vnfs"]

    def create_vnf(self, spec: Json, node: str | None = None, near_ap: str | None = None) -> tuple[Json, str]:
        body = dict(spec)
        if node:
            body["node"] = node
        if near_ap:
            body["near_ap"] = near_ap
        reply = self._call("POST", "/onos/nfv/vnfs", body)
        return reply["vnf"], reply["node"]

    def delete_vnf(self, vnf_id: int) -> None:
        self._call("DELETE", f"/onos/nfv/vnfs/{int(vnf_id)}")

    def vnf_stats(self, vnf_id: int) -> Json:
        return self._call("GET", f"/onos/nfv/vnfs/{int(vnf_id)}/stats")

    # --- pof ----------------------------------------------------------------------------------------------
    def list_switches(self) -> list[Json]:
        return self._call("GET", "/onos/pof/switches")["switches"]

    def list_paths(self) -> list[Json]:
        return self._call("GET", "/onos/pof/slices")["slices"]

    def create_path(self, path: Json) -> Json:
        return self._call("POST", "/onos/pof/slices", path)

    def delete_path(self, slice_id: str) -> None:
        self._call("DELETE", f"/onos/pof/slices/{segment(slice_id)}")

    def place_client(self, slice_id: str, mac: str, branch: str) -> Json:
        reply = self._call("PUT", f"/onos/pof/slices/{segment(slice_id)}/clients/{segment(mac)}", {"branch": branch})
        return reply if isinstance(reply, dict) else {}

    def update_path_rates(self, slice_id: str, rates: Json) -> Json:
        reply = self._call("PUT", f"/onos/pof/slices/{segment(slice_id)}/rates", rates)
        return reply if isinstance(reply, dict) else {}
