"""A latency slice's vAPs are created in WMM's voice access category (VapSpec wmm_ac "vo"); a best-effort slice's
vAPs leave wmm_ac out (the agent's default, be)."""

from __future__ import annotations

import pytest
from test_slice_update import make_slice


@pytest.mark.parametrize("extra,wmm_ac", [
    ({"latency_class": "ultra_low", "latency_budget_us": 350}, "vo"),
    ({"latency_class": "low", "latency_budget_us": 500}, "vo"),
    ({"latency_class": "best_effort", "latency_budget_us": None}, None),
])
def test_vap_request_carries_the_slice_access_category(world, extra, wmm_ac):
    before = set(world.fake.vaps)
    make_slice(world, **extra)
    created = [world.fake.vaps[v] for v in set(world.fake.vaps) - before]
    assert created  # the slice has vAPs, so the check below sees at least one request
    assert [v.get("wmm_ac") for v in created] == [wmm_ac] * len(created)
