"""A scratch test session (outside the repo) creates resources, then fails or is killed: nothing may remain."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from wislice_testbed import leakcheck
from wislice_testbed.hugepages import read_counter

pytestmark = pytest.mark.requires_root

SCRATCH = '''
import json, os, time
from pathlib import Path

OUT = Path(os.environ["WS_OUT"])


def test_creates_everything_then_{mode}(netns, veth, processes, private_dockerd, hugepages):
    a, b = netns("k"), netns("k")
    pair = veth(a, b, addr_a="10.9.3.1/24", addr_b="10.9.3.2/24")
    host = veth(None, a)
    proc = processes.start(["sleep", "300"], netns=b, log_name="sleeper")
    from wislice_testbed.dockerd import BUSYBOX_IMAGE, import_busybox_image
    import_busybox_image(private_dockerd.client)
    c = private_dockerd.client.containers.run(BUSYBOX_IMAGE, ["sleep", "300"], network_mode="none", detach=True)
    OUT.write_text(json.dumps({{"netns": [a.name, b.name], "ifaces": [host.a], "pid": proc.pid,
                               "root": str(private_dockerd.root), "dockerd": private_dockerd.proc.pid,
                               "container": c.id, "huge": str(hugepages.mount)}}))
    if "{mode}" == "fail":
        assert False, "deliberate failure"
    time.sleep(300)


def test_half_failed_setup(netns, veth):
    ns = netns("half")
    Path(str(OUT) + ".half").write_text(ns.name)
    veth(ns, None, addr_a="not-an-address")
'''


def default_signals() -> None:
    """The scratch session gets the signals' default dispositions: a run under nohup (SIGHUP ignored) or from a
    background job (SIGINT ignored) would otherwise pass that on, and the session would rightly not react."""
    for sig in (signal.SIGHUP, signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, signal.SIG_DFL)


def run_scratch(tmp_path: Path, mode: str, kill: signal.Signals | None) -> tuple[dict, str]:
    (tmp_path / "test_scratch.py").write_text(SCRATCH.format(mode=mode))
    out = tmp_path / "created.json"
    log_path = tmp_path / "scratch.log"
    env = {**os.environ, "WS_OUT": str(out)}
    nr_before = read_counter("nr_hugepages")
    # Output to a file, and wait for the process rather than for EOF: a pipe would also wait for every process
    # that inherited it (what leaks is for assert_all_gone to find, not for a hang to hide).
    with open(log_path, "wb") as log_file:
        proc = subprocess.Popen([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                                 str(tmp_path / "test_scratch.py")], cwd=tmp_path, env=env, stdout=log_file,
                                stderr=subprocess.STDOUT, start_new_session=True, preexec_fn=default_signals)
    try:
        if kill is not None:
            deadline = time.monotonic() + 60
            while not out.exists() and time.monotonic() < deadline and proc.poll() is None:
                time.sleep(0.1)
            assert out.exists(), "scratch session never created its resources"
            time.sleep(0.3)
            os.kill(proc.pid, kill)
        try:
            proc.wait(timeout=120)
        except subprocess.TimeoutExpired:
            pytest.fail(f"scratch session still running 120 s later:\n{log_path.read_text(errors='replace')[-4000:]}")
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    created = json.loads(out.read_text())
    created["nr_before"] = nr_before
    return created, log_path.read_text(errors="replace")


def assert_all_gone(created: dict) -> None:
    assert not set(created["netns"]) & set(leakcheck.list_netns())
    assert not set(created["ifaces"]) & set(leakcheck.list_interfaces())
    assert not os.path.exists(f"/proc/{created['pid']}")
    assert not os.path.exists(f"/proc/{created['dockerd']}")
    assert not Path(created["root"]).exists()
    assert not [p for p in leakcheck.list_processes() if created["root"] in p]
    assert created["huge"] not in leakcheck.hugetlbfs_mounts()
    assert read_counter("nr_hugepages") == created["nr_before"]


def test_failing_test_and_half_failed_setup_clean_up(tmp_path: Path) -> None:
    created, log = run_scratch(tmp_path, "fail", None)
    assert "deliberate failure" in log and "2 failed" in log, log
    assert "wislice process logs (call)" in log and "sleeper.log" in log, log  # tails in the failure report
    assert_all_gone(created)
    half = (tmp_path / "created.json.half").read_text()
    assert half not in leakcheck.list_netns()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_killed_session_cleans_up(tmp_path: Path, sig: signal.Signals) -> None:
    created, log = run_scratch(tmp_path, "hang", sig)
    assert_all_gone(created)
