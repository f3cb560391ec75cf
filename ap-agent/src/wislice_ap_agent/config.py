"""Agent configuration: a JSON file, or an INI file with an [agent] section and one [radio <phy>] section per
radio. Every key is checked; unknown keys are refused (a typo must not silently fall back to a default).

JSON example::

    {"agent_id": "ap-1", "controller": "127.0.0.1:6690", "secret_file": "/etc/wislice/ap-1.secret",
     "hostapd_global": "/var/run/hostapd-global", "hostapd_ctrl_dir": "/var/run/hostapd",
     "radios": [{"name": "phy0", "iface": "wlan0", "max_vaps": 8}]}
"""

from __future__ import annotations

import configparser
import json
import os
import re
from dataclasses import dataclass, field
from typing import Any

from wislice_agent_proto import validate as V
from wislice_agent_proto.client import parse_controllers
from wislice_agent_proto.prometheus import parse_listen, read_token_file

from .firmware import FirmwareSettings

SHAPING = ("auto", "pyroute2", "tc", "none")
AGENT_KEYS = {
    "agent_id", "controller", "secret", "secret_file", "tls", "tls_ca_file", "tls_cert_file", "tls_key_file",
    "tls_server_name", "hostapd_global", "hostapd_ctrl_dir", "conf_dir", "client_dir", "shaping",
    "pof_switch_socket", "pof_switch_port_args", "stats_interval_s", "keepalive_s", "remove_vaps_on_exit",
    "log_level", "radios", "default_capacity_kbps", "pof_switch_uplink", "metrics_listen", "metrics_token_file",
    "firmware_keys_dir", "firmware_version_file", "firmware_state_dir", "firmware_cache_dir", "firmware_work_dir",
    "firmware_max_bytes", "firmware_download_timeout_s", "firmware_ca_file",
}
RADIO_KEYS = {"name", "iface", "max_vaps", "driver", "mac", "channel", "hw_mode", "capacity_kbps"}


class ConfigError(ValueError):
    pass


@dataclass
class AgentConfig:
    agent_id: str
    controllers: list[tuple[str, int]]  # (host, port) of the wifi-controller, or of each node of its cluster
    hostapd_global: str
    radios: list[dict[str, Any]]
    secret: bytes | None = None
    tls: bool = False
    tls_ca_file: str | None = None
    tls_cert_file: str | None = None
    tls_key_file: str | None = None
    tls_server_name: str | None = None
    hostapd_ctrl_dir: str = "/var/run/hostapd"
    conf_dir: str = "/var/lib/wislice-ap-agent"
    client_dir: str | None = None
    shaping: str = "auto"
    pof_switch_socket: str | None = None
    pof_switch_port_args: str = "{ifname}"
    pof_switch_uplink: str = "up"  # the switch's port towards the wire: its rate is the radios' capacity
    default_capacity_kbps: int = 20000  # a radio's capacity while it has no operator value and no stations
    stats_interval_s: float = 5.0
    keepalive_s: float = 10.0
    remove_vaps_on_exit: bool = False
    log_level: str = "INFO"
    metrics_listen: tuple[str, int] | None = None  # GET /metrics (Prometheus text format); None = off
    metrics_token: str | None = None  # bearer token a scrape must present (from metrics_token_file)
    firmware: FirmwareSettings = field(default_factory=FirmwareSettings)  # upgrades (firmware.py)
    extra: dict[str, Any] = field(default_factory=dict)


def _path(v: Any, key: str) -> str:
    if not isinstance(v, str) or not v.startswith("/") or any(c in v for c in "\n\r\0"):
        raise ConfigError(f"{key}: must be an absolute path")
    return v


def _bool(v: Any, key: str) -> bool:
    if isinstance(v, bool):
        return v
    if isinstance(v, str) and v.lower() in ("1", "true", "yes", "on", "0", "false", "no", "off"):
        return v.lower() in ("1", "true", "yes", "on")
    raise ConfigError(f"{key}: must be true or false")


def _num(v: Any, key: str, lo: float, hi: float) -> float:
    try:
        x = float(v)
    except (TypeError, ValueError):
        raise ConfigError(f"{key}: must be a number") from None
    if not lo <= x <= hi:
        raise ConfigError(f"{key}: must be between {lo} and {hi}")
    return x


