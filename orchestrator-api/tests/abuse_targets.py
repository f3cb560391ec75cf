"""What the REST abuse run (rest_abuse.py) puts its payloads into: the slice and topology bodies it starts from,
every body field that reaches a config file, a shell or a controller URL, and the ids in URL path segments."""

from __future__ import annotations

import secrets
from typing import Any
from urllib.parse import quote

from fake_controllers import FakeControllers


def slice_body(name: str, ssid: str, agent: str = "ap-1") -> dict[str, Any]:
    return {"name": name, "latency_class": "low", "latency_budget_us": 500,
            "bandwidth": {"down_guaranteed_kbps": 1000, "up_guaranteed_kbps": 100, "down_cap_kbps": 5000,
                          "up_cap_kbps": 1000},
            "vaps": [{"agent_id": agent, "radio": "phy0", "ssid": ssid,
                      "security": {"mode": "wpa2-psk", "passphrase": "secret-pass-1"}}],
            "vnfs": [{"image": "firewall", "cpu": 0.1, "memory_mib": 64, "params": {"rate": 1}}]}


def topology() -> dict[str, Any]:
    fake = FakeControllers(aps=2, mec_nodes=2)
    return FakeControllers.default_topology(list(fake.agents), list(fake.nodes))


def body_targets(base_slice: int, ssid: str) -> dict[str, tuple[str, str, Any, Any]]:
    """Every string field of a body that reaches a config file, a shell or a controller URL: name -> (method,
    path, body builder taking the value, reader of the stored value from the created or changed resource, or
    None when it is not shown, like a passphrase)."""
    base = f"/api/v1/tenants/1/slices/{base_slice}"

    def vap(edit: Any) -> Any:
        def build(v: str) -> dict[str, Any]:
            body = slice_body("x", ssid)["vaps"][0]
            edit(body, v)
            return body
        return build

    def vnf(edit: Any) -> Any:
        def build(v: str) -> dict[str, Any]:
            body = slice_body("x", ssid)["vnfs"][0]
            edit(body, v)
            return body
        return build

    def policy(params: Any) -> Any:
        return lambda v: {"policies": [{"type": "transcode_on_overload", "per_client_down_kbps": 1000,
                                        "transcoder": {"bitrate_kbps": 500, "params": params(v)}}]}

    def slice_with(edit: Any) -> Any:
        def build(v: str) -> dict[str, Any]:
            body = slice_body(f"s-{secrets.token_hex(3)}", ssid)
            edit(body, v)
            return body
        return build

    def set_(path: list[Any]) -> Any:
        def edit(body: dict[str, Any], v: str) -> None:
            target = body
            for key in path[:-1]:
                target = target[key]
            target[path[-1]] = v
        return edit

    return {
        "slice name": ("POST", "/api/v1/tenants/1/slices", slice_with(set_(["name"])), lambda s: s["name"]),
        "SSID": ("POST", "/api/v1/tenants/1/slices", slice_with(set_(["vaps", 0, "ssid"])),
                 lambda s: s["vaps"][0]["ssid"]),
        "vAP agent_id": ("POST", "/api/v1/tenants/1/slices", slice_with(set_(["vaps", 0, "agent_id"])),
                         lambda s: s["vaps"][0]["agent_id"]),
        "vAP radio": ("POST", "/api/v1/tenants/1/slices", slice_with(set_(["vaps", 0, "radio"])),
                      lambda s: s["vaps"][0]["radio"]),
        "passphrase": ("POST", "/api/v1/tenants/1/slices", slice_with(set_(["vaps", 0, "security", "passphrase"])),
                       None),
        "vNF image": ("POST", "/api/v1/tenants/1/slices", slice_with(set_(["vnfs", 0, "image"])),
                      lambda s: s["vnfs"][0]["image"]),
        "vNF param value": ("POST", "/api/v1/tenants/1/slices", slice_with(set_(["vnfs", 0, "params", "p"])),
                            lambda s: s["vnfs"][0]["params"]["p"]),
        "vNF param name": ("POST", "/api/v1/tenants/1/slices",
                           slice_with(lambda b, v: b["vnfs"][0].update(params={v: 1})),
                           lambda s: next(iter(s["vnfs"][0]["params"]))),
        "mec_node": ("POST", "/api/v1/tenants/1/slices", slice_with(set_(["mec_node"])), None),
        "added vAP SSID": ("POST", f"{base}/vaps", vap(set_(["ssid"])), lambda s: s["vaps"][-1]["ssid"]),
        "added vAP agent_id": ("POST", f"{base}/vaps", vap(set_(["agent_id"])), lambda s: s["vaps"][-1]["agent_id"]),
        "added vAP radio": ("POST", f"{base}/vaps", vap(set_(["radio"])), lambda s: s["vaps"][-1]["radio"]),
        "added vAP passphrase": ("POST", f"{base}/vaps", vap(set_(["security", "passphrase"])), None),
        "added vNF image": ("POST", f"{base}/vnfs", vnf(set_(["image"])), lambda s: s["vnfs"][-1]["image"]),
        "added vNF param value": ("POST", f"{base}/vnfs", vnf(set_(["params", "p"])),
                                  lambda s: s["vnfs"][-1]["params"]["p"]),
        "added vNF param name": ("POST", f"{base}/vnfs", vnf(lambda b, v: b.update(params={v: 1})),
                                 lambda s: next(iter(s["vnfs"][-1]["params"]))),
        "transcoder param value": ("PUT", f"{base}/policies", policy(lambda v: {"p": v}),
                                   lambda s: s["policies"][0]["transcoder"]["params"]["p"]),
        "transcoder param name": ("PUT", f"{base}/policies", policy(lambda v: {v: 1}),
                                  lambda s: next(iter(s["policies"][0]["transcoder"]["params"]))),
        "tenant name": ("POST", "/api/v1/tenants", lambda v: {"tenant_id": 40000 + secrets.randbelow(20000),
                                                              "name": v}, lambda x: x["name"]),
        "token name": ("POST", "/api/v1/tenants/1/tokens", lambda v: {"name": v}, lambda x: x["name"]),
        "topology attachment agent": ("PUT", "/api/v1/topology",
                                      lambda v: {**topology(), "attachments": {**topology()["attachments"],
                                                                               v: "pof:core"}}, None),
        "topology attachment device": ("PUT", "/api/v1/topology",
                                       lambda v: {**topology(), "attachments": {**topology()["attachments"],
                                                                                "ap-9": v}}, None),
        "topology link end": ("PUT", "/api/v1/topology",
                              lambda v: {**topology(), "links": [*topology()["links"],
                                                                 {"a": v, "a_port": 9, "b": "pof:core", "b_port": 99,
                                                                  "capacity_kbps": 1000}]}, None),
    }


def path_targets(v: str) -> list[tuple[str, str, dict[str, Any] | None]]:
    """Ids in URL path segments that the API passes on to a controller URL."""
    q = quote(v.encode("utf-8", "surrogatepass"), safe="")  # a lone surrogate as invalid UTF-8 bytes
    return [("GET", f"/api/v1/wifi-agents/{q}", None),
            ("GET", f"/api/v1/wifi-agents/{q}/clients", None),
            ("DELETE", f"/api/v1/wifi-agents/ap-1/clients/{q}", None),
            ("DELETE", f"/api/v1/wifi-agents/{q}/clients/02:00:00:00:00:01", None),
            ("POST", f"/api/v1/wifi-agents/{q}/radios/phy0/channel", {"channel": 6}),
            ("POST", f"/api/v1/wifi-agents/ap-1/radios/{q}/channel", {"channel": 6}),
            ("DELETE", f"/api/v1/tenants/1/slices/1/clients/{q}", None),
            ("DELETE", f"/api/v1/tenants/1/slices/1/vaps/{q}", None)]
