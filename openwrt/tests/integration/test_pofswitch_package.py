"""wislice-pofswitch for real: the package Makefile's own recipes build pofswitch-afp from pof-switch/ with meson
(exactly its MESON_ARGS, read back from the configured build) and stage the package; the staged switch is a plain
AF_PACKET program that needs nothing but libc (the package declares no DEPENDS), and, started with the command
line its init script gives procd for a UCI config, it dials a POF controller on 127.0.0.1, says HELLO as
spec/pof says, announces the UCI dev_id and ports, and serves its management socket."""

from __future__ import annotations

import json
import re
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from owrt import PACKAGES, ROOT, SHELLS, Section, makefile_assignments, makefile_define, render_uci, run_harness
from pkgstage import Staged, need

sys.path.insert(0, str(ROOT / "pof-switch" / "tests" / "integration"))
# The pof-switch tests' POF controller (codec checked against spec/pof/vectors) and management-socket client.
from pofctl import Controller, mgmt_command

pytestmark = pytest.mark.integration

PKG = "wislice-pofswitch"
MAKEFILE = (PACKAGES[PKG] / "Makefile").read_text()
# What a libc-only program may need: the C library and its dynamic loader (glibc or musl spelling).
LIBC = re.compile(r"^(libc\.so(\.\d+)?|ld-linux[\w.-]*\.so\.\d+|ld-musl-[\w.-]+\.so\.\d+)$")


def meson_build_dir(pkg: Staged) -> Path:
    return Path(pkg.var("MESON_BUILD_DIR"))


def introspect(build: Path, what: str) -> Any:
    out = subprocess.run(["meson", "introspect", f"--{what}", str(build)], capture_output=True, text=True,
                         timeout=60, check=True).stdout
    return json.loads(out)


def init_options() -> list[str]:
    """Every --option the init script puts on pofswitch-afp's command line."""
    text = (PACKAGES[PKG] / "files" / f"{PKG}.init").read_text()
    lines = [line for line in text.splitlines() if re.search(r"procd_(set|append)_param command", line)]
    return sorted({opt for line in lines for opt in re.findall(r"(?<![\w-])--[a-z][a-z-]+", line)})


def test_recipe_configures_the_package_options_and_builds_only_pofswitch_afp(pofswitch_pkg: Staged) -> None:
    build = meson_build_dir(pofswitch_pkg)
    # The build tree is the package's own copy (Build/Prepare), not pof-switch/ itself.
    assert build.parent == pofswitch_pkg.build_dir / "wislice-pofswitch-0.1.0"
    assert (build.parent / "meson.build").read_bytes() == (ROOT / "pof-switch" / "meson.build").read_bytes()
    # MESON_ARGS as make leaves it is what the package Makefile says, and meson configured exactly that.
    meson_args = pofswitch_pkg.var("MESON_ARGS").split()
    assert meson_args == re.findall(r"-D\S+", makefile_assignments(MAKEFILE)["MESON_ARGS"])
    wanted = dict(arg[2:].split("=", 1) for arg in meson_args)
    assert wanted.get("dpdk") == "disabled", "the package is the AF_PACKET variant: DPDK must be off"
    options = {o["name"]: o["value"] for o in introspect(build, "buildoptions")}
    configured = {name: str(options[name]).lower() for name in wanted}
    assert configured == {name: value.lower() for name, value in wanted.items()}
    assert (options["buildtype"], options["default_library"]) == ("plain", "both")  # what meson.mk adds
    # Only pofswitch-afp was compiled (Build/Compile names it); the DPDK switch is not even a target, although
    # this host may well have DPDK (pof-switch's own build makes `pofswitch` here when it does).
    targets = {t["name"] for t in introspect(build, "targets")}
    assert "pofswitch-afp" in targets and "pofswitch" not in targets, targets
    assert (build / "pofswitch-afp").is_file()
    unit_tests = [t for t in introspect(build, "targets") if t["type"] == "executable" and t["name"] != "pofswitch-afp"]
    assert unit_tests, "pof-switch's meson.build always configures its unit tests (Build/Prepare copies them)"
    assert not [t["name"] for t in unit_tests if any(Path(f).exists() for f in t["filename"])], \
        "the package compiles only pofswitch-afp, not the unit-test executables"