def _radio(r: Any, i: int) -> dict[str, Any]:
    if not isinstance(r, dict):
        raise ConfigError(f"radios[{i}]: must be an object")
    unknown = set(r) - RADIO_KEYS
    if unknown:
        raise ConfigError(f"radios[{i}]: unknown keys {sorted(unknown)}")
    try:
        out: dict[str, Any] = {"name": V.ident(r.get("name"), "name")}
        out["iface"] = V.string(r.get("iface"), "iface", V.IFNAME)
        out["max_vaps"] = int(_num(r.get("max_vaps", 8), "max_vaps", 1, 64))
        out["driver"] = V.enum(r.get("driver", "nl80211"), "driver", ("nl80211", "wired"))
        if "mac" in r:
            out["mac"] = V.mac(str(r["mac"]).lower(), "mac")
        if "channel" in r:
            out["channel"] = V.integer(int(r["channel"]), "channel", 1, 233)
        if "hw_mode" in r:
            out["hw_mode"] = V.enum(r["hw_mode"], "hw_mode", ("a", "b", "g"))
        if "capacity_kbps" in r:  # set by the operator; otherwise measured from the stations' PHY rates
            out["capacity_kbps"] = int(_num(r["capacity_kbps"], "capacity_kbps", 1, V.MAX_KBPS))
    except (V.ValidationError, ValueError) as e:
        raise ConfigError(f"radios[{i}].{e}") from None
    if len(out["iface"]) > 12:
        raise ConfigError(f"radios[{i}].iface: at most 12 characters (vAP netdevs are <iface>_<slot>)")
    return out


def from_dict(d: dict[str, Any], base_dir: str = "/") -> AgentConfig:
    unknown = set(d) - AGENT_KEYS
    if unknown:
        raise ConfigError(f"unknown keys {sorted(unknown)}")
    for key in ("agent_id", "controller", "hostapd_global", "radios"):
        if key not in d:
            raise ConfigError(f"missing key {key!r}")
    try:
        agent_id = V.ident(d["agent_id"], "agent_id")
    except V.ValidationError as e:
        raise ConfigError(str(e)) from None
    try:
        controllers = parse_controllers(str(d["controller"]))
    except ValueError as e:
        raise ConfigError(f"controller: {e} (host:port, or host:port,host:port... for a cluster)") from None
    radios = d["radios"]
    if not isinstance(radios, list) or not 1 <= len(radios) <= 16:
        raise ConfigError("radios: must list 1-16 radios")
    cfg = AgentConfig(agent_id, controllers,
                      _path(d["hostapd_global"], "hostapd_global"), [_radio(r, i) for i, r in enumerate(radios)])
    if len({r["name"] for r in cfg.radios}) != len(cfg.radios):
        raise ConfigError("radios: duplicate radio name")
    if "secret" in d and "secret_file" in d:
        raise ConfigError("give secret or secret_file, not both")
    if "secret" in d:
        if not isinstance(d["secret"], str) or not d["secret"]:
            raise ConfigError("secret: must be a non-empty string")
        cfg.secret = d["secret"].encode()
    if "secret_file" in d:
        path = os.path.join(base_dir, d["secret_file"])
        try:
            with open(path, "rb") as f:
                cfg.secret = f.read().strip()
        except OSError as e:
            raise ConfigError(f"secret_file: {e}") from None
        if not cfg.secret:
            raise ConfigError("secret_file: empty")
    try:
        cfg.metrics_listen = parse_listen(str(d.get("metrics_listen") or ""))
        if d.get("metrics_token_file"):
            cfg.metrics_token = read_token_file(os.path.join(base_dir, str(d["metrics_token_file"])))
    except ValueError as e:
        raise ConfigError(str(e)) from None
    cfg.tls = _bool(d.get("tls", False), "tls")
    for key in ("tls_ca_file", "tls_cert_file", "tls_key_file", "hostapd_ctrl_dir", "conf_dir", "client_dir",
                "pof_switch_socket"):
        if d.get(key) is not None:
            setattr(cfg, key, _path(d[key], key))
    if d.get("tls_server_name") is not None:
        cfg.tls_server_name = V.string(d["tls_server_name"], "tls_server_name", re.compile(r"^[A-Za-z0-9.-]{1,253}\Z"))
    if (cfg.tls_cert_file is None) != (cfg.tls_key_file is None):
        raise ConfigError("tls_cert_file and tls_key_file go together")
    if "pof_switch_port_args" in d:
        from .pofswitch import ARGS_TEMPLATE

        cfg.pof_switch_port_args = V.string(d["pof_switch_port_args"], "pof_switch_port_args", ARGS_TEMPLATE)
    if "pof_switch_uplink" in d:
        try:
            cfg.pof_switch_uplink = V.string(d["pof_switch_uplink"], "pof_switch_uplink", V.IFNAME)
        except V.ValidationError as e:
            raise ConfigError(str(e)) from None
    cfg.default_capacity_kbps = int(_num(d.get("default_capacity_kbps", 20000), "default_capacity_kbps", 1,
                                         V.MAX_KBPS))
    cfg.shaping = d.get("shaping", "auto")
    if cfg.shaping not in SHAPING:
        raise ConfigError(f"shaping: one of {', '.join(SHAPING)}")
    cfg.stats_interval_s = _num(d.get("stats_interval_s", 5), "stats_interval_s", 1, 3600)
    cfg.keepalive_s = _num(d.get("keepalive_s", 10), "keepalive_s", 1, 25)
    cfg.remove_vaps_on_exit = _bool(d.get("remove_vaps_on_exit", False), "remove_vaps_on_exit")
    cfg.firmware = _firmware(d)
    cfg.log_level = str(d.get("log_level", "INFO")).upper()
    if cfg.log_level not in ("DEBUG", "INFO", "WARNING", "ERROR"):
        raise ConfigError("log_level: DEBUG, INFO, WARNING or ERROR")
    return cfg


