"""The AP VM's firmware: the feed's .ipk files installed into the image and the services started from UCI.

Image build (build_image.py calls ``build_packages`` and ``install``): `make -C openwrt packages` builds
wislice-ap-agent and wislice-pofswitch, and the VM's own opkg (guest/opkg.py) installs them into the image's
overlay with an offline root, as OpenWrt's ImageBuilder installs packages into a rootfs: the maintainer scripts
only enable the services there (/etc/rc.d links). Installing at image build and not at boot keeps the boot as
fast as before (python and opkg under TCG would add seconds to every boot), and the same opkg is in the VM for
`opkg install --force-reinstall FILE.ipk` (firmware upgrades); the .ipk files ship in /usr/share/wislice/ipk and
seed the agent's installed package set (/etc/wislice/firmware/installed), which an upgrade's rollback reinstalls.

At run time (``write_uci``, ``start_services``): the testbed writes /etc/config/wislice-ap-agent and
/etc/config/wislice-pofswitch and runs `/etc/init.d/<name> enable && /etc/init.d/<name> start`; the VM's procd
(guest/procd.py) runs and respawns what the init scripts declare, logging to /var/log/<name>.log.
"""

from __future__ import annotations

import gzip
import io
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
GUEST_DIR = HERE / "guest"
OPENWRT = REPO / "openwrt"
PACKAGES = ("wislice-ap-agent", "wislice-pofswitch")  # the -src package stays out: the byte code is what runs
SHIPPED_IPK_DIR = "/usr/share/wislice/ipk"
INSTALLED_SET_DIR = "/etc/wislice/firmware/installed"  # the ap-agent's firmware_cache_dir (its default)
SITE_PACKAGES = "/usr/lib/python3.11/site-packages"
# The OpenWrt packages the feed depends on, which the image's Debian-built base system stands in for: recorded in
# opkg's status as provided by one base package, so opkg's dependency check holds as on a router.
BASE_PROVIDES = ("libc", "python3-light", "python3-logging", "python3-openssl", "python3-urllib", "hostapd-utils",
                 "iw", "ip", "tc", "kmod-sched-core", "kmod-ifb")
BASE_STATUS = (f"Package: wislice-apvm-base\nVersion: 1\nProvides: {', '.join(BASE_PROVIDES)}\n"
               "Status: install user installed\nArchitecture: x86_64\n\n")


def build_packages(out: Path) -> list[Path]:
    """`make -C openwrt packages` into ``out`` (private to this build: concurrent builds never read a half-written
    file); the packages the image installs."""
    res = subprocess.run(["make", "-s", "-C", str(OPENWRT), "packages", f"PKG_OUT={out}"], capture_output=True,
                         text=True)
    if res.returncode != 0:
        raise SystemExit(f"make -C openwrt packages failed:\n{res.stdout}{res.stderr}")
    ipks = [p for name in PACKAGES for p in sorted(out.glob(f"{name}_*.ipk"))]
    if len(ipks) != len(PACKAGES):
        raise SystemExit(f"make -C openwrt packages did not write {PACKAGES} into {out}: {sorted(os.listdir(out))}")
    return ipks


