"""Table II of ADE2WiNFV (plus syncVaps, updateVap, steerClient, getLatency and upgradeFirmware): controller requests ->
VapManager calls (the Upgrader's for upgradeFirmware) -> result objects. The method table is served by
wislice_agent_proto (params already checked against the protocol's schema; a method of the protocol missing here
is answered unsupported)."""

from __future__ import annotations

import time
from typing import Any

from wislice_agent_proto.methods import Handler

from .firmware import Upgrader
from .steering import Steering
from .vaps import VapManager


class Handlers:
    def __init__(self, agent_id: str, vaps: VapManager, upgrader: Upgrader | None = None) -> None:
        self.agent_id = agent_id
        self.vaps = vaps
        self.started = time.monotonic()
        self.steering = Steering(vaps.hostapd, vaps)
        # Dispatch table: method name -> handler(params) -> result.
        self.table: dict[str, Handler] = {
            "createVap": self.create_vap,
            "delVap": self.del_vap,
            "updateVap": self.update_vap,
            "getVaps": self.get_vaps,
            "syncVaps": self.sync_vaps,
            "getStatus": self.get_status,
            "changeChannel": self.change_channel,
            "getClient": self.get_client,
            "removeClient": self.remove_client,
            "steerClient": self.steering.steer,
            "getTxRate": lambda p: self.vaps.rate(p["vap_id"], "tx"),
            "getRxRate": lambda p: self.vaps.rate(p["vap_id"], "rx"),
            "getLatency": lambda p: self.vaps.probes.latency(self.vaps.get(p["vap_id"])),
        }
        if upgrader is not None:  # without one (tests, benchmarks) upgradeFirmware is answered unsupported
            self.table["upgradeFirmware"] = upgrader.request

    def create_vap(self, p: dict[str, Any]) -> dict[str, Any]:
        return {"vap": self.vaps.create(p["vap"]).public()}

    def del_vap(self, p: dict[str, Any]) -> dict[str, Any]:
        self.vaps.delete(p["vap_id"])
        return {}

    def update_vap(self, p: dict[str, Any]) -> dict[str, Any]:
        changes = {k: p[k] for k in ("rate_limit", "wmm_ac", "probe") if k in p}
        return {"vap": self.vaps.update(p["vap_id"], changes).public()}

    def get_vaps(self, p: dict[str, Any]) -> dict[str, Any]:
        return {"vaps": [v.public() for v in self.vaps.vaps.values()]}

    def sync_vaps(self, p: dict[str, Any]) -> dict[str, Any]:
        return self.vaps.sync(p["vaps"])

    def get_status(self, p: dict[str, Any]) -> dict[str, Any]:
        return {
            "agent_id": self.agent_id,
            "uptime_s": int(time.monotonic() - self.started),
            "radios": self.vaps.radio_list(),
            "vaps": len(self.vaps.vaps),
            "clients": sum(len(v.clients) for v in self.vaps.vaps.values()),
        }

    def change_channel(self, p: dict[str, Any]) -> dict[str, Any]:
        return {"radio": self.vaps.change_channel(p["radio"], p["channel"], p.get("cs_count", 5))}

    def get_client(self, p: dict[str, Any]) -> dict[str, Any]:
        return {"clients": self.vaps.stations.find(p.get("mac"), p.get("vap_id"))}

    def remove_client(self, p: dict[str, Any]) -> dict[str, Any]:
        self.vaps.stations.remove(p["mac"], p.get("vap_id"), p.get("reason"))
        return {}
