"""A slice's bandwidth as one value (bandwidth.py): its invariants, its API form, what admission and slice_qos read,
and its mapping onto the Slice table's four columns."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from wislice_orchestrator.bandwidth import Bandwidth, InvalidBandwidth, Rate
from wislice_orchestrator.models import Slice
from wislice_orchestrator.slice_qos import path_rates, rate_limit, reserved_bandwidth

BW = Bandwidth(down_guaranteed_kbps=5000, up_guaranteed_kbps=1000, down_cap_kbps=20000, up_cap_kbps=0)
SRC = Path(__file__).resolve().parents[1] / "src" / "wislice_orchestrator"


@pytest.mark.parametrize("values,field,message", [
    ({"down_guaranteed_kbps": 10, "down_cap_kbps": 5}, "down_guaranteed_kbps",
     "down guarantee 10 kbps is above its cap 5 kbps"),
    ({"up_guaranteed_kbps": 7, "up_cap_kbps": 6}, "up_guaranteed_kbps", "up guarantee 7 kbps is above its cap 6 kbps"),
    ({"up_cap_kbps": -1}, "up_cap_kbps", "up_cap_kbps must not be negative"),
    ({"down_cap_kbps": 1.5}, "down_cap_kbps", "down_cap_kbps must be an integer (kbps)"),
    ({"down_cap_kbps": True}, "down_cap_kbps", "down_cap_kbps must be an integer (kbps)"),
    ({"speed": 1}, "speed", "speed is not a bandwidth field"),
])
def test_invariants_are_checked_whatever_builds_it(values, field, message):
    with pytest.raises(InvalidBandwidth) as info:
        Bandwidth.from_dict(values)
    assert info.value.errors == {field: [message]}


def test_an_uncapped_direction_takes_any_guarantee():
    assert Bandwidth(down_guaranteed_kbps=10**6).down == Rate(10**6, 0)
    assert Bandwidth() == Bandwidth.from_dict({})  # best effort: what a request without bandwidth loads


def test_api_form_round_trips_and_merges_a_partial_change():
    assert Bandwidth.from_dict(BW.to_dict()) == BW
    assert list(BW.to_dict()) == ["down_guaranteed_kbps", "up_guaranteed_kbps", "down_cap_kbps", "up_cap_kbps"]
    assert Bandwidth.coerce(BW) is BW and Bandwidth.coerce(BW.to_dict()) == BW
    assert BW.merged({"up_cap_kbps": 3000}) == Bandwidth(5000, 1000, 20000, 3000)
    with pytest.raises(InvalidBandwidth) as info:
        BW.merged({"down_guaranteed_kbps": 30000})  # above the cap it keeps
    assert info.value.errors == {"down_guaranteed_kbps": ["down guarantee 30000 kbps is above its cap 20000 kbps"]}


def test_what_admission_and_the_controllers_read():
    assert BW.total_guaranteed_kbps == 6000
    assert BW.directions() == (("down", Rate(5000, 20000)), ("up", Rate(1000, 0)))
    assert rate_limit(BW) == {"down_kbps": 20000, "up_kbps": 0, "down_guaranteed_kbps": 5000,
                              "up_guaranteed_kbps": 1000}
    assert path_rates(BW) == {"down": {"guaranteed_kbps": 5000, "cap_kbps": 20000},
                              "up": {"guaranteed_kbps": 1000, "cap_kbps": 0}}
    assert BW.describe() == "down 5000..20000 kbps, up 1000..uncapped kbps"


def test_a_change_being_applied_holds_the_larger_of_both():
    new = Bandwidth(down_guaranteed_kbps=8000, up_guaranteed_kbps=500, down_cap_kbps=9000, up_cap_kbps=4000)
    # Uncapped (0) is the larger cap, so the result is a valid bandwidth whichever way the change goes.
    assert BW.covering(new) == new.covering(BW) == Bandwidth(8000, 1000, 20000, 0)
    slice_ = Slice(tenant_id=1, name="s", bandwidth=BW)
    assert reserved_bandwidth(slice_) == BW and slice_.pending_bandwidth is None
    slice_.pending_change = {"bandwidth": new.to_dict(), "latency_class": "low"}
    assert slice_.pending_bandwidth == new
    assert reserved_bandwidth(slice_) == Bandwidth(8000, 1000, 20000, 0)


def test_the_value_is_stored_in_the_four_columns(world):
    with world.service.session_factory() as db:
        slice_ = Slice(tenant_id=1, name="s", bandwidth=BW)
        assert Slice(tenant_id=1, name="t").bandwidth == Bandwidth()  # best effort until told otherwise
        db.add(slice_)
        db.commit()
        slice_id = slice_.id
    with world.service.session_factory() as db:
        slice_ = db.get(Slice, slice_id)
        assert slice_.bandwidth == BW
        assert (slice_.down_guaranteed_kbps, slice_.up_guaranteed_kbps, slice_.down_cap_kbps,
                slice_.up_cap_kbps) == (5000, 1000, 20000, 0)
        slice_.bandwidth = BW.merged({"up_guaranteed_kbps": 2000})
        db.commit()
    with world.service.session_factory() as db:
        assert db.get(Slice, slice_id).up_guaranteed_kbps == 2000


def test_no_module_reads_the_four_fields_by_name():
    """Server code reads and writes a slice's bandwidth through Bandwidth only; the field names belong to the value
    class, the schema (API form), the model's mapping and the migrations. The CLI is a client of the API's JSON."""
    allowed = {"bandwidth.py", "models.py", "cli.py", "cli_slices.py"}
    by_name = re.compile(r"""\.(down|up)_(guaranteed|cap)_kbps\b|\[\s*["'](down|up)_(guaranteed|cap)_kbps["']\s*\]"""
                         r"""|get\(\s*["'](down|up)_(guaranteed|cap)_kbps["']""")
    found = [f"{path.relative_to(SRC)}:{n}" for path in SRC.rglob("*.py")
             if path.name not in allowed and "migrations" not in path.parts and "schemas" not in path.parts
             for n, line in enumerate(path.read_text().splitlines(), 1) if by_name.search(line)]
    assert found == []
