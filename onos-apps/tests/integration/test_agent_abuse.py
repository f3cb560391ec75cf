"""Protocol abuse against both agent servers (WiFi and NFV) of one real ONOS runtime (issue #13).

Garbage, oversized lines (before and after the hello), a truncated line, messages out of order, a slow sender,
floods of pings and events, and a flood of silent connections beyond the bound of 256, while a well-behaved agent
stays connected and answers a controller call, and a new one is welcomed during the flood. Karaf stays up and its RSS
stays bounded (see RSS_GROWTH_MIB). The anonymous peers' bounds are spec/agent's (64 KiB lines, 10 s, 256
waiting, the oldest displaced). With WISLICE_RELIABILITY_RESULTS=1 (make -C onos-apps bench) the counts go to
bench/results/reliability-agent-abuse.json.
"""
from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import os
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from onos_helpers import ONOS_APPS, Onos, free_port
from fake_agent import FakeAgent

pytestmark = pytest.mark.integration

SECRET = "abuse-secret"
SERVERS = {"ap": ("org.wislice.onos.wifi.impl.WifiManager", "/onos/wifi"),
           "mec": ("org.wislice.onos.nfv.impl.NfvManager", "/onos/nfv")}
FLOOD = 300          # silent connections per server, beyond the server's 256 waiting for their welcome
HELLO_DEADLINE_S = 10
PINGS = 20_000       # per server, from one welcomed agent
EVENTS = 5_000       # per server, from another
# The JVM runs with -Xmx768M and had grown its heap already while booting; what the abuse may add on top is what
# the servers bound: 256 anonymous peers x 64 KiB line buffers per server (32 MiB for both), one 1 MiB line per
# welcomed connection, and netty's pooled buffers. 256 MiB is that with room for the JIT and GC; a server that
# queued every unread pong or waiting event of the floods below, or kept the flood's buffers, would exceed it.
RSS_GROWTH_MIB = 256


@dataclass
class Tally:
    """Hostile messages and connections sent, and the times the server misbehaved (bench results)."""

    inputs: int = 0
    server_errors: int = 0
    notes: list[str] = field(default_factory=list)

    def failed(self, what: str) -> None:
        self.server_errors += 1
        self.notes.append(what)


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError(f"no VmRSS for pid {pid}")


async def read_to_eof(reader: asyncio.StreamReader, timeout: float) -> bytes | None:
    """What the server said until it closed, or None if it kept the connection open for timeout s."""
    try:
        return await asyncio.wait_for(reader.read(), timeout)
    except asyncio.TimeoutError:
        return None
    except ConnectionError:
        return b""


def hello_line(role: str, agent_id: str, nonce: str) -> bytes:
    mac = hmac.new(SECRET.encode(), f"{nonce}|{agent_id}".encode(), hashlib.sha256).hexdigest()
    caps = ({"radios": [], "security": ["open"], "pof_switch": False} if role == "ap" else
            {"capacity": {"cpu": 1, "memory_mib": 512}, "catalog": [], "dpdk": False, "pof_switch": False})
    return json.dumps({"type": "hello", "version": 1, "role": role, "agent_id": agent_id, "software": "abuse",
                       "auth": {"scheme": "hmac-sha256", "mac": mac}, "capabilities": caps}).encode() + b"\n"


