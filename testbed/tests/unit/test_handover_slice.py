"""The TCP dip of the handover benchmark's slice part (handover_slice.dips): steady rate away from moves, the rate
around each move against it."""

from __future__ import annotations

from wislice_testbed.handover_slice import dips, steady_rate


def intervals(rate_of: dict[int, float], seconds: int = 20, steady: float = 2e6) -> list[tuple[float, float, float]]:
    """0.1 s intervals at `steady` bits/s, except those whose index is in rate_of."""
    return [(i / 10, (i + 1) / 10, rate_of.get(i, steady)) for i in range(seconds * 10)]


def test_no_dip_when_the_rate_holds() -> None:
    ivs = intervals({})
    assert steady_rate(ivs, [4.0, 8.0]) == 2e6
    assert dips(ivs, [4.0, 8.0], steady_rate(ivs, [4.0, 8.0])) == [0.0, 0.0]


def test_a_300_ms_outage_is_a_fifth_of_the_window() -> None:
    # nothing carried for 0.3 s right after the move at 4.0 s; the window is 1.5 s (3.8 .. 5.3)
    ivs = intervals({40: 0.0, 41: 0.0, 42: 0.0})
    assert dips(ivs, [4.0], steady_rate(ivs, [4.0])) == [20.0]


def test_slow_start_and_other_moves_are_not_the_steady_rate() -> None:
    # the first second is slow start, the moves' neighbourhoods are depressed: the steady rate ignores both
    slow = {i: 0.5e6 for i in range(10)} | {i: 0.1e6 for i in range(76, 100)}
    assert steady_rate(intervals(slow), [8.0]) == 2e6


def test_a_window_above_the_steady_rate_is_no_negative_dip() -> None:
    ivs = intervals({40: 4e6})
    assert dips(ivs, [4.0], steady_rate(ivs, [4.0])) == [0.0]
