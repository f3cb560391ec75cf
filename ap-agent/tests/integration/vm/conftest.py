"""In-VM integration tests: one AP VM per session (qemu TCG, 4 mac80211_hwsim radios), real hostapd on phy0,
stations sta1..sta3 (phy1..phy3) in their own network namespaces inside the VM.

The VM driver and image builder live in testbed/ap-vm; the image (with this checkout's ap-agent source) is built or
reused from $WISLICE_CACHE at session start. Everything runs inside the VM or on the host's loopback: qemu is
powered off and killed by pid at the end, also when a test fails.
"""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[4]
sys.path.insert(0, str(REPO / "testbed" / "ap-vm"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from apvm import ApVm  # noqa: E402
from vm_controller import TestController, new_secret  # noqa: E402
from wifi import Hostapd, Station  # noqa: E402

AGENT_CONF = "/run/wislice/agent.json"
AGENT_LOG = "/tmp/agent.log"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        item.add_marker(pytest.mark.integration)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """A failing test's report carries the agent's and hostapd's logs from inside the VM."""
    outcome = yield
    report = outcome.get_result()
    machine = getattr(item, "funcargs", {}).get("vm") or getattr(item, "funcargs", {}).get("agent")
    if report.failed and machine is not None:
        machine = getattr(machine, "vm", machine)
        try:
            logs = machine.run(f"tail -n 40 {AGENT_LOG} /tmp/hostapd.log", check=False, timeout=10).out
        except Exception as exc:  # the VM may be what failed
            logs = f"(no logs: {exc})"
        report.sections.append(("AP VM logs", logs))


@pytest.fixture(scope="session")
def vm() -> Iterator[ApVm]:
    if shutil.which("qemu-system-x86_64") is None:
        pytest.skip("qemu-system-x86_64 missing (testbed/ap-vm/deps/apt.txt; run make deps)")
    machine = ApVm(radios=4)
    try:
        machine.start()
        print(f"\nAP VM booted in {machine.boot_s:.1f} s")
        yield machine
    finally:
        machine.stop()


@pytest.fixture(scope="session")
def hostapd(vm: ApVm) -> Iterator[Hostapd]:
    h = Hostapd(vm, iface="wlan0", channel=1)
    h.start()
    yield h
    h.stop()


@pytest.fixture(scope="session")
def stations(vm: ApVm) -> list[Station]:
    return [Station(vm, f"sta{i}", f"phy{i}").setup() for i in (1, 2, 3)]


@pytest.fixture
def clean_stations(stations: list[Station]) -> Iterator[list[Station]]:
    """The stations, disconnected again after the test whatever happened."""
    yield stations
    for sta in stations:
        sta.disconnect()


class AgentRun:
    """The ap-agent running inside the VM, connected to a TestController on the host."""

    def __init__(self, vm: ApVm, ctl: TestController, pid: int) -> None:
        self.vm = vm
        self.ctl = ctl
        self.pid = pid

    def log(self) -> str:
        return self.vm.run(f"tail -n 60 {AGENT_LOG}", check=False).out


def agent_config(port: int, secret: bytes) -> dict[str, object]:
    return {
        "agent_id": "ap-vm-1",
        "controller": f"10.0.2.2:{port}",
        "secret": secret.decode(),
        "hostapd_global": "/run/hostapd-global",
        "hostapd_ctrl_dir": "/run/hostapd",
        "conf_dir": "/run/wislice/agent",
        "shaping": "tc",
        "stats_interval_s": 2,
        "remove_vaps_on_exit": True,
        "log_level": "DEBUG",
        "radios": [{"name": "phy0", "iface": "wlan0", "max_vaps": 8}],
    }


def run_agent(vm: ApVm, hostapd: Hostapd, **extra_conf: object) -> Iterator[AgentRun]:
    """The agent in the VM with a fresh TestController; stopped by its guest pid afterwards, its vAPs removed."""
    if vm.run("test -d /opt/wislice/ap-agent/wislice_ap_agent", check=False).rc != 0:
        pytest.fail("the AP VM image has no ap-agent (ap-agent/src/wislice_ap_agent missing at build time)")
    secret = new_secret()
    ctl = TestController(secret, stats_interval_s=2)
    conf = json.dumps({**agent_config(ctl.port, secret), **extra_conf})
    hostapd.write_file(AGENT_CONF, conf + "\n")
    vm.run(f": > {AGENT_LOG}")
    pid = vm.spawn(f"env PYTHONPATH=/opt/wislice/ap-agent python3 -m wislice_ap_agent --config {AGENT_CONF}",
                   log=AGENT_LOG)
    run = AgentRun(vm, ctl, pid)
    try:
        ctl.wait_connected(timeout=60)
        # Protocol step 4: the controller's desired state (none yet) right after the session starts.
        assert ctl.call("syncVaps", {"vaps": []}) == {"created": [], "removed": [], "kept": [], "failed": []}
        yield run
    except BaseException:
        print(run.log())
        raise
    finally:
        vm.run(f"kill {pid}; for i in $(seq 50); do kill -0 {pid} 2>/dev/null || break; sleep 0.1; done; "
               f"kill -9 {pid} 2>/dev/null; true", check=False)
        ctl.close()
        # vAPs the agent did not remove (a crash) must not leak into the next module.
        leftovers = vm.run("ls /run/hostapd", check=False).out.split()
        for name in leftovers:
            if name.startswith("wlan0_"):
                hostapd.ctl(f"REMOVE {name}", check=False)


@pytest.fixture(scope="module")
def agent(vm: ApVm, hostapd: Hostapd) -> Iterator[AgentRun]:
    yield from run_agent(vm, hostapd)


def created_vaps(agent: AgentRun, specs: list[dict[str, object]]) -> Iterator[dict[str, dict[str, object]]]:
    """createVap for each spec (vap_id -> the agent's vAP), yielded; every vAP that was created is deleted after,
    also when a later one fails. For a test's fixture: ``yield from created_vaps(agent, [...])``."""
    created: dict[str, dict[str, object]] = {}
    try:
        for spec in specs:
            reply = agent.ctl.request("createVap", {"vap": spec}, timeout=30)
            assert reply["ok"], f"createVap {spec['vap_id']}: {reply.get('error')}\n{agent.log()}"
            created[str(spec["vap_id"])] = reply["result"]["vap"]
        yield created
    finally:
        for vap_id in created:
            agent.ctl.request("delVap", {"vap_id": vap_id})