def _firmware(d: dict[str, Any]) -> FirmwareSettings:
    """Upgrade settings; the cache of installed packages lives in the state directory unless placed elsewhere."""
    fw = FirmwareSettings()
    for key in ("keys_dir", "version_file", "state_dir", "work_dir", "ca_file"):
        if d.get(f"firmware_{key}") is not None:
            setattr(fw, key, _path(d[f"firmware_{key}"], f"firmware_{key}"))
    fw.cache_dir = os.path.join(fw.state_dir, "installed")
    if d.get("firmware_cache_dir") is not None:
        fw.cache_dir = _path(d["firmware_cache_dir"], "firmware_cache_dir")
    fw.max_bytes = int(_num(d.get("firmware_max_bytes", fw.max_bytes), "firmware_max_bytes", 1 << 20, 1 << 30))
    fw.download_timeout_s = _num(d.get("firmware_download_timeout_s", fw.download_timeout_s),
                                 "firmware_download_timeout_s", 5, 3600)
    return fw


def _from_ini(text: str) -> dict[str, Any]:
    cp = configparser.ConfigParser(interpolation=None)
    cp.optionxform = str  # type: ignore[assignment,method-assign]  # keys are case-sensitive
    cp.read_string(text)
    d: dict[str, Any] = {}
    radios = []
    for section in cp.sections():
        if section == "agent":
            d.update(cp[section])
        elif section.startswith("radio "):
            r: dict[str, Any] = {"name": section[6:].strip()}
            r.update(cp[section])
            radios.append(r)
        else:
            raise ConfigError(f"unknown section [{section}]")
    d["radios"] = radios
    return d


def load(path: str) -> AgentConfig:
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise ConfigError(f"cannot read {path}: {e}") from None
    if text.lstrip().startswith("{"):
        try:
            d = json.loads(text)
        except ValueError as e:
            raise ConfigError(f"{path}: not valid JSON: {e}") from None
        if not isinstance(d, dict):
            raise ConfigError(f"{path}: must hold a JSON object")
    else:
        try:
            d = _from_ini(text)
        except configparser.Error as e:
            raise ConfigError(f"{path}: not a valid INI file: {e}") from None
    return from_dict(d, os.path.dirname(os.path.abspath(path)))
