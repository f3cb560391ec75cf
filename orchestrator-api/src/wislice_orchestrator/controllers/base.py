"""What the orchestrator needs from the wifi, nfv and pof controllers (controller REST contract)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

Json = dict[str, Any]


class ControllerError(Exception):
    """A controller refused or failed a request; `code` follows the agent protocol codes plus
    agent_unreachable / timeout / unreachable (the controller itself did not answer)."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.status = status
        self.code = code
        self.message = message

    @property
    def not_found(self) -> bool:
        return self.status == 404 or self.code == "not_found"

    @property
    def unanswered(self) -> bool:
        """The controller itself did not answer (down, restarting, its app not serving yet): worth trying again."""
        return self.code in ("unreachable", "timeout", "app_unavailable")


class Controllers(ABC):
    # --- wifi ---------------------------------------------------------------------------------------------
    @abstractmethod
    def list_agents(self) -> list[Json]: ...

    @abstractmethod
    def list_vaps(self, agent_id: str | None = None) -> list[Json]: ...

    @abstractmethod
    def create_vap(self, agent_id: str, spec: Json) -> Json: ...

    @abstractmethod
    def delete_vap(self, agent_id: str, vap_id: str) -> None: ...

    @abstractmethod
    def update_vap(self, vap_id: str, rate_limit: Json) -> Json:
        """New rate_limit of a live vAP (the controller stores it as desired state and sends updateVap)."""

    @abstractmethod
    def change_vap(self, vap_id: str, changes: Json) -> Json:
        """A live vAP's wmm_ac and/or probe (None: no probe) changed in place, as its slice's latency class changed
        (stored as desired state, sent with updateVap)."""

    @abstractmethod
    def list_clients(self, agent_id: str | None = None, vap_id: str | None = None) -> list[Json]: ...

    @abstractmethod
    def kick_client(self, agent_id: str, mac: str) -> None: ...

    @abstractmethod
    def steer_client(self, mac: str, target: Json) -> Json:
        """Steer a station to another BSS by 802.11v BSS Transition Management (steerClient); target is
        {target_vap, target_agent?} or {target_bssid}, with disassoc_timer_tbtt? (spec/onos-rest/README.md). The
        answer names the serving and target vAPs and carries the station's answer (accepted, status_code,
        reason)."""

    @abstractmethod
    def set_channel(self, agent_id: str, radio: str, channel: int) -> Json: ...

    @abstractmethod
    def vap_rates(self, agent_id: str, vap_id: str) -> Json: ...

    @abstractmethod
    def wifi_stats(self) -> list[Json]:
        """The last stats event of every connected ap-agent, in one call: per agent `{agent_id, ts, interval_s,
        vaps?: [{vap_id, tx_bps, rx_bps, clients}], radios?: [{name, capacity_kbps, capacity_source}], clients?:
        [{mac, vap_id, tx_bytes, rx_bytes, tx_bps?, rx_bps?}], latency?: [VapLatency + ts]}` (spec/onos-rest, GET
        /onos/wifi/stats; latency: each probed vAP's latest numbers and the time of the event that carried them)."""

    @abstractmethod
    def request_upgrade(self, agent_id: str, body: Json) -> Json:
        """Ask an AP to upgrade its firmware: body {version, kind, url, sha256, signature, timeout_s} (the upgrade
        contract, issue 18) -> {"state": "requested"}. ControllerError 404 unknown agent, 409 an upgrade already in
        progress there, 503 agent not connected."""

    @abstractmethod
    def get_agent(self, agent_id: str) -> Json:
        """One AP as the WiFi controller shows it, with "firmware_version" and "upgrade" ({version, state, reason,
        updated_ms}, absent if none ever ran)."""

    # --- nfv ----------------------------------------------------------------------------------------------
    @abstractmethod
    def list_nodes(self) -> list[Json]: ...

    @abstractmethod
    def list_vnfs(self) -> list[Json]: ...

    @abstractmethod
    def create_vnf(self, spec: Json, node: str | None = None, near_ap: str | None = None) -> tuple[Json, str]: ...

    @abstractmethod
    def delete_vnf(self, vnf_id: int) -> None: ...

    @abstractmethod
    def vnf_stats(self, vnf_id: int) -> Json: ...

    # --- pof ----------------------------------------------------------------------------------------------
    @abstractmethod
    def list_switches(self) -> list[Json]: ...

    @abstractmethod
    def list_paths(self) -> list[Json]: ...

    @abstractmethod
    def create_path(self, path: Json) -> Json: ...

    @abstractmethod
    def delete_path(self, slice_id: str) -> None: ...

    @abstractmethod
    def place_client(self, slice_id: str, mac: str, branch: str) -> Json:
        """The client's downlink on a branch of the slice's path (a branch_id, or "main")."""

    @abstractmethod
    def update_path_rates(self, slice_id: str, rates: Json) -> Json:
        """New `{down, up}` ({guaranteed_kbps, cap_kbps} each) of a live path's meters; its flows stay."""
