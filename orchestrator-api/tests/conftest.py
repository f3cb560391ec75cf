"""Fixtures for the unit tests (helpers live in orch_helpers.py)."""

from __future__ import annotations

from typing import Any

import pytest
from orch_helpers import make_world


@pytest.fixture
def world(tmp_path: Any) -> Any:
    w = make_world(tmp_path)
    yield w
    w.service.runner.stop()
    w.app.extensions["wislice_rollouts"].stop()
    w.app.extensions["wislice_telemetry"].stop()
    w.app.extensions["wislice_engine"].dispose()
