"""Radio facts: from the config file, completed from hostapd STATUS and the hardware's interface limits (iw)."""

from __future__ import annotations

import re
import shutil
import subprocess
from typing import Any

from wislice_agent_proto import validate as V

from .bssconf import RadioConfig
from .hostapd_ctrl import CtrlError, HostapdControl, freq_to_channel

_AP_LIMIT = re.compile(r"#\{[^}]*\bAP\b[^}]*\}\s*<=\s*(\d+)")


def hw_ap_limit(phy: str) -> int | None:
    """How many AP interfaces the phy supports at once (``iw phy X info`` interface combinations), or None."""
    if shutil.which("iw") is None or not V.IDENT.match(phy):
        return None
    try:
        out = subprocess.run(["iw", "phy", phy, "info"], capture_output=True, text=True, timeout=5).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    limits = [int(n) for n in _AP_LIMIT.findall(out)]
    return max(limits) if limits else None


def discover(cfg: dict[str, Any], ctrl: HostapdControl | None) -> RadioConfig:
    """A RadioConfig from one validated ``radios`` config entry, filling mac/channel/hw_mode from hostapd when the
    config leaves them out, and capping max_vaps at the hardware limit (the primary BSS uses one interface)."""
    status: dict[str, str] = {}
    if ctrl is not None and not all(k in cfg for k in ("mac", "channel", "hw_mode")):
        try:
            status = ctrl.status(cfg["iface"])
        except CtrlError as e:
            raise CtrlError(f"radio {cfg['name']}: cannot read STATUS of {cfg['iface']}: {e}") from e
    mac = cfg.get("mac") or status.get("bssid[0]", "").lower()
    channel = cfg.get("channel") or int(status.get("channel", "0") or 0)
    hw_mode = cfg.get("hw_mode")
    if hw_mode is None:
        freq = int(status.get("freq", "0") or 0)
        hw_mode = "a" if freq >= 5000 else "g"
        if freq:
            channel = freq_to_channel(freq)
    max_vaps = cfg.get("max_vaps", 8)
    if cfg.get("driver", "nl80211") == "nl80211":
        hw = hw_ap_limit(cfg["name"])
        if hw is not None:
            max_vaps = max(1, min(max_vaps, hw - 1))
    radio = RadioConfig(cfg["name"], cfg["iface"], mac, channel, hw_mode, max_vaps, cfg.get("driver", "nl80211"),
                        cfg.get("capacity_kbps"))
    V.radio(radio_dict(radio, 0), f"radio {cfg['name']}")
    return radio


def radio_dict(r: RadioConfig, vaps_used: int, capacity: dict[str, Any] | None = None) -> dict[str, Any]:
    """Radio of the protocol; ``capacity`` adds capacity_kbps and capacity_source."""
    return {"name": r.name, "mac": r.mac, "channel": r.channel, "hw_mode": r.hw_mode, "max_vaps": r.max_vaps,
            "vaps_used": vaps_used, **(capacity or {})}
