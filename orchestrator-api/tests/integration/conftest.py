"""Integration fixtures (helpers in orch_served.py). Run with the shared testbed plugin: see the Makefile."""

from __future__ import annotations

import glob
import pwd

import pytest
from orch_served import Served, start_orchestrator
from takeover_scenario import private_postgres


@pytest.fixture
def orchestrator(processes, tmp_path) -> Served:
    return start_orchestrator(processes, tmp_path)


@pytest.fixture
def postgres_url(processes):
    """A private PostgreSQL server for one test (takeover_scenario.private_postgres: initdb into a temporary
    directory, a unix socket only, no TCP), stopped by pid through the testbed helper."""
    try:
        pwd.getpwnam("postgres")
    except KeyError:
        pytest.skip("no postgres system user (created by the Debian package postgresql)")
    if not glob.glob("/usr/lib/postgresql/*/bin/postgres"):
        pytest.skip("PostgreSQL server binaries missing (Debian package postgresql, declared in deps/apt.txt)")
    try:
        with private_postgres(processes) as url:
            yield url
    finally:
        processes.stop_all()
