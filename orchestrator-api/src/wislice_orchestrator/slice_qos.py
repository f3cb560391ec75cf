"""How a slice's bandwidth (Slice.bandwidth: guarantee and cap, down and up, kbps; cap 0 = uncapped) becomes what the
controllers enforce, in one place: the air hop's vAP `rate_limit` (agent protocol: the
radio's HTB class rate = guarantee, ceil = cap), the wired hops' path rates per direction (network controller
contract: a two-rate meter, committed = guarantee, peak = cap; forward = AP -> MEC = up) and what admission holds for
a slice while a change is applied. docs/guaranteed-slices.md has the data plane side."""

from __future__ import annotations

from .models import Slice


def rate_limit(bandwidth: dict[str, int]) -> dict[str, int]:
    """A vAP's rate_limit (agent protocol): caps (0 = uncapped) and guarantees of the air hop."""
    return {"down_kbps": bandwidth["down_cap_kbps"], "up_kbps": bandwidth["up_cap_kbps"],
            "down_guaranteed_kbps": bandwidth["down_guaranteed_kbps"],
            "up_guaranteed_kbps": bandwidth["up_guaranteed_kbps"]}


def path_rates(bandwidth: dict[str, int]) -> dict[str, dict[str, int]]:
    """A slice path's `down` and `up` (network controller contract); forward = AP -> MEC = up."""
    return {way: {"guaranteed_kbps": bandwidth[f"{way}_guaranteed_kbps"], "cap_kbps": bandwidth[f"{way}_cap_kbps"]}
            for way in ("down", "up")}


def reserved_bandwidth(slice_: Slice) -> dict[str, int]:
    """What a slice holds: its bandwidth, or while a change is being applied the larger of old and new."""
    current = slice_.bandwidth
    pending = (slice_.pending_change or {}).get("bandwidth") or {}
    return {k: max(v, int(pending.get(k, 0))) for k, v in current.items()}
