"""What radio_qos.RadioScheduler has installed per radio and per vAP (so each request sends only what changed)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class VapQos:
    ifname: str
    rate_limit: dict[str, Any]
    down: tuple[int, int]  # the class's (rate, ceil) as installed
    up_kbps: int  # the uplink cap as installed (0 = none)
    wmm_ac: str = "be"


@dataclass
class RadioQos:
    name: str
    iface: str  # the primary BSS netdev
    capacity_kbps: int
    ifb: str
    ready: bool = False
    marks: bool = False  # the IFB's fw filter is there (vi/vo vAPs can be classified)
    vaps: dict[int, VapQos] = field(default_factory=dict)  # slot -> what is installed