def install(overlay: Path, ipks: list[Path]) -> None:
    """The VM's OpenWrt shell libraries, rc.common and opkg, then the packages installed into ``overlay``."""
    shutil.copytree(GUEST_DIR / "rootfs", overlay, symlinks=True, dirs_exist_ok=True)
    status = overlay / "usr/lib/opkg/status"
    status.parent.mkdir(parents=True, exist_ok=True)
    status.write_text(BASE_STATUS)
    res = subprocess.run([sys.executable, str(GUEST_DIR / "opkg.py"), "-o", str(overlay), "install",
                          *map(str, ipks)], capture_output=True, text=True)
    if res.returncode != 0:
        raise SystemExit(f"opkg install into the image failed:\n{res.stdout}{res.stderr}")
    shipped = overlay / SHIPPED_IPK_DIR.lstrip("/")
    shipped.mkdir(parents=True)
    # The agent's installed package set (its firmware_cache_dir default) starts as the image's own: the first
    # upgrade keeps it for its rollback. A copy, not the shipped directory: a done upgrade replaces the set.
    cache = overlay / INSTALLED_SET_DIR.lstrip("/")
    cache.mkdir(parents=True)
    for ipk in ipks:
        shutil.copy2(ipk, shipped / ipk.name)
        shutil.copy2(ipk, cache / ipk.name)
    # Debian's python3.11 reads /usr/lib/python3/dist-packages; OpenWrt's python, whose layout the package has,
    # reads /usr/lib/python3.11/site-packages.
    pth = overlay / "usr/lib/python3/dist-packages/openwrt-site-packages.pth"
    pth.parent.mkdir(parents=True, exist_ok=True)
    pth.write_text(SITE_PACKAGES + "\n")
    # The ap-agent VM tests run `PYTHONPATH=/opt/wislice/ap-agent python3 -m wislice_ap_agent`: that path now
    # leads to the installed package.
    (overlay / "opt/wislice").mkdir(parents=True, exist_ok=True)
    (overlay / "opt/wislice/ap-agent").symlink_to(SITE_PACKAGES)


def input_files() -> list[Path]:
    """Guest files that go into the image besides the packages (for the image's cache key)."""
    return sorted(p for p in (GUEST_DIR / "rootfs").rglob("*") if p.is_file())


# --- run time: UCI and the init scripts --------------------------------------------------------------------------

_VALUE = re.compile(r"[A-Za-z0-9_.:/=+@\[\] -]*")


def uci_text(sections: list[tuple[str, str, dict[str, Any]]]) -> str:
    """UCI file text: (type, name, options) per section; a list value becomes `list` lines. Values are the
    testbed's own (ids, addresses, paths, secrets of letters and digits); anything that would need quoting beyond
    '...' is refused rather than escaped."""
    lines: list[str] = []
    for stype, name, options in sections:
        lines.append(f"config {stype} '{name}'")
        for key, value in options.items():
            for v in value if isinstance(value, list) else [value]:
                text = str(int(v)) if isinstance(v, bool) else str(v)
                if not _VALUE.fullmatch(text):
                    raise ValueError(f"UCI {name}.{key}: value {text!r} has characters the testbed does not write")
                lines.append(f"\t{'list' if isinstance(value, list) else 'option'} {key} '{text}'")
        lines.append("")
    return "\n".join(lines)


def write_uci(vm: Any, package: str, sections: list[tuple[str, str, dict[str, Any]]]) -> None:
    """/etc/config/<package> in the VM (mode 0600, as the package ships it), through the 9p share."""
    text = uci_text(sections)
    fd, tmp = tempfile.mkstemp(dir=vm.share, prefix=".uci-")
    with os.fdopen(fd, "w") as f:
        f.write(text)
    name = Path(tmp).name
    vm.run(f"cp /mnt/share/{name} /etc/config/{package}.new && chmod 600 /etc/config/{package}.new && "
           f"mv /etc/config/{package}.new /etc/config/{package} && rm -f /mnt/share/{name}")


def start_services(vm: Any, *names: str) -> None:
    """`/etc/init.d/<name> enable && /etc/init.d/<name> start` for each, in order; fails with the service's log
    when its init script refuses the config or procd does not get it running."""
    vm.wait_for("test -e /run/wislice/boot.done", timeout=60)  # rc.d's boot-time starts are over (guest/init)
    for name in names:
        res = vm.run(f"/etc/init.d/{name} enable && /etc/init.d/{name} start && /etc/init.d/{name} status",
                     check=False)
        if res.rc != 0 or "running" not in res.out.split():
            log = vm.run(f"tail -n 20 /var/log/{name}.log", check=False).out
            raise RuntimeError(f"/etc/init.d/{name} did not start it (rc {res.rc}): {res.out}{res.err}\n{log}")


