"""Firmware upgrades (firmware.py) against fakes: an http.server on loopback serving good, bad and truncated
artifacts, usign keys made here, and recording `opkg` / `sysupgrade` stand-ins put first on PATH. The signature
check itself (wislice_agent_proto.usign, each of its three ways) is tested in agent-proto/tests/test_usign.py."""

from __future__ import annotations

import hashlib
import http.server
import io
import json
import os
import re
import tarfile
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from wislice_agent_proto.errors import AgentError
from wislice_agent_proto.usign import SigningKey

from wislice_ap_agent.firmware import FirmwareSettings, Upgrader

pytest.importorskip("cryptography")

OLD_SET = {"wislice-ap-agent_0.1-1_all.ipk": b"old agent", "wislice-pofswitch_0.1-1_x86_64.ipk": b"old switch"}
NEW_SET = {"wislice-ap-agent_0.2-1_all.ipk": b"new agent", "wislice-pofswitch_0.2-1_x86_64.ipk": b"new switch"}

# Records its command line (one line per run, tab-separated) and fails as told by files beside it.
STAND_IN = """#!/bin/sh
here=$(dirname "$0")
name=$(basename "$0")
(printf '%s' "$name"; for a in "$@"; do printf '\\t%s' "$a"; done; echo) >> "$here/calls.log"
case "$*" in *"/new/"*) [ -e "$here/$name.fail-new" ] && { echo "$name: cannot install" >&2; exit 1; } ;; esac
[ -e "$here/$name.fail" ] && { echo "$name: refused" >&2; exit 1; }
# What an agent stopped while this runs leaves behind: its state file as it is now.
[ -e "$here/$name.snapshot" ] && cp "$(cat "$here/$name.snapshot")" "$here/snapshot.json"
exit 0
"""


class Artifacts(http.server.ThreadingHTTPServer):
    """GET /NAME: files[NAME] as it is; /truncated/NAME: a Content-Length 1000 bytes beyond what is sent; /slow/NAME:
    waits for release first."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.files: dict[str, bytes] = {}
        self.release = threading.Event()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/{path}"


class Handler(http.server.BaseHTTPRequestHandler):
    server: Artifacts

    def do_GET(self) -> None:
        parts = self.path.strip("/").split("/")
        data = self.server.files.get(parts[-1])
        if data is None:
            self.send_error(404)
            return
        if parts[0] == "slow":
            self.server.release.wait(10)
        self.send_response(200)
        self.send_header("Content-Length", str(len(data) + (1000 if parts[0] == "truncated" else 0)))
        self.end_headers()
        self.wfile.write(data)
        self.close_connection = True

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def server():
    srv = Artifacts()
    thread = threading.Thread(target=srv.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield srv
    finally:
        srv.release.set()
        srv.shutdown()
        srv.server_close()
        thread.join(5)


@pytest.fixture
def tools(tmp_path, monkeypatch):
    """bin/ with the stand-ins, first on PATH; bin/calls.log their command lines."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in ("opkg", "sysupgrade"):
        (bin_dir / name).write_text(STAND_IN)
        (bin_dir / name).chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
    return bin_dir


def calls(bin_dir: Path) -> list[list[str]]:
    log = bin_dir / "calls.log"
    return [line.split("\t") for line in log.read_text().splitlines()] if log.exists() else []


class Ap:
    """An Upgrader as the agent runs it, with what it emitted and how often it asked to restart; restart() makes
    the next one (the agent after the restart) on the same directories."""

    def __init__(self, root: Path, key: SigningKey, version: str = "0.1", clock: list[float] | None = None) -> None:
        self.root = root
        self.settings = FirmwareSettings(
            keys_dir=str(root / "keys"), version_file=str(root / "firmware_version"),
            state_dir=str(root / "state"), cache_dir=str(root / "state" / "installed"), work_dir=str(root / "work"),
            max_bytes=1 << 20, download_timeout_s=10)
        (root / "keys").mkdir(exist_ok=True)
        (root / "keys" / key.key_id.hex()).write_text(key.public_text)
        (root / "firmware_version").write_text(version + "\n")
        self.clock = clock if clock is not None else [1_000_000.0]
        self.events: list[dict[str, Any]] = []
        self.restarts = 0
        self.up = self._upgrader()

    def _upgrader(self) -> Upgrader:
        def restart() -> None:
            self.restarts += 1

        return Upgrader(self.settings, lambda name, data: self.events.append({"event": name, **data}), restart,
                        now=lambda: self.clock[0])

    def restart(self, version: str | None = None) -> Upgrader:
        if version is not None:
            (self.root / "firmware_version").write_text(version + "\n")
        self.up = self._upgrader()
        return self.up

    def states(self) -> list[str]:
        return [e["state"] for e in self.events]

    def wait(self) -> None:
        deadline = time.monotonic() + 10
        while self.up.busy():
            assert time.monotonic() < deadline, f"upgrade still running: {self.states()}"
            time.sleep(0.01)

    def record(self) -> dict[str, Any]:
        return json.loads((self.root / "state" / "upgrade.json").read_text())


