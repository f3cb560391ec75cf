"""The VM's procd (guest/procd.py) with its rc.common, functions.sh and procd.sh on the host: an init script in
the feed's style (UCI -> uci_load_validate -> procd instance) started, changed, crashed and stopped, under dash
(the VM's /bin/sh) and busybox ash (OpenWrt's)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import firmware
import pytest

INIT = """#!/bin/sh /etc/rc.common
START=50
STOP=10
USE_PROCD=1
validate() {
	uci_load_validate demo main "$1" "$2" 'enabled:bool:0' 'word:string' 'delay:range(1,100):1' \\
		'mode:or("a","b"):a' 'item:list(string)'
}
add_item() { procd_append_param command "item=$1"; }
start_instance() {
	[ "$2" = 0 ] || { echo "demo: section $1 failed validation" >&2; return 1; }
	[ "$enabled" = 1 ] || return 0
	procd_open_instance
	procd_set_param command {sleeper} "$word" "$mode"
	config_list_foreach "$1" item add_item
	procd_set_param env DEMO=1
	procd_set_param respawn 3600 "$delay" 3
	procd_set_param stdout 1
	procd_close_instance
}
start_service() {
	config_load demo
	validate main start_instance
}
"""


def uci(word: str, mode: str = "a", enabled: str = "1") -> str:
    return (f"config main 'main'\n\toption enabled '{enabled}'\n\toption word '{word}'\n\toption delay '1'\n"
            f"\toption mode '{mode}'\n\tlist item 'x'\n\tlist item 'y z'\n")


class Env:
    def __init__(self, root: Path, shell: str) -> None:
        self.root = root
        self.shell = shell
        self.env = {**os.environ, "IPKG_INSTROOT": str(root), "PROCD_BASE": str(root / "run/procd"),
                    "PROCD_LOG_DIR": str(root / "log")}

    def rc(self, action: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*self.shell.split(), str(self.root / "etc/rc.common"),
                               str(self.root / "etc/init.d/demo"), action], env=self.env, capture_output=True,
                              text=True, timeout=30)

    def pid(self) -> int:
        f = self.root / "run/procd/pid/demo.instance1"
        return int(f.read_text()) if f.exists() else 0

    def wait_pid(self, other_than: int = 0, timeout: float = 10) -> int:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            pid = self.pid()
            if pid and pid != other_than:
                return pid
            time.sleep(0.05)
        raise AssertionError(f"no new instance (log: {(self.root / 'log/demo.log').read_text(errors='replace')})")

    def wait_log(self, done: Callable[[str], bool], timeout: float = 10) -> str:
        """The instance's log once done(log) holds: its pid file is written when procd starts it, its first line
        only once the shell it runs got that far (late on a loaded host)."""
        log, deadline = self.root / "log/demo.log", time.monotonic() + timeout
        while True:
            text = log.read_text(errors="replace") if log.exists() else ""
            if done(text) or time.monotonic() > deadline:
                return text
            time.sleep(0.05)


@pytest.fixture(params=["dash", "busybox ash"])
def env(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Env]:
    if shutil.which(request.param.split()[0]) is None:
        pytest.skip(f"{request.param} not installed")
    root = tmp_path / "root"
    shutil.copytree(firmware.GUEST_DIR / "rootfs", root, symlinks=True)
    (root / "etc/init.d").mkdir(parents=True)
    (root / "etc/config").mkdir()
    sleeper = root / "sleeper"
    # its argument count shows that each procd parameter value stays one argument ("item=y z")
    sleeper.write_text("#!/bin/sh\necho \"started $# $* DEMO=$DEMO\"\nexec sleep 60\n")
    sleeper.chmod(0o755)
    (root / "etc/init.d/demo").write_text(INIT.replace("{sleeper}", str(sleeper)))
    (root / "etc/init.d/demo").chmod(0o755)
    (root / "etc/config/demo").write_text(uci("one"))
    e = Env(root, request.param)
    with open(tmp_path / "procd.log", "wb") as log:
        sup = subprocess.Popen([sys.executable, str(firmware.GUEST_DIR / "procd.py")], env=e.env, stderr=log)
    try:
        yield e
    finally:
        sup.send_signal(signal.SIGTERM)  # it stops its instances on the way out
        sup.wait(timeout=15)


def test_start_change_crash_stop(env: Env) -> None:
    res = env.rc("enable")
    assert res.returncode == 0, res.stderr
    assert os.readlink(env.root / "etc/rc.d/S50demo") == "../init.d/demo"
    assert env.rc("enabled").returncode == 0
    res = env.rc("start")
    assert res.returncode == 0, res.stderr
    first = env.wait_pid()
    assert env.rc("status").stdout.strip() == "running"
    started = "started 4 one a item=x item=y z DEMO=1\n"  # one argument per procd parameter value
    assert env.wait_log(lambda text: text == started) == started

    env.rc("start")  # same config: procd keeps the running instance
    time.sleep(0.3)
    assert env.pid() == first

    (env.root / "etc/config/demo").write_text(uci("two", "b"))
    assert env.rc("reload").returncode == 0  # no reload_service: start again, the changed instance restarts
    second = env.wait_pid(other_than=first)
    assert env.wait_log(lambda text: text.endswith("started 4 two b item=x item=y z DEMO=1\n")).endswith(
        "started 4 two b item=x item=y z DEMO=1\n")

    os.kill(second, signal.SIGKILL)  # respawn after its 1 s timeout
    third = env.wait_pid(other_than=second)
    assert env.wait_log(lambda text: text.count("started 4 two b") == 2).count("started 4 two b") == 2

    assert env.rc("stop").returncode == 0
    assert env.pid() == 0 and env.rc("status").returncode == 3
    assert not Path(f"/proc/{third}").exists() or Path(f"/proc/{third}/stat").read_text().split()[2] == "Z"
    env.rc("disable")
    assert not list((env.root / "etc/rc.d").iterdir())


def test_invalid_uci_starts_nothing(env: Env) -> None:
    (env.root / "etc/config/demo").write_text(uci("one", mode="c"))
    res = env.rc("start")
    assert "demo.main.mode is not or(" in res.stderr and "failed validation" in res.stderr
    time.sleep(0.3)
    assert env.pid() == 0
    (env.root / "etc/config/demo").write_text(uci("one", enabled="0"))
    assert env.rc("start").returncode == 0
    assert env.pid() == 0 and env.rc("status").stdout.strip() == "not running"
