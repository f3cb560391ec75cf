"""Render one hostapd BSS configuration file per vAP from a validated VapSpec.

Values are validated again here (defence in depth: this is the last stop before a file hostapd parses line by
line); the SSID is written hex-encoded (ssid2=<hex>) so no byte of it can ever start a new config line.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from wislice_agent_proto import validate as V


@dataclass(frozen=True)
class RadioConfig:
    """What the agent knows about one radio: from the config file, refreshed from hostapd STATUS."""

    name: str  # phy name, e.g. phy0: the ADD bss_config=<phy>:<path> target
    iface: str  # the radio's first netdev (hostapd's primary BSS), e.g. wlan0; vAPs are <iface>_<slot>
    mac: str
    channel: int
    hw_mode: str
    max_vaps: int
    driver: str = "nl80211"
    capacity_kbps: int | None = None  # set by the operator in the config; None = measured (capacity.py)


def derive_bssid(radio_mac: str, slot: int) -> str:
    """A unique locally-administered unicast BSSID per slot: the radio MAC with the LA bit set and the slot
    XORed into the last octet (hwsim radios differ in the 5th octet, so radios never collide)."""
    if not 1 <= slot <= 255:
        raise ValueError(f"vAP slot {slot} out of range")
    octets = [int(x, 16) for x in V.mac(radio_mac.lower(), "radio.mac").split(":")]
    octets[0] = (octets[0] | 0x02) & ~0x01
    octets[5] ^= slot
    return ":".join(f"{o:02x}" for o in octets)


def vap_ifname(radio_iface: str, slot: int) -> str:
    name = f"{radio_iface}_{slot}"
    return V.string(name, "ifname", V.IFNAME)


def _security_lines(sec: dict[str, Any]) -> list[str]:
    mode = sec["mode"]
    if mode == "open":
        return []
    pw = sec["passphrase"]
    is_hex = V.HEX64.match(pw) is not None
    # A 64-hex passphrase is the raw PSK for WPA2; SAE has no PSK form, so SAE uses the same string as password.
    psk_line = f"wpa_psk={pw.lower()}" if is_hex else f"wpa_passphrase={pw}"
    # sae_password has '|' suffix syntax (|mac=, |id=): plain passphrases go through wpa_passphrase instead.
    sae_line = f"sae_password={pw}" if is_hex else f"wpa_passphrase={pw}"
    if mode == "wpa2-psk":
        # fast_transition: FT-PSK beside WPA-PSK, so stations without 802.11r keep joining.
        key_mgmt = "WPA-PSK FT-PSK" if sec.get("fast_transition", False) else "WPA-PSK"
        return ["wpa=2", f"wpa_key_mgmt={key_mgmt}", "rsn_pairwise=CCMP", psk_line]
    if mode == "wpa3-sae":
        return ["wpa=2", "wpa_key_mgmt=SAE", "rsn_pairwise=CCMP", "ieee80211w=2", "sae_require_mfp=1", sae_line]
    # wpa2-wpa3 transition mode: PSK and SAE on one BSS, MFP optional for the WPA2 clients.
    lines = ["wpa=2", "wpa_key_mgmt=WPA-PSK SAE", "rsn_pairwise=CCMP", "ieee80211w=1", "sae_require_mfp=1", psk_line]
    if is_hex:
        lines.append(sae_line)
    return lines


def mobility_domain(ssid: str, passphrase: str) -> str:
    """The 802.11r mobility domain (4 hex digits) of a network: the same on every AP that carries it (a slice's vAPs
    share SSID and passphrase), so a station may fast-transition between them; another network's differs."""
    return hashlib.sha256(ssid.encode("utf-8") + b"\0" + passphrase.encode()).hexdigest()[:4]


def _fast_transition_lines(ssid: str, passphrase: str, bssid: str) -> list[str]:
    """802.11r over the air. ft_psk_generate_local: each AP derives the PMK-R0/R1 from the PSK itself, so APs need
    no key-holder list or key exchange between them (FT-PSK only; the schema allows fast_transition there only)."""
    return [f"mobility_domain={mobility_domain(ssid, passphrase)}", "ft_over_ds=0",
            "ft_psk_generate_local=1", f"nas_identifier={bssid.replace(':', '')}"]


def render(spec: dict[str, Any], radio: RadioConfig, ifname: str, bssid: str, ctrl_dir: str) -> str:
    """The config file text for one vAP (spec already passed validate.vap_spec; checked again here)."""
    V.vap_spec(spec, "vap")
    V.string(ifname, "ifname", V.IFNAME)
    V.mac(bssid, "bssid")
    if any(c in ctrl_dir for c in "\n\r\0") or not ctrl_dir.startswith("/"):
        raise V.ValidationError("ctrl_dir", "must be an absolute path without control characters")
    if radio.driver not in ("nl80211", "wired"):
        raise V.ValidationError("driver", f"unsupported hostapd driver {radio.driver!r}")
    lines = [
        "# written by wislice-ap-agent; do not edit (rewritten on every createVap)",
        f"interface={ifname}",
        f"driver={radio.driver}",
        f"ctrl_interface={ctrl_dir}",
        f"bssid={bssid}",
        f"ssid2={spec['ssid'].encode('utf-8').hex()}",
        "utf8_ssid=1",
        f"hw_mode={radio.hw_mode}",
        f"channel={radio.channel}",
        # 802.11v BSS Transition Management: steerClient's BSS_TM_REQ needs it, and stations only answer a BSS
        # that announces it in its Extended Capabilities.
        "bss_transition=1",
        # WMM on for every vAP (hostapd's default is off without 802.11n): without it stations send and get no QoS
        # data frames, so no access category, not even a latency slice's voice (VapSpec wmm_ac), reaches the air.
        "wmm_enabled=1",
    ]
    if spec.get("hidden", False):
        lines.append("ignore_broadcast_ssid=1")
    if "max_clients" in spec:
        lines.append(f"max_num_sta={spec['max_clients']}")
    lines += _security_lines(spec["security"])
    if spec["security"].get("fast_transition", False):
        lines += _fast_transition_lines(spec["ssid"], spec["security"]["passphrase"], bssid)
    for line in lines:
        if "\n" in line or "\r" in line or "\0" in line:
            raise V.ValidationError("config", "refusing to write a config line with a line break")
    return "\n".join(lines) + "\n"
