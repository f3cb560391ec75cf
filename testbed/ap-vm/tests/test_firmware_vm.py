"""The firmware path in the AP VM (one boot): the image's installed packages started from UCI through their init
scripts and the VM's procd dial their controllers (on the host), `opkg install --force-reinstall` of the shipped
.ipk files restarts them on the reinstalled files with the testbed's UCI kept, `opkg remove` stops and removes the
agent. Respawns are tested on the host (test_procd.py). Everything (qemu, controllers) is stopped at the end, also
on failure."""

from __future__ import annotations

import shutil
import socket
import sys
import threading
import time
from collections.abc import Iterator

import firmware
import pytest
from apvm import ApVm
from wifi import Hostapd

# The ap-agent VM tests' controller: it checks the hello's HMAC, so a session proves the agent took the secret
# (and its id) from UCI.
sys.path.insert(0, str(firmware.REPO / "ap-agent" / "tests" / "integration" / "vm"))
from vm_controller import TestController, new_secret

pytestmark = pytest.mark.integration
MGMT = "/run/wislice/pof-mgmt.sock"


class Listener:
    """A host TCP port that counts connections and keeps the first bytes each one sends."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.hellos: list[bytes] = []
        self.cond = threading.Condition()
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            conn.settimeout(10)
            try:
                data = conn.recv(4096)
            except OSError:
                data = b""
            conn.close()  # the agent and the switch dial again: each new start shows as one more hello
            with self.cond:
                self.hellos.append(data)
                self.cond.notify_all()

    def wait(self, count: int, timeout: float = 60) -> bytes:
        with self.cond:
            assert self.cond.wait_for(lambda: len(self.hellos) >= count, timeout), f"{len(self.hellos)} connections"
            return self.hellos[count - 1]

    def close(self) -> None:
        self.sock.close()


@pytest.fixture(scope="module")
def vm() -> Iterator[ApVm]:
    if shutil.which("qemu-system-x86_64") is None:
        pytest.skip("qemu-system-x86_64 missing (testbed/ap-vm/deps/apt.txt)")
    with ApVm(radios=2) as machine:  # stopped on the way out, also after a failed boot
        yield machine


@pytest.fixture(scope="module")
def controllers() -> Iterator[tuple[TestController, Listener]]:
    agent_ctl, pof_ctl = TestController(new_secret()), Listener()
    yield agent_ctl, pof_ctl
    agent_ctl.close()
    pof_ctl.close()


def wait_session(ctl: TestController, sessions: int, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while ctl.sessions < sessions:
        assert time.monotonic() < deadline, f"the agent's session {sessions} did not come (errors: {ctl.schema_errors})"
        time.sleep(0.2)


def configure(vm: ApVm, agent_port: int, secret: str, pof_port: int) -> None:
    firmware.write_uci(vm, "wislice-pofswitch", [("switch", "switch", {
        "enabled": True, "controller_host": "10.0.2.2", "controller_port": pof_port, "dev_id": 7,
        "mgmt_socket": MGMT, "port": ["up=eth0"]})])
    firmware.write_uci(vm, "wislice-ap-agent", [
        ("agent", "agent", {"enabled": True, "agent_id": "ap-fw-1", "controller_host": "10.0.2.2",
                            "controller_port": agent_port, "secret": secret,
                            "hostapd_global": "/run/hostapd-global", "hostapd_ctrl_dir": "/run/hostapd",
                            "conf_dir": "/run/wislice/agent", "pof_switch_socket": MGMT, "log_level": "INFO"}),
        ("radio", "radio0", {"phy": "phy0", "iface": "wlan0", "max_vaps": 2})])


def test_packages_start_from_uci_and_reinstall(vm: ApVm, controllers: tuple[TestController, Listener]) \
        -> None:
    agent_ctl, pof_ctl = controllers
    installed = vm.run("opkg list-installed").out.split("\n")
    assert {"wislice-ap-agent - 0.1.0-r1", "wislice-pofswitch - 0.1.0-r1"} <= set(installed)
    Hostapd(vm, iface="wlan0", channel=1).start()
    configure(vm, agent_ctl.port, agent_ctl.secret.decode(), pof_ctl.port)
    firmware.start_services(vm, "wislice-pofswitch", "wislice-ap-agent")
    assert pof_ctl.wait(1)[:1] == b"\x04"  # a POF header: version 4
    wait_session(agent_ctl, 1)
    assert agent_ctl.hello is not None and agent_ctl.hello["agent_id"] == "ap-fw-1"
    assert vm.run("test -S " + MGMT, check=False).rc == 0
    agent = firmware.service_pid(vm, "wislice-ap-agent")
    assert "/usr/bin/wislice-ap-agent" in vm.run(f"cat /proc/{agent}/cmdline | tr '\\0' ' '").out

    # The firmware upgrade's call: prerm stops and disables, postinst enables and starts; the UCI written above is
    # the admin's, so it stays and the package's default goes beside it.
    res = vm.run("opkg install --force-reinstall /usr/share/wislice/ipk/*.ipk", timeout=120)
    assert "Not deleting modified conffile /etc/config/wislice-ap-agent" in res.out
    assert vm.run("test -f /etc/config/wislice-ap-agent-opkg && grep -c ap-fw-1 /etc/config/wislice-ap-agent").out \
        .strip() == "1"
    reinstalled = firmware.service_pid(vm, "wislice-ap-agent")
    assert reinstalled not in (0, agent)
    wait_session(agent_ctl, 2)
    assert vm.run("ls /etc/rc.d").out.split() == ["K10wislice-ap-agent", "K10wislice-pofswitch",
                                                  "S95wislice-pofswitch", "S99wislice-ap-agent"]

    vm.run("opkg remove wislice-ap-agent")
    assert firmware.service_pid(vm, "wislice-ap-agent") == 0
    assert vm.run("test -e /usr/bin/wislice-ap-agent", check=False).rc != 0
    assert "wislice-ap-agent " not in vm.run("opkg list-installed").out
