"""Per-vAP byte/packet rates from the kernel's netdev counters (/sys/class/net/<if>/statistics)."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

SYS_NET = Path("/sys/class/net")


@dataclass(frozen=True)
class Counters:
    t: float
    tx_bytes: int
    rx_bytes: int
    tx_packets: int
    rx_packets: int


def read_counters(ifname: str, root: Path = SYS_NET) -> Counters | None:
    base = root / ifname / "statistics"
    try:
        values = {n: int((base / n).read_text()) for n in ("tx_bytes", "rx_bytes", "tx_packets", "rx_packets")}
    except (OSError, ValueError):
        return None
    return Counters(time.monotonic(), **values)


@dataclass(frozen=True)
class Rate:
    tx_bps: float
    rx_bps: float
    tx_pps: float
    rx_pps: float
    interval_s: float


def rate_between(a: Counters, b: Counters) -> Rate:
    dt = max(b.t - a.t, 1e-6)
    # Counters reset when a netdev is re-created: a negative delta means "since the reset", never a negative rate.
    def d(x: int, y: int) -> int:
        return y - x if y >= x else y

    return Rate(
        d(a.tx_bytes, b.tx_bytes) * 8 / dt,
        d(a.rx_bytes, b.rx_bytes) * 8 / dt,
        d(a.tx_packets, b.tx_packets) / dt,
        d(a.rx_packets, b.rx_packets) / dt,
        dt,
    )


class RateMeter:
    """Keeps the last sample per netdev; rate() reports the rate since the previous sample (or since the first
    sample taken at vAP creation)."""

    def __init__(self, root: Path = SYS_NET) -> None:
        self.root = root
        self.last: dict[str, Counters] = {}
        self.last_rate: dict[str, Rate] = {}

    def start(self, ifname: str) -> None:
        c = read_counters(ifname, self.root)
        if c is not None:
            self.last[ifname] = c

    def forget(self, ifname: str) -> None:
        self.last.pop(ifname, None)
        self.last_rate.pop(ifname, None)

    def sample(self, ifname: str, min_interval: float = 0.5) -> Rate | None:
        now = read_counters(ifname, self.root)
        if now is None:
            return None
        prev = self.last.get(ifname)
        if prev is None:
            self.last[ifname] = now
            return self.last_rate.get(ifname)
        if now.t - prev.t < min_interval and ifname in self.last_rate:
            return self.last_rate[ifname]
        rate = rate_between(prev, now)
        self.last[ifname] = now
        self.last_rate[ifname] = rate
        return rate
