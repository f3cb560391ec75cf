"""A slice's bandwidth as one value: a guarantee and a cap per direction, kbps (cap 0 = uncapped).

The Slice table keeps it as four columns, mapped to this class with SQLAlchemy's composite() (models.py), so a slice's
bandwidth is always read and written whole and its invariants hold wherever it comes from: a request body, a live
change (PATCH, pending_change) or a row. What the controllers make of it (vAP rate_limit, path meters) is
slice_qos.py; admission reads guarantees through it. The field names are the API's (schemas/slices.py
BandwidthSchema) and the table's columns.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from typing import Any, NamedTuple

DIRECTIONS = ("down", "up")


class Rate(NamedTuple):
    """One direction of a bandwidth: its guarantee and its cap (0 = uncapped), kbps. Its field names are also the
    network controller's per-direction path rates (spec/onos-rest), which slice_qos.path_rates relies on."""

    guaranteed_kbps: int
    cap_kbps: int


class InvalidBandwidth(ValueError):
    """The four numbers break an invariant; `errors` names each field at fault, as the API reports it (422)."""

    def __init__(self, errors: dict[str, list[str]]) -> None:
        super().__init__("; ".join(m for msgs in errors.values() for m in msgs))
        self.errors = errors


def bandwidth_errors(values: Mapping[str, Any]) -> dict[str, list[str]]:
    """Per field, what is wrong with these numbers (empty when they make a bandwidth): each a non-negative integer,
    and per direction a guarantee within its cap unless the cap is 0 (uncapped). Missing fields count as 0, as in a
    request. Shared by the class and the request schema, so both refuse the same values with the same words."""
    errors: dict[str, list[str]] = {}
    for name, value in values.items():
        if isinstance(value, bool) or not isinstance(value, int):
            errors[name] = [f"{name} must be an integer (kbps)"]
        elif value < 0:
            errors[name] = [f"{name} must not be negative"]
    if errors:
        return errors
    for way in DIRECTIONS:
        cap, floor = values.get(f"{way}_cap_kbps", 0), values.get(f"{way}_guaranteed_kbps", 0)
        if cap and floor > cap:
            errors[f"{way}_guaranteed_kbps"] = [f"{way} guarantee {floor} kbps is above its cap {cap} kbps"]
    return errors


@dataclass(frozen=True)
class Bandwidth:
    """Guarantee and cap, down (towards the stations, MEC -> AP) and up, kbps; a cap of 0 means uncapped. The
    field order is the composite's column order (models.Slice)."""

    down_guaranteed_kbps: int = 0
    up_guaranteed_kbps: int = 0
    down_cap_kbps: int = 0
    up_cap_kbps: int = 0

    def __post_init__(self) -> None:
        errors = bandwidth_errors(asdict(self))
        if errors:
            raise InvalidBandwidth(errors)

    # --- to and from the API's dict (request bodies, pending_change) -----------------------------------------
    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Bandwidth:
        """From the API's form; fields left out are 0 (as the request schema loads them), unknown ones refused."""
        unknown = sorted(set(data) - FIELD_NAMES)
        if unknown:
            raise InvalidBandwidth({name: [f"{name} is not a bandwidth field"] for name in unknown})
        return cls(**data)

    @classmethod
    def coerce(cls, value: Bandwidth | Mapping[str, Any]) -> Bandwidth:
        """The value itself, or one from the API's form (admission takes request bodies as they were loaded)."""
        return value if isinstance(value, Bandwidth) else cls.from_dict(value)

    def to_dict(self) -> dict[str, int]:
        return asdict(self)

    def merged(self, changes: Mapping[str, Any]) -> Bandwidth:
        """This bandwidth with the given fields replaced (a PATCH's partial bandwidth); InvalidBandwidth if the
        result breaks an invariant, e.g. a new guarantee above the cap kept from before."""
        return Bandwidth.from_dict({**self.to_dict(), **changes})

    # --- what admission and slice_qos read -------------------------------------------------------------------
    @property
    def down(self) -> Rate:
        return Rate(self.down_guaranteed_kbps, self.down_cap_kbps)

    @property
    def up(self) -> Rate:
        return Rate(self.up_guaranteed_kbps, self.up_cap_kbps)

    def directions(self) -> tuple[tuple[str, Rate], tuple[str, Rate]]:
        return ("down", self.down), ("up", self.up)

    @property
    def total_guaranteed_kbps(self) -> int:
        """Down + up guarantee: what a vAP of the slice holds of its radio's air time, and what the tenant's
        guaranteed-bandwidth quota counts."""
        return self.down_guaranteed_kbps + self.up_guaranteed_kbps

    def covering(self, other: Bandwidth) -> Bandwidth:
        """The larger of both per direction: what a slice holds while a change from one to the other is applied.
        A cap of 0 (uncapped) is the larger cap, so the result keeps the invariants."""

        def cap(a: int, b: int) -> int:
            return 0 if a == 0 or b == 0 else max(a, b)

        return Bandwidth(max(self.down_guaranteed_kbps, other.down_guaranteed_kbps),
                         max(self.up_guaranteed_kbps, other.up_guaranteed_kbps),
                         cap(self.down_cap_kbps, other.down_cap_kbps), cap(self.up_cap_kbps, other.up_cap_kbps))

    def describe(self) -> str:
        """For the event log: "down 5000..20000 kbps, up 1000..uncapped kbps"."""
        return ", ".join(f"{way} {rate.guaranteed_kbps}..{rate.cap_kbps or 'uncapped'} kbps"
                         for way, rate in self.directions())


FIELD_NAMES = frozenset(f.name for f in fields(Bandwidth))
