from __future__ import annotations

import json
import socket
import threading
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from wislice_agent_proto import protocol
from wislice_agent_proto.errors import ProtocolError
from wislice_agent_proto.methods import serve as handle_request

from wislice_mec_agent.handlers import controller_client, method_table
from wislice_mec_agent.stats import StatsCollector

from .conftest import Node, spec

SPEC = Path(__file__).resolve().parents[3] / "spec" / "agent"
SCHEMA = json.loads((SPEC / "schema" / "message.schema.json").read_text())


def valid(msg: dict[str, Any]) -> None:
    jsonschema.Draft202012Validator(SCHEMA, format_checker=jsonschema.FormatChecker()).validate(msg)


def test_replies_and_events_we_send_validate_against_the_schema(node: Node) -> None:
    table = method_table(node.manager, StatsCollector(node.manager))
    req = json.loads((SPEC / "vectors" / "valid" / "req-createVnf.json").read_text())
    req["params"]["vnf"]["params"] = {"allow_tcp": "80,443", "log": True}
    reply = handle_request(table, req)
    assert reply is not None and reply["ok"], reply
    valid(reply)
    for method, params in [("getVnfs", {}), ("getStatus", {}), ("getStatistics", {}),
                           ("getStatistics", {"vnf_id": 65538}), ("syncVnfs", {"vnfs": [spec(image="firewall")]}),
                           ("delVnf", {"vnf_id": 65538})]:
        r = handle_request(table, {"type": "request", "id": 3, "method": method, "params": params})
        assert r is not None and r["ok"], (method, r)
        valid(r)
    valid(protocol.event("vnfState", {"vnf_id": 65538, "state": "removed"}))


@pytest.mark.parametrize(("msg", "code"), [
    ({"type": "request", "id": 1, "method": "createVnf", "params": {}}, "bad_request"),
    ({"type": "request", "id": 1, "method": "createVnf", "params": {"vnf": spec(tenant_id=65536)}}, "bad_request"),
    ({"type": "request", "id": 1, "method": "delVnf", "params": {"vnf_id": 7}}, "not_found"),
    ({"type": "request", "id": 1, "method": "delVnf", "params": {"vnf_id": "x"}}, "bad_request"),
    ({"type": "request", "id": 1, "method": "getVnfs", "params": {"x": 1}}, "bad_request"),
    ({"type": "request", "id": 1, "method": "createVap", "params": {}}, "unknown_method"),
    ({"type": "request", "id": 1, "method": "getVnfs"}, "bad_request"),
])
def test_bad_requests_get_error_replies(node: Node, msg: dict, code: str) -> None:
    reply = handle_request(method_table(node.manager, StatsCollector(node.manager)), msg)
    assert reply is not None and reply["ok"] is False and reply["error"]["code"] == code
    valid(reply)


def test_request_without_id_gets_no_reply(node: Node) -> None:
    assert handle_request(method_table(node.manager, None), {"type": "request", "id": 0, "method": "getVnfs",
                                                               "params": {}}) is None


class FakeController:
    """A scripted controller on loopback: challenge, checks the hello's MAC, welcome, then requests."""

    def __init__(self, secret: bytes) -> None:
        self.secret = secret
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        self.seen: list[dict[str, Any]] = []

    def session(self, requests: list[dict[str, Any]], wait_for: int) -> None:
        conn, _ = self.server.accept()
        conn.settimeout(10)
        f = conn.makefile("rb")
        nonce = "ab" * 16
        conn.sendall(protocol.encode(protocol.challenge("nfv", nonce)))
        hello = json.loads(f.readline())
        self.seen.append(hello)
        if not protocol.mac_ok(self.secret, nonce, hello):
            conn.sendall(protocol.encode({"type": "bye", "reason": "bad mac"}))
            conn.close()
            return
        conn.sendall(protocol.encode(protocol.welcome("nfv", 1)))
        for r in requests:
            conn.sendall(protocol.encode(r))
        while sum(1 for m in self.seen if m["type"] == "reply") < wait_for:
            self.seen.append(json.loads(f.readline()))
        conn.close()


