"""Bounded in-memory time series for the telemetry collector.

One `Ring` of poll timestamps is shared by every series: slot i of each series holds its value at poll `ring.ts[i]`,
so a series needs no timestamps of its own. Values are float32 columns (NaN = no value at that poll), allocated
once at the ring's full size. A `SeriesSet` keeps at most `max_series` series and drops a series once it has had no
value for a whole ring (its history has rotated out). Memory is therefore fixed by the settings, never by traffic:
8 bytes per slot for the clock plus, per series, 4 bytes x columns x slots.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Hashable, Iterable, Sequence

NAN = float("nan")
Row = Sequence[float | None]


class Ring:
    def __init__(self, slots: int) -> None:
        if slots < 2:
            raise ValueError("a ring needs at least 2 slots")
        self.slots = slots
        self.ts = array("d", [NAN]) * slots
        self.head = 0  # the slot the next poll writes
        self.filled = 0
        self.polls = 0  # polls recorded so far (never wraps)

    def advance(self, ts: float) -> int:
        """A new poll at `ts`: the slot its values go to (the oldest one is overwritten once the ring is full)."""
        slot = self.head
        self.ts[slot] = ts
        self.head = (slot + 1) % self.slots
        self.filled = min(self.filled + 1, self.slots)
        self.polls += 1
        return slot

    def order(self, since: float = -math.inf) -> list[int]:
        """Filled slots, oldest first, of the polls later than `since`."""
        start = (self.head - self.filled) % self.slots
        slots = ((start + k) % self.slots for k in range(self.filled))
        return [s for s in slots if self.ts[s] > since]


class Series:
    __slots__ = ("width", "values", "last_poll")

    def __init__(self, slots: int, width: int) -> None:
        self.width = width
        self.values = array("f", [NAN]) * (slots * width)
        self.last_poll = 0  # ring.polls when it last had a value

    def put(self, slot: int, row: Row | None) -> None:
        base = slot * self.width
        for k in range(self.width):
            value = None if row is None else row[k]
            self.values[base + k] = NAN if value is None else value

    def get(self, slot: int) -> tuple[float, ...]:
        return tuple(self.values[slot * self.width:(slot + 1) * self.width])


class SeriesSet:
    """Series of `width` columns by key, over a shared ring, at most `max_series` of them."""

    def __init__(self, ring: Ring, width: int, max_series: int) -> None:
        self.ring = ring
        self.width = width
        self.max_series = max_series
        self.series: dict[Hashable, Series] = {}

    def record(self, slot: int, rows: dict[Hashable, Row]) -> list[Hashable]:
        """This poll's rows (call after ring.advance): every series gets its row or NaN. Returns the keys refused
        because the set is full; series silent for a whole ring are dropped first."""
        polls = self.ring.polls
        for key in [k for k, s in self.series.items() if k not in rows and polls - s.last_poll >= self.ring.slots]:
            del self.series[key]
        refused = []
        for key, row in rows.items():
            series = self.series.get(key)
            if series is None:
                if len(self.series) >= self.max_series:
                    refused.append(key)
                    continue
                series = self.series[key] = Series(self.ring.slots, self.width)
            series.put(slot, row)
            series.last_poll = polls
        for key, series in self.series.items():
            if key not in rows:
                series.put(slot, None)
        return refused

    def discard(self, keys: Iterable[Hashable]) -> None:
        for key in list(keys):
            self.series.pop(key, None)

    def read(self, key: Hashable, slots: list[int]) -> list[tuple[float, tuple[float, ...]]]:
        """(ts, row) at the given slots where the series has any value, oldest first."""
        series = self.series.get(key)
        if series is None:
            return []
        out = []
        for slot in slots:
            row = series.get(slot)
            if not all(math.isnan(v) for v in row):
                out.append((self.ring.ts[slot], row))
        return out


def finite(value: float) -> float | None:
    """A stored value for JSON: None for NaN."""
    return None if math.isnan(value) else value
