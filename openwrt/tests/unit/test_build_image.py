"""image/build-image.sh against an ImageBuilder-shaped directory, with tests/stubs/make in front of it: the make
calls it makes (profile check by `make info`, then `make image` with the packages, the overlay and BIN_DIR), the
files it adds (the .ipk files in the ImageBuilder's packages/, the keys and the first-boot UCI settings in the
overlay), the first-boot script run for real with a recording uci, and a clear error, before any image is built,
for each bad input."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from owrt import OPENWRT

SCRIPT = OPENWRT / "image" / "build-image.sh"
STUBS = OPENWRT / "tests" / "stubs"
PKGS = ["wislice-ap-agent_0.1.0-r1_all.ipk", "wislice-pofswitch_0.1.0-r1_x86_64.ipk"]
SHELLS = [s for s in (["busybox", "sh"], ["dash"]) if shutil.which(s[0])]


def imagebuilder(tmp: Path, config_extra: str = "") -> Path:
    ib = tmp / "openwrt-imagebuilder-24.10.0-x86-64.Linux-x86_64"
    (ib / "packages").mkdir(parents=True)
    (ib / "Makefile").write_text("# OpenWrt Image Builder (test shape)\nimage:\n\t@false\ninfo:\n\t@false\n")
    (ib / ".config").write_text('CONFIG_TARGET_x86=y\nCONFIG_TARGET_BOARD="x86"\nCONFIG_TARGET_SUBTARGET="64"\n'
                                'CONFIG_TARGET_ARCH_PACKAGES="x86_64"\n' + config_extra)
    (ib / "repositories.conf").write_text("src imagebuilder file:packages\n")
    return ib


@pytest.fixture
def setup(tmp_path: Path) -> dict[str, Path]:
    ipks = tmp_path / "ipks"
    ipks.mkdir()
    for name in PKGS:
        (ipks / name).write_bytes(f"package {name}\n".encode())
    keys = tmp_path / "keys"
    keys.mkdir()
    for name, text in (("secret", "s3cret-0123456789\n"), ("ca.pem", "CA\n"), ("ap.pem", "CERT\n"),
                       ("ap.key", "KEY\n")):
        (keys / name).write_text(text)
    overlay = tmp_path / "overlay"
    (overlay / "etc" / "config").mkdir(parents=True)
    (overlay / "etc" / "config" / "network").write_text("config interface 'lan'\n")
    return {"tmp": tmp_path, "ib": imagebuilder(tmp_path), "ipks": ipks, "keys": keys, "overlay": overlay,
            "work": tmp_path / "work", "log": tmp_path / "make.log"}


def args(s: dict[str, Path], **changes: str | None) -> list[str]:
    opts: dict[str, str | None] = {
        "--imagebuilder": str(s["ib"]), "--profile": "generic", "--controller": "ctl.example.org",
        "--secret": str(s["keys"] / "secret"), "--tls-ca": str(s["keys"] / "ca.pem"),
        "--ipk-dir": str(s["ipks"]), "--work": str(s["work"]),
    }
    opts.update(changes)
    out: list[str] = []
    for k, v in opts.items():
        if v is not None:
            out += [k] if v == "" else [k, v]
    return out


def build(s: dict[str, Path], argv: list[str], profiles: str = "generic tplink_archer-c7-v5"):
    env = {**os.environ, "PATH": f"{STUBS}:{os.environ['PATH']}", "STUB_MAKE_LOG": str(s["log"]),
           "STUB_PROFILES": profiles}
    return subprocess.run(["bash", str(SCRIPT), *argv], capture_output=True, text=True, timeout=60, env=env)


def make_calls(s: dict[str, Path]) -> list[list[str]]:
    return [line.split("\x1f") for line in s["log"].read_text().splitlines()] if s["log"].exists() else []


def tree(root: Path) -> dict[str, int]:
    return {str(p.relative_to(root)): p.stat().st_mode & 0o777 for p in sorted(root.rglob("*")) if p.is_file()}


def test_builds_with_the_packages_keys_and_settings(setup):
    s = setup
    proc = build(s, args(s, **{"--tls-cert": str(s["keys"] / "ap.pem"), "--tls-key": str(s["keys"] / "ap.key"),
                               "--tls-server-name": "ctl.example.org", "--files": str(s["overlay"]),
                               "--packages": "luci -ppp"}))
    assert proc.returncode == 0, proc.stderr
    work = s["work"].resolve()
    assert make_calls(s) == [
        ["-s", "-C", str(s["ib"]), "info"],
        ["-C", str(s["ib"]), "image", "PROFILE=generic", "PACKAGES=wislice-ap-agent wislice-pofswitch luci -ppp",
         f"FILES={work}/files", f"BIN_DIR={work}/images"],
    ]
    assert (work / "images" / "openwrt-generic-squashfs-sysupgrade.bin").is_file()
    # the packages, as given, in the ImageBuilder's local package directory
    assert sorted(p.name for p in (s["ib"] / "packages").iterdir()) == PKGS
    for name in PKGS:
        assert (s["ib"] / "packages" / name).read_bytes() == (s["ipks"] / name).read_bytes()
    # the overlay: the integrator's files, the keys (private ones 0600) and the first-boot settings
    assert tree(work / "files") == {
        "etc/config/network": 0o644, "etc/wislice/ap-agent.secret": 0o600, "etc/wislice/ca.pem": 0o644,
        "etc/wislice/ap.pem": 0o644, "etc/wislice/ap.key": 0o600, "etc/uci-defaults/90-wislice": 0o755,
    }
    for name, key in (("ap-agent.secret", "secret"), ("ca.pem", "ca.pem"), ("ap.pem", "ap.pem"), ("ap.key", "ap.key")):
        assert (work / "files" / "etc" / "wislice" / name).read_bytes() == (s["keys"] / key).read_bytes()
    assert f"image: {work}/images" not in proc.stderr


def run_first_boot(s: dict[str, Path], shell: list[str]) -> dict[str, str]:
    """The generated uci-defaults script under `shell`, with a uci that records its batch input."""
    bin_dir = s["tmp"] / "bin"
    bin_dir.mkdir(exist_ok=True)
    record = s["tmp"] / "uci.batch"
    record.unlink(missing_ok=True)
    (bin_dir / "uci").write_text(f'#!/bin/sh\n[ "$1 $2" = "-q batch" ] || exit 3\ncat >>{record}\n')
    (bin_dir / "uci").chmod(0o755)
    script = s["work"] / "files" / "etc" / "uci-defaults" / "90-wislice"
    proc = subprocess.run([*shell, str(script)], capture_output=True, text=True, timeout=30,
                          env={"PATH": f"{bin_dir}:{os.environ['PATH']}"})
    if proc.returncode == 1 and "no MAC address" in proc.stderr:
        pytest.skip("this machine has no network device with a MAC address")
    assert proc.returncode == 0, proc.stderr
    out = {}
    for line in record.read_text().splitlines():
        if m := re.fullmatch(r"set ([\w.-]+)='(.*)'", line):
            out[m.group(1)] = m.group(2)
        else:
            assert re.fullmatch(r"commit wislice-(ap-agent|pofswitch)", line), line
    return out


@pytest.mark.parametrize("shell", SHELLS, ids=" ".join)
def test_first_boot_settings(setup, shell):
    s = setup
    assert build(s, args(s, **{"--tls-cert": str(s["keys"] / "ap.pem"),
                               "--tls-key": str(s["keys"] / "ap.key")})).returncode == 0
    uci = run_first_boot(s, shell)
    hexmac = uci.pop("wislice-ap-agent.agent.agent_id").removeprefix("ap-")
    assert re.fullmatch(r"[0-9a-f]{12}", hexmac) and hexmac != "0" * 12
    assert int(uci.pop("wislice-pofswitch.switch.dev_id")) == 0x1000000 + int(hexmac[6:], 16)
    assert uci == {
        "wislice-ap-agent.agent.controller_host": "ctl.example.org",
        "wislice-ap-agent.agent.secret_file": "/etc/wislice/ap-agent.secret",
        "wislice-ap-agent.agent.tls": "1", "wislice-ap-agent.agent.tls_ca_file": "/etc/wislice/ca.pem",
        "wislice-ap-agent.agent.tls_cert_file": "/etc/wislice/ap.pem",
        "wislice-ap-agent.agent.tls_key_file": "/etc/wislice/ap.key",
        "wislice-ap-agent.agent.enabled": "1",
        "wislice-pofswitch.switch.controller_host": "ctl.example.org", "wislice-pofswitch.switch.enabled": "1",
    }


def test_no_tls_is_explicit(setup):
    s = setup
    assert build(s, args(s, **{"--tls-ca": None, "--no-tls": ""})).returncode == 0
    assert "etc/wislice/ca.pem" not in tree(s["work"] / "files")
    if SHELLS:
        uci = run_first_boot(s, SHELLS[0])
        assert uci["wislice-ap-agent.agent.tls"] == "0" and "wislice-ap-agent.agent.tls_ca_file" not in uci


def test_first_boot_script_is_shellcheck_clean(setup):
    if shutil.which("shellcheck") is None:
        pytest.skip("shellcheck is not installed")
    s = setup
    assert build(s, args(s)).returncode == 0
    proc = subprocess.run(["shellcheck", "--shell=dash", str(s["work"] / "files/etc/uci-defaults/90-wislice")],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stdout


def test_dry_run_prints_and_builds_nothing(setup):
    s = setup
    proc = build(s, [*args(s), "--dry-run"])
    assert proc.returncode == 0, proc.stderr
    assert [c[-1] if c[-1] == "info" else c[2] for c in make_calls(s)] == ["info"]
    assert "+ make -C" in proc.stdout and not list((s["ib"] / "packages").iterdir())


def break_ib_makefile(s):
    (s["ib"] / "Makefile").write_text("all:\n")


def apk_ib(s):
    with (s["ib"] / ".config").open("a") as f:
        f.write("CONFIG_USE_APK=y\n")


def no_pofswitch(s):
    (s["ipks"] / PKGS[1]).unlink()


def wrong_arch(s):
    (s["ipks"] / PKGS[1]).rename(s["ipks"] / "wislice-pofswitch_0.1.0-r1_mips_24kc.ipk")


def empty_key(s):
    (s["keys"] / "ap.key").write_text("")


TLS_PAIR = {"--tls-cert": "{keys}/ap.pem", "--tls-key": "{keys}/ap.key"}


@pytest.mark.parametrize(("change", "prepare", "message"), [
    ({"--imagebuilder": "{tmp}/nowhere"}, None, "--imagebuilder {tmp}/nowhere: no such directory"),
    ({"--imagebuilder": "{tmp}/openwrt-imagebuilder-x.tar.zst"}, None, "is a tarball: extract it first"),
    ({}, break_ib_makefile, "is not an OpenWrt ImageBuilder"),
    ({}, apk_ib, "builds with apk packages"),
    ({"--profile": "linksys_wrt3200acm"}, None,
     "profile 'linksys_wrt3200acm' is not in this ImageBuilder (x86/64); it has: generic tplink_archer-c7-v5"),
    ({"--profile": None}, None, "--imagebuilder, --profile, --controller and --secret are required"),
    ({"--secret": "{keys}/missing"}, None, "--secret: no such file: {keys}/missing"),
    ({"--tls-ca": None}, None, "--tls-ca FILE is required"),
    ({"--tls-ca": "{keys}/nope.pem"}, None, "--tls-ca: no such file: {keys}/nope.pem"),
    ({"--tls-cert": "{keys}/ap.pem"}, None, "--tls-cert and --tls-key go together"),
    (TLS_PAIR, empty_key, "--tls-key: {keys}/ap.key is empty"),
    ({"--no-tls": ""}, None, "--no-tls with --tls-* options"),
    ({"--ipk-dir": None}, None, "--ipk-dir DIR (the WiSlice .ipk files for x86_64) or --sdk"),
    ({}, no_pofswitch, "no wislice-pofswitch_*.ipk in"),
    ({}, wrong_arch, "wislice-pofswitch_0.1.0-r1_mips_24kc.ipk is not for this ImageBuilder's architecture x86_64"),
    ({"--controller": "ctl;reboot"}, None, "bad --controller 'ctl;reboot'"),
])
def test_bad_input_is_a_clear_error_before_any_image(setup, change, prepare, message):
    s = setup
    fill = {"tmp": s["tmp"], "keys": s["keys"]}
    if prepare:
        prepare(s)
    proc = build(s, args(s, **{k: v.format(**fill) if v else v for k, v in change.items()}))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert message.format(**fill) in proc.stderr
    assert not any("image" in call for call in make_calls(s))
    assert not list((s["ib"] / "packages").iterdir()) if (s["ib"] / "packages").is_dir() else True
