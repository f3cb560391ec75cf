import os
import signal
import subprocess
import time
from collections.abc import Callable
from typing import Any

import pytest

from wislice_testbed import leakcheck
from wislice_testbed.netns import Namespace, pids_in
from wislice_testbed.processes import ProcessManager
from wislice_testbed.veth import create_veth

pytestmark = pytest.mark.requires_root


def test_ping_across_a_veth_between_two_namespaces(netns: Callable[..., Namespace], veth: Callable[..., Any]) -> None:
    a, b = netns("a"), netns("b")
    pair = veth(a, b, addr_a="10.9.0.1/24", addr_b="10.9.0.2/24", mtu=1400)
    assert a.name.startswith("wsa") and b.name != a.name
    out = a.exec(["ping", "-c", "2", "-i", "0.2", "-W", "2", "10.9.0.2"]).stdout
    assert "2 received" in out
    assert "mtu 1400" in b.exec(["ip", "link", "show", pair.b]).stdout
    assert pair.a not in os.listdir("/sys/class/net")  # really moved out of the host


def test_ping_between_host_and_namespace(netns: Callable[..., Namespace], veth: Callable[..., Any]) -> None:
    ns = netns("h")
    pair = veth(None, ns, addr_a="10.9.1.1/30", addr_b="10.9.1.2/30")
    assert pair.a in os.listdir("/sys/class/net")
    subprocess.run(["ping", "-c", "1", "-W", "2", "10.9.1.2"], check=True, capture_output=True)
    assert ns.exec(["ping", "-c", "1", "-W", "2", "10.9.1.1"], check=False).returncode == 0
    bad = ns.exec(["ping", "-c", "1", "-W", "1", "10.9.1.3"], check=False)
    assert bad.returncode != 0  # nobody there: the check above can fail


def test_process_runs_inside_namespace_and_is_stopped(netns: Callable[..., Namespace],
                                                      processes: ProcessManager) -> None:
    ns = netns("p")
    proc = processes.start(["sh", "-c", "echo started; exec sleep 60"], netns=ns, log_name="sleeper")
    log = processes.log_path(proc)
    deadline = time.monotonic() + 5
    while "started" not in log.read_text() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert proc.pid in pids_in(ns.name)
    assert os.stat(f"/proc/{proc.pid}/ns/net").st_ino != os.stat("/proc/self/ns/net").st_ino
    assert processes.stop(proc, timeout=2) == -signal.SIGTERM
    assert proc.pid not in pids_in(ns.name)


def test_process_ignoring_sigterm_is_killed(processes: ProcessManager) -> None:
    proc = processes.start(["sh", "-c", "trap '' TERM; echo ready; while :; do sleep 0.1; done"], log_name="stubborn")
    time.sleep(0.3)
    t = time.monotonic()
    assert processes.stop(proc, timeout=0.5) == -signal.SIGKILL
    assert time.monotonic() - t < 5


def test_namespace_delete_takes_processes_and_veths_with_it(tmp_path: Any) -> None:
    ns, other = Namespace.create("d"), Namespace.create("e")
    mgr = ProcessManager(tmp_path)
    try:
        pair = create_veth(ns, other, addr_a="10.9.2.1/24", addr_b="10.9.2.2/24")
        proc = mgr.start(["sleep", "60"], netns=ns)
        time.sleep(0.2)
        ns.delete()
        assert proc.wait(timeout=5) is not None
        assert not ns.exists()
        assert pair.b not in other.exec(["ip", "-o", "link"]).stdout
        pair.delete()  # idempotent on a pair that is already gone
        assert not ns.exists(), "deleting a veth must not bring its deleted namespace back"
    finally:
        mgr.stop_all()
        ns.delete()
        other.delete()
    assert ns.name not in leakcheck.list_netns() and other.name not in leakcheck.list_netns()


def test_tap_device_is_up_with_its_mtu_and_removed_on_exit_even_on_error() -> None:
    from pathlib import Path

    from wislice_testbed.tap import tap_device

    with tap_device(mtu=1600) as name:
        sys_dir = Path("/sys/class/net") / name
        assert name.startswith("wstap") and (sys_dir / "tun_flags").exists()  # a tun/tap device, not a veth
        assert (sys_dir / "mtu").read_text().strip() == "1600"
        assert int((sys_dir / "flags").read_text(), 16) & 0x1  # IFF_UP
    assert not sys_dir.exists()
    with pytest.raises(RuntimeError), tap_device() as name:
        raise RuntimeError("boom")
    assert not (Path("/sys/class/net") / name).exists()
