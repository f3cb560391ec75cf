"""Mount helpers: list mount points under a directory, mount and unmount through libc."""

from __future__ import annotations

import ctypes
import ctypes.util
import os

MNT_DETACH = 2
_libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)


def _unescape(field: str) -> str:
    # /proc/self/mountinfo escapes space, tab, newline and backslash as \ooo
    out, i = [], 0
    while i < len(field):
        if field[i] == "\\" and field[i + 1:i + 4].isdigit():
            out.append(chr(int(field[i + 1:i + 4], 8)))
            i += 4
        else:
            out.append(field[i])
            i += 1
    return "".join(out)


def mounts() -> list[tuple[str, str, str]]:
    """(mount point, fs type, source) for every mount in this mount namespace, in mount order."""
    result = []
    with open("/proc/self/mountinfo") as f:
        for line in f:
            left, _, right = line.partition(" - ")
            fstype, source = ([*right.split(), "", ""])[:2]
            result.append((_unescape(left.split()[4]), fstype, source))
    return result


def mounts_under(path: str | os.PathLike[str]) -> list[str]:
    """Mount points at or below ``path``, deepest (and latest) first: the order to unmount them in."""
    base = os.path.realpath(path).rstrip("/")
    found = [m for m, _, _ in mounts() if m == base or m.startswith(base + "/")]
    return sorted(found, key=lambda m: (m.count("/"), found.index(m)), reverse=True)


def mount(source: str, target: str, fstype: str, options: str = "", flags: int = 0) -> None:
    if _libc.mount(source.encode(), target.encode(), fstype.encode(), flags, options.encode() or None) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"mount -t {fstype} {source} {target} ({options}): {os.strerror(err)}")


def umount(target: str, *, lazy: bool = True) -> None:
    if _libc.umount2(target.encode(), MNT_DETACH if lazy else 0) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"umount {target}: {os.strerror(err)}")


def umount_all_under(path: str | os.PathLike[str]) -> list[str]:
    """Unmount everything at or below ``path``; returns what was unmounted."""
    done = []
    for m in mounts_under(path):
        try:
            umount(m)
            done.append(m)
        except OSError:
            continue
    return done
