"""wislice-ap-agent for real: the package Makefile's own recipes stage the agent and its protocol package
(wislice_agent_proto, with the protocol's schema) as its .ipk would hold them (byte code only, under
PYTHON3_PKG_DIR, sources in wislice-ap-agent-src), and the staged agent, run by the host's
python3 with nothing but the stdlib and the staged files on its path, is configured by the staged init script from
UCI (under the procd harness) and started with the command line procd would get: it dials a WiFi controller on
127.0.0.1, answers the challenge with an HMAC-signed hello carrying the UCI agent_id and the UCI radio as the real
hostapd (global control interface, wired BSS in a test namespace) reports it, serves requests, keeps the session
alive at the UCI keepalive and stops cleanly on SIGTERM. Without hostapd it refuses to start and says why."""

from __future__ import annotations

import json
import os
import queue
import re
import secrets
import shlex
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from owrt import AGENT_PROTO_SRC, AP_AGENT_SRC, ROOT, SHELLS, parse_uci, render_uci, run_harness
from pkgstage import Staged, host_python, need

sys.path.insert(0, str(ROOT / "ap-agent" / "tests"))
# the ap-agent tests' controller: every message the agent sends is checked against spec/agent's schema
from support.controller import TestController, wait_until

pytestmark = pytest.mark.integration

PKG = "wislice-ap-agent"
MODULE = "wislice_ap_agent"
# The package ships the agent and its protocol package; the protocol's schema goes beside the latter's modules.
TREES = {MODULE: AP_AGENT_SRC, "wislice_agent_proto": AGENT_PROTO_SRC}
SOURCES = sorted(f"{mod}/{p.name}" for mod, src in TREES.items() for p in (src / mod).glob("*.py"))
SCHEMA = ROOT / "spec" / "agent" / "schema" / "message.schema.json"


def site_packages(pkg: Staged, package: str = PKG) -> Path:
    pkg_dir = pkg.var("PYTHON3_PKG_DIR")
    assert re.fullmatch(r"/usr/lib/python3\.\d+/site-packages", pkg_dir), pkg_dir
    return pkg.root(package) / pkg_dir.lstrip("/")


def isolated_env(pkg: Staged) -> dict[str, str]:
    """What the staged agent runs with: a clean environment whose only Python path is the staged site-packages
    (on OpenWrt, /usr/lib/python3.X/site-packages is on python3's default path)."""
    return {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "PYTHONPATH": str(site_packages(pkg)), "LC_ALL": "C.UTF-8"}


def isolated_python(pkg: Staged) -> list[str]:
    """The host's python3 without any site-packages of its own (-S) or of the user (-s)."""
    return [host_python(), "-S", "-s"]


def prog_shim(pkg: Staged, tmp: Path) -> Path:
    """PROG for the init script: the staged /usr/bin/wislice-ap-agent run by the isolated host python3."""
    env = " ".join(f"{k}={shlex.quote(v)}" for k, v in isolated_env(pkg).items())
    argv = " ".join(shlex.quote(a) for a in [*isolated_python(pkg), str(pkg.root() / "usr/bin" / PKG)])
    path = tmp / PKG
    path.write_text(f'#!/bin/sh\nexec env -i {env} {argv} "$@"\n')
    path.chmod(0o755)
    return path


def test_staged_packages_hold_byte_code_and_sources_where_python3_package_mk_puts_them(ap_agent_pkg: Staged) -> None:
    root, src_root = ap_agent_pkg.root(), ap_agent_pkg.root(f"{PKG}-src")
    site, src_site = site_packages(ap_agent_pkg), site_packages(ap_agent_pkg, f"{PKG}-src")
    files = {str(p.relative_to(root)): p.stat().st_mode & 0o7777 for p in root.rglob("*") if not p.is_dir()}
    pkg_dir = str(site.relative_to(root))
    expected = {f"{pkg_dir}/{name}c": 0o644 for name in SOURCES}
    expected |= {f"{pkg_dir}/wislice_agent_proto/{SCHEMA.name}": SCHEMA.stat().st_mode & 0o7777}
    expected |= {f"usr/bin/{PKG}": 0o755, f"etc/config/{PKG}": 0o600, f"etc/init.d/{PKG}": 0o755}
    expected |= {"etc/wislice/firmware_version": 0o644, f"lib/upgrade/keep.d/{PKG}": 0o644}
    assert files == expected, "the package is byte code for every module of the agent and its protocol package, " \
        "the protocol's schema, wrapper, config, init script, version file, sysupgrade keep list"
    assert re.fullmatch(r"\d+\.\d+\.\d+-r\d+\n", (root / "etc/wislice/firmware_version").read_text())
    assert (site / "wislice_agent_proto" / SCHEMA.name).read_bytes() == SCHEMA.read_bytes()
    src_files = sorted(str(p.relative_to(src_root)) for p in src_root.rglob("*") if not p.is_dir())
    assert src_files == [f"{pkg_dir}/{name}" for name in SOURCES]
    for name in SOURCES:
        mod = name.split("/")[0]
        assert (src_site / name).read_bytes() == (TREES[mod] / name).read_bytes()
    # the wrapper runs the agent with the target's python3 (FixShebang), from the module the package ships
    wrapper = (root / "usr/bin" / PKG).read_text()
    assert wrapper.splitlines()[0] == "#!/usr/bin/python3"
    assert f"from {MODULE}.__main__ import main" in wrapper
    assert ap_agent_pkg.conffiles() == [f"/etc/config/{PKG}"]
    assert all((root / c.lstrip("/")).is_file() for c in ap_agent_pkg.conffiles())
    prog = re.search(r"^PROG=(\S+)$", (root / f"etc/init.d/{PKG}").read_text(), re.M).group(1)
    assert prog == f"/usr/bin/{PKG}" and os.access(root / prog.lstrip("/"), os.X_OK)


