"""The WiFi controller on the real ONOS 2.5.6 runtime, driven through /onos/wifi by a protocol-level ap-agent."""
from __future__ import annotations

import asyncio
import re
import secrets
import ssl
import stat
from pathlib import Path

import pytest

from onos_helpers import ONOS_APPS, Onos, free_port
from fake_agent import FakeAgent

pytestmark = pytest.mark.integration

SECRET = "integration-secret"
WIFI = "org.wislice.onos.wifi.impl.WifiManager"
VAP = {"vap_id": "t1-cafe", "radio": "phy0", "ssid": "Café Slice",
       "security": {"mode": "wpa2-psk", "passphrase": "correct horse"}, "hidden": False, "tenant_id": 1,
       "slice_id": "s-1", "rate_limit": {"down_kbps": 5000, "up_kbps": 2000}}


@pytest.fixture(scope="module")
def wifi(onos: Onos) -> tuple[Onos, int]:
    port = free_port()
    onos.configure(WIFI, {"agentPort": port, "sharedSecret": SECRET})
    return onos, port


async def wait_for(predicate, timeout: float = 10.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError("condition not met in time")
        await asyncio.sleep(0.05)


def rest_until(onos: Onos, path: str, predicate, timeout: float = 10.0):
    import time
    deadline = time.monotonic() + timeout
    while True:
        code, body = onos.request("GET", path)
        if code == 200 and predicate(body):
            return body
        if time.monotonic() > deadline:
            raise AssertionError(f"{path}: {code} {body}")
        time.sleep(0.1)


async def connected_agent(port: int, agent_id: str, secret: str = SECRET, tls: ssl.SSLContext | None = None
                          ) -> FakeAgent:
    agent = FakeAgent(agent_id, port=port, secret=secret, tls=tls)
    for _ in range(50):  # the server restarts after the configuration change
        try:
            await agent.connect()
            break
        except OSError:  # refused, or (TLS) still the old plain server
            await asyncio.sleep(0.2)
    await asyncio.wait_for(agent.synced.wait(), 10)
    return agent


def test_apps_active_and_runtime_booted(onos: Onos) -> None:
    code, apps = onos.request("GET", "/onos/v1/applications")
    states = {a["name"]: a["state"] for a in apps["applications"]}
    assert states.get("org.wislice.wifi") == "ACTIVE"
    seconds = float(re.search(r"ONOS ready in ([0-9.]+) s", onos.boot_log).group(1))
    assert seconds < 60, f"boot took {seconds} s"


def test_vap_lifecycle_through_rest(wifi: tuple[Onos, int]) -> None:
    onos, port = wifi

    async def scenario() -> None:
        agent = await connected_agent(port, "ap-1")
        body = rest_until(onos, "/onos/wifi/agents/ap-1", lambda b: b["connected"])
        assert body["radios"][0]["name"] == "phy0"

        # Create: 201 with the agent's VapState, never the passphrase.
        code, created = await asyncio.to_thread(onos.request, "POST", "/onos/wifi/agents/ap-1/vaps", VAP)
        assert code == 201, created
        assert created["vap"]["state"] == "up" and "passphrase" not in str(created)
        assert agent.vaps["t1-cafe"]["security"]["passphrase"] == "correct horse"
        code, dup = await asyncio.to_thread(onos.request, "POST", "/onos/wifi/agents/ap-1/vaps", VAP)
        assert code == 409 and dup["code"] == "conflict"

        # Bad input: clear 400, nothing stored.
        bad = dict(VAP, vap_id="v2", ssid="x\nctrl_interface=/tmp")
        code, err = await asyncio.to_thread(onos.request, "POST", "/onos/wifi/agents/ap-1/vaps", bad)
        assert code == 400 and err["code"] == "bad_request"
        assert "v2" not in agent.vaps

        # Events: a client associates, shows in REST, gets kicked.
        await agent.event("clientAssociated", {"vap_id": "t1-cafe", "mac": "02:00:00:00:01:00",
                                               "signal_dbm": -42})
        agent.clients["02:00:00:00:01:00"] = {"mac": "02:00:00:00:01:00", "vap_id": "t1-cafe", "signal_dbm": -42,
                                              "connected_s": 0, "tx_bytes": 0, "rx_bytes": 0}
        clients = await asyncio.to_thread(rest_until, onos, "/onos/wifi/clients?agent=ap-1",
                                          lambda b: len(b["clients"]) == 1)
        assert clients["clients"][0]["agent_id"] == "ap-1"
        code, _ = await asyncio.to_thread(onos.request, "DELETE",
                                          "/onos/wifi/agents/ap-1/clients/02:00:00:00:01:00")
        assert code == 204 and not agent.clients

        # Table II calls: channel and rates.
        code, radio = await asyncio.to_thread(onos.request, "POST", "/onos/wifi/agents/ap-1/radios/phy0/channel",
                                              {"channel": 11})
        assert code == 200 and radio["radio"]["channel"] == 11
        code, rates = await asyncio.to_thread(onos.request, "GET", "/onos/wifi/agents/ap-1/vaps/t1-cafe/rates")
        assert code == 200 and rates["tx_bps"] == 1_000_000

        # Rate limit of the running vAP: updateVap, the new VapState, and the desired spec carries it.
        new_rate = {"down_kbps": 8000, "up_kbps": 0, "down_guaranteed_kbps": 3000, "up_guaranteed_kbps": 500}
        code, upd = await asyncio.to_thread(onos.request, "PUT", "/onos/wifi/vaps/t1-cafe/rate_limit", new_rate)
        assert code == 200, upd
        assert upd["vap"]["rate_limit"] == new_rate and upd["vap"]["agent_id"] == "ap-1"
        assert agent.vaps["t1-cafe"]["rate_limit"] == new_rate and agent.requests_seen[-1] == "updateVap"
        code, err = await asyncio.to_thread(onos.request, "PUT", "/onos/wifi/vaps/t1-cafe/rate_limit",
                                            {"down_kbps": 100, "up_kbps": 0, "down_guaranteed_kbps": 101})
        assert code == 400 and err["code"] == "bad_request", err
        code, err = await asyncio.to_thread(onos.request, "PUT", "/onos/wifi/vaps/nope/rate_limit", new_rate)
        assert code == 404 and err["code"] == "not_found", err

        # A stats event's radios update the agent's radio capacity.
        await agent.event("stats", {"interval_s": 5, "radios": [{"name": "phy0", "capacity_kbps": 27000,
                                                                  "capacity_source": "measured"}]})
        body = await asyncio.to_thread(rest_until, onos, "/onos/wifi/agents/ap-1",
                                       lambda b: b["radios"][0].get("capacity_kbps") == 27000)
        assert body["radios"][0]["capacity_source"] == "measured" and body["radios"][0]["channel"] == 11

        # A stats event's clients: their counters and rates reach the stored client, and GET /onos/wifi/stats
        # answers every agent's last stats event (vAP rates, client rates, radios) in one call.
        mac = "02:00:00:00:02:00"
        await agent.event("clientAssociated", {"vap_id": "t1-cafe", "mac": mac})
        await agent.event("stats", {
            "interval_s": 5, "vaps": [{"vap_id": "t1-cafe", "tx_bps": 8_000_000, "rx_bps": 100_000, "clients": 1}],
            "radios": [{"name": "phy0", "capacity_kbps": 27000, "capacity_source": "measured"}],
            "clients": [{"mac": mac, "vap_id": "t1-cafe", "tx_bytes": 5_000_000, "rx_bytes": 62_500,
                         "tx_bps": 8_000_000, "rx_bps": 100_000}]})
        clients = await asyncio.to_thread(rest_until, onos, "/onos/wifi/clients?vap=t1-cafe",
                                          lambda b: any(c.get("tx_bps") for c in b["clients"]))
        assert clients["clients"][0]["tx_bytes"] == 5_000_000 and clients["clients"][0]["rx_bps"] == 100_000
        stats = await asyncio.to_thread(rest_until, onos, "/onos/wifi/stats",
                                        lambda b: any(a["agent_id"] == "ap-1" for a in b["agents"]))
        ap1 = next(a for a in stats["agents"] if a["agent_id"] == "ap-1")
        assert ap1["vaps"][0]["tx_bps"] == 8_000_000 and ap1["clients"][0]["mac"] == mac
        assert ap1["radios"][0]["capacity_kbps"] == 27000 and ap1["interval_s"] == 5

        # Reconnect: the desired vAP is pushed again with syncVaps.
        await agent.close()
        await asyncio.to_thread(rest_until, onos, "/onos/wifi/agents/ap-1", lambda b: not b["connected"])
        code, stats = await asyncio.to_thread(onos.request, "GET", "/onos/wifi/stats")
        assert code == 200 and all(a["agent_id"] != "ap-1" for a in stats["agents"])  # gone with its connection
        again = await connected_agent(port, "ap-1")
        assert "t1-cafe" in again.vaps and again.requests_seen[0] == "syncVaps"
        # The controller reads back what the agent runs after the sync (getVaps, getClient): a delete racing with
        # that read-back would see the vAP stored again by it.
        await wait_for(lambda: "getClient" in again.requests_seen)
        assert again.vaps["t1-cafe"]["rate_limit"] == new_rate

        code, _ = await asyncio.to_thread(onos.request, "DELETE", "/onos/wifi/agents/ap-1/vaps/t1-cafe")
        assert code == 204 and "t1-cafe" not in again.vaps
        code, vaps = await asyncio.to_thread(onos.request, "GET", "/onos/wifi/vaps?agent=ap-1")
        assert vaps["vaps"] == []
        await again.close()

    asyncio.run(scenario())


def files_containing(root: Path, needle: bytes) -> list[Path]:
    return [f for f in root.rglob("*") if f.is_file() and not f.is_symlink() and needle in f.read_bytes()]


def test_passphrases_are_sealed_at_rest_and_opened_for_the_agent(wifi: tuple[Onos, int]) -> None:
    """The store keeps a vAP's passphrase sealed with the runtime's store key (run/store-key, 0600): ONOS's data on
    disk holds the vAP's record but not its passphrase; the agent gets it in clear, also with a later syncVaps."""
    onos, port = wifi
    passphrase, ssid = f"at-rest-{secrets.token_hex(8)}", f"at-rest {secrets.token_hex(6)}"
    vap = dict(VAP, vap_id="t1-at-rest", ssid=ssid, security={"mode": "wpa2-psk", "passphrase": passphrase})

    async def scenario() -> None:
        agent = await connected_agent(port, "ap-at-rest")
        code, created = await asyncio.to_thread(onos.request, "POST", "/onos/wifi/agents/ap-at-rest/vaps", vap)
        assert code == 201, created
        assert agent.vaps["t1-at-rest"]["security"]["passphrase"] == passphrase
        await agent.close()
        again = await connected_agent(port, "ap-at-rest")  # the desired vAP comes back with syncVaps
        assert again.vaps["t1-at-rest"]["security"]["passphrase"] == passphrase
        await again.close()

    asyncio.run(scenario())
    key = onos.run_dir / "store-key"
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    assert files_containing(onos.run_dir, ssid.encode()), "the vAP's record is not on disk: nothing was checked"
    assert files_containing(onos.run_dir, passphrase.encode()) == []
    onos.request("DELETE", "/onos/wifi/agents/ap-at-rest/vaps/t1-at-rest")


def test_hostile_agents_are_cut_off_and_the_app_keeps_serving(wifi: tuple[Onos, int]) -> None:
    onos, port = wifi

    async def scenario() -> None:
        wrong = FakeAgent("ap-evil", port=port, secret="guess")
        await wrong.connect()
        await wait_for(lambda: wrong.closed_reason is not None)
        assert wrong.closed_reason == "bad hmac"

        good = await connected_agent(port, "ap-good")
        for payload in (b"not json\n", b'{"type":"shell","cmd":"id"}\n', b"[" * 60_000 + b"\n",
                        b"x" * (1 << 20) + b"y" * 16 + b"\n"):
            bad = await connected_agent(port, "ap-bad")
            await bad.send_raw(payload)
            await wait_for(lambda: bad.closed_reason is not None)
            await bad.close()
        code, body = await asyncio.to_thread(onos.request, "GET", "/onos/wifi/agents/ap-good")
        assert code == 200 and body["connected"]
        code, metrics = await asyncio.to_thread(onos.request, "GET", "/onos/wifi/metrics")
        assert metrics["protocol_violations"] >= 4
        await good.close()

    asyncio.run(scenario())


def test_cli_lists_agents(wifi: tuple[Onos, int]) -> None:
    onos, _ = wifi
    out = onos.cli("onos:wifi-agents")
    assert "agent_id=ap-good" in out or "agent_id=ap-1" in out, out


def test_tls_agent_with_client_certificate(wifi: tuple[Onos, int]) -> None:
    """TLS with required client certificates in the real runtime (netty's ssl package from the ONOS bundles)."""
    onos, port = wifi
    pki = ONOS_APPS / "agent-server" / "src" / "test" / "resources" / "tls"  # test-only PKI, see its README
    tls = ssl.create_default_context(cafile=str(pki / "ca.pem"))
    tls.load_cert_chain(str(pki / "client.pem"), str(pki / "client-key.pem"))
    onos.configure(WIFI, {"tlsCertFile": pki / "server.pem", "tlsKeyFile": pki / "server-key.pem",
                          "tlsClientCaFile": pki / "ca.pem"})

    async def scenario() -> None:
        agent = await connected_agent(port, "ap-tls", tls=tls)
        body = await asyncio.to_thread(rest_until, onos, "/onos/wifi/agents/ap-tls", lambda b: b["connected"])
        assert body["radios"][0]["name"] == "phy0"
        await agent.close()

    try:
        asyncio.run(scenario())
    finally:
        onos.request("DELETE", f"/onos/v1/configuration/{WIFI}",
                     {"tlsCertFile": "", "tlsKeyFile": "", "tlsClientCaFile": ""})
