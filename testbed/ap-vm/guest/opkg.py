"""opkg for the AP VM: installs and removes the feed's .ipk files as OpenWrt's opkg (opkg-lede) does.

    opkg [-o ROOT] install [--force-reinstall] [--force-depends] [--force-downgrade] FILE.ipk...
    opkg [-o ROOT] remove [--force-depends] PKG...
    opkg [-o ROOT] list-installed
    opkg [-o ROOT] files PKG

Only local package files (there is no feed to download from in the VM). A package file is OpenWrt's gzip'd tar or
the ar archive of Debian/Yocto's opkg, each holding debian-binary, control.tar.gz and data.tar.gz. The whole file
is read and unpacked into a staging directory before anything in the root changes, so a broken or truncated
archive, an unsafe member name or an unmet dependency leaves the system as it was. As opkg-lede:
- --force-reinstall removes the named packages first (their prerm/postrm "remove" run), then installs them;
- a conffile the admin changed (its hash differs from the one recorded at install) is kept, the package's version
  goes beside it as FILE-opkg;
- maintainer scripts run from /usr/lib/opkg/info/<pkg>.<script> (preinst from the staging directory) with
  IPKG_INSTROOT (empty on the device, the root with -o, where the scripts only enable services), PKG_ROOT and,
  on an upgrade, PKG_UPGRADE=1;
- the state is /usr/lib/opkg/status (Package, Version, Depends, Provides, Status, Architecture, Conffiles with the
  sha256 of the package's version, Installed-Time) and /usr/lib/opkg/info/<pkg>.{control,list,conffiles,...}.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import io
import os
import re
import shutil
import stat
import subprocess
import sys
import tarfile
import tempfile
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path

SCRIPTS = ("preinst", "postinst", "prerm", "postrm")
STATUS_FIELDS = ("Package", "Version", "Depends", "Provides", "Status", "Architecture", "Conffiles",
                 "Installed-Time")
BAD_ARCHIVE = (tarfile.TarError, EOFError, OSError, zlib.error, ValueError)


class OpkgError(Exception):
    """A refused operation, reported as one line and exit status 255 (opkg's)."""


@dataclass
class Staged:
    """One package file unpacked into its staging directory, checked, not installed yet."""
    path: Path
    dir: Path
    control: dict[str, str]
    conffiles: list[str]
    entries: list[tuple[str, str]] = field(default_factory=list)  # (path in the root, "d" | "f" | "l")

    @property
    def name(self) -> str:
        return self.control["Package"]

    @property
    def version(self) -> str:
        return self.control["Version"]


# --- reading package files ----------------------------------------------------------------------------------------

def outer_members(path: Path) -> dict[str, bytes]:
    raw = path.read_bytes()
    members: dict[str, bytes] = {}
    if raw.startswith(b"!<arch>\n"):
        pos = 8
        while pos < len(raw):
            header = raw[pos:pos + 60]
            if len(header) < 60 or header[58:60] != b"`\n":
                raise OpkgError(f"{path}: broken ar archive (bad member header at byte {pos})")
            name = header[:16].decode("ascii", "replace").strip().rstrip("/")
            size = int(header[48:58].decode("ascii").strip() or "0")
            body = raw[pos + 60:pos + 60 + size]
            if len(body) < size:
                raise OpkgError(f"{path}: truncated ar archive (member {name})")
            members[name] = body
            pos += 60 + size + (size & 1)
    elif raw.startswith(b"\x1f\x8b"):
        try:
            with tarfile.open(fileobj=io.BytesIO(gzip.decompress(raw)), mode="r:") as tar:
                for info in tar:
                    f = tar.extractfile(info) if info.isfile() else None
                    if f is not None:
                        members[info.name.removeprefix("./")] = f.read()
        except BAD_ARCHIVE as exc:
            raise OpkgError(f"{path}: broken package archive ({exc or type(exc).__name__})") from None
    else:
        raise OpkgError(f"{path}: not a package file (neither a gzip'd tar nor an ar archive)")
    if members.get("debian-binary", b"").strip() != b"2.0":
        raise OpkgError(f"{path}: no debian-binary 2.0 member: not an .ipk")
    for part in ("control.tar.gz", "data.tar.gz"):
        if part not in members:
            raise OpkgError(f"{path}: no {part} member")
    return members


def safe_name(name: str, where: str) -> str:
    """A member name as an absolute path in the root; refuses names that climb out of it."""
    rel = name.removeprefix("./").rstrip("/")
    if name.startswith("/") or any(part == ".." for part in rel.split("/")):
        raise OpkgError(f"{where}: unsafe member name {name!r}")
    return "/" + rel if rel else "/"


def unpack_tar(blob: bytes, dest: Path, where: str) -> list[tuple[str, str]]:
    """Directories, regular files and symlinks of a gzip'd tar into dest; anything else is refused."""
    entries: list[tuple[str, str]] = []
    try:
        with tarfile.open(fileobj=io.BytesIO(gzip.decompress(blob)), mode="r:") as tar:
            for info in tar:
                target = safe_name(info.name, where)
                out = dest / target.lstrip("/") if target != "/" else dest
                if info.isdir():
                    out.mkdir(parents=True, exist_ok=True)
                    out.chmod(stat.S_IMODE(info.mode) or 0o755)
                    entries.append((target, "d"))
                elif info.isfile():
                    out.parent.mkdir(parents=True, exist_ok=True)
                    src = tar.extractfile(info)
                    assert src is not None
                    out.write_bytes(src.read())
                    out.chmod(stat.S_IMODE(info.mode))
                    entries.append((target, "f"))
                elif info.issym():
                    out.parent.mkdir(parents=True, exist_ok=True)
                    out.symlink_to(info.linkname)
                    entries.append((target, "l"))
                else:
                    raise OpkgError(f"{where}: member {info.name!r} is neither a file, a directory nor a symlink")
    except BAD_ARCHIVE as exc:
        raise OpkgError(f"{where}: broken archive ({exc or type(exc).__name__})") from None
    return entries


def parse_control(text: str) -> dict[str, str]:
    fields: dict[str, str] = {}
    key = ""
    for line in text.splitlines():
        if line.startswith((" ", "\t")) and key:
            fields[key] += "\n" + line
        elif ":" in line:
            key, value = line.split(":", 1)
            fields[key.strip()] = value.strip()
    return fields


def stage(path: Path, tmp: Path) -> Staged:
    if not path.is_file():
        raise OpkgError(f"{path}: no such package file")
    members = outer_members(path)
    sdir = Path(tempfile.mkdtemp(prefix="pkg-", dir=tmp))
    (sdir / "control").mkdir()
    (sdir / "data").mkdir()
    unpack_tar(members["control.tar.gz"], sdir / "control", f"{path}: control.tar.gz")
    ctl_file = sdir / "control" / "control"
    if not ctl_file.is_file():
        raise OpkgError(f"{path}: control.tar.gz has no control file")
    control = parse_control(ctl_file.read_text())
    for key in ("Package", "Version", "Architecture"):
        if not control.get(key):
            raise OpkgError(f"{path}: control file without {key}")
    if not re.fullmatch(r"[a-z0-9][a-z0-9+.-]*", control["Package"]):
        raise OpkgError(f"{path}: bad package name {control['Package']!r}")
    conf = sdir / "control" / "conffiles"
    conffiles = [c.strip() for c in conf.read_text().splitlines() if c.strip()] if conf.is_file() else []
    entries = unpack_tar(members["data.tar.gz"], sdir / "data", f"{path}: data.tar.gz")
    files = {p for p, kind in entries if kind == "f"}
    for c in conffiles:
        if c not in files:
            raise OpkgError(f"{path}: conffile {c} is not a file of the package")
    return Staged(path, sdir, control, conffiles, entries)


# --- versions (dpkg's ordering, which opkg uses) -------------------------------------------------------------------

def _order(c: str) -> int:
    if c == "~":
        return -1
    if c.isdigit():
        return 0
    if c.isalpha():
        return ord(c)
    return ord(c) + 256


def _verrevcmp(a: str, b: str) -> int:
    i = j = 0
    while i < len(a) or j < len(b):
        while (i < len(a) and not a[i].isdigit()) or (j < len(b) and not b[j].isdigit()):
            ac = _order(a[i]) if i < len(a) and not a[i].isdigit() else 0
            bc = _order(b[j]) if j < len(b) and not b[j].isdigit() else 0
            if ac != bc:
                return ac - bc
            i, j = i + 1, j + 1
        m = re.match(r"\d*", a[i:]).group()  # type: ignore[union-attr]
        n = re.match(r"\d*", b[j:]).group()  # type: ignore[union-attr]
        i, j = i + len(m), j + len(n)
        if int(m or 0) != int(n or 0):
            return int(m or 0) - int(n or 0)
    return 0


def compare_versions(a: str, b: str) -> int:
    def split(v: str) -> tuple[int, str, str]:
        epoch, _, rest = v.rpartition(":") if ":" in v else ("0", "", v)
        upstream, _, rev = rest.rpartition("-") if "-" in rest else (rest, "", "")
        return int(epoch or 0), upstream, rev
    (ea, ua, ra), (eb, ub, rb) = split(a), split(b)
    return (ea - eb) or _verrevcmp(ua, ub) or _verrevcmp(ra, rb)


# --- the installed state --------------------------------------------------------------------------------------------

class Opkg:
    def __init__(self, root: Path, offline: bool) -> None:
        self.root = root
        self.offline = offline
        self.info = root / "usr/lib/opkg/info"
        self.status_file = root / "usr/lib/opkg/status"
        self.status = self.read_status()

    def read_status(self) -> dict[str, dict[str, str]]:
        if not self.status_file.exists():
            return {}
        return {f["Package"]: f for f in (parse_control(p) for p in self.status_file.read_text().split("\n\n"))
                if "Package" in f}

    def write_status(self) -> None:
        self.status_file.parent.mkdir(parents=True, exist_ok=True)
        text = "".join("".join(f"{k}:{'' if fields[k].startswith(chr(10)) else ' '}{fields[k]}\n"
                               for k in STATUS_FIELDS if fields.get(k)) + "\n"
                       for fields in self.status.values())
        tmp = self.status_file.with_name("status.tmp")
        tmp.write_text(text)
        os.replace(tmp, self.status_file)

    def path(self, target: str) -> Path:
        return self.root / target.lstrip("/")

    def provided(self) -> set[str]:
        names = set(self.status)
        for fields in self.status.values():
            names.update(p.split("(")[0].strip() for p in fields.get("Provides", "").split(",") if p.strip())
        return names

    def recorded_conffiles(self, pkg: str) -> dict[str, str]:
        lines = self.status.get(pkg, {}).get("Conffiles", "").split("\n")
        return dict(line.split()[:2] for line in lines if len(line.split()) >= 2)  # type: ignore[misc]

    def files(self, pkg: str) -> list[str]:
        lst = self.info / f"{pkg}.list"
        return lst.read_text().split() if lst.exists() else []

    # --- scripts --------------------------------------------------------------------------------------------------

    def run_script(self, pkg: str, script: Path, *args: str, upgrade: bool = False) -> None:
        if not script.exists():
            return
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        env.update(PKG_ROOT=str(self.root), IPKG_INSTROOT=str(self.root) if self.offline else "",
                   IPKG_OFFLINE_ROOT=str(self.root) if self.offline else "")
        if upgrade:
            env["PKG_UPGRADE"] = "1"
        res = subprocess.run(["/bin/sh", str(script), *args], env=env)
        if res.returncode != 0:
            raise OpkgError(f"{pkg}: {script.name.rpartition('.')[2]} script returned status {res.returncode}")

    # --- remove ---------------------------------------------------------------------------------------------------

    def remove(self, pkg: str, force_depends: bool) -> None:
        if pkg not in self.status:
            say(f"No packages removed.\nPackage {pkg} is not installed.")
            return
        users = [p for p, f in self.status.items() if p != pkg and pkg in dep_names(f.get("Depends", ""))]
        if users and not force_depends:
            raise OpkgError(f"Package {pkg} is depended upon by packages: {', '.join(users)}; "
                            "remove them first or give --force-depends")
        say(f"Removing package {pkg} from root...")
        self.run_script(pkg, self.info / f"{pkg}.prerm", "remove")
        recorded = self.recorded_conffiles(pkg)
        for target in self.files(pkg):
            p = self.path(target)
            if target in recorded and p.is_file() and sha256(p) != recorded[target]:
                say(f"Not deleting modified conffile {target}.")
                continue
            if p.is_symlink() or p.is_file():
                p.unlink()  # directories stay, as opkg's file lists name files only
        self.run_script(pkg, self.info / f"{pkg}.postrm", "remove")
        for f in self.info.glob(f"{pkg}.*"):
            f.unlink()
        del self.status[pkg]
        self.write_status()

    # --- install --------------------------------------------------------------------------------------------------

    def check_depends(self, pkgs: list[Staged]) -> None:
        have = self.provided() | {p.name for p in pkgs}
        for p in pkgs:
            have.update(x.split("(")[0].strip() for x in p.control.get("Provides", "").split(",") if x.strip())
        for p in pkgs:
            missing = [alt for alt in p.control.get("Depends", "").split(",") if alt.strip() and
                       not any(a.split("(")[0].strip() in have for a in alt.split("|"))]
            if missing:
                raise OpkgError(f"Cannot satisfy the following dependencies for {p.name}: "
                                f"{', '.join(m.strip() for m in missing)} (none is installed; --force-depends "
                                "installs anyway)")

    def install(self, pkg: Staged) -> None:
        old = self.status.get(pkg.name)
        upgrade = old is not None
        if old:
            say(f"Upgrading {pkg.name} on root from {old['Version']} to {pkg.version}...")
            self.run_script(pkg.name, pkg.dir / "control" / "preinst", "upgrade", old["Version"], upgrade=True)
        else:
            say(f"Installing {pkg.name} ({pkg.version}) to root...")
            self.run_script(pkg.name, pkg.dir / "control" / "preinst", "install")
        recorded = self.recorded_conffiles(pkg.name)
        old_files = set(self.files(pkg.name))
        conf_hashes: list[str] = []
        listed: list[str] = []
        for target, kind in pkg.entries:
            src = pkg.dir / "data" / target.lstrip("/")
            dst = self.path(target)
            if kind == "d":
                if not dst.is_dir():
                    dst.mkdir(parents=True)
                    dst.chmod(stat.S_IMODE(src.stat().st_mode))
                continue
            listed.append(target)
            dst.parent.mkdir(parents=True, exist_ok=True)
            if target in pkg.conffiles:
                new_hash = sha256(src)
                conf_hashes.append(f" {target} {new_hash}")
                changed = dst.is_file() and sha256(dst) != new_hash and sha256(dst) != recorded.get(target)
                if changed:
                    say(f"Existing conffile {target} is different from the conffile in the new package. "
                          f"The new conffile will be placed at {target}-opkg.")
                    put(src, dst.with_name(dst.name + "-opkg"))
                    continue
            put(src, dst)
        for gone in sorted(old_files - set(listed)):
            p = self.path(gone)
            if p.is_symlink() or p.is_file():
                p.unlink()
        self.info.mkdir(parents=True, exist_ok=True)
        for f in self.info.glob(f"{pkg.name}.*"):
            f.unlink()
        for f in (pkg.dir / "control").iterdir():
            shutil.copy2(f, self.info / f"{pkg.name}.{f.name}")
        (self.info / f"{pkg.name}.list").write_text("".join(f"{t}\n" for t in listed))
        fields = {k: pkg.control.get(k, "") for k in STATUS_FIELDS}
        fields.update(Status="install user installed", Conffiles="\n" + "\n".join(conf_hashes) if conf_hashes else "",
                      **{"Installed-Time": str(int(time.time()))})
        self.status[pkg.name] = fields
        self.write_status()
        say(f"Configuring {pkg.name}.")
        self.run_script(pkg.name, self.info / f"{pkg.name}.postinst", "configure", upgrade=upgrade)


def say(line: str) -> None:
    """Progress on stdout. An agent upgrading itself runs opkg with its stdout a pipe to itself, and the prerm stops
    the agent: the install goes on with its output dropped (C opkg would die of SIGPIPE half-way)."""
    try:
        print(line, flush=True)
    except OSError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # the maintainer scripts inherit fd 1 too
        os.close(devnull)


def dep_names(depends: str) -> set[str]:
    return {a.split("(")[0].strip() for alt in depends.split(",") for a in alt.split("|") if a.strip()}


def sha256(p: Path) -> str:
    return hashlib.sha256(p.read_bytes()).hexdigest()


def put(src: Path, dst: Path) -> None:
    """One file or symlink into place by rename: a reader sees the old or the new, never a partial file."""
    tmp = dst.with_name(f".{dst.name}.opkg-new")
    if tmp.is_symlink() or tmp.exists():
        tmp.unlink()
    if src.is_symlink():
        tmp.symlink_to(os.readlink(src))
    else:
        shutil.copyfile(src, tmp)
        tmp.chmod(stat.S_IMODE(src.stat().st_mode))
    if dst.is_dir() and not dst.is_symlink():
        raise OpkgError(f"{dst}: a directory is in the way of the package's file")
    os.replace(tmp, dst)


def install_order(pkgs: list[Staged]) -> list[Staged]:
    """Packages another one of the same command depends on go first."""
    return sorted(pkgs, key=lambda p: not any(p.name in dep_names(q.control.get("Depends", "")) for q in pkgs))


def cmd_install(opkg: Opkg, files: list[str], args: argparse.Namespace) -> None:
    tmp_root = Path(tempfile.mkdtemp(prefix="opkg-"))
    try:
        staged = [stage(Path(f), tmp_root) for f in files]  # every file checked before any change
        todo: list[Staged] = []
        for pkg in staged:
            old = opkg.status.get(pkg.name)
            if old and not args.force_reinstall:
                cmp = compare_versions(pkg.version, old["Version"])
                if cmp == 0:
                    say(f"Package {pkg.name} ({pkg.version}) installed in root is up to date.")
                    continue
                if cmp < 0 and not args.force_downgrade:
                    say(f"Not downgrading package {pkg.name} on root from {old['Version']} to {pkg.version}.")
                    continue
            todo.append(pkg)
        if not args.force_depends:
            opkg.check_depends(todo)
        if args.force_reinstall:
            for pkg in todo:
                opkg.remove(pkg.name, force_depends=True)
        for pkg in install_order(todo):
            opkg.install(pkg)
    finally:
        shutil.rmtree(tmp_root, ignore_errors=True)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="opkg", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-o", "--offline-root", help="install into this root (an image being built)")
    parser.add_argument("--force-reinstall", action="store_true")
    parser.add_argument("--force-depends", action="store_true")
    parser.add_argument("--force-downgrade", action="store_true")
    parser.add_argument("command", choices=["install", "remove", "list-installed", "files"])
    parser.add_argument("args", nargs="*")
    args = parser.parse_intermixed_args(argv)
    root = Path(args.offline_root).resolve() if args.offline_root else Path("/")
    opkg = Opkg(root, offline=bool(args.offline_root))
    try:
        if args.command == "install":
            if not args.args:
                raise OpkgError("install: give one or more .ipk files")
            cmd_install(opkg, args.args, args)
        elif args.command == "remove":
            for pkg in args.args:
                opkg.remove(pkg, args.force_depends)
        elif args.command == "list-installed":
            for name in sorted(opkg.status):
                say(f"{name} - {opkg.status[name]['Version']}")
        elif args.command == "files":
            for pkg in args.args:
                if pkg not in opkg.status:
                    raise OpkgError(f"Package {pkg} not installed.")
                say(f"Package {pkg} ({opkg.status[pkg]['Version']}) is installed on root and has the following "
                      "files:")
                say("\n".join(opkg.files(pkg)))
    except OpkgError as exc:
        print(f"Collected errors:\n * {exc}", file=sys.stderr)
        return 255
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