PROBE = f"""
import importlib, json, pkgutil, sys
for name in {tuple(TREES)!r}:
    for m in pkgutil.iter_modules(importlib.import_module(name).__path__):
        importlib.import_module(name + "." + m.name)
from wislice_agent_proto import validate
mods = {{n: getattr(m, "__file__", None) for n, m in sys.modules.items()}}
print(json.dumps({{"path": sys.path, "modules": mods, "schema": str(validate.schema_path())}}))
"""


def test_staged_byte_code_imports_with_nothing_but_the_stdlib(ap_agent_pkg: Staged, tmp_path: Path) -> None:
    proc = subprocess.run([*isolated_python(ap_agent_pkg), "-c", PROBE], capture_output=True, text=True,
                          timeout=60, env=isolated_env(ap_agent_pkg), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    site = site_packages(ap_agent_pkg)
    assert not [p for p in out["path"] if "site-packages" in p and p != str(site)], out["path"]
    ours = {n: f for n, f in out["modules"].items() if n.split(".")[0] in TREES}
    assert sorted(n.replace(".", "/") + ".py" for n in ours if "." in n) == \
        [n for n in SOURCES if not n.endswith("/__init__.py")]
    for name, file in ours.items():
        assert file and Path(file).is_relative_to(site) and file.endswith(".pyc"), f"{name} loaded from {file}"
    assert out["schema"] == str(site / "wislice_agent_proto" / SCHEMA.name)  # the packaged copy, not the tree's
    foreign = {n.split(".")[0] for n in out["modules"]} - set(sys.stdlib_module_names) - {*TREES, "__main__"}
    assert not foreign, f"the staged agent imports non-stdlib modules: {sorted(foreign)}"


# --- the staged agent, configured by its init script and started as procd would -----------------------------------
@dataclass
class Hostapd:
    global_path: Path
    ctrl_dir: Path
    mac: str


@pytest.fixture
def short_dir() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="owrt") as d:  # unix socket paths must stay under 108 bytes
        yield Path(d)


@pytest.fixture
def hostapd(netns: Any, processes: Any, short_dir: Path) -> Hostapd:
    """The real hostapd with its global control interface (-g), as OpenWrt's wpad/hostapd service runs it, serving
    a wired BSS on `wlan0`, a veth inside a test namespace (this host has no radio): the shipped UCI radio."""
    need("hostapd")
    ns = netns("owap")
    ns.exec(["ip", "link", "add", "wlan0", "type", "veth", "peer", "name", "wlan0p"])
    for ifname in ("wlan0", "wlan0p"):
        ns.exec(["ip", "link", "set", ifname, "up"])
    mac = json.loads(ns.exec(["ip", "-j", "link", "show", "dev", "wlan0"]).stdout)[0]["address"]
    ctrl_dir, global_path = short_dir / "hostapd", short_dir / "hostapd-global"
    conf = short_dir / "wlan0.conf"
    conf.write_text(f"interface=wlan0\ndriver=wired\nctrl_interface={ctrl_dir}\nssid=primary\nhw_mode=g\n"
                    "channel=6\nieee8021x=1\neap_server=1\n")
    proc = processes.start(["hostapd", "-g", str(global_path), str(conf)], netns=ns, log_name="hostapd")
    assert wait_until(lambda: global_path.exists() or proc.poll() is not None, timeout=10)
    assert proc.poll() is None, f"hostapd exited with {proc.returncode}"
    return Hostapd(global_path, ctrl_dir, mac)


