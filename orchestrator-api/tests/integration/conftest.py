"""Integration fixtures (helpers in orch_served.py). Run with the shared testbed plugin: see the Makefile."""

from __future__ import annotations

import pytest
from orch_served import Served, start_orchestrator


@pytest.fixture
def orchestrator(processes, tmp_path) -> Served:
    return start_orchestrator(processes, tmp_path)