def test_client_session_against_a_fake_controller(node: Node) -> None:
    ctl = FakeController(b"k")
    stats = StatsCollector(node.manager)
    caps = {"capacity": {"cpu": 2.0, "memory_mib": 1024}, "catalog": node.catalog.names(), "dpdk": True,
            "pof_switch": True}
    client = controller_client([("127.0.0.1", ctl.port)], "mec-t", b"k", method_table(node.manager, stats), caps, stats)
    node.manager.events.append(lambda vnf_id, state: client.emit("vnfState", {"vnf_id": vnf_id, "state": state}))
    reqs = [{"type": "request", "id": 1, "method": "syncVnfs", "params": {"vnfs": [spec()]}},
            {"type": "request", "id": 2, "method": "getVnfs", "params": {}},
            {"type": "request", "id": 3, "method": "nope", "params": {}}]
    t = threading.Thread(target=ctl.session, args=(reqs, 3))
    t.start()
    runner = threading.Thread(target=client.run, daemon=True)
    runner.start()
    t.join(15)
    client.stop()
    for m in ctl.seen:
        valid(m)
    hello = ctl.seen[0]
    assert hello["role"] == "mec" and hello["auth"]["scheme"] == "hmac-sha256"
    replies = {m["id"]: m for m in ctl.seen if m["type"] == "reply"}
    assert replies[1]["result"]["created"] == [65538]
    assert replies[2]["result"]["vnfs"][0]["vnf_id"] == 65538
    assert replies[3]["error"]["code"] == "unknown_method"
    assert any(m["type"] == "event" and m["event"] == "vnfState" for m in ctl.seen)
    ctl.server.close()


TLS = Path(__file__).resolve().parents[3] / "onos-apps" / "agent-server" / "src" / "test" / "resources" / "tls"


def test_tls_client_certificate_names_the_agent(tmp_path: Path) -> None:
    """Against a controller requiring client certificates (as the nfv-controller with tlsClientCaFile): the agent
    verifies the controller, presents its certificate and, without a shared secret, says tls-client-cert."""
    import ssl

    from wislice_mec_agent.config import AgentConfig

    server_ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH, cafile=str(TLS / "ca.pem"))
    server_ctx.load_cert_chain(str(TLS / "server.pem"), str(TLS / "server-key.pem"))
    server_ctx.verify_mode = ssl.CERT_REQUIRED
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    seen: dict[str, Any] = {}

    def controller() -> None:
        raw, _ = listener.accept()
        with server_ctx.wrap_socket(raw, server_side=True) as conn:
            seen["peer_cn"] = dict(x[0] for x in conn.getpeercert()["subject"])["commonName"]
            conn.sendall(protocol.encode(protocol.challenge("nfv", "cd" * 16)))
            seen["hello"] = json.loads(conn.makefile("rb").readline())
            conn.sendall(protocol.encode({"type": "bye", "reason": "test over"}))

    cfg = AgentConfig(agent_id="ap-1", state_dir=str(tmp_path), tls_ca=str(TLS / "ca.pem"),
                      tls_cert=str(TLS / "client.pem"), tls_key=str(TLS / "client-key.pem"))
    caps = {"capacity": {"cpu": 1.0, "memory_mib": 512}, "catalog": [], "dpdk": False, "pof_switch": False}
    client = controller_client([("127.0.0.1", port)], cfg.agent_id, None, {}, caps, tls=cfg.tls_context(),
                               tls_client_cert=True)
    t = threading.Thread(target=controller)
    t.start()
    with pytest.raises(ProtocolError, match="test over"):
        client.run_session()  # one session, its socket closed when it ends
    t.join(10)
    listener.close()
    assert seen["peer_cn"] == "ap-1"
    valid(seen["hello"])
    assert seen["hello"]["auth"] == {"scheme": "tls-client-cert"}


@pytest.mark.parametrize("fields, message", [({"tls_cert": "c.pem"}, "go together"),
                                             ({"tls_cert": "c.pem", "tls_key": "k.pem"}, "needs tls_ca")])
def test_tls_client_settings_are_checked(tmp_path: Path, fields: dict[str, str], message: str) -> None:
    from wislice_mec_agent.config import AgentConfig

    with pytest.raises(ValueError, match=message):
        AgentConfig(agent_id="mec-1", state_dir=str(tmp_path), **fields)
