"""Issue 17 with a real crash: two orchestrator processes on one real PostgreSQL, orch-a killed (SIGKILL, by pid)
while the fake controllers hold its create_path call, so the slice's vAP and vNF exist and its path appears after the
kill. orch-b takes the operation over once orch-a's lease expired and rolls it back (the design for an interrupted
creation, saga.py): the operation ends failed with every step undone, nothing is left at the controllers and nothing
was created twice, its lease_owner is orch-b, and the slice's next operations through orch-b succeed. The scenario
is takeover_scenario.py (bench/takeover.py runs it N times); test_ha_postgresql.py has the in-process variants."""

from __future__ import annotations

import pytest
from takeover_scenario import LEASE_S, RENEW_S, run_once

pytestmark = pytest.mark.integration


def test_killed_instance_mid_saga_is_rolled_back_by_the_other(processes, postgres_url, tmp_path):
    # Both orchestrators, PostgreSQL and their logs are the `processes` fixture's: stopped by pid at teardown,
    # whatever happened here (the fake ONOS apps are stopped by run_once itself).
    seen = run_once(processes, postgres_url, tmp_path)
    print(f"takeover in {seen.takeover_s} s (lease {LEASE_S:g} s, renewed every {RENEW_S:g} s): {seen.op.get('error')}")
    print(seen)
    assert seen.problems() == [], "\n".join(seen.problems())
