"""Fixtures for the openwrt/ integration tier: the feed's package Makefiles run for real on the host (pkgstage.py,
sdk/). Root resources (namespaces, veths, child processes) come from wislice_testbed's pytest plugin (registered
by its entry point), so they are removed even when a test fails."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import pytest
from pkgstage import Staged, need, stage


@pytest.fixture(scope="session")
def pofswitch_pkg(tmp_path_factory: pytest.TempPathFactory) -> Staged:
    """wislice-pofswitch built (meson + ninja, with the package's MESON_ARGS) and staged."""
    for program in ("meson", "ninja", "cc", "pkg-config"):
        need(program)
    return stage("wislice-pofswitch", tmp_path_factory.mktemp("pofswitch-pkg"))


@pytest.fixture(scope="session")
def ap_agent_pkg(tmp_path_factory: pytest.TempPathFactory) -> Staged:
    """wislice-ap-agent and wislice-ap-agent-src staged (byte-compiled by the host python3, sources removed)."""
    return stage("wislice-ap-agent", tmp_path_factory.mktemp("ap-agent-pkg"))


@pytest.fixture
def client_dir_cleanup() -> Iterator[None]:
    """The ap-agent binds its hostapd control client sockets in /run/wislice-ap-agent when it may (the init script
    has no client_dir option): remove that directory afterwards if this test's agent created it and left it
    empty."""
    path = Path("/run/wislice-ap-agent")
    existed = path.exists()
    yield
    if not existed:
        with contextlib.suppress(OSError):  # not created, or in use by someone else's agent: leave it
            path.rmdir()
