"""Package files in the form OpenWrt's opkg reads (scripts/ipkg-build): a gzip'd tar of ./debian-binary,
./data.tar.gz and ./control.tar.gz, each tar in GNU format with numeric owner 0:0, one fixed mtime, entries
sorted by name, gzip without a name or time in its header: the same tree gives the same bytes."""

from __future__ import annotations

import gzip
import io
import stat
import tarfile
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Member:
    name: str  # "./usr/bin/x", "./etc/" for a directory
    mode: int
    data: bytes | None  # None: a directory


def tree_members(root: Path) -> list[Member]:
    """Every directory and regular file under `root`, depth first, each directory's entries sorted by name (GNU
    tar --sort=name), starting with ./ itself."""
    out = [Member("./", 0o755, None)]

    def walk(d: Path, prefix: str) -> None:
        for p in sorted(d.iterdir(), key=lambda x: x.name):
            st = p.lstat()
            if stat.S_ISDIR(st.st_mode):
                out.append(Member(f"{prefix}{p.name}/", stat.S_IMODE(st.st_mode), None))
                walk(p, f"{prefix}{p.name}/")
            elif stat.S_ISREG(st.st_mode):
                out.append(Member(f"{prefix}{p.name}", stat.S_IMODE(st.st_mode), p.read_bytes()))
            else:
                raise ValueError(f"only directories and regular files are packaged: {p}")

    walk(root, "./")
    return out


def tar_bytes(members: list[Member], mtime: int) -> bytes:
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.GNU_FORMAT) as tar:
        for m in members:
            info = tarfile.TarInfo(m.name)
            info.mtime = mtime
            info.mode = m.mode
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            if m.data is None:
                info.type = tarfile.DIRTYPE
                tar.addfile(info)
            else:
                info.size = len(m.data)
                tar.addfile(info, io.BytesIO(m.data))
    return raw.getvalue()


def gz(data: bytes) -> bytes:
    return gzip.compress(data, compresslevel=9, mtime=0)


def ipk_bytes(control: list[Member], data_tar: bytes, mtime: int) -> bytes:
    """The outer archive, in ipkg-build's member order."""
    outer = [
        Member("./debian-binary", 0o644, b"2.0\n"),
        Member("./data.tar.gz", 0o644, gz(data_tar)),
        Member("./control.tar.gz", 0o644, gz(tar_bytes([Member("./", 0o755, None), *control], mtime))),
    ]
    return gz(tar_bytes(outer, mtime))


def control_text(fields: list[tuple[str, str]], description: str) -> str:
    """The control file: the fields in order, then Description with continuation lines (a blank line as ' .')."""
    lines = [f"{k}: {v}" for k, v in fields if v]
    desc = description.strip("\n").splitlines() or [""]
    lines.append(f"Description: {desc[0].strip()}")
    lines += [f" {d.strip()}" if d.strip() else " ." for d in desc[1:]]
    return "\n".join(lines) + "\n"


# OpenWrt's generated maintainer scripts (include/package-pack.mk): they hand over to /lib/functions.sh, whose
# default_postinst enables and starts the package's /etc/init.d services (only enables them when installing into an
# image root, IPKG_INSTROOT) and runs its uci-defaults; default_prerm stops and disables them.
POSTINST = """#!/bin/sh
[ "${IPKG_NO_SCRIPT}" = "1" ] && exit 0
[ -s ${IPKG_INSTROOT}/lib/functions.sh ] || exit 0
. ${IPKG_INSTROOT}/lib/functions.sh
default_postinst $0 $@
"""
PRERM = """#!/bin/sh
[ -s ${IPKG_INSTROOT}/lib/functions.sh ] || exit 0
. ${IPKG_INSTROOT}/lib/functions.sh
default_prerm $0 $@
"""


def control_members(control: str, conffiles: list[str]) -> list[Member]:
    members = [Member("./control", 0o644, control.encode())]
    if conffiles:
        members.append(Member("./conffiles", 0o644, "".join(f"{c}\n" for c in sorted(conffiles)).encode()))
    members += [Member("./postinst", 0o755, POSTINST.encode()), Member("./prerm", 0o755, PRERM.encode())]
    return sorted(members, key=lambda m: m.name)