class Attack:
    """The hostile peers against one agent server."""

    def __init__(self, role: str, port: int, tally: Tally) -> None:
        self.role, self.port, self.tally = role, port, tally

    async def agent(self, agent_id: str, cpu: float = 0.5) -> FakeAgent:
        """A welcomed agent; as a MEC node too small for the steady agent's vNFs unless given more CPU."""
        agent = FakeAgent(agent_id, role=self.role, port=self.port, secret=SECRET,
                          capacity={"cpu": cpu, "memory_mib": 4096})
        await agent.connect(retry_s=10)  # the server restarts after its configuration change
        await asyncio.wait_for(agent.synced.wait(), 15)
        return agent

    async def anonymous(self, payload: bytes, expect_close: bool = True) -> None:
        """A fresh connection that sends payload instead of a hello, then waits for the server to close it."""
        reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
        try:
            writer.write(payload)
            await writer.drain()
            self.tally.inputs += 1
            if expect_close and await read_to_eof(reader, 5) is None:
                self.tally.failed(f"{self.role}: {payload[:30]!r} before hello left open")
        finally:
            writer.close()

    async def welcomed(self, agent_id: str, payload: bytes, expect_close: bool) -> None:
        """A welcomed agent that then sends payload."""
        bad = await self.agent(agent_id)
        try:
            await bad.send_raw(payload)
            self.tally.inputs += 1
            deadline = time.monotonic() + (5 if expect_close else 1)
            while bad.closed_reason is None and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            if (bad.closed_reason is not None) != expect_close:
                self.tally.failed(f"{self.role}: {payload[:30]!r} after welcome: closed={bad.closed_reason}")
        finally:
            await bad.close()

    async def truncated(self) -> None:
        """Half a hello, then the connection is closed (nothing to check but the server's health after)."""
        reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
        await reader.readline()
        writer.write(b'{"type":"hello","version":1,"ro')
        await writer.drain()
        writer.close()
        self.tally.inputs += 1

    async def slow_hello(self) -> None:
        """A valid hello sent one byte per 100 ms: cut off at the hello deadline, never welcomed."""
        started = time.monotonic()
        reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
        nonce = json.loads(await reader.readline())["nonce"]
        self.tally.inputs += 1
        closed = asyncio.create_task(read_to_eof(reader, HELLO_DEADLINE_S + 5))
        try:
            for byte in hello_line(self.role, f"{self.role}-slow", nonce):  # ~300 bytes: 30 s
                if closed.done():
                    break
                writer.write(bytes([byte]))
                await writer.drain()
                await asyncio.sleep(0.1)
        except ConnectionError:
            pass
        said = await closed
        elapsed = time.monotonic() - started
        writer.close()
        if said is None or b'"type":"welcome"' in said or not HELLO_DEADLINE_S - 1 <= elapsed <= HELLO_DEADLINE_S + 4:
            self.tally.failed(f"{self.role}: slow hello: {said!r} after {elapsed:.1f} s")

    async def flood(self, during: Callable[[], Awaitable[None]]) -> None:
        """FLOOD silent connections; `during` runs while they are held; all are closed by the hello deadline."""
        started = time.monotonic()
        conns = [await asyncio.open_connection("127.0.0.1", self.port) for _ in range(FLOOD)]
        self.tally.inputs += FLOOD
        await during()
        ends = await asyncio.gather(*(read_to_eof(r, HELLO_DEADLINE_S + 5) for r, _ in conns))
        for _, w in conns:
            w.close()
        displaced = sum(1 for said in ends if said is not None and b'"bye"' in said and b"too many" in said)
        if any(said is None for said in ends) or time.monotonic() - started > HELLO_DEADLINE_S + 8:
            self.tally.failed(f"{self.role}: flood connections held beyond the hello deadline")
        if displaced < FLOOD - 256:
            self.tally.failed(f"{self.role}: only {displaced} of {FLOOD} flood connections displaced")


async def served(onos: Onos, role: str, agent: FakeAgent, n: int) -> str | None:
    """A controller call that the well-behaved agent must answer: create a vAP / a vNF on it, through REST (the
    only MEC node with room for it); what went wrong, or None."""
    if role == "ap":
        vap = {"vap_id": f"abuse-{n}", "radio": "phy0", "ssid": f"abuse {n}", "tenant_id": 7, "slice_id": "s-7",
               "security": {"mode": "wpa2-psk", "passphrase": secrets.token_hex(8)},
               "rate_limit": {"down_kbps": 1000, "up_kbps": 1000}}
        code, out = await asyncio.to_thread(onos.request, "POST", f"/onos/wifi/agents/{agent.agent_id}/vaps", vap)
        return None if code == 201 and f"abuse-{n}" in agent.vaps else f"{code} {out}"
    vnf = {"tenant_id": 7, "instance_id": n, "image": "firewall", "params": {}, "cpu": 1, "memory_mib": 128,
           "chain_position": 0}
    code, out = await asyncio.to_thread(onos.request, "POST", "/onos/nfv/vnfs", vnf)
    return None if code == 201 and (7 << 16 | n) in agent.vnfs else f"{code} {out}"


