"""One feed package Makefile -> its .ipk files. The files come from the Makefile's own recipes: for a Py3Package
(the ap-agent) its Build/Prepare and Build/Compile, then what the packages feed's python3-package.mk does around
Py3Package/<name>/install (the site-packages tree, byte-compiled, sources only in <name>-src); for a meson package
(the pof-switch) its Package/<name>/install over a meson build directory built elsewhere (pof-switch's own build)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from . import archive
from .makefile import Makefile, MakefileError, expand, fields, parse, text
from .recipe import Recipe, RecipeError, normal_mode

# The feed's name in the SDK (image/build-image.sh: src-link wislice): OpenWrt's Source field is its path there.
FEED_NAME = "wislice"
# Package/<name> fields carried into the control file or only shown in menuconfig; any other is refused.
KNOWN_FIELDS = {"SECTION", "CATEGORY", "SUBMENU", "TITLE", "PKGARCH", "DEPENDS", "URL", "MAINTAINER"}
# ELF e_machine per OpenWrt package architecture prefix: a binary built for another machine is refused.
ELF_MACHINES = {"x86_64": 62, "i386": 3, "aarch64": 183, "arm": 40, "mips": 8, "riscv64": 243}


class BuildError(Exception):
    pass


@dataclass
class Options:
    feed: Path
    src: Path  # the WiSlice tree (WISLICE_SRC_DIR)
    out: Path
    work: Path  # scratch space, emptied per package
    arch: str  # PKGARCH of packages that do not say `all` (the SDK target's ARCH_PACKAGES)
    python: str  # the target's python3 (same minor version): byte-compiles the Python packages
    meson_build_dir: Path | None
    mtime: int


def python_version(python: str) -> str:
    proc = subprocess.run([python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                          capture_output=True, text=True, timeout=60)
    if proc.returncode != 0:
        raise BuildError(f"cannot run the target python {python}: {proc.stderr.strip()}")
    return proc.stdout.strip()


def depends(value: str, where: str) -> str:
    """DEPENDS as the control file writes it: libc first (OpenWrt's default dependency), `+` dropped, `@` (menu
    conditions) left out, comma separated."""
    out = ["libc"]
    for word in value.split():
        if word.startswith("@"):
            continue
        if ":" in word or "(" in word:
            raise BuildError(f"{where}: conditional dependency not implemented: {word}")
        name = word.lstrip("+")
        if name not in out:
            out.append(name)
    return ", ".join(out)


def elf_machine(path: Path) -> int | None:
    head = path.read_bytes()[:20]
    if head[:4] != b"\x7fELF":
        return None
    return int.from_bytes(head[18:20], "little" if head[5] == 1 else "big")


def check_machine(root: Path, pkg: str, arch: str) -> None:
    want = next((m for prefix, m in ELF_MACHINES.items() if arch.startswith(prefix)), None)
    for p in sorted(root.rglob("*")):
        if not p.is_file() or (machine := elf_machine(p)) is None:
            continue
        if arch == "all":
            raise BuildError(f"{pkg}: Architecture all but {p.relative_to(root)} is a compiled program")
        if want is not None and machine != want:
            raise BuildError(f"{pkg}: {p.relative_to(root)} is built for ELF machine {machine}, not {arch}")


class MakefileBuild:
    def __init__(self, mk: Makefile, opts: Options) -> None:
        self.mk, self.opts = mk, opts
        a = mk.assignments
        self.name = a.get("PKG_NAME", "")
        if not re.fullmatch(r"[a-z0-9][a-z0-9.+-]*", self.name):
            raise BuildError(f"{mk.path}: bad or missing PKG_NAME {self.name!r}")
        for var in ("PKG_VERSION", "PKG_RELEASE", "PKG_LICENSE", "PKG_MAINTAINER"):
            if not a.get(var):
                raise BuildError(f"{mk.path}: {var} is not set")
        self.version = f"{a['PKG_VERSION']}-r{a['PKG_RELEASE']}"
        self.work = opts.work / self.name
        shutil.rmtree(self.work, ignore_errors=True)
        build_dir = self.work / "build" / f"{self.name}-{a['PKG_VERSION']}"
        self.variables = {**a, "WISLICE_SRC_DIR": str(opts.src), "PKG_BUILD_DIR": str(build_dir),
                          "PKG_INSTALL_DIR": str(build_dir / "ipkg-install"), "CURDIR": str(mk.directory)}
        build_dir.mkdir(parents=True)
        self.py3 = any(mk.is_py3package(p) for p in mk.packages())
        if self.py3:
            if a.get("PYTHON3_PKG_BUILD") != "0":
                raise BuildError(f"{mk.path}: only Py3Packages with PYTHON3_PKG_BUILD:=0 (no setup.py) are built here")
            self.variables["PYTHON3_PKG_DIR"] = f"/usr/lib/python{python_version(opts.python)}/site-packages"

    def recipe(self, *writable: Path) -> Recipe:
        return Recipe(self.mk, self.variables, [self.work, *writable])

    def compile(self) -> None:
        if self.py3:
            for step in ("Build/Prepare", "Build/Compile"):
                self.recipe().run(step)
        elif self.mk.includes_meson():
            self.meson_products()
        else:
            raise BuildError(f"{self.mk.path}: neither a Py3Package nor a meson package: no way to build it here")

    def meson_products(self) -> None:
        """The programs Build/Compile asks meson for must be in the given meson build directory."""
        build = self.opts.meson_build_dir
        if build is None:
            raise BuildError(f"{self.name} is built by meson: give its build directory (--meson-build-dir)")
        self.variables["MESON_BUILD_DIR"] = str(build)
        compile_ = " ".join(line.text for line in self.mk.define("Build/Compile") or [])
        targets = [t for m in re.finditer(r"\$\(call Build/Compile/Meson,([^)]*)\)", compile_)
                   for t in m.group(1).split()]
        for t in targets:
            if not (build / t).is_file():
                raise BuildError(f"{self.name}: {t} is not built in {build} (build it first, e.g. make -C "
                                 f"{build.parent.name} build)")

    def stage(self, pkg: str) -> Path:
        root = self.work / "root" / pkg
        root.mkdir(parents=True)
        main = pkg.removesuffix("-src")
        if self.py3 and self.mk.is_py3package(main):
            self.stage_py3(main, root, sources=pkg != main)
        else:
            if self.mk.define(f"Package/{pkg}/install") is None:
                raise BuildError(f"{self.mk.path}: package {pkg} has no Package/{pkg}/install")
            self.recipe(root).run(f"Package/{pkg}/install", {"1": str(root)})
        for p in [root, *root.rglob("*")]:
            if p.is_dir():
                p.chmod(0o755)
        return root

    def stage_py3(self, main: str, root: Path, sources: bool) -> None:
        """python3-package.mk's Package/<name>/install and Package/<name>-src/install for the default filespec."""
        if self.mk.define(f"Py3Package/{main}/filespec") is not None:
            raise BuildError(f"{self.mk.path}: a custom Py3Package filespec is not implemented")
        if self.mk.define(f"Py3Package/{main}/install") is not None:
            self.recipe(root).run(f"Py3Package/{main}/install", {"1": str(root)})
        site = self.variables["PYTHON3_PKG_DIR"]
        staged = Path(self.variables["PKG_INSTALL_DIR"] + site)
        if staged.is_dir():
            shutil.copytree(staged, root / site.lstrip("/"), dirs_exist_ok=True, copy_function=shutil.copyfile)
            for p in staged.rglob("*"):
                if p.is_file():
                    (root / site.lstrip("/") / p.relative_to(staged)).chmod(normal_mode(p))
        if sources:  # Python3/DeleteNonSourceFiles
            for p in [p for p in root.rglob("*") if p.is_file() and p.suffix != ".py"]:
                p.unlink()
        else:
            for p in root.rglob("*.exe"):
                p.unlink()
            self.byte_compile(root)
            for p in root.rglob("*.py"):
                p.unlink()
            for p in root.rglob("*.pyc"):
                p.chmod(0o644)
            self.fix_shebangs(root / "usr" / "bin")
        # Python3/DeleteEmptyDirs, deepest first
        for p in sorted((p for p in root.rglob("*") if p.is_dir()), key=lambda p: len(p.parts), reverse=True):
            if not any(p.iterdir()):
                p.rmdir()

    def byte_compile(self, root: Path) -> None:
        # A fixed hash seed (as OpenWrt's Python3/CompileAll) and hash-based .pyc: the bytes follow the sources only.
        env = {**os.environ, "PYTHONHASHSEED": "0", "SOURCE_DATE_EPOCH": str(self.opts.mtime)}
        env.pop("PYTHONPATH", None)
        proc = subprocess.run([self.opts.python, "-m", "compileall", "-q", "-r", "20", "-b", "-d", "/",
                               "--invalidation-mode", "checked-hash", str(root)],
                              capture_output=True, text=True, env=env, timeout=300)
        if proc.returncode != 0:
            raise BuildError(f"{self.name}: byte-compiling failed:\n{proc.stdout}{proc.stderr}")

    @staticmethod
    def fix_shebangs(bindir: Path) -> None:
        """Python3/FixShebang: a python script in /usr/bin runs /usr/bin/python3."""
        for p in sorted(bindir.glob("*")) if bindir.is_dir() else []:
            data = p.read_bytes()
            first, nl, rest = data.partition(b"\n")
            if first.startswith(b"#!") and b"python" in first:
                p.write_bytes(b"#!/usr/bin/python3" + nl + rest)

    def package_fields(self, pkg: str) -> tuple[dict[str, str], str]:
        main = pkg.removesuffix("-src")
        if pkg != main and self.mk.is_py3package(main):
            f = fields(self.mk.define(f"Package/{main}"))
            f["DEPENDS"] = ""
            f["TITLE"] = f.get("TITLE", "") + " (sources)"
            desc = (text(self.mk.define(f"Package/{main}/description"))
                    + f"\n\nThis package contains the Python source files for {main}.")
            return f, desc
        body = self.mk.define(f"Package/{pkg}")
        if body is None:
            raise BuildError(f"{self.mk.path}: no define Package/{pkg}")
        return fields(body), text(self.mk.define(f"Package/{pkg}/description"))

    def write(self, pkg: str, root: Path) -> Path:
        for script in ("preinst", "postinst", "prerm", "postrm"):
            if self.mk.define(f"Package/{pkg}/{script}") is not None:
                raise BuildError(f"{self.mk.path}: Package/{pkg}/{script} is not implemented here")
        f, desc = self.package_fields(pkg)
        unknown = set(f) - KNOWN_FIELDS
        if unknown:
            raise BuildError(f"{self.mk.path}: Package/{pkg} fields not implemented here: {sorted(unknown)}")
        where = f"{self.mk.path}: Package/{pkg}"
        f = {k: expand(v, self.variables, where) for k, v in f.items()}
        if not desc:
            raise BuildError(f"{where} has no description")
        arch = f.get("PKGARCH") or self.opts.arch
        check_machine(root, pkg, arch)
        conffiles = text(self.mk.define(f"Package/{pkg}/conffiles")).split()
        for c in conffiles:
            if not (root / c.lstrip("/")).is_file():
                raise BuildError(f"{pkg}: conffile {c} is not installed by Package/{pkg}/install")
        members = archive.tree_members(root)
        data_tar = archive.tar_bytes(members, self.opts.mtime)
        a = self.variables
        control = archive.control_text([
            ("Package", pkg), ("Version", self.version), ("Depends", depends(f.get("DEPENDS", ""), where)),
            ("Source", f"feeds/{FEED_NAME}/{self.mk.directory.parent.name}/{self.name}"),
            ("SourceName", self.name), ("License", a["PKG_LICENSE"]), ("Section", f.get("SECTION", "opt")),
            ("SourceDateEpoch", str(self.opts.mtime)), ("URL", f.get("URL", "")),
            ("Maintainer", f.get("MAINTAINER") or a["PKG_MAINTAINER"]), ("Architecture", arch),
            ("Installed-Size", str(len(data_tar))),
        ], desc)
        ipk = archive.ipk_bytes(archive.control_members(control, conffiles), data_tar, self.opts.mtime)
        for old in self.opts.out.glob(f"{pkg}_*.ipk"):
            old.unlink()
        path = self.opts.out / f"{pkg}_{self.version}_{arch}.ipk"
        path.write_bytes(ipk)
        return path


def build_feed(opts: Options) -> list[Path]:
    makefiles = sorted(opts.feed.glob("*/*/Makefile"))
    if not makefiles:
        raise BuildError(f"no package Makefiles in {opts.feed} (<category>/<package>/Makefile)")
    opts.out.mkdir(parents=True, exist_ok=True)
    built = []
    try:
        for path in makefiles:
            b = MakefileBuild(parse(path), opts)
            b.compile()
            for pkg in b.mk.packages():
                built.append(b.write(pkg, b.stage(pkg)))
    except (MakefileError, RecipeError) as e:
        raise BuildError(str(e)) from None
    finally:
        shutil.rmtree(opts.work, ignore_errors=True)
    return built