def service_pid(vm: Any, name: str, instance: str = "instance1") -> int:
    """The pid procd runs the service's instance with (0 while it is down)."""
    res = vm.run(f"cat /var/run/procd/pid/{name}.{instance}", check=False)
    return int(res.out.split()[0]) if res.rc == 0 and res.out.split() else 0


# --- package sets for upgrades (the AP VM's upgrade test and the testbed's fleet upgrade) -------------------------

def retar(blob: bytes, replace: dict[str, bytes]) -> bytes:
    """A gzip'd tar with the named members' contents replaced (everything else, order and headers, kept)."""
    out = io.BytesIO()
    with tarfile.open(fileobj=io.BytesIO(blob), mode="r:gz") as src, \
            tarfile.open(fileobj=out, mode="w", format=tarfile.GNU_FORMAT) as dst:
        for member in src:
            data = src.extractfile(member).read() if member.isfile() else None  # type: ignore[union-attr]
            if member.name in replace:
                data = replace[member.name]
                member.size = len(data)
            dst.addfile(member, io.BytesIO(data) if data is not None else None)
    return gzip.compress(out.getvalue(), mtime=0)


def repack(ipk: bytes, version: str, version_file: str) -> bytes:
    """The ap-agent .ipk with its control Version and its firmware_version file set."""
    with tarfile.open(fileobj=io.BytesIO(ipk), mode="r:gz") as outer:
        parts = {m.name: outer.extractfile(m).read() for m in outer}  # type: ignore[union-attr]
    with tarfile.open(fileobj=io.BytesIO(parts["./control.tar.gz"]), mode="r:gz") as c:
        control = c.extractfile("./control").read().decode()  # type: ignore[union-attr]
    lines = [f"Version: {version}" if line.startswith("Version: ") else line for line in control.split("\n")]
    if lines == control.split("\n"):
        raise ValueError("the package's control file has no Version field")
    parts["./control.tar.gz"] = retar(parts["./control.tar.gz"], {"./control": "\n".join(lines).encode()})
    parts["./data.tar.gz"] = retar(parts["./data.tar.gz"],
                                   {"./etc/wislice/firmware_version": f"{version_file}\n".encode()})
    return retar(ipk, {name: parts[name] for name in ("./control.tar.gz", "./data.tar.gz")})


def package_set(name: str, ipk: bytes) -> bytes:
    """A package set as the ap-agent installs one (kind packages): a tar holding the .ipk as name."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w") as tar:
        info = tarfile.TarInfo(name)
        info.size, info.mode = len(ipk), 0o644
        tar.addfile(info, io.BytesIO(ipk))
    return out.getvalue()


def bump(version: str, by: int) -> str:
    """0.1.0-r1 -> 0.1.<0+by>-r1."""
    base, release = version.split("-")
    major, minor, patch = base.split(".")
    return f"{major}.{minor}.{int(patch) + by}-{release}"


def shipped_ipk(vm: Any, package: str = "wislice-ap-agent") -> bytes:
    """The .ipk of package the image installed (SHIPPED_IPK_DIR), read through the VM's share."""
    vm.run(f"cp {SHIPPED_IPK_DIR}/{package}_*.ipk /mnt/share/shipped-{package}.ipk")
    return (vm.share / f"shipped-{package}.ipk").read_bytes()


def trust_key(vm: Any, public_text: str, key_hex: str) -> None:
    """A usign public key into the VM's /etc/opkg/keys/<key id> (the keys the ap-agent checks upgrades with)."""
    (vm.share / f"key-{key_hex}.pub").write_text(public_text)
    vm.run(f"mkdir -p /etc/opkg/keys && cp /mnt/share/key-{key_hex}.pub /etc/opkg/keys/{key_hex}")