async def abuse(onos: Onos, role: str, port: int, tally: Tally) -> None:
    attack = Attack(role, port, tally)
    steady = await attack.agent(f"{role}-steady", cpu=8)
    path = SERVERS[role][1]

    async def check_served(n: int, what: str) -> None:
        error = await served(onos, role, steady, n) if steady.closed_reason is None else steady.closed_reason
        if error is not None:
            tally.failed(f"{role}: the steady agent was not served {what}: {error}")

    garbage = [b"not json\n", b"\x00\xff\xfe garbage\n", b"{}\n", b"[]\n", b"null\n", b'"hello"\n',
               b'{"type":"hello"}\n', b'{"type":"shell","cmd":"id"}\n', b"[" * 60_000 + b"\n",
               b'{"type":"request","id":1,"method":"getStatus","params":{}}\n',  # a call before the hello
               b'{"type":"event","event":"stats","ts":1,"data":{}}\n',
               b'{"type":"reply","id":1,"ok":true,"result":{}}\n',
               b"x" * 70_000]  # an oversized line before the hello (64 KiB), no newline needed
    await asyncio.gather(*(attack.anonymous(g) for g in garbage))
    await attack.truncated()
    second_hello = hello_line(role, f"{role}-twice", "0" * 32)
    await attack.welcomed(f"{role}-oversized", b"x" * (1 << 20) + b"y" * 16 + b"\n", expect_close=True)
    await attack.welcomed(f"{role}-twice", second_hello, expect_close=True)
    await attack.welcomed(f"{role}-garbage", b"\xff\xfe{not json\n", expect_close=True)
    # A reply nobody asked for is dropped; the connection stays.
    await attack.welcomed(f"{role}-replies", b'{"type":"reply","id":424242,"ok":true,"result":{}}\n',
                          expect_close=False)
    # Floods from welcomed agents: pings (it reads its pongs), and events that each cost the app a store access.
    await attack.welcomed(f"{role}-pings", b'{"type":"ping","id":3}\n' * PINGS, expect_close=False)
    ghost = {"vap_id": "ghost"} if role == "ap" else {"vnf_id": 99999}
    event = json.dumps({"type": "event", "event": "vapState" if role == "ap" else "vnfState", "ts": 1,
                        "data": dict(ghost, state="removed")}).encode() + b"\n"
    await attack.welcomed(f"{role}-events", event * EVENTS, expect_close=False)
    tally.inputs += PINGS - 1 + EVENTS - 1
    await check_served(1, "after the hostile messages")

    slow: asyncio.Task | None = None

    async def during_flood() -> None:
        nonlocal slow
        # Newer than the flood's connections, so the newcomers below displace those, not this one.
        slow = asyncio.create_task(attack.slow_hello())
        await check_served(2, "during the flood")
        late = await attack.agent(f"{role}-during-flood")  # displaces the oldest silent connection
        await late.close()

    await attack.flood(during_flood)
    assert slow is not None
    await slow
    await check_served(3, "after the flood")
    code, body = await asyncio.to_thread(onos.request, "GET", f"{path}/metrics")
    if code != 200 or body["protocol_violations"] < len(garbage) + 3:
        tally.failed(f"{role}: metrics {code} {body}")
    for n in (1, 2, 3):  # the other suites start from no vAPs and vNFs
        await asyncio.to_thread(onos.request, "DELETE", f"/onos/wifi/agents/{steady.agent_id}/vaps/abuse-{n}"
                                if role == "ap" else f"/onos/nfv/vnfs/{7 << 16 | n}")
    await steady.close()


def test_both_agent_servers_survive_abuse_and_keep_serving(onos: Onos) -> None:
    ports = {role: free_port() for role in SERVERS}
    for role, (component, _) in SERVERS.items():
        onos.configure(component, {"agentPort": ports[role], "sharedSecret": SECRET})
    pid = onos.java_pid()
    assert pid is not None
    before = rss_mib(pid)
    tally = Tally()
    started = time.monotonic()

    async def scenario() -> None:
        await asyncio.gather(*(abuse(onos, role, ports[role], tally) for role in SERVERS))

    try:
        asyncio.run(scenario())
    finally:
        for role, port in (("ap", onos.wifi_port), ("mec", onos.nfv_port)):  # what the other suites expect
            onos.configure(SERVERS[role][0], {"agentPort": port, "sharedSecret": onos.secret})
    after = rss_mib(pid)
    alive = onos.java_pid() == pid and onos.request("GET", "/onos/v1/applications")[0] == 200
    if not alive:
        tally.failed("Karaf died or stopped answering")
    elapsed = time.monotonic() - started
    print(f"abuse: {tally.inputs} hostile inputs in {elapsed:.1f} s, RSS {before:.0f} -> {after:.0f} MiB, "
          f"server errors {tally.server_errors}")
    if os.environ.get("WISLICE_RELIABILITY_RESULTS"):
        write_results(tally, before, after, elapsed)
    assert alive
    assert tally.server_errors == 0, tally.notes
    assert tally.inputs >= 2 * (FLOOD + PINGS + EVENTS)  # every attack ran on both servers
    assert after - before < RSS_GROWTH_MIB, f"RSS {before:.0f} -> {after:.0f} MiB"


def write_results(tally: Tally, rss_before: float, rss_after: float, elapsed: float) -> None:
    import sys
    sys.path.insert(0, str(ONOS_APPS.parent / "bench"))
    from benchlib import write_result

    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    write_result("reliability-agent-abuse", {"inputs_tried": tally.inputs, "server_errors": tally.server_errors},
                 {"inputs_tried": "count", "server_errors": "count"},
                 notes=f"onos-apps/tests/integration/test_agent_abuse.py against the WiFi and NFV agent servers of "
                       f"one ONOS runtime, {elapsed:.0f} s, load average {load}; per server: 13 garbage/out-of-order"
                       f"/oversized lines before the hello, a truncated hello, 6 hostile welcomed agents (1 MiB+ "
                       f"line, second hello, garbage, reply to nothing, {PINGS} pings, {EVENTS} events), a hello at "
                       f"10 bytes/s, "
                       f"{FLOOD} silent connections; Karaf RSS {rss_before:.0f} -> {rss_after:.0f} MiB; "
                       f"failures: {tally.notes}")
