"""Catalog images without a registry: a root filesystem tar per image, imported into the node's dockerd.

The rootfs holds a static busybox (applet symlinks), the image's host binaries with every library ``ldd`` lists
(from the Debian packages in deps/apt.txt), the extra dlopen()ed libraries, the programs built from this repository
(catalog ``built``, meson projects under vnfs/, built here when missing) with their libraries, /vnf/entry.sh and
/vnf/run.sh.
Tars are cached per machine in $WISLICE_CACHE/vnf-images/<name>-<key>.tar, the key hashing the recipe and the
identity (path, size, mtime) of every input file; the Docker tag is wislice-vnf/<name>:<key>, so a dockerd
imports each image once and a changed recipe gives a new tag.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import re
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import Any

from .catalog import VNFS_DIR, Catalog, CatalogImage

BUSYBOX_CANDIDATES = ("/bin/busybox", "/usr/bin/busybox")
DIRS = ("bin", "dev", "etc", "proc", "sys", "tmp", "run", "run/vnf", "var", "vnf", "usr", "usr/bin", "usr/sbin",
        "lib", "lib64", "var/run", "dev/hugepages")
_LDD_RE = re.compile(r"(?:=>\s*)?(/\S+)\s+\(0x[0-9a-f]+\)")


def cache_dir() -> Path:
    return Path(os.environ.get("WISLICE_CACHE", Path.home() / ".cache" / "wislice")) / "vnf-images"


def busybox_path() -> str:
    for p in BUSYBOX_CANDIDATES:
        if os.access(p, os.X_OK):
            return p
    raise FileNotFoundError("static busybox not found (Debian package busybox-static)")


def busybox_applets(busybox: str) -> list[str]:
    out = subprocess.run([busybox, "--list"], capture_output=True, text=True, check=True).stdout
    return [a for a in out.split() if a and "/" not in a]


def ldd_closure(path: str) -> list[str]:
    """The shared objects ``path`` loads (the loader included); a static binary has none."""
    res = subprocess.run(["ldd", path], capture_output=True, text=True)
    if res.returncode != 0:
        if "not a dynamic executable" in res.stdout + res.stderr:
            return []
        raise RuntimeError(f"ldd {path}: {res.stderr.strip()}")
    if "not found" in res.stdout:
        raise RuntimeError(f"ldd {path}: missing libraries:\n{res.stdout}")
    return sorted(set(_LDD_RE.findall(res.stdout)))


def built_files(image: CatalogImage) -> dict[str, Path]:
    """The image's programs built from this repository: path in the image -> the built file (built if missing,
    with meson in its project directory, the first component of its path under vnfs/)."""
    out = {}
    for arc, rel in image.built.items():
        built = VNFS_DIR / rel
        if not built.exists():
            project = VNFS_DIR / rel.split("/", 1)[0]
            build_dir = built.parent
            if not (build_dir / "build.ninja").exists():
                subprocess.run(["meson", "setup", str(build_dir), str(project)], check=True, capture_output=True)
            subprocess.run(["ninja", "-C", str(build_dir), "-j2"], check=True, capture_output=True)
        out[arc.lstrip("/")] = built
    return out


def input_files(image: CatalogImage) -> list[str]:
    files = [busybox_path()] if image.busybox else []
    for built in built_files(image).values():
        files.extend(ldd_closure(str(built)))
    for p in (*image.binaries, *image.extra_libs):
        if not os.path.exists(p):
            raise FileNotFoundError(f"image {image.name}: {p} is missing (install the Debian packages in deps/apt.txt)")
        files.append(p)
        files.extend(ldd_closure(p))
    return sorted(set(files))


def script_files(image: CatalogImage) -> dict[str, Path]:
    return {"vnf/entry.sh": VNFS_DIR / "common" / "entry.sh", "vnf/run.sh": VNFS_DIR / image.name / "run.sh"}


def own_files(image: CatalogImage) -> dict[str, Path]:
    """Files of this repository in the image (scripts and built programs): path in the image -> source."""
    return {**script_files(image), **built_files(image)}


def image_key(image: CatalogImage, files: list[str]) -> str:
    h = hashlib.sha256()
    h.update(b"rootfs-v2")  # bump when write_rootfs changes
    recipe = {k: v for k, v in image.__dict__.items() if k != "built" or v}  # images without stay as they were
    h.update(json.dumps(recipe, sort_keys=True, default=list).encode())
    for arc, src in sorted(own_files(image).items()):
        h.update(arc.encode() + src.read_bytes())
    for f in files:
        st = os.stat(f)
        h.update(f"{f}:{st.st_size}:{st.st_mtime_ns}".encode())
    return h.hexdigest()[:16]


def image_tag(image: CatalogImage) -> tuple[str, str]:
    """(repository, tag) for the image as the current recipe and host files make it."""
    return f"wislice-vnf/{image.name}", image_key(image, input_files(image))


def _add_dir(tar: tarfile.TarFile, name: str, mode: int = 0o755) -> None:
    info = tarfile.TarInfo(name)
    info.type, info.mode = tarfile.DIRTYPE, mode
    tar.addfile(info)


def _add_bytes(tar: tarfile.TarFile, name: str, data: bytes, mode: int = 0o755) -> None:
    info = tarfile.TarInfo(name)
    info.size, info.mode = len(data), mode
    tar.addfile(info, io.BytesIO(data))


def write_rootfs(image: CatalogImage, files: list[str], out: Path) -> None:
    """Write the image's rootfs tar to ``out`` (atomically: a temp file renamed)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=out.parent, suffix=".part")
    try:
        with os.fdopen(fd, "wb") as f, tarfile.open(fileobj=f, mode="w") as tar:
            added: set[str] = set()  # docker import refuses duplicate paths

            def add_dir(name: str) -> None:
                parts = name.split("/")
                for i in range(1, len(parts) + 1):
                    d = "/".join(parts[:i])
                    if d not in added:
                        _add_dir(tar, d, 0o1777 if d == "tmp" else 0o755)
                        added.add(d)

            def add_file(arc: str, data: bytes, mode: int = 0o755) -> None:
                if arc not in added:
                    add_dir(arc.rsplit("/", 1)[0])
                    _add_bytes(tar, arc, data, mode)
                    added.add(arc)

            for d in DIRS:
                add_dir(d)
            for path in files:
                with open(os.path.realpath(path), "rb") as src:
                    add_file(path.lstrip("/"), src.read(), os.stat(path).st_mode & 0o777)
            if image.busybox:
                bb = busybox_path()
                add_file("bin/busybox", Path(bb).read_bytes())
                for applet in busybox_applets(bb):
                    if f"bin/{applet}" not in added:
                        link = tarfile.TarInfo(f"bin/{applet}")
                        link.type, link.linkname = tarfile.SYMTYPE, "busybox"
                        tar.addfile(link)
                        added.add(f"bin/{applet}")
            for arc, src in own_files(image).items():
                add_file(arc, src.read_bytes())
            add_file("etc/passwd", b"root:x:0:0:root:/:/bin/sh\n", 0o644)
        os.replace(tmp, out)
    except BaseException:
        os.unlink(tmp)
        raise


