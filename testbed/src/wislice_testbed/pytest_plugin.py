"""pytest fixtures for tests that need root resources; everything they create is removed even when a test fails.

Loaded automatically (entry point ``pytest11``) once wislice-testbed is installed in the venv, or explicitly with
``pytest_plugins = ["wislice_testbed.pytest_plugin"]``.

Fixtures: ``netns`` (factory), ``veth`` (factory), ``processes``, ``private_dockerd`` (session),
``hugepages`` (session). Marker: ``@pytest.mark.requires_root`` (skips unless euid 0); helper ``requires_root()``.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from . import janitor
from .processes import ProcessManager

PROCESSES_KEY = pytest.StashKey[ProcessManager]()
# The testbed's log directories (topology/testbed.py: every process's log and ONOS's karaf.log): a session keeps the
# ones it made only when something failed, for the failure's report; CI's runs left one per run behind otherwise.
LOG_DIRS = "wislice-demo-logs-*"
LOG_DIRS_BEFORE = pytest.StashKey[set[Path]]()


OWNER_FILE = "owner.pid"


def _log_dirs() -> set[Path]:
    return set(Path(tempfile.gettempdir()).glob(LOG_DIRS))


def in_use_by_another(log_dir: Path) -> bool:
    """The directory's testbed (its OWNER_FILE, written by topology/testbed.py) runs in another live process: a
    concurrent session's, made while this one ran; removing it would pull the logs from under its processes."""
    try:
        pid = int((log_dir / OWNER_FILE).read_text())
    except (OSError, ValueError):
        return False
    return pid != os.getpid() and Path(f"/proc/{pid}").exists()


def is_root() -> bool:
    return os.geteuid() == 0


def requires_root(reason: str = "needs root (network namespaces, veths, mounts)") -> None:
    """Call at the top of a test or fixture: skips unless running as root."""
    if not is_root():
        pytest.skip(reason)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "requires_root: skip unless running as root (euid 0)")
    config.addinivalue_line("markers", "integration: starts real programs or needs root resources")


def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.get_closest_marker("requires_root") and not is_root():
        pytest.skip("needs root (requires_root marker)")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    outcome = yield
    report = outcome.get_result()
    mgr = item.stash.get(PROCESSES_KEY, None)
    if report.failed and mgr is not None:
        text = mgr.tails()
        if text:
            report.sections.append((f"wislice process logs ({report.when})", text))


def pytest_sessionstart(session: pytest.Session) -> None:
    session.stash[LOG_DIRS_BEFORE] = _log_dirs()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    # Fixture finalizers have run by now; anything still registered leaked past them (e.g. an interrupt).
    left = janitor.pending()
    if left:
        print(f"\n[wislice_testbed] cleaning up {len(left)} leftovers: {', '.join(left)}")
        janitor.run_all()
    made = sorted(d for d in _log_dirs() - session.stash.get(LOG_DIRS_BEFORE, set()) if not in_use_by_another(d))
    if made and exitstatus != 0:
        print(f"\n[wislice_testbed] logs kept for the failure: {', '.join(map(str, made))}")
    elif made:
        for d in made:
            shutil.rmtree(d, ignore_errors=True)


@pytest.fixture
def netns(request: pytest.FixtureRequest) -> Callable[..., Any]:
    """Factory: ``ns = netns("a")`` creates a namespace (lo up) named ``ws<tag><random>``; deleted at teardown."""
    requires_root()
    from .netns import Namespace

    def make(tag: str = "") -> Namespace:
        ns = Namespace.create(tag)
        request.addfinalizer(ns.delete)
        return ns

    return make


@pytest.fixture
def veth(request: pytest.FixtureRequest) -> Callable[..., Any]:
    """Factory: ``veth(ns_a, ns_b, addr_a="10.9.0.1/24", addr_b="10.9.0.2/24", mtu=None)``; None = host
    namespace. Returns a VethPair (``.a``, ``.b`` names), both ends up; removed at teardown."""
    requires_root()
    from .veth import create_veth

    def make(ns_a: Any = None, ns_b: Any = None, **kw: Any) -> Any:
        pair = create_veth(ns_a, ns_b, **kw)
        request.addfinalizer(pair.delete)
        return pair

    return make


@pytest.fixture
def processes(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[ProcessManager]:
    """``processes.start(argv, netns=None, log_name="x", env=None)`` -> Popen, logs under tmp_path/logs; every
    process is stopped (SIGTERM, then SIGKILL) at teardown; log tails are attached to a failing test's report."""
    mgr = ProcessManager(tmp_path / "logs")
    request.node.stash[PROCESSES_KEY] = mgr
    try:
        yield mgr
    finally:
        mgr.stop_all()


@pytest.fixture(scope="session")
def private_dockerd() -> Iterator[Any]:
    """A private dockerd for the session (``.socket``, ``.base_url``, ``.client``), see dockerd.py; torn down at
    session end (containers, dockerd, mounts, cgroups, state dir). Skips only if dockerd is not installed."""
    from .dockerd import PrivateDockerd, have_dockerd

    if have_dockerd() is None:
        pytest.skip("dockerd is not installed (Debian package docker.io; run `make deps`)")
    requires_root("a private dockerd needs root")
    d = PrivateDockerd.start()
    try:
        yield d
    finally:
        d.stop()


@pytest.fixture(scope="session")
def hugepages() -> Iterator[Any]:
    """64 extra 2 MiB hugepages and a hugetlbfs mount for the session (``.mount``, ``.pages``); the previous
    nr_hugepages is restored and the mount removed at session end."""
    requires_root("hugepages need root")
    from .hugepages import Hugepages

    pages = int(os.environ.get("WISLICE_HUGEPAGES", "64"))
    hp = Hugepages.reserve(pages)
    try:
        yield hp
    finally:
        hp.release()


def have(program: str) -> bool:
    return shutil.which(program) is not None


@pytest.fixture
def page(tmp_path: Path) -> Iterator[Any]:
    """A headless Chromium page (wislice_testbed.browser) for dashboard tests; skips without Playwright or
    Chromium. What it showed at the end is in tmp_path/dashboard.png."""
    from .browser import NoBrowser, chromium_page

    try:
        with chromium_page(tmp_path / "dashboard.png") as pg:
            yield pg
    except NoBrowser as exc:
        pytest.skip(str(exc))
