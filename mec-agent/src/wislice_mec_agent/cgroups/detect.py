"""Which cgroup version the node uses, decided once at agent start from /proc/self/mountinfo (fstype cgroup2 is
the filesystem whose statfs magic is CGROUP2_SUPER_MAGIC, "cgroup" a v1 hierarchy, whose super options name its
controllers).

- v1 when the cpu controller is a v1 hierarchy: pure v1, and systemd's hybrid layout (v1 controllers plus a
  controller-less cgroup2 at /sys/fs/cgroup/unified). A controller lives in one hierarchy at a time, so on a
  hybrid host v1 is where the cpu controller is.
- v2 when a cgroup2 mount (the one at /sys/fs/cgroup first) offers the cpu controller.
- Neither offers cpu: the one that still gives statistics (v1 with cpuacct or memory mounted, else any cgroup2:
  its cpu.stat counts usage without controllers); the scheduler then refuses to start (``SCHEDULER_NEEDS``).
- No cgroup filesystem at all: ``NoCgroupFs``."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from .base import CGROUP_ROOT, CPU, PROC, CgroupFs, Hierarchy, NoCgroupFs
from .v1 import CONTROLLERS, CgroupV1
from .v2 import CgroupV2

OCTAL_ESCAPE = re.compile(r"\\([0-7]{3})")


@dataclass(frozen=True)
class MountEntry:
    point: Path
    root: str  # the path inside the filesystem that is mounted at ``point``
    fstype: str
    super_options: frozenset[str]


def _unescape(field: str) -> str:
    """mountinfo writes space, tab, newline and backslash in paths as octal escapes (\\040 ...)."""
    return OCTAL_ESCAPE.sub(lambda m: chr(int(m.group(1), 8)), field)


def parse_mountinfo(text: str) -> list[MountEntry]:
    """/proc/<pid>/mountinfo lines: ``id parent major:minor root point options [optional...] - fstype source
    super_options`` (proc(5)); lines that do not parse are skipped."""
    out = []
    for line in text.splitlines():
        left, sep, right = line.partition(" - ")
        fields, tail = left.split(), right.split()
        if not sep or len(fields) < 5 or not tail:
            continue
        options = frozenset(tail[2].split(",")) if len(tail) > 2 else frozenset()
        out.append(MountEntry(Path(_unescape(fields[4])), _unescape(fields[3]), tail[0], options))
    return out


def detect(mountinfo: str | None = None, cgroup_root: Path = CGROUP_ROOT, proc: Path = PROC) -> CgroupFs:
    """The node's CgroupFs; ``mountinfo`` (the text of /proc/self/mountinfo) is read when not given."""
    if mountinfo is None:
        try:
            mountinfo = (proc / "self" / "mountinfo").read_text()
        except OSError as exc:
            return NoCgroupFs(f"cannot read {proc}/self/mountinfo: {exc}", proc)
    mounts = parse_mountinfo(mountinfo)
    v1: dict[str, Hierarchy] = {}
    # A hierarchy mounted whole ("/") is preferred over a bind mount of one of its subtrees.
    for m in sorted((m for m in mounts if m.fstype == "cgroup"), key=lambda m: m.root != "/"):
        for controller in sorted(m.super_options & set(CONTROLLERS)):
            v1.setdefault(controller, Hierarchy(m.point, m.root))
    v2_mounts = sorted((m for m in mounts if m.fstype == "cgroup2"),
                       key=lambda m: (m.point != cgroup_root, m.root != "/"))
    v2 = CgroupV2(Hierarchy(v2_mounts[0].point, v2_mounts[0].root), proc) if v2_mounts else None
    if "cpu" in v1:
        note = ""
        if v2 is not None:
            held = " ".join(sorted(v2.controllers)) or "no controllers"
            note = f"hybrid: the cgroup2 at {v2.hierarchy.mount} has {held}"
        return CgroupV1(v1, proc, note)
    if v2 is not None and CPU in v2.provides:
        return v2
    if v1:
        return CgroupV1(v1, proc, "no cpu controller is mounted")
    if v2 is not None:
        v2.note = "the cpu controller is not available to it"
        return v2
    if any(m.fstype == "cgroup" for m in mounts):
        return NoCgroupFs(f"cgroup v1 is mounted without the {', '.join(CONTROLLERS)} controllers", proc)
    return NoCgroupFs("neither a cgroup (v1) nor a cgroup2 filesystem is mounted", proc)


@cache
def host() -> CgroupFs:
    """This node's CgroupFs, detected on first use and kept for the agent's lifetime."""
    return detect()