def test_switch_binary_runs_and_needs_only_libc(pofswitch_pkg: Staged) -> None:
    binary = pofswitch_pkg.root() / "usr" / "sbin" / "pofswitch-afp"
    proc = subprocess.run([str(binary), "--help"], capture_output=True, text=True, timeout=10)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.startswith(f"usage: {binary} ")
    missing = [opt for opt in init_options() if opt not in proc.stderr]
    assert init_options() and not missing, f"the init script passes options the switch does not know: {missing}"
    ldd = subprocess.run(["ldd", str(binary)], capture_output=True, text=True, timeout=10)
    assert ldd.returncode == 0 and "libc.so" in ldd.stdout, ldd.stdout + ldd.stderr
    assert "librte_" not in ldd.stdout, f"pofswitch-afp is linked against DPDK:\n{ldd.stdout}"
    need("readelf")
    dynamic = subprocess.run(["readelf", "-d", str(binary)], capture_output=True, text=True, timeout=10,
                             check=True).stdout
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", dynamic)
    # Package/wislice-pofswitch has no DEPENDS: right only while the switch needs no library but libc.
    assert "DEPENDS" not in makefile_define(MAKEFILE, f"Package/{PKG}")
    assert needed and all(LIBC.match(lib) for lib in needed), f"needs {needed}: add them to DEPENDS"


def test_staged_package_is_what_its_install_section_and_init_script_expect(pofswitch_pkg: Staged,
                                                                        tmp_path: Path) -> None:
    root = pofswitch_pkg.root()
    files = {str(p.relative_to(root)): p.stat().st_mode & 0o7777 for p in root.rglob("*") if not p.is_dir()}
    assert files == {"usr/sbin/pofswitch-afp": 0o755, f"etc/config/{PKG}": 0o600, f"etc/init.d/{PKG}": 0o755}
    build = meson_build_dir(pofswitch_pkg)
    assert (root / "usr/sbin/pofswitch-afp").read_bytes() == (build / "pofswitch-afp").read_bytes()
    for name in ("config", "init"):
        staged = root / "etc" / ("config" if name == "config" else "init.d") / PKG
        assert staged.read_bytes() == (PACKAGES[PKG] / "files" / f"{PKG}.{name}").read_bytes()
    # conffiles are files of the package; the init script's program is where the package put it
    assert pofswitch_pkg.conffiles() == [f"/etc/config/{PKG}"]
    assert all((root / c.lstrip("/")).is_file() for c in pofswitch_pkg.conffiles())
    prog = re.search(r"^PROG=(\S+)$", (root / f"etc/init.d/{PKG}").read_text(), re.M).group(1)
    assert (root / prog.lstrip("/")).is_file() and prog == "/usr/sbin/pofswitch-afp"
    # Everything meson would install is a program the package ships (no install: true target left behind, no
    # DPDK `pofswitch`), even though the package copies from the build tree instead of running meson install.
    dest = tmp_path / "destdir"
    subprocess.run(["meson", "install", "--no-rebuild", "--destdir", str(dest), "-C", str(build)],
                   capture_output=True, text=True, timeout=120, check=True)
    installed = sorted(p.name for p in dest.rglob("*") if p.is_file())
    shipped = sorted(Path(f).name for f in re.findall(
        r"\$\(MESON_BUILD_DIR\)/(\S+)", makefile_define(MAKEFILE, f"Package/{PKG}/install")))
    assert installed == shipped == ["pofswitch-afp"]
    assert (dest / "usr/local/bin/pofswitch-afp").read_bytes() == (root / "usr/sbin/pofswitch-afp").read_bytes()


# --- the staged switch, started as its init script tells procd to ------------------------------------------------
@pytest.fixture
def pof_controller() -> Iterator[Controller]:
    c = Controller()
    yield c
    c.close()


@pytest.fixture
def short_dir() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="owrt") as d:  # a unix socket path must stay under 108 bytes
        yield Path(d)