def uci_for(ap_agent_pkg: Staged, tmp: Path, controller: TestController, agent_id: str, secret_file: Path,
            hostapd_global: Path, hostapd_ctrl_dir: Path) -> str:
    """The staged /etc/config/wislice-ap-agent, enabled and pointed at the test's controller, hostapd and
    directories; its radio section (phy0 on wlan0) stays as shipped."""
    sections = parse_uci((ap_agent_pkg.root() / f"etc/config/{PKG}").read_text())
    agent = next(s for s in sections if s.type == "agent")
    agent.options.update({
        "enabled": "1", "agent_id": agent_id, "controller_host": controller.host,
        "controller_port": str(controller.port), "secret_file": str(secret_file),
        "hostapd_global": str(hostapd_global), "hostapd_ctrl_dir": str(hostapd_ctrl_dir),
        "conf_dir": str(tmp / "state"), "pof_switch_socket": str(tmp / "pofswitch.sock"), "keepalive": "2",
        "log_level": "DEBUG"})
    return render_uci(sections)


def start_staged_agent(ap_agent_pkg: Staged, tmp: Path, processes: Any, controller: TestController,
                       hostapd_global: Path, hostapd_ctrl_dir: Path) -> tuple[Any, str]:
    agent_id = f"ap-it-{secrets.token_hex(3)}"
    secret_file = tmp / "ap-agent.secret"
    assert controller.secret is not None
    secret_file.write_text(controller.secret.decode() + "\n")
    secret_file.chmod(0o600)
    run_dir = tmp / "run"
    uci = uci_for(ap_agent_pkg, tmp, controller, agent_id, secret_file, hostapd_global, hostapd_ctrl_dir)
    run = run_harness(SHELLS[0], ap_agent_pkg.root() / f"etc/init.d/{PKG}", uci, "start", tmp / "h",
                      {"PROG": str(prog_shim(ap_agent_pkg, tmp)), "RUN_DIR": str(run_dir)})
    # the init script ran the staged agent's --check-config on the INI it wrote before handing it to procd
    assert run.rc == 0, run.errors()
    argv = run.command()
    assert argv[1:] == ["--config", str(run_dir / "agent.ini")]
    assert stat.S_IMODE((run_dir / "agent.ini").stat().st_mode) == 0o600
    return processes.start(argv, log_name=PKG), agent_id


@pytest.mark.usefixtures("client_dir_cleanup")
def test_staged_agent_started_by_its_init_script_says_hello(ap_agent_pkg: Staged, hostapd: Hostapd, processes: Any,
                                                            tmp_path: Path) -> None:
    controller = TestController(secret=secrets.token_hex(16).encode())
    try:
        proc, agent_id = start_staged_agent(ap_agent_pkg, tmp_path, processes, controller, hostapd.global_path,
                                            hostapd.ctrl_dir)
        try:
            session = controller.next_session(timeout=20)
        except queue.Empty:
            log = processes.log_path(proc).read_text()
            pytest.fail(f"no hello; rejected: {controller.rejected}; agent exit {proc.poll()}:\n{log[-3000:]}")
        # the hello: HMAC over the controller's nonce with the secret_file's secret (else the controller says bye),
        # the UCI agent_id, the UCI radio completed from hostapd's STATUS, the switch socket from UCI
        hello = session.hello
        assert (hello["role"], hello["agent_id"], hello["auth"]["scheme"]) == ("ap", agent_id, "hmac-sha256")
        radios = hello["capabilities"]["radios"]
        assert [(r["name"], r["mac"], r["channel"], r["hw_mode"], r["max_vaps"]) for r in radios] == [
            ("phy0", hostapd.mac, 6, "g", 4)]
        assert hello["capabilities"]["pof_switch"] is True
        status = session.request("getStatus")
        assert status["ok"] and status["result"]["agent_id"] == agent_id, status
        session.wait_event("stats", timeout=10)  # the session loop runs (welcome asked for stats every second)
        # UCI keepalive 2 -> the agent pings every 2 s (its default is 10)
        assert wait_until(lambda: session.pings >= 1, timeout=5), "no keepalive ping within 5 s"
        assert not session.schema_errors and not controller.rejected
        assert processes.stop(proc) == 0, "the agent did not exit cleanly on SIGTERM"
    finally:
        controller.close()


@pytest.mark.usefixtures("client_dir_cleanup")
def test_staged_agent_without_hostapd_refuses_to_start_and_says_why(ap_agent_pkg: Staged, processes: Any,
                                                                    short_dir: Path, tmp_path: Path) -> None:
    controller = TestController(secret=secrets.token_hex(16).encode())
    try:
        missing = short_dir / "hostapd-global"
        proc, _ = start_staged_agent(ap_agent_pkg, tmp_path, processes, controller, missing, short_dir / "hostapd")
        try:
            rc = proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            pytest.fail("the agent kept running without hostapd")
        log = processes.log_path(proc).read_text()
        assert rc == 1, log
        assert f"cannot start: cannot connect to hostapd control socket {missing}" in log, log
        time.sleep(0.2)
        assert controller.sessions.empty() and not controller.rejected, "it dialled the controller anyway"
    finally:
        controller.close()
