"""CLI pieces of `slices create` and `slices show` (cli_slices.py): the vAP, vNF, policy and probe options' parsers,
and the latency lines of a probed slice."""

from __future__ import annotations

import argparse
from typing import Any


def vap_arg(text: str) -> dict[str, Any]:
    """AGENT[:RADIO]=SSID[:PASSPHRASE]; AGENT * asks for the SSID on every AP with room (the API's agent_id "*")."""
    try:
        where, ssid = text.split("=", 1)
    except ValueError:
        raise argparse.ArgumentTypeError("use AGENT[:RADIO]=SSID[:PASSPHRASE]") from None
    agent, _, radio = where.partition(":")
    ssid, _, phrase = ssid.partition(":")
    vap: dict[str, Any] = {"agent_id": agent, "radio": radio or "phy0", "ssid": ssid}
    vap["security"] = {"mode": "wpa2-psk", "passphrase": phrase} if phrase else {"mode": "open"}
    return vap


def vnf_arg(text: str) -> dict[str, Any]:
    """IMAGE[:CPU[:MEMORY_MIB]]"""
    parts = text.split(":")
    try:
        vnf: dict[str, Any] = {"image": parts[0]}
        if len(parts) > 1:
            vnf["cpu"] = float(parts[1])
        if len(parts) > 2:
            vnf["memory_mib"] = int(parts[2])
    except ValueError:
        raise argparse.ArgumentTypeError("use IMAGE[:CPU[:MEMORY_MIB]]") from None
    return vnf


def transcode_arg(text: str) -> dict[str, Any]:
    """PER_CLIENT_KBPS:BITRATE_KBPS[:HOLD_S[:RELEASE_S]] -> a transcode_on_overload policy (the API checks ranges)."""
    parts = text.split(":")
    if not 2 <= len(parts) <= 4:
        raise argparse.ArgumentTypeError("use PER_CLIENT_KBPS:BITRATE_KBPS[:HOLD_S[:RELEASE_S]]")
    try:
        policy: dict[str, Any] = {"type": "transcode_on_overload", "per_client_down_kbps": int(parts[0]),
                                  "transcoder": {"bitrate_kbps": int(parts[1])}}
        if len(parts) > 2:
            policy["hold_s"] = float(parts[2])
        if len(parts) > 3:
            policy["release_s"] = float(parts[3])
    except ValueError:
        raise argparse.ArgumentTypeError("use PER_CLIENT_KBPS:BITRATE_KBPS[:HOLD_S[:RELEASE_S]]") from None
    return policy


def probe_arg(text: str) -> dict[str, Any]:
    """SOURCE_IP,TARGET_IP[,INTERVAL_MS] -> a slice's latency probe (the API checks the addresses and range)."""
    parts = text.split(",")
    if not 2 <= len(parts) <= 3 or not parts[-1].strip():
        raise argparse.ArgumentTypeError("use SOURCE_IP,TARGET_IP[,INTERVAL_MS]")
    probe: dict[str, Any] = {"source_ip": parts[0].strip(), "target_ip": parts[1].strip()}
    if len(parts) == 3:
        try:
            probe["interval_ms"] = int(parts[2])
        except ValueError:
            raise argparse.ArgumentTypeError("INTERVAL_MS: whole milliseconds") from None
    return probe


def latency_lines(latency: dict[str, Any] | None) -> list[str]:
    """What `slices show` prints under a probed slice: the worst p99 against the budget, then each vAP."""
    if latency is None:
        return ["latency: not measured yet (the orchestrator's telemetry has not polled the slice)"]
    worst = latency.get("worst_p99_us")
    state = "BROKEN" if latency.get("budget_broken") else "within"
    lines = [f"latency: worst p99 {'-' if worst is None else worst} us, budget {latency['budget_us']} us ({state})"]
    for v in latency.get("vaps", []):
        if not v.get("samples"):
            lines.append(f"  {v['agent_id']}/{v['vap_id']}: no samples yet")
        else:
            lines.append(f"  {v['agent_id']}/{v['vap_id']}: p50 {v['p50_us']} us, p99 {v['p99_us']} us, "
                         f"lost {v['lost']}, samples {v['samples']}")
    return lines
