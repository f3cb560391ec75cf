"""How a slice's bandwidth (bandwidth.Bandwidth: guarantee and cap, down and up, kbps; cap 0 = uncapped) becomes what
the controllers enforce, in one place: the air hop's vAP `rate_limit` (agent protocol: the
radio's HTB class rate = guarantee, ceil = cap), the wired hops' path rates per direction (network controller
contract: a two-rate meter, committed = guarantee, peak = cap; forward = AP -> MEC = up) and what admission holds for
a slice while a change is applied. docs/guaranteed-slices.md has the data plane side."""

from __future__ import annotations

from .bandwidth import Bandwidth
from .models import Slice


def rate_limit(bandwidth: Bandwidth) -> dict[str, int]:
    """A vAP's rate_limit (agent protocol, whose keys these are): caps (0 = uncapped) and guarantees of the air
    hop."""
    down, up = bandwidth.down, bandwidth.up
    return {"down_kbps": down.cap_kbps, "up_kbps": up.cap_kbps,
            "down_guaranteed_kbps": down.guaranteed_kbps, "up_guaranteed_kbps": up.guaranteed_kbps}


def path_rates(bandwidth: Bandwidth) -> dict[str, dict[str, int]]:
    """A slice path's `down` and `up` {guaranteed_kbps, cap_kbps} (network controller contract); forward = AP -> MEC
    = up."""
    return {way: rate._asdict() for way, rate in bandwidth.directions()}


def reserved_bandwidth(slice_: Slice) -> Bandwidth:
    """What a slice holds: its bandwidth, or while a change is being applied the larger of old and new."""
    pending = slice_.pending_bandwidth
    return slice_.bandwidth if pending is None else slice_.bandwidth.covering(pending)
