"""Firmware upgrades in the AP VM (issue 18), driven as the controller drives them: upgradeFirmware over the agent
protocol to the ap-agent the image installed and procd runs from UCI. The package sets are the image's own
wislice-ap-agent .ipk repacked with a newer version (control Version and /etc/wislice/firmware_version), signed
with a usign key made here (Ed25519, usign's file formats) whose public key goes to the VM's /etc/opkg/keys, and
served from the host's loopback (the VM reaches it as 10.0.2.2). A bad signature, a wrong sha256 and a truncated
download are refused with the reason; a good set goes through (the agent restarts on it and reports done, its new
hello carries the new version); a set that does not come back on the version it was announced as is rolled back
at timeout_s (30 s, the schema's minimum) to the version before. One VM boot; everything (qemu, controller, HTTP
server) is stopped at the end, also on failure."""

from __future__ import annotations

import hashlib
import http.server
import shutil
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import firmware
import pytest
from apvm import ApVm
from wifi import Hostapd

sys.path.insert(0, str(firmware.REPO / "ap-agent" / "tests" / "integration" / "vm"))
from vm_controller import TestController, new_secret
from wislice_agent_proto.usign import SigningKey

pytestmark = pytest.mark.integration
AGENT = "wislice-ap-agent"
TIMEOUT_S = 30  # upgradeFirmware's smallest timeout_s (the schema's minimum)