def tar_of(files: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def params(server: Artifacts, data: bytes, key: SigningKey, kind: str = "packages", path: str = "fw",
           version: str = "0.2", timeout_s: int = 60, **change: Any) -> dict[str, Any]:
    server.files[path.split("/")[-1]] = data
    p = {"version": version, "kind": kind, "url": server.url(path), "sha256": hashlib.sha256(data).hexdigest(),
         "signature": key.sign(data), "timeout_s": timeout_s}
    p.update(change)
    return p


@pytest.fixture
def key():
    return SigningKey()


@pytest.fixture
def ap(tmp_path, key, tools):
    ap = Ap(tmp_path, key)
    cache = Path(ap.settings.cache_dir)
    cache.mkdir(parents=True)
    for name, data in OLD_SET.items():
        (cache / name).write_bytes(data)
    return ap


def test_a_package_set_goes_through_and_is_done_once_connected_on_it(ap, server, key, tools):
    assert ap.up.request(params(server, tar_of(NEW_SET), key)) == {"accepted": True}
    ap.wait()
    assert ap.states() == ["downloading", "verifying", "installing", "restarting"], ap.events
    new = Path(ap.settings.state_dir) / "new"
    assert calls(tools) == [["opkg", "install", "--force-reinstall", *(str(new / n) for n in sorted(NEW_SET))]]
    assert ap.restarts == 1 and ap.record()["state"] == "restarting"
    assert sorted(os.listdir(Path(ap.settings.state_dir) / "kept")) == sorted(OLD_SET)

    after = ap.restart("0.2")  # the agent procd started again, now on the new files
    after.tick(connected=False, sessions=0)
    assert ap.states()[-1] == "restarting"  # not done before it is connected
    after.tick(connected=True, sessions=1)
    assert ap.events[-1] == {"event": "firmwareProgress", "version": "0.2", "state": "done",
                             "reason": "running 0.2, connected to the controller"}
    cache = Path(ap.settings.cache_dir)
    assert {n: (cache / n).read_bytes() for n in os.listdir(cache)} == NEW_SET  # the set a rollback restores next
    assert sorted(os.listdir(ap.settings.state_dir)) == ["installed", "upgrade.json"]
    after.tick(connected=True, sessions=1)
    after.tick(connected=True, sessions=2)  # a new session: the latest state once more
    assert ap.states()[-3:] == ["restarting", "done", "done"]
    assert ap.restart("0.2").record is not None and ap.up.request(params(server, tar_of(NEW_SET), key, version="0.3"))
    ap.wait()


@pytest.mark.parametrize("case, want", [
    ("untrusted-key", "bad signature: key [0-9a-f]{16} is not a trusted key \\(trusted: [0-9a-f]{16}\\)"),
    ("other-bytes", "bad signature: does not match the data \\(key [0-9a-f]{16}\\)"),
    ("checksum", "checksum mismatch: sha256 [0-9a-f]{64}, expected 0{64}"),
    ("truncated", "truncated download: got 2 of 1002 bytes"),
    ("missing", "download failed: HTTP 404"),
    ("too-big", "download of 2097152 bytes exceeds the limit of 1048576"),
    ("not-a-tar", "install error: not a readable tar of .ipk files"),
    ("no-ipk", "install error: the package set holds no .ipk file"),
])
def test_refused_artifacts_end_failed_with_the_reason_and_install_nothing(ap, server, key, tools, case, want):
    good = tar_of(NEW_SET)
    p = params(server, good, key)
    if case == "untrusted-key":
        p["signature"] = SigningKey().sign(good)
    elif case == "other-bytes":
        p["signature"] = key.sign(good + b"x")
    elif case == "checksum":
        p["sha256"] = "0" * 64
    elif case == "truncated":
        p = params(server, b"ab", key, path="truncated/short")
    elif case == "missing":
        p["url"] = server.url("nothing-here")
    elif case == "too-big":
        p = params(server, bytes(2 << 20), key, path="big")
    elif case == "not-a-tar":
        p = params(server, b"this is no tar", key, path="junk")
    elif case == "no-ipk":
        p = params(server, tar_of({"README": b"hi"}), key, path="empty")
    assert ap.up.request(p) == {"accepted": True}
    ap.wait()
    end = ap.events[-1]
    assert end["state"] == "failed" and re.match(want, end["reason"]), end
    assert calls(tools) == [] and ap.restarts == 0
    assert ap.record()["state"] == "failed"


def test_an_install_error_reinstalls_the_kept_set(ap, server, key, tools):
    (tools / "opkg.fail-new").touch()
    ap.up.request(params(server, tar_of(NEW_SET), key))
    ap.wait()
    assert ap.states() == ["downloading", "verifying", "installing", "rolled_back"]
    assert ap.events[-1]["reason"].startswith("install error: opkg install exited 1: opkg: cannot install; "
                                              "reinstalled the kept packages (0.1)")
    kept = Path(ap.settings.state_dir) / "kept"
    assert calls(tools)[1] == ["opkg", "install", "--force-reinstall", "--force-downgrade",
                               *(str(kept / n) for n in sorted(OLD_SET))]
    assert ap.restarts == 1  # the old agent's files are back: it restarts on them


def test_an_agent_not_back_in_time_is_rolled_back(ap, server, key, tools):
    ap.up.request(params(server, tar_of(NEW_SET), key, timeout_s=120))
    ap.wait()
    assert ap.record()["remaining_s"] == 120 and "deadline" not in ap.record()
    ap.clock[0] += 50  # a reboot: the clock the deadline counts on starts again, so this is not counted
    after = ap.restart()  # came back, but on the old version (the new agent did not take)
    after.tick(connected=True, sessions=1)
    ap.clock[0] += 119
    after.tick(connected=True, sessions=1)
    assert not after.busy() and ap.states()[-1] == "restarting"
    ap.clock[0] += 2
    after.tick(connected=True, sessions=1)
    ap.wait()
    assert ap.events[-1]["state"] == "rolled_back"
    assert ap.events[-1]["reason"].startswith("not back on 0.2 within 120 s (running 0.1, connected); reinstalled")
    assert calls(tools)[-1][:4] == ["opkg", "install", "--force-reinstall", "--force-downgrade"]
    assert ap.restart().record["state"] == "rolled_back"  # and it stays ended


def test_an_agent_stopped_by_its_own_rollback_is_followed_by_one_that_reports_it(ap, server, key, tools):
    """Reinstalling the kept set stops the agent that runs it (its package's prerm, as in the AP VM): the agent
    opkg's postinst starts finds the rollback recorded, reports rolled_back and does not roll back again."""
    state = Path(ap.settings.state_dir) / "upgrade.json"
    (tools / "opkg.snapshot").write_text(str(state))
    ap.up.request(params(server, tar_of(NEW_SET), key, timeout_s=60))
    ap.wait()
    stale = ap.restart(version="0.1")  # the new set came up on the old version
    ap.clock[0] += 61
    stale.tick(connected=True, sessions=1)
    ap.wait()
    rollbacks = len(calls(tools))
    state.write_bytes((tools / "snapshot.json").read_bytes())  # stopped during opkg: its end never written
    ap.events.clear()
    after = ap.restart(version="0.1")
    after.tick(connected=False, sessions=0)
    ap.clock[0] += 1000
    after.tick(connected=True, sessions=1)
    assert [e["state"] for e in ap.events] == ["rolled_back", "rolled_back"]  # ended, repeated after the welcome
    assert ap.events[0]["reason"].startswith("not back on 0.2 within 60 s (running 0.1, connected); reinstalled")
    assert len(calls(tools)) == rollbacks and not after.busy()
    assert ap.restart(version="0.3").record["state"] == "rolled_back"
    # the same, but what came back is not the version before: failed
    state.write_bytes((tools / "snapshot.json").read_bytes())
    ap.events.clear()
    ap.restart(version="0.2").tick(connected=True, sessions=1)
    assert ap.events[0]["state"] == "failed" and ap.events[0]["reason"].endswith("running 0.2, not 0.1")


def test_a_sysupgrade_is_tested_then_flashed_and_cannot_be_rolled_back(ap, server, key, tools):
    image = b"\x27\x05\x19\x56" + os.urandom(4096)
    ap.up.request(params(server, image, key, kind="sysupgrade", path="image.bin", timeout_s=30))
    ap.wait()
    artifact = str(Path(ap.settings.work_dir) / "artifact")
    assert calls(tools) == [["sysupgrade", "-T", artifact], ["sysupgrade", artifact]]
    assert Path(artifact).read_bytes() == image and ap.states()[-1] == "restarting"
    after = ap.restart()
    ap.clock[0] += 31
    after.tick(connected=False, sessions=0)
    ap.wait()
    assert ap.events[-1]["state"] == "failed"
    assert ap.events[-1]["reason"] == ("not back on 0.2 within 30 s (running 0.1, not connected); "
                                       "a sysupgrade cannot be rolled back")


def test_a_refused_sysupgrade_image_fails_before_flashing(ap, server, key, tools):
    (tools / "sysupgrade.fail").touch()
    ap.up.request(params(server, b"not an image", key, kind="sysupgrade", path="image.bin"))
    ap.wait()
    assert ap.events[-1]["state"] == "failed"
    assert ap.events[-1]["reason"].startswith("install error: sysupgrade -T refused the image (exit 1)")
    assert len(calls(tools)) == 1


def test_the_request_is_answered_at_once_and_a_second_one_refused(ap, server, key, tools):
    p = params(server, tar_of(NEW_SET), key, path="slow/fw")
    started = time.monotonic()
    assert ap.up.request(p) == {"accepted": True}
    assert time.monotonic() - started < 1.0  # the download waits on the server; the request did not
    with pytest.raises(AgentError) as refused:
        ap.up.request(p)
    assert refused.value.code == "conflict" and "an upgrade to 0.2 is in progress (downloading)" in str(refused.value)
    server.release.set()
    ap.wait()
    assert ap.states()[-1] == "restarting"
    with pytest.raises(AgentError, match="in progress \\(restarting\\)"):  # still waiting for the restart
        ap.up.request(p)


def test_requests_refused_before_anything_starts(ap, server, key, tools):
    p = params(server, tar_of(NEW_SET), key)
    with pytest.raises(AgentError) as bad:
        ap.up.request({**p, "signature": "untrusted comment: x\nnot base64!\n"})
    assert bad.value.code == "bad_request"
    for f in Path(ap.settings.keys_dir).iterdir():
        f.unlink()
    with pytest.raises(AgentError) as nokeys:
        ap.up.request(p)
    assert nokeys.value.code == "unsupported" and "no trusted firmware keys" in str(nokeys.value)
    (Path(ap.settings.keys_dir) / "k").write_text(key.public_text)
    (tools / "opkg").unlink()
    with pytest.raises(AgentError, match="packages upgrades need opkg, which this AP does not have"):
        ap.up.request(p)
    assert ap.events == [] and calls(tools) == []


def test_the_agent_says_its_version_and_reports_done_once_welcomed_on_it(run_agent, controller, tmp_path, tools):
    """The wiring in the agent: the hello's firmware_version, upgradeFirmware in its table, and the state file of an
    upgrade that restarted it ended as done in its first session (then repeated in the next)."""
    state = tmp_path / "state"
    state.mkdir()
    (state / "upgrade.json").write_text(json.dumps({
        "version": "0.2", "kind": "packages", "state": "restarting", "reason": "", "timeout_s": 600,
        "from_version": "0.1", "remaining_s": 600}))
    (tmp_path / "firmware_version").write_text("0.2\n")
    agent = run_agent(controller, firmware_version_file=str(tmp_path / "firmware_version"),
                      firmware_state_dir=str(state), firmware_work_dir=str(tmp_path / "work"),
                      firmware_keys_dir=str(tmp_path / "no-keys"))
    s = controller.next_session()
    assert s.hello["firmware_version"] == "0.2"
    s.wait_event("firmwareProgress", version="0.2", state="done", timeout=5)
    reply = s.request("upgradeFirmware", {"version": "0.3", "kind": "packages", "url": "http://127.0.0.1:1/x",
                                          "sha256": "0" * 64, "signature": SigningKey().sign(b"x"), "timeout_s": 60})
    assert reply["error"]["code"] == "unsupported" and "no trusted firmware keys" in reply["error"]["message"]
    assert json.loads((state / "upgrade.json").read_text())["state"] == "done"
    assert s.schema_errors == [] and not agent.restart_requested
    agent.request_restart()  # what an installed upgrade does: run() ends, the command line exits 75 for procd
    assert agent.restart_requested and s.wait_closed(5)


def test_config_keys():
    from wislice_ap_agent import config as config_mod

    base = {"agent_id": "ap-1", "controller": "127.0.0.1:6690", "hostapd_global": "/run/h",
            "radios": [{"name": "phy0", "iface": "wlan0"}]}
    fw = config_mod.from_dict(base).firmware
    assert (fw.keys_dir, fw.state_dir, fw.cache_dir) == ("/etc/opkg/keys", "/etc/wislice/firmware",
                                                         "/etc/wislice/firmware/installed")
    fw = config_mod.from_dict({**base, "firmware_state_dir": "/data/fw", "firmware_max_bytes": "2097152",
                               "firmware_ca_file": "/etc/ca.pem"}).firmware
    assert (fw.cache_dir, fw.max_bytes, fw.ca_file) == ("/data/fw/installed", 2 << 20, "/etc/ca.pem")
    for bad in ({"firmware_keys_dir": "keys"}, {"firmware_max_bytes": 10}, {"firmware_download_timeout_s": 0}):
        with pytest.raises(config_mod.ConfigError, match="firmware_"):
            config_mod.from_dict({**base, **bad})
