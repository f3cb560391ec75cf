"""A vAP as the agent keeps it, and what makes two specs the same BSS."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Vap:
    spec: dict[str, Any]
    slot: int
    ifname: str
    bssid: str
    state: str = "down"
    pof_port: int | None = None
    clients: dict[str, float] = field(default_factory=dict)  # mac -> monotonic time of association

    def public(self) -> dict[str, Any]:
        """VapState: the spec without the passphrase, plus run-time facts."""
        out = {k: v for k, v in self.spec.items() if k != "security"}
        out["security"] = {"mode": self.spec["security"]["mode"]}
        out.setdefault("hidden", False)
        out.setdefault("wmm_ac", "be")
        out.update(ifname=self.ifname, bssid=self.bssid, state=self.state, clients=len(self.clients),
                   pof_port=self.pof_port)
        return out


def normalized(spec: dict[str, Any]) -> dict[str, Any]:
    """The spec with defaults filled in, so equal intent compares equal."""
    out = dict(spec)
    out.setdefault("hidden", False)
    out.setdefault("wmm_ac", "be")
    return out


def same_bss(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """True when two specs give the same BSS (everything but the rates, the access category and the latency probe,
    which change in place)."""
    strip = ("rate_limit", "tenant_id", "slice_id", "wmm_ac", "probe")
    return {k: v for k, v in normalized(a).items() if k not in strip} == {
        k: v for k, v in normalized(b).items() if k not in strip
    }
