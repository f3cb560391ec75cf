"""The two readers of the package Makefiles agree: what `python -m ipk` packs (the .ipk data, unpacked by tar) is
what the Makefiles stage when GNU make runs them through the SDK stand-in (pkgstage.py): the same files, the same
modes, the same bytes (the byte code aside: the stand-in compiles with source timestamps, the .ipk by hash), and
the same conffiles."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from owrt import OPENWRT
from pkgstage import Staged, host_python

pytestmark = pytest.mark.integration


def build_ipks(tmp: Path, meson_build_dir: Path) -> dict[str, Path]:
    proc = subprocess.run([sys.executable, "-m", "ipk", "--out", str(tmp / "out"), "--python", host_python(),
                           "--meson-build-dir", str(meson_build_dir), "--mtime", "1700000000"],
                          cwd=OPENWRT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return {Path(p).name.split("_")[0]: Path(p) for p in proc.stdout.split()}


def unpacked(ipk: Path, into: Path) -> tuple[Path, list[str]]:
    (into / "outer").mkdir(parents=True)
    (into / "data").mkdir()
    (into / "control").mkdir()
    subprocess.run(["tar", "-xzf", str(ipk), "-C", str(into / "outer")], check=True, timeout=60)
    subprocess.run(["tar", "-xzf", str(into / "outer" / "data.tar.gz"), "-C", str(into / "data")], check=True)
    subprocess.run(["tar", "-xzf", str(into / "outer" / "control.tar.gz"), "-C", str(into / "control")], check=True)
    conffiles = into / "control" / "conffiles"
    return into / "data", conffiles.read_text().split() if conffiles.exists() else []


def listing(root: Path) -> dict[str, tuple[int, bytes | None]]:
    out: dict[str, tuple[int, bytes | None]] = {}
    for p in sorted(root.rglob("*")):
        if p.is_file():
            out[str(p.relative_to(root))] = (p.stat().st_mode & 0o777, None if p.suffix == ".pyc" else p.read_bytes())
    return out


def compare(staged: Staged, ipks: dict[str, Path], package: str, tmp: Path) -> None:
    data, conffiles = unpacked(ipks[package], tmp / package)
    ours, theirs = listing(data), listing(staged.root(package))
    assert sorted(ours) == sorted(theirs)
    for name, (mode, content) in theirs.items():
        assert ours[name][0] == mode, f"{package}: {name}: mode {ours[name][0]:o}, staged {mode:o}"
        assert ours[name][1] == content, f"{package}: {name} differs"
    assert conffiles == staged.conffiles(package)


def test_ap_agent_ipks_hold_what_the_sdk_stages(ap_agent_pkg: Staged, tmp_path: Path):
    # the stand-in compiles with the host python: so does this build, into the same site-packages
    fake_meson = tmp_path / "meson"
    fake_meson.mkdir()
    shutil.copyfile(shutil.which("true") or "/bin/true", fake_meson / "pofswitch-afp")
    ipks = build_ipks(tmp_path, fake_meson)
    for package in ("wislice-ap-agent", "wislice-ap-agent-src"):
        compare(ap_agent_pkg, ipks, package, tmp_path)


def test_pofswitch_ipk_holds_what_the_sdk_stages(pofswitch_pkg: Staged, tmp_path: Path):
    # the program the stand-in built with the package's meson options, packed by the ipk builder
    ipks = build_ipks(tmp_path, Path(pofswitch_pkg.var("MESON_BUILD_DIR")))
    compare(pofswitch_pkg, ipks, "wislice-pofswitch", tmp_path)
