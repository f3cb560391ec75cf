"""A protocol-level fake ap-agent / mec-agent (spec/agent/PROTOCOL.md) for integration tests and benchmarks.

It speaks the real wire protocol to the real controller (challenge, hmac hello, welcome, requests, events) and
keeps its vAPs / vNFs in memory instead of driving hostapd or dockerd. Stdlib asyncio only.
"""
from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import time
from dataclasses import dataclass, field
from typing import Any


def mac_for(n: int) -> str:
    return "02:" + ":".join(f"{(n >> s) & 0xff:02x}" for s in (32, 24, 16, 8, 0))


@dataclass
class FakeAgent:
    """One agent connection. role "ap" serves the ap-agent methods, role "mec" the mec-agent ones."""

    agent_id: str
    role: str = "ap"
    secret: str = ""
    host: str = "127.0.0.1"
    port: int = 6690
    tls: Any = None  # an ssl.SSLContext: connect over TLS (server name = host)
    radios: int = 1
    capacity: dict[str, Any] = field(default_factory=lambda: {"cpu": 4, "memory_mib": 4096})
    # The pof-switch ports reported: every vAP's (None: 10 + its index) and every vNF's. A test with a real switch
    # names the switch ports its hosts sit on.
    vap_pof_port: int | None = None
    vnf_pof_port: int = 20
    vaps: dict[str, dict[str, Any]] = field(default_factory=dict)
    vnfs: dict[int, dict[str, Any]] = field(default_factory=dict)
    clients: dict[str, dict[str, Any]] = field(default_factory=dict)
    requests_seen: list[str] = field(default_factory=list)
    welcomed: asyncio.Event = field(default_factory=asyncio.Event)
    synced: asyncio.Event = field(default_factory=asyncio.Event)
    closed_reason: str | None = None
    last_sync: dict[str, Any] = field(default_factory=dict)  # the last syncVaps/syncVnfs answer: what it changed

    def __post_init__(self) -> None:
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._task: asyncio.Task | None = None
        self._index = abs(hash(self.agent_id)) % 10_000
        self.radio_list = [{"name": f"phy{i}", "mac": mac_for(self._index * 16 + i), "channel": 6, "hw_mode": "g",
                            "max_vaps": 8, "vaps_used": 0} for i in range(self.radios)]

    # --- connection -----------------------------------------------------------------------------------------

    async def connect(self, retry_s: float = 0) -> None:
        """Connects and says hello; retries refused connections for retry_s (the server may be restarting)."""
        deadline = time.monotonic() + retry_s
        while True:
            try:
                self._reader, self._writer = await asyncio.open_connection(self.host, self.port, limit=2 ** 21,
                                                                           ssl=self.tls)
                break
            except ConnectionRefusedError:
                if time.monotonic() > deadline:
                    raise
                await asyncio.sleep(0.2)
        challenge = json.loads(await self._reader.readline())
        assert challenge["type"] == "challenge", challenge
        auth: dict[str, Any] = {"scheme": "none"}
        if self.secret:
            mac = hmac.new(self.secret.encode(), f"{challenge['nonce']}|{self.agent_id}".encode(),
                           hashlib.sha256).hexdigest()
            auth = {"scheme": "hmac-sha256", "mac": mac}
        if self.role == "ap":
            caps: dict[str, Any] = {"radios": self.radio_list, "security": ["open", "wpa2-psk", "wpa3-sae",
                                                                           "wpa2-wpa3"], "pof_switch": True}
        else:
            caps = {"capacity": self.capacity, "catalog": ["kernel-fwd", "dpdk-fwd", "firewall"], "dpdk": False,
                    "pof_switch": True}
        await self.send({"type": "hello", "version": 1, "role": self.role, "agent_id": self.agent_id,
                         "software": "wislice-fake-agent 0.1", "auth": auth, "capabilities": caps})
        self._task = asyncio.get_running_loop().create_task(self._serve())

    async def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
            try:
                await self._writer.wait_closed()
            except (ConnectionError, OSError):
                pass
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except (asyncio.CancelledError, ConnectionError, OSError):
                pass

    async def send(self, msg: dict[str, Any]) -> None:
        assert self._writer is not None
        self._writer.write(json.dumps(msg, separators=(",", ":")).encode() + b"\n")
        await self._writer.drain()

    async def send_raw(self, data: bytes) -> None:
        assert self._writer is not None
        self._writer.write(data)
        await self._writer.drain()

    async def event(self, name: str, data: dict[str, Any], ts: float | None = None) -> None:
        await self.send({"type": "event", "event": name, "ts": time.time() if ts is None else ts, "data": data})

    async def _serve(self) -> None:
        assert self._reader is not None
        while True:
            line = await self._reader.readline()
            if not line:
                self.closed_reason = self.closed_reason or "eof"
                return
            msg = json.loads(line)
            kind = msg["type"]
            if kind == "welcome":
                self.welcomed.set()
            elif kind == "bye":
                self.closed_reason = msg["reason"]
            elif kind == "ping":
                await self.send({"type": "pong", "id": msg["id"]})
            elif kind == "request":
                self.requests_seen.append(msg["method"])
                await self.send(self._answer(msg))

    # --- methods ----------------------------------------------------------------------------------------------

    def _answer(self, req: dict[str, Any]) -> dict[str, Any]:
        handler = getattr(self, "_m_" + req["method"], None)
        if handler is None:
            return {"type": "reply", "id": req["id"], "ok": False,
                    "error": {"code": "unknown_method", "message": req["method"]}}
        try:
            result = handler(req["params"])
        except KeyError as err:
            return {"type": "reply", "id": req["id"], "ok": False,
                    "error": {"code": "not_found", "message": str(err)}}
        except ValueError as err:
            return {"type": "reply", "id": req["id"], "ok": False,
                    "error": {"code": "conflict", "message": str(err)}}
        return {"type": "reply", "id": req["id"], "ok": True, "result": result}

    def _vap_state(self, spec: dict[str, Any]) -> dict[str, Any]:
        state = {k: v for k, v in spec.items() if k != "security"}
        state["security"] = {"mode": spec["security"]["mode"]}
        n = list(self.vaps).index(spec["vap_id"]) if spec["vap_id"] in self.vaps else len(self.vaps)
        state.update(ifname=f"wlan0_{n}", bssid=mac_for(self._index * 256 + n + 1), state="up",
                     clients=sum(1 for c in self.clients.values() if c["vap_id"] == spec["vap_id"]),
                     pof_port=10 + n if self.vap_pof_port is None else self.vap_pof_port)
        return state

    def _m_createVap(self, p: dict[str, Any]) -> dict[str, Any]:
        spec = p["vap"]
        if spec["vap_id"] in self.vaps:
            raise ValueError(f"vAP {spec['vap_id']} exists")
        self.vaps[spec["vap_id"]] = spec
        return {"vap": self._vap_state(spec)}

    def _m_updateVap(self, p: dict[str, Any]) -> dict[str, Any]:
        spec = self.vaps[p["vap_id"]]  # KeyError -> not_found
        spec["rate_limit"] = p["rate_limit"]
        return {"vap": self._vap_state(spec)}

    def _m_delVap(self, p: dict[str, Any]) -> dict[str, Any]:
        del self.vaps[p["vap_id"]]
        return {}

    def _m_getVaps(self, p: dict[str, Any]) -> dict[str, Any]:
        return {"vaps": [self._vap_state(s) for s in self.vaps.values()]}

    def _m_syncVaps(self, p: dict[str, Any]) -> dict[str, Any]:
        wanted = {s["vap_id"]: s for s in p["vaps"]}
        created = [v for v in wanted if v not in self.vaps or self.vaps[v] != wanted[v]]
        removed = [v for v in self.vaps if v not in wanted]
        kept = [v for v in wanted if v not in created]
        self.vaps = dict(wanted)
        self.last_sync = {"created": created, "removed": removed, "kept": kept, "failed": []}
        self.synced.set()
        return self.last_sync

    def _m_getStatus(self, p: dict[str, Any]) -> dict[str, Any]:
        if self.role == "mec":
            used = {"cpu": sum(v["cpu"] for v in self.vnfs.values()),
                    "memory_mib": sum(v["memory_mib"] for v in self.vnfs.values())}
            return {"agent_id": self.agent_id, "uptime_s": 1, "capacity": self.capacity, "used": used,
                    "vnfs": len(self.vnfs)}
        return {"agent_id": self.agent_id, "uptime_s": 1, "radios": self.radio_list, "vaps": len(self.vaps),
                "clients": len(self.clients)}

    def _m_changeChannel(self, p: dict[str, Any]) -> dict[str, Any]:
        radio = next(r for r in self.radio_list if r["name"] == p["radio"])
        radio["channel"] = p["channel"]
        return {"radio": radio}

    def _m_getClient(self, p: dict[str, Any]) -> dict[str, Any]:
        return {"clients": [c for c in self.clients.values()
                            if p.get("mac") in (None, c["mac"]) and p.get("vap_id") in (None, c["vap_id"])]}

    def _m_removeClient(self, p: dict[str, Any]) -> dict[str, Any]:
        del self.clients[p["mac"]]
        return {}

    def _m_getTxRate(self, p: dict[str, Any]) -> dict[str, Any]:
        if p["vap_id"] not in self.vaps:
            raise KeyError(p["vap_id"])
        return {"vap_id": p["vap_id"], "bps": 1_000_000, "packets_per_s": 100, "interval_s": 5}

    def _m_getRxRate(self, p: dict[str, Any]) -> dict[str, Any]:
        if p["vap_id"] not in self.vaps:
            raise KeyError(p["vap_id"])
        return {"vap_id": p["vap_id"], "bps": 250_000, "packets_per_s": 40, "interval_s": 5}

    def _vnf_state(self, spec: dict[str, Any]) -> dict[str, Any]:
        vnf_id = spec["tenant_id"] << 16 | spec["instance_id"]
        # the mec-agent keeps chain_id and latency_class; VnfState has neither
        state = {k: v for k, v in spec.items() if k not in ("chain_id", "latency_class")}
        state.update(vnf_id=vnf_id, address=".".join(str((vnf_id >> s) & 0xff) for s in (24, 16, 8, 0)),
                     state="running", container_id=f"{vnf_id:012x}", ports=[{"name": f"vnf{vnf_id}-in",
                                                                             "pof_port": self.vnf_pof_port}])
        state["class"] = "kernel"
        state.setdefault("params", {})
        return state

    def _m_createVnf(self, p: dict[str, Any]) -> dict[str, Any]:
        spec = p["vnf"]
        vnf_id = spec["tenant_id"] << 16 | spec["instance_id"]
        if vnf_id in self.vnfs:
            raise ValueError(f"vNF {vnf_id} exists")
        self.vnfs[vnf_id] = spec
        return {"vnf": self._vnf_state(spec)}

    def _m_delVnf(self, p: dict[str, Any]) -> dict[str, Any]:
        del self.vnfs[p["vnf_id"]]
        return {}

    def _m_getVnfs(self, p: dict[str, Any]) -> dict[str, Any]:
        return {"vnfs": [self._vnf_state(s) for s in self.vnfs.values()]}

    def _m_syncVnfs(self, p: dict[str, Any]) -> dict[str, Any]:
        wanted = {s["tenant_id"] << 16 | s["instance_id"]: s for s in p["vnfs"]}
        created = [v for v in wanted if v not in self.vnfs]
        removed = [v for v in self.vnfs if v not in wanted]
        kept = [v for v in wanted if v in self.vnfs]
        self.vnfs = dict(wanted)
        self.last_sync = {"created": created, "removed": removed, "kept": kept, "failed": []}
        self.synced.set()
        return self.last_sync

    def _m_getStatistics(self, p: dict[str, Any]) -> dict[str, Any]:
        stats = [{"vnf_id": i, "cpu_pct": 1.5, "memory_mib": 32,
                  "ports": [{"name": f"vnf{i}-in", "rx_packets": 10, "rx_bytes": 1000, "tx_packets": 10,
                             "tx_bytes": 1000}]} for i in self.vnfs if p.get("vnf_id") in (None, i)]
        if "vnf_id" in p and not stats:
            raise KeyError(p["vnf_id"])
        return {"node": {"cpu_pct": 5.0, "memory_used_mib": 512}, "vnfs": stats}
