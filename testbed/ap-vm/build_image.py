#!/usr/bin/env python3
"""Build the AP VM image (uncompressed PVH vmlinux + initramfs.cpio.gz) from Debian packages, without installing them.

    python3 build_image.py            # build (or reuse) the image, print its directory
    python3 build_image.py --deps     # the `make deps` entry point: same, quiet when cached

Two cached stages under $WISLICE_CACHE/ap-vm/:
- debs/: packages fetched with `apt-get download` (pinned to the versions apt serves now);
- images/<hash>/: vmlinux, initramfs.cpio.gz, manifest.json. The hash covers the package versions, the guest
  files (init, guestd.py, opkg, procd and OpenWrt's shell libraries), this script and the feed's .ipk files, so a
  second build with the same inputs is instant.
The ap-agent and pof-switch come in as OpenWrt packages: `make -C openwrt packages` builds them and the VM's opkg
installs them into the image (firmware.py).
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import lzma
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import firmware
from apt_packages import cache_dir, extract, fetch, log, resolve, run

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
GUEST_DIR = HERE / "guest"

# Binaries copied into the image (path inside the extracted packages -> path in the image).
BINARIES = [
    "usr/sbin/hostapd", "usr/sbin/hostapd_cli", "sbin/wpa_supplicant", "sbin/wpa_cli", "sbin/iw",
    "bin/ip", "sbin/tc", "usr/bin/iperf3", "bin/dash", "usr/bin/python3.11",
]
# Kernel module directories (under kernel/) kept in the image; depmod -b then resolves the rest.
MODULE_DIRS = [
    "net/wireless", "net/mac80211", "net/rfkill", "drivers/net/wireless/mac80211_hwsim.ko", "net/sched",
    "net/9p", "fs/9p", "fs/netfs", "fs/fscache", "crypto", "lib/crypto", "arch/x86/crypto", "lib/libcrc32c.ko",
    "drivers/virtio", "drivers/char/virtio_console.ko", "drivers/net/virtio_net.ko", "drivers/net/net_failover.ko",
    "net/core/failover.ko", "drivers/net/ifb.ko", "drivers/net/veth.ko",
]
# Debian python3 modules (beside the standard library: /usr/lib/python3/dist-packages) the image carries.
DIST_PACKAGES = ["cryptography", "_cffi_backend.cpython-311-x86_64-linux-gnu.so"]
# Standard-library parts the agent, guestd and the benchmarks never import: left out to keep the image small.
PY_SKIP = {"test", "idlelib", "tkinter", "turtledemo", "ensurepip", "lib2to3", "pydoc_data", "distutils",
           "unittest/test", "sqlite3/test", "ctypes/test", "config-3.11-x86_64-linux-gnu", "venv"}


# --- image assembly ---------------------------------------------------------------------------------------------

def extract_vmlinux(vmlinuz: Path, out: Path) -> None:
    """The bzImage carries an xz-compressed ELF vmlinux; booting it directly (PVH) saves ~3 s per boot under TCG."""
    data = vmlinuz.read_bytes()
    start = data.find(b"\xfd7zXZ\x00")
    if start < 0:
        raise SystemExit(f"{vmlinuz}: no xz payload found")
    dec = lzma.LZMADecompressor(format=lzma.FORMAT_XZ)
    elf = dec.decompress(data[start:])
    if not elf.startswith(b"\x7fELF"):
        raise SystemExit(f"{vmlinuz}: xz payload is not an ELF image")
    out.write_bytes(elf)


def ldd(pkgroot: Path, binary: Path) -> list[Path]:
    """Libraries ``binary`` needs, resolved inside the extracted packages with their own loader."""
    loader = pkgroot / "lib64" / "ld-linux-x86-64.so.2"
    libpath = ":".join(str(pkgroot / d) for d in ("lib/x86_64-linux-gnu", "usr/lib/x86_64-linux-gnu"))
    res = subprocess.run([str(loader), "--library-path", libpath, "--list", str(binary)],
                         capture_output=True, text=True)
    if res.returncode != 0:
        if "not a dynamic executable" in res.stdout + res.stderr:
            return []
        raise SystemExit(f"ldd {binary}: {res.stderr.strip()}")
    libs = []
    for line in res.stdout.splitlines():
        if "not found" in line:
            raise SystemExit(f"{binary}: {line.strip()} (a library package is missing from the closure)")
        m = re.search(r"=>\s*(\S+)", line)
        if m and m.group(1).startswith(str(pkgroot)):
            libs.append(Path(m.group(1)))
    return libs


def copy_into(src: Path, pkgroot: Path, image: Path) -> None:
    """Copy ``src`` (a path inside pkgroot) to the same place in the image, following symlinks on the way."""
    rel = src.relative_to(pkgroot)
    dst = image / rel
    dst.parent.mkdir(parents=True, exist_ok=True)
    if not dst.exists():
        shutil.copy2(src.resolve(), dst)


def add_binaries(pkgroot: Path, image: Path) -> None:
    libs: set[Path] = set()
    for rel in BINARIES:
        path = pkgroot / rel
        if not path.exists():
            path = pkgroot / "usr" / rel  # merged-/usr packages
        if not path.exists():
            raise SystemExit(f"binary {rel} not found in the extracted packages")
        copy_into(path, pkgroot, image)
        (image / "usr/bin").mkdir(parents=True, exist_ok=True)
        libs.update(ldd(pkgroot, path))
    dynload = pkgroot / "usr/lib/python3.11/lib-dynload"
    for so in dynload.glob("*.so"):
        libs.update(ldd(pkgroot, so))
    for lib in libs:
        copy_into(lib, pkgroot, image)
    loader = pkgroot / "lib64" / "ld-linux-x86-64.so.2"
    (image / "lib64").mkdir(exist_ok=True)
    shutil.copy2(loader.resolve(), image / "lib64" / "ld-linux-x86-64.so.2")
    # Every binary and library at the usual places, whatever the package used.
    for d in ("bin", "sbin", "usr/sbin"):
        (image / d).mkdir(parents=True, exist_ok=True)
    for rel in BINARIES:
        name = Path(rel).name
        located = next((p for p in (image / rel, image / "usr" / rel) if p.exists()), None)
        assert located is not None
        link = image / "usr/bin" / name
        if not link.exists():
            link.symlink_to(os.path.relpath(located, link.parent))
    (image / "usr/bin/python3").symlink_to("python3.11")


def add_busybox(pkgroot: Path, image: Path) -> None:
    """busybox for everything else; dash is /bin/sh because busybox sh would run its own ip/tc applets."""
    bb = pkgroot / "bin/busybox"
    shutil.copy2(bb, image / "bin/busybox")
    applets = run([str(bb), "--list-full"]).split()
    real = {Path(b).name for b in BINARIES} | {"sh", "ip", "tc", "modprobe", "depmod"}
    for applet in applets:
        name = Path(applet).name
        if name in real:
            continue
        link = image / "usr/bin" / name
        if not link.exists() and not link.is_symlink():
            link.symlink_to("/bin/busybox")
    for name in ("modprobe", "insmod", "rmmod", "lsmod"):
        link = image / "sbin" / name
        link.symlink_to("/bin/busybox")
    (image / "bin/sh").symlink_to("/usr/bin/dash")


def add_python_stdlib(pkgroot: Path, image: Path, host_python: str) -> None:
    src = pkgroot / "usr/lib/python3.11"
    dst = image / "usr/lib/python3.11"

    def ignore(directory: str, names: list[str]) -> list[str]:
        rel = os.path.relpath(directory, src)
        return [n for n in names if os.path.normpath(os.path.join(rel, n)) in PY_SKIP or n == "__pycache__"]

    shutil.copytree(src, dst, symlinks=True, ignore=ignore, dirs_exist_ok=True)
    compile_python(dst, host_python)


def add_dist_packages(pkgroot: Path, image: Path, host_python: str) -> None:
    """DIST_PACKAGES with the libraries their extension modules need (libssl, libgcc_s: in the closure)."""
    src, dst = pkgroot / "usr/lib/python3/dist-packages", image / "usr/lib/python3/dist-packages"
    dst.mkdir(parents=True, exist_ok=True)
    libs: set[Path] = set()
    for name in DIST_PACKAGES:
        if (src / name).is_dir():
            shutil.copytree(src / name, dst / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(src / name, dst / name)
        for so in [src / name] if name.endswith(".so") else (src / name).rglob("*.so"):
            libs.update(ldd(pkgroot, so))
    for lib in libs:
        copy_into(lib, pkgroot, image)
    # cryptography loads OpenSSL's legacy provider at start (its import fails without it).
    modules = "usr/lib/x86_64-linux-gnu/ossl-modules"
    shutil.copytree(pkgroot / modules, image / modules, dirs_exist_ok=True)
    compile_python(dst, host_python)


def compile_python(tree: Path, host_python: str) -> None:
    """Bytecode compiled on the host (same 3.11 magic): importing from source would cost seconds under TCG.
    unchecked-hash pycs stay valid whatever mtimes the cpio archive keeps."""
    run([host_python, "-m", "compileall", "-q", "-j", "0", "--invalidation-mode", "unchecked-hash", str(tree)])


def add_modules(pkgroot: Path, image: Path, kver: str) -> None:
    src = pkgroot / "lib/modules" / kver
    dst = image / "lib/modules" / kver
    dst.mkdir(parents=True)
    for rel in MODULE_DIRS:
        s = src / "kernel" / rel
        if s.is_dir():
            shutil.copytree(s, dst / "kernel" / rel)
        elif s.exists():
            (dst / "kernel" / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(s, dst / "kernel" / rel)
        else:
            raise SystemExit(f"kernel {kver} has no {rel}")
    for ko in dst.rglob("*.ko.xz"):  # busybox modprobe cannot read compressed modules
        ko.with_suffix("").write_bytes(lzma.decompress(ko.read_bytes()))
        ko.unlink()
    for f in ("modules.order", "modules.builtin", "modules.builtin.modinfo"):
        if (src / f).exists():
            shutil.copy2(src / f, dst / f)
    run(["depmod", "-b", str(image), kver])


def add_base_files(image: Path) -> None:
    for d in ("proc", "sys", "dev", "tmp", "run", "mnt/share", "etc", "var", "root", "opt/wislice"):
        (image / d).mkdir(parents=True, exist_ok=True)
    (image / "var/run").symlink_to("/run")
    (image / "etc/passwd").write_text("root:x:0:0:root:/root:/bin/sh\n")
    (image / "etc/group").write_text("root:x:0:\n")
    (image / "etc/hosts").write_text("127.0.0.1 localhost\n10.0.2.2 host\n")
    (image / "etc/services").write_text("")
    (image / "etc/protocols").write_text("ip 0 IP\ntcp 6 TCP\nudp 17 UDP\n")


def add_overlay_files(overlay: Path, host_python: str, ipks: list[Path]) -> None:
    """What changes often (init, guestd, opkg, procd, the feed's packages): a second small cpio laid over the
    base one."""
    shutil.copy2(GUEST_DIR / "init", overlay / "init")
    (overlay / "init").chmod(0o755)
    opt = overlay / "opt/wislice"
    opt.mkdir(parents=True)
    for script in GUEST_DIR.glob("*.py"):
        shutil.copy2(script, opt / script.name)
    compile_python(opt, host_python)
    firmware.install(overlay, ipks)


def write_cpio(image: Path, out: Path) -> None:
    files = sorted(str(p.relative_to(image)) for p in image.rglob("*"))
    listing = "\n".join([".", *files]) + "\n"
    res = subprocess.run(["cpio", "-o", "-H", "newc", "--quiet", "-R", "0:0"], cwd=image, input=listing.encode(),
                         capture_output=True, check=True)
    with gzip.open(out, "wb", compresslevel=6) as f:
        f.write(res.stdout)


# --- cache key and the build ------------------------------------------------------------------------------------

def overlay_files() -> list[Path]:
    files = [*sorted(GUEST_DIR.rglob("*")), HERE / "firmware.py"]
    return [f for f in files if f.is_file() and "__pycache__" not in f.parts]


def base_key(versions: dict[str, str]) -> str:
    """The package layer: pinned versions, this script and apt_packages.py."""
    h = hashlib.sha256(Path(__file__).resolve().read_bytes() + (HERE / "apt_packages.py").read_bytes())
    for pkg in sorted(versions):
        h.update(f"{pkg}={versions[pkg]}\n".encode())
    return h.hexdigest()[:16]


def image_key(versions: dict[str, str], ipks: list[Path] | None = None) -> str:
    h = hashlib.sha256(base_key(versions).encode())
    for f in overlay_files():
        h.update(str(f.relative_to(REPO)).encode() + b"\0" + f.read_bytes() + b"\0")
    for ipk in ipks or []:
        h.update(ipk.name.encode() + b"\0" + ipk.read_bytes() + b"\0")
    return h.hexdigest()[:16]


def host_python() -> str:
    if sys.version_info[:2] != (3, 11):
        raise SystemExit("build_image.py must run on Python 3.11 to precompile the guest's 3.11 bytecode")
    return sys.executable


def build_base(versions: dict[str, str]) -> Path:
    """vmlinux + base.cpio.gz from the packages (tens of seconds); cached by base_key."""
    out = cache_dir() / "base" / base_key(versions)
    if (out / "base.cpio.gz").exists():
        return out
    started = time.monotonic()
    debs = fetch(versions, cache_dir() / "debs")
    kver = kernel_version(versions)
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out.parent, prefix="tmp-") as tmp:
        pkgroot, image, stage = Path(tmp) / "pkgs", Path(tmp) / "image", Path(tmp) / "out"
        for d in (pkgroot, image, stage):
            d.mkdir()
        log(f"extracting {len(debs)} packages")
        extract(debs, pkgroot)
        extract_vmlinux(pkgroot / "boot" / f"vmlinuz-{kver}", stage / "vmlinux")
        add_binaries(pkgroot, image)
        add_busybox(pkgroot, image)
        add_python_stdlib(pkgroot, image, host_python())
        add_dist_packages(pkgroot, image, host_python())
        add_modules(pkgroot, image, kver)
        add_base_files(image)
        write_cpio(image, stage / "base.cpio.gz")
        if not out.exists():  # else a concurrent build finished first
            stage.rename(out)
    log(f"built the package layer {out} in {time.monotonic() - started:.1f} s")
    prune(out.parent, keep=out)
    return out


def kernel_version(versions: dict[str, str]) -> str:
    return next(p for p in versions if p.startswith("linux-image-")).removeprefix("linux-image-")


def build(quiet: bool = False) -> Path:
    """Return the directory holding vmlinux and initramfs.cpio.gz, building what changed: the package layer when
    package versions (or this script) changed, the small overlay (init, guestd, the feed's packages) when those
    changed. The packages are built first (`make -C openwrt packages`, about a second)."""
    started = time.monotonic()
    versions = resolve()
    (cache_dir() / "images").mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=cache_dir() / "images", prefix="tmp-ipk-") as ipk_dir:
        ipks = firmware.build_packages(Path(ipk_dir))
        return build_with(versions, ipks, started, quiet)


def build_with(versions: dict[str, str], ipks: list[Path], started: float, quiet: bool) -> Path:
    key = image_key(versions, ipks)
    out = cache_dir() / "images" / key
    if (out / "manifest.json").exists():
        if not quiet:
            log(f"cached image {out} ({time.monotonic() - started:.1f} s)")
        return out
    base = build_base(versions)
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out.parent, prefix="tmp-") as tmp:
        overlay, stage = Path(tmp) / "overlay", Path(tmp) / "out"
        overlay.mkdir()
        stage.mkdir()
        add_overlay_files(overlay, host_python(), ipks)
        write_cpio(overlay, Path(tmp) / "overlay.cpio.gz")
        # The kernel unpacks concatenated (compressed) cpio archives in order: the overlay's files win.
        with open(stage / "initramfs.cpio.gz", "wb") as dst:
            for part in (base / "base.cpio.gz", Path(tmp) / "overlay.cpio.gz"):
                with open(part, "rb") as src:
                    shutil.copyfileobj(src, dst)
        try:
            os.link(base / "vmlinux", stage / "vmlinux")
        except OSError:
            shutil.copy2(base / "vmlinux", stage / "vmlinux")
        manifest = {"key": key, "base": base.name, "kernel": kernel_version(versions), "packages": versions,
                    "built_s": round(time.monotonic() - started, 1),
                    "ipk": [p.name for p in ipks]}
        (stage / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
        if not out.exists():
            stage.rename(out)
    size = (out / "initramfs.cpio.gz").stat().st_size / 1e6
    log(f"built {out} in {time.monotonic() - started:.1f} s (initramfs {size:.1f} MB)")
    prune(out.parent, keep=out)
    return out


def prune(parent: Path, keep: Path, max_images: int = 3) -> None:
    """Old images go once newer ones exist: each is ~30 MB."""
    images = sorted((p for p in parent.iterdir() if p.is_dir() and not p.name.startswith("tmp-")),
                    key=lambda p: p.stat().st_mtime, reverse=True)
    for old in images[max_images:]:
        if old != keep:
            shutil.rmtree(old, ignore_errors=True)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deps", action="store_true", help="make deps mode: quiet when the image is cached")
    args = parser.parse_args(argv)
    out = build(quiet=args.deps)
    if not args.deps:
        print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