class Files(http.server.ThreadingHTTPServer):
    """The package sets on the host's loopback; a path under /truncated/ sends half its bytes and hangs up."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.files: dict[str, bytes] = {}
        self.port = self.server_address[1]
        threading.Thread(target=self.serve_forever, daemon=True).start()

    def url(self, path: str) -> str:
        return f"http://10.0.2.2:{self.port}{path}"


class Handler(http.server.BaseHTTPRequestHandler):
    server: Files

    def do_GET(self) -> None:
        data = self.server.files.get(self.path.removeprefix("/truncated"))
        if data is None:
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data[:len(data) // 2] if self.path.startswith("/truncated/") else data)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def vm() -> Iterator[ApVm]:
    if shutil.which("qemu-system-x86_64") is None:
        pytest.skip("qemu-system-x86_64 missing (testbed/ap-vm/deps/apt.txt)")
    pytest.importorskip("cryptography")
    with ApVm(radios=1) as machine:  # stopped on the way out, also after a failed boot
        print(f"\nAP VM booted in {machine.boot_s:.1f} s")
        yield machine


class Setup:
    def __init__(self, vm: ApVm, ctl: TestController, files: Files, key: SigningKey, shipped: bytes) -> None:
        self.vm, self.ctl, self.files, self.key, self.shipped = vm, ctl, files, key, shipped
        self.version = ctl.hello["firmware_version"] if ctl.hello else ""

    def upgrade(self, version: str, data: bytes, path: str, signature: str | None = None,
                sha256: str | None = None) -> list[dict[str, Any]]:
        """upgradeFirmware; the firmwareProgress events of this version until its end (done/failed/rolled_back)."""
        self.files.files[path.removeprefix("/truncated")] = data
        self.ctl.drain_events()
        reply = self.ctl.request("upgradeFirmware", {
            "version": version, "kind": "packages", "url": self.files.url(path),
            "sha256": sha256 or hashlib.sha256(data).hexdigest(), "signature": signature or self.key.sign(data),
            "timeout_s": TIMEOUT_S})
        assert reply.get("ok") and reply["result"] == {"accepted": True}, reply
        events = []
        while not events or events[-1]["state"] not in ("done", "failed", "rolled_back"):
            ev = self.ctl.wait_event("firmwareProgress", timeout=TIMEOUT_S + 60, version=version)
            events.append(ev["data"])
        return events

    def installed(self) -> str:
        out = self.vm.run("opkg list-installed").out
        return next(line.split(" - ")[1] for line in out.splitlines() if line.startswith(f"{AGENT} - "))


@pytest.fixture(scope="module")
def setup(vm: ApVm) -> Iterator[Setup]:
    ctl, files, key = TestController(new_secret()), Files(), SigningKey("upgrade test key")
    try:
        firmware.trust_key(vm, key.public_text, key.key_hex)
        shipped = firmware.shipped_ipk(vm, AGENT)
        Hostapd(vm, iface="wlan0", channel=1).start()
        firmware.write_uci(vm, AGENT, [
            ("agent", "agent", {"enabled": True, "agent_id": "ap-up-1", "controller_host": "10.0.2.2",
                                "controller_port": ctl.port, "secret": ctl.secret.decode(),
                                "hostapd_global": "/run/hostapd-global", "hostapd_ctrl_dir": "/run/hostapd",
                                "conf_dir": "/run/wislice/agent", "log_level": "INFO"}),
            ("radio", "radio0", {"phy": "phy0", "iface": "wlan0", "max_vaps": 2})])
        firmware.start_services(vm, AGENT)
        ctl.wait_connected(timeout=60)
        s = Setup(vm, ctl, files, key, shipped)
        try:
            yield s
        except BaseException:
            print(vm.run(f"tail -n 40 /var/log/{AGENT}.log", check=False).out)
            raise
    finally:
        vm.run(f"/etc/init.d/{AGENT} stop", check=False)
        files.shutdown()
        files.server_close()
        ctl.close()


def test_bad_signature_wrong_checksum_and_truncated_download_are_refused(setup: Setup) -> None:
    assert setup.version == setup.installed(), "the hello's firmware_version is the installed package's"
    # The agent checks signatures as on OpenWrt with python3-cryptography (the image carries it).
    probe = "from wislice_agent_proto import usign; print(usign.backend())"
    assert setup.vm.run(f"python3 -c '{probe}'").out.strip() == "cryptography"
    version = firmware.bump(setup.version, 1)
    data = firmware.package_set(f"{AGENT}_{version}_all.ipk", firmware.repack(setup.shipped, version, version))
    events = setup.upgrade(version, data, "/bad-sig.tar", signature=setup.key.sign(data + b"x"))
    assert [e["state"] for e in events] == ["downloading", "verifying", "failed"]
    assert events[-1]["reason"].startswith("bad signature: does not match the data"), events
    events = setup.upgrade(version, data, "/bad-sum.tar", sha256=hashlib.sha256(b"other").hexdigest())
    assert [e["state"] for e in events] == ["downloading", "verifying", "failed"]
    assert events[-1]["reason"].startswith("checksum mismatch"), events
    events = setup.upgrade(version, data, "/truncated/short.tar")
    assert [e["state"] for e in events] == ["downloading", "failed"]
    assert events[-1]["reason"] == f"truncated download: got {len(data) // 2} of {len(data)} bytes", events
    assert setup.installed() == setup.version  # nothing was installed


def test_good_package_set_goes_through(setup: Setup) -> None:
    version = firmware.bump(setup.version, 1)
    name = f"{AGENT}_{version}_all.ipk"
    data = firmware.package_set(name, firmware.repack(setup.shipped, version, version))
    sessions = setup.ctl.sessions
    started = time.monotonic()
    events = setup.upgrade(version, data, "/good.tar")
    states = [e["state"] for e in events]
    # the old agent is stopped by its package's prerm while opkg runs; the new one repeats the state it found
    assert states[:3] == ["downloading", "verifying", "installing"] and states[-1] == "done", events
    assert set(states[3:-1]) <= {"installing", "restarting"}, events
    assert setup.ctl.sessions > sessions, "done is reported by the restarted agent"
    assert setup.ctl.hello is not None and setup.ctl.hello["firmware_version"] == version
    assert setup.installed() == version
    # the new set is now the installed one: the next upgrade's rollback target
    assert setup.vm.run(f"ls {firmware.INSTALLED_SET_DIR}").out.split() == [name]
    print(f"upgrade to {version} done in {time.monotonic() - started:.1f} s")
    setup.version = version


def test_set_that_does_not_come_back_on_its_version_is_rolled_back(setup: Setup) -> None:
    before = setup.version
    assert before == setup.installed()
    version = firmware.bump(before, 1)
    # A build that forgot to bump its version file: the new agent runs and connects, but not as `version`.
    data = firmware.package_set(f"{AGENT}_{version}_all.ipk", firmware.repack(setup.shipped, version, before))
    started = time.monotonic()
    events = setup.upgrade(version, data, "/stale.tar")
    took = time.monotonic() - started
    assert events[-1]["state"] == "rolled_back", events
    assert events[-1]["reason"].startswith(f"not back on {version} within {TIMEOUT_S} s (running {before}, "), events
    assert "reinstalled the kept packages" in events[-1]["reason"]
    assert took >= TIMEOUT_S, f"rolled back after {took:.1f} s, before timeout_s"
    assert setup.installed() == before
    assert firmware.service_pid(setup.vm, AGENT) != 0
    print(f"rolled back in {took:.1f} s")