def build_rootfs(image: CatalogImage) -> tuple[Path, str]:
    """The cached rootfs tar for ``image`` (built if missing) and its key."""
    files = input_files(image)
    key = image_key(image, files)
    out = cache_dir() / f"{image.name}-{key}.tar"
    if not out.exists():
        write_rootfs(image, files, out)
    return out, key


def ensure_image(client: Any, image: CatalogImage) -> str:
    """Make sure the node's dockerd has the image; returns its reference ``wislice-vnf/<name>:<key>``."""
    import docker.errors

    tar, key = build_rootfs(image)
    repo = f"wislice-vnf/{image.name}"
    ref = f"{repo}:{key}"
    try:
        client.images.get(ref)
        return ref
    except docker.errors.ImageNotFound:
        pass
    changes = ['ENTRYPOINT ["/bin/sh", "/vnf/entry.sh"]', "ENV PATH=/usr/sbin:/usr/bin:/bin",
               f"LABEL wislice.image={image.name}"]
    client.api.import_image_from_file(str(tar), repository=repo, tag=key, changes=changes)
    client.images.get(ref)
    return ref


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m wislice_mec_agent.images")
    parser.add_argument("command", choices=["build-all", "list"])
    args = parser.parse_args(argv)
    catalog = Catalog.load()
    for name in catalog.names():
        if args.command == "build-all":
            tar, key = build_rootfs(catalog.get(name))
            print(f"{name}: {tar} ({tar.stat().st_size // 1024} KiB)")
        else:
            print(name, catalog.get(name).vnf_class)
    return 0


if __name__ == "__main__":
    sys.exit(main())
