"""The AP VM image's Debian packages: which ones (the programs the VM runs and the libraries they need, pinned to the
versions apt serves now), fetched once into the cache and extracted; and the build's small helpers (log, run, the
cache directory) that build_image.py shares."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

# The programs the AP VM runs; their library packages are added by following Depends restricted to lib*.
TOP_PACKAGES = [
    "busybox-static", "dash", "hostapd", "wpasupplicant", "iw", "iproute2", "iperf3", "libiperf0",
    "python3.11-minimal", "libpython3.11-minimal", "libpython3.11-stdlib",
    # The ap-agent checks firmware signatures with `cryptography` where it is installed, as on OpenWrt
    # (python3-cryptography); without it, with the plain-Python fallback.
    "python3-cryptography", "python3-cffi-backend",
]
EXTRA_LIB_PACKAGES = {"zlib1g"}


def log(msg: str) -> None:
    print(f"[ap-vm build] {msg}", file=sys.stderr, flush=True)


def cache_dir() -> Path:
    return Path(os.environ.get("WISLICE_CACHE", Path.home() / ".cache" / "wislice")) / "ap-vm"


def run(argv: list[str], **kw: object) -> str:
    res = subprocess.run(argv, check=True, text=True, capture_output=True, **kw)  # type: ignore[call-overload]
    return res.stdout


# --- package resolution -----------------------------------------------------------------------------------------

def kernel_package() -> str:
    """The linux-image-6.1.0-N-amd64 that apt's linux-image-amd64 points at now."""
    out = run(["apt-cache", "depends", "linux-image-amd64"])
    for line in out.splitlines():
        m = re.search(r"Depends:\s*(linux-image-6\.1\.0-\d+-amd64)\b", line)
        if m:
            return m.group(1)
    raise SystemExit("apt offers no linux-image-6.1.0-*-amd64 (run apt-get update)")


def candidate_versions(packages: list[str]) -> dict[str, str]:
    out = run(["apt-cache", "policy", *packages])
    versions: dict[str, str] = {}
    current = ""
    for line in out.splitlines():
        if line and not line.startswith(" "):
            current = line.rstrip(":")
        elif line.strip().startswith("Candidate:"):
            ver = line.split(":", 1)[1].strip()
            if ver == "(none)":
                raise SystemExit(f"apt has no candidate for {current}")
            versions[current] = ver
    missing = set(packages) - versions.keys()
    if missing:
        raise SystemExit(f"apt does not know {sorted(missing)} (run apt-get update)")
    return versions


def library_closure(packages: list[str]) -> list[str]:
    """Follow Depends/PreDepends from ``packages`` into library packages only (no debconf, perl, adduser...)."""
    seen = set(packages)
    todo = list(packages)
    while todo:
        out = run(["apt-cache", "depends", "--no-recommends", "--no-suggests", "--no-conflicts", "--no-breaks",
                   "--no-replaces", "--no-enhances", *todo])
        todo = []
        for line in out.splitlines():
            m = re.match(r"\s*\|?(?:Pre)?Depends:\s*([^\s<>]+)", line)
            if not m:
                continue
            dep = m.group(1).split(":")[0]
            if (dep.startswith("lib") or dep in EXTRA_LIB_PACKAGES) and dep not in seen:
                seen.add(dep)
                todo.append(dep)
    return sorted(seen)


def resolve() -> dict[str, str]:
    """Pinned versions of every package; remembered until apt's package lists change (apt-cache takes seconds)."""
    lists = sorted(Path("/var/lib/apt/lists").glob("*_Packages*"))
    h = hashlib.sha256(" ".join(TOP_PACKAGES).encode())
    for f in lists:
        st = f.stat()
        h.update(f"{f.name} {st.st_size} {st.st_mtime_ns}\n".encode())
    memo = cache_dir() / "resolved.json"
    with contextlib.suppress(OSError, ValueError):
        saved = json.loads(memo.read_text())
        if saved.get("lists") == h.hexdigest():
            return dict(saved["versions"])
    versions = candidate_versions(library_closure([*TOP_PACKAGES, kernel_package()]))
    memo.parent.mkdir(parents=True, exist_ok=True)
    memo.write_text(json.dumps({"lists": h.hexdigest(), "versions": versions}, indent=1) + "\n")
    return versions


# --- fetching and extracting ------------------------------------------------------------------------------------

def fetch(versions: dict[str, str], debs: Path) -> list[Path]:
    """The .deb of every pinned package, downloading only those not in the cache yet."""
    debs.mkdir(parents=True, exist_ok=True)
    wanted = [f"{pkg}={ver}" for pkg, ver in versions.items() if not deb_path(debs, pkg, ver).exists()]
    if wanted:
        log(f"apt-get download {len(wanted)} packages into {debs}")
        with tempfile.TemporaryDirectory(dir=debs) as tmp:
            run(["apt-get", "download", "-q", *wanted], cwd=tmp)
            for p in Path(tmp).glob("*.deb"):
                shutil.move(str(p), debs / p.name)
    paths = [deb_path(debs, pkg, ver) for pkg, ver in versions.items()]
    missing = [p.name for p in paths if not p.exists()]
    if missing:
        raise SystemExit(f"apt-get download did not deliver {missing}")
    return paths


def deb_path(debs: Path, pkg: str, ver: str) -> Path:
    """apt-get download's file name: <pkg>_<version with ':' as %3a>_<arch>.deb."""
    quoted = ver.replace(":", "%3a")
    for arch in ("amd64", "all"):
        p = debs / f"{pkg}_{quoted}_{arch}.deb"
        if p.exists():
            return p
    return debs / f"{pkg}_{quoted}_amd64.deb"


def extract(debs: list[Path], root: Path) -> None:
    for deb in debs:
        run(["dpkg-deb", "-x", str(deb), str(root)])
