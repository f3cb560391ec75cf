"""hostapd event lines parsed into typed objects (names as hostapd's wpa_ctrl.h spells them)."""

from __future__ import annotations

import re
from dataclasses import dataclass

AP_STA_CONNECTED = "AP-STA-CONNECTED"
AP_STA_DISCONNECTED = "AP-STA-DISCONNECTED"
AP_ENABLED = "AP-ENABLED"
AP_DISABLED = "AP-DISABLED"
CTRL_EVENT_TERMINATING = "CTRL-EVENT-TERMINATING"
AP_CSA_FINISHED = "AP-CSA-FINISHED"
BSS_TM_RESP = "BSS-TM-RESP"

_PREFIX = re.compile(r"^(?:IFNAME=(?P<ifname>\S+) )?<(?P<level>\d)>(?P<body>.*)$", re.S)
_MAC = re.compile(r"^[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){5}\Z")


@dataclass(frozen=True)
class StaConnected:
    ifname: str | None
    mac: str


@dataclass(frozen=True)
class StaDisconnected:
    ifname: str | None
    mac: str


@dataclass(frozen=True)
class BssEnabled:
    ifname: str | None


@dataclass(frozen=True)
class BssDisabled:
    ifname: str | None


@dataclass(frozen=True)
class ChannelSwitched:
    ifname: str | None
    freq: int | None


@dataclass(frozen=True)
class BtmResponse:
    """A station's answer to a BSS Transition Management request (802.11v)."""

    ifname: str | None
    mac: str
    status_code: int


@dataclass(frozen=True)
class OtherEvent:
    ifname: str | None
    name: str
    text: str


Event = StaConnected | StaDisconnected | BssEnabled | BssDisabled | ChannelSwitched | BtmResponse | OtherEvent


def _sta(cls: type, ifname: str | None, args: list[str]) -> Event:
    if args and _MAC.match(args[0]):
        return cls(ifname, args[0].lower())
    return OtherEvent(ifname, "MALFORMED", " ".join(args))


def _csa(ifname: str | None, args: list[str]) -> Event:
    freq = None
    for a in args:
        if a.startswith("freq=") and a[5:].isdigit():
            freq = int(a[5:])
    return ChannelSwitched(ifname, freq)


def _btm(ifname: str | None, args: list[str]) -> Event:
    """``BSS-TM-RESP <mac> dialog_token=N status_code=N ...`` (hostapd's wnm_ap.c)."""
    status = next((a[len("status_code="):] for a in args[1:] if a.startswith("status_code=")), "")
    if args and _MAC.match(args[0]) and status.isdigit() and int(status) <= 255:
        return BtmResponse(ifname, args[0].lower(), int(status))
    return OtherEvent(ifname, "MALFORMED", " ".join(args))


# Dispatch table: event name -> constructor from (ifname, arguments).
_PARSERS = {
    AP_STA_CONNECTED: lambda i, a: _sta(StaConnected, i, a),
    AP_STA_DISCONNECTED: lambda i, a: _sta(StaDisconnected, i, a),
    AP_ENABLED: lambda i, a: BssEnabled(i),
    AP_DISABLED: lambda i, a: BssDisabled(i),
    CTRL_EVENT_TERMINATING: lambda i, a: BssDisabled(i),
    AP_CSA_FINISHED: _csa,
    BSS_TM_RESP: _btm,
}


def parse_event(line: str) -> Event | None:
    """``[IFNAME=x ]<level>NAME args...`` -> typed event; None if the line is not an event at all."""
    m = _PREFIX.match(line.strip())
    if not m:
        return None
    parts = m.group("body").split()
    if not parts:
        return None
    name, args = parts[0], parts[1:]
    parser = _PARSERS.get(name)
    if parser is None:
        return OtherEvent(m.group("ifname"), name, m.group("body"))
    return parser(m.group("ifname"), args)
