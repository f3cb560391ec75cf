"""Running a feed package Makefile through the SDK stand-in in sdk/ (see sdk/rules.mk): its own Build/Prepare,
Build/Configure, Build/Compile and Package/<name>/install recipes, on the host, each package staged as the root
file system its .ipk would hold."""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
from owrt import PACKAGES

SDK = Path(__file__).resolve().parent / "sdk"

# Variables of an outer make (`make test-integration`) or of the developer's shell that would change what the
# package Makefiles do: they must find the sources from their own location, as in an SDK with the feed linked.
SCRUB_ENV = ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES", "WISLICE_SRC_DIR", "USE_SOURCE_DIR", "DESTDIR")


def host_python() -> str:
    """The interpreter that byte-compiles the ap-agent package and then runs it (the .pyc must match): the host's
    own python3 rather than the test venv's, unless WISLICE_HOST_PYTHON3 names one."""
    chosen = os.environ.get("WISLICE_HOST_PYTHON3")
    if chosen:
        return chosen
    if os.access("/usr/bin/python3", os.X_OK):
        return "/usr/bin/python3"
    found = shutil.which("python3")
    if found is None:
        pytest.skip("no python3 on the host")
    return found


def need(program: str) -> None:
    if shutil.which(program) is None:
        pytest.skip(f"{program} is not installed (openwrt/deps/apt.txt; run `make deps`)")


@dataclass
class Staged:
    """One package Makefile run through the SDK stand-in: its build tree and its staged packages."""

    name: str
    build_dir: Path
    stage_dir: Path
    make_log: str

    def root(self, package: str | None = None) -> Path:
        """The staged root file system of `package` (default: the Makefile's main package)."""
        return self.stage_dir / (package or self.name)

    def conffiles(self, package: str | None = None) -> list[str]:
        text = (self.stage_dir / f"{package or self.name}.conffiles").read_text()
        return text.split()

    def var(self, name: str) -> str:
        """A make variable as the package Makefile leaves it (after the SDK includes and its own assignments)."""
        return sdk_make(self.name, self.build_dir, self.stage_dir, f"print-{name}", silent=True).stdout.strip()


def sdk_make(package: str, build_dir: Path, stage_dir: Path, *targets: str,
             silent: bool = False) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in SCRUB_ENV}
    argv = ["make", "--no-print-directory", *(["-s"] if silent else []), "-C", str(PACKAGES[package]),
            f"TOPDIR={SDK}", f"BUILD_DIR={build_dir}", f"STAGE_DIR={stage_dir}", f"HOST_PYTHON3_BIN={host_python()}",
            *targets]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=240, env=env)
    if proc.returncode != 0:
        pytest.fail(f"{' '.join(argv)} failed ({proc.returncode}):\n{proc.stdout[-6000:]}\n{proc.stderr[-6000:]}",
                    pytrace=False)
    return proc


def stage(package: str, tmp: Path) -> Staged:
    need("make")
    build_dir, stage_dir = tmp / "build_dir", tmp / "stage"
    proc = sdk_make(package, build_dir, stage_dir, "stage")
    return Staged(package, build_dir, stage_dir, proc.stdout + proc.stderr)