def offload(ifname: str, feature: str) -> str:
    out = subprocess.run(["ethtool", "-k", ifname], capture_output=True, text=True, timeout=10, check=True).stdout
    m = re.search(rf"^{re.escape(feature)}: (\w+)", out, re.M)
    assert m, f"ethtool -k {ifname} shows no {feature}"
    return m.group(1)


def test_staged_switch_under_its_init_script_dials_the_controller(
        pofswitch_pkg: Staged, pof_controller: Controller, netns: Any, veth: Any, processes: Any,
        short_dir: Path, tmp_path: Path) -> None:
    need("ethtool")
    root = pofswitch_pkg.root()
    ns = netns("ow")
    wired, lan = veth(ns, None), veth(ns, None)  # the switch's ports are the host ends (.b)
    dev_id = str(4000 + secrets.randbelow(1000))
    sock = short_dir / "pofswitch.sock"
    uci = [Section("switch", "switch", {
        "enabled": "1", "controller_host": "127.0.0.1", "controller_port": str(pof_controller.port), "dev_id": dev_id,
        "mgmt_socket": str(sock), "max_sleep_us": "2000", "enable_ports": "0", "disable_offloads": "1",
        "port": [wired.b, f"lan={lan.b}"]})]
    run = run_harness(SHELLS[0], root / f"etc/init.d/{PKG}", render_uci(uci), "start", tmp_path / "h",
                      {"PROG": str(root / "usr/sbin/pofswitch-afp"), "ETHTOOL": str(shutil.which("ethtool"))})
    assert run.rc == 0, run.errors()
    argv = run.command()
    assert argv[0] == str(root / "usr/sbin/pofswitch-afp")
    # the init script turned the offloads off on the netdevs (AF_PACKET must see frames as sent)
    for ifname in (wired.b, lan.b):
        assert offload(ifname, "generic-receive-offload") == "off"
        assert offload(ifname, "tx-checksumming") == "off"

    proc = processes.start(argv, log_name="pofswitch-afp")
    pof_controller.accept(timeout=10)
    assert pof_controller.conn is not None
    pof_controller.conn.settimeout(5)
    hello = pof_controller.conn.recv(8, socket.MSG_PEEK | socket.MSG_WAITALL)
    vector = json.loads((ROOT / "spec" / "pof" / "vectors" / "hello.json").read_text())
    assert hello == bytes.fromhex(vector["hex"]), f"HELLO on the wire: {hello.hex()}"
    pof_controller.recv("HELLO")
    pof_controller.send({"type": "HELLO"})
    pof_controller.send({"type": "FEATURES_REQUEST"})
    features = pof_controller.recv("FEATURES_REPLY")["body"]
    assert (features["dev_id"], features["port_num"]) == (int(dev_id), 2)
    pof_controller.send({"type": "SET_CONFIG", "body": {"dev_id": int(dev_id), "flags": 0, "miss_send_len": 128}})
    pof_controller.send({"type": "GET_CONFIG_REQUEST"})
    assert pof_controller.recv("GET_CONFIG_REPLY")["body"]["dev_id"] == int(dev_id)
    pof_controller.recv("RESOURCE_REPORT")
    ports = [pof_controller.recv("PORT_STATUS")["body"]["port"] for _ in range(2)]
    assert sorted(p["name"] for p in ports) == sorted([wired.b, "lan"])
    assert all(p["of_enable"] == 0 for p in ports), "enable_ports 0: ports wait for the controller's PORT_MOD"
    pof_controller.echo()
    # the management socket the ap-agent uses (UCI mgmt_socket) answers
    reply = mgmt_command(sock, "ports")
    # items are id:name:enabled:rx_packets:tx_packets:rx_bytes:tx_bytes
    items = [e.split(":") for e in reply.split()[1:]]
    assert reply.startswith("OK") and {f[1] for f in items} == {wired.b, "lan"}, reply
    assert all(len(f) == 7 and f[0].isdigit() and all(x.isdigit() for x in f[2:]) for f in items), reply

    assert processes.stop(proc) == 0, "pofswitch-afp did not exit cleanly on SIGTERM"
    assert not sock.exists(), "the management socket outlived the switch"

