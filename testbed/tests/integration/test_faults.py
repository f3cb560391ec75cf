"""Fault injection, the short version (`make -C testbed bench-faults` runs every part): the ap-agent, the
mec-agent and the core pof-switch each killed with SIGKILL during a slice creation and under steady traffic, then
started again; the system converges with nothing leaked, the steady slice keeps its station and, for parts off
the data path, its traffic."""

from __future__ import annotations

import pytest

from wislice_testbed import demo
from wislice_testbed.pytest_plugin import requires_root
from wislice_testbed.topology.common import StepLog, repo_root

KINDS = ["ap-agent", "mec-agent", "core-switch"]


@pytest.mark.timeout(900)
def test_parts_killed_during_creation_and_traffic_converge() -> None:
    requires_root()
    missing = demo.missing_parts(repo_root())
    if missing:
        pytest.skip(f"not built: {missing}")
    from wislice_testbed.scenarios import faults
    from wislice_testbed.topology.testbed import up

    log = StepLog("faults")
    with up(log, stations=2) as tb:
        outcomes = faults.run(tb, log, KINDS)
    assert [(o.kind, o.phase) for o in outcomes] == [(k, p) for k in KINDS for p in ("create", "traffic")]
    failed = {f"{o.kind}/{o.phase}": o.to_json() for o in outcomes if not o.survived()}
    assert not failed, failed
    # The data path's part was really gone for a while, and came back: some pings were lost, the rest answered.
    switch = next(o for o in outcomes if o.kind == "core-switch" and o.phase == "traffic")
    sent, answered = switch.pings
    assert 0 < answered < sent and switch.outage_s > 0, switch.to_json()
