"""Reserve 2 MiB hugepages, mount hugetlbfs in a private directory, and give both back afterwards."""

from __future__ import annotations

import contextlib
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from . import janitor
from .mounts import mount, mounts, umount

SYSFS_2M = Path("/sys/kernel/mm/hugepages/hugepages-2048kB")
PAGE = 2 * 1024 * 1024


def read_counter(name: str, base: Path = SYSFS_2M) -> int:
    return int((base / name).read_text().strip())


def hugetlbfs_mounts() -> list[str]:
    return [m for m, fstype, _ in mounts() if fstype == "hugetlbfs"]


@dataclass
class Hugepages:
    """``pages`` 2 MiB pages added to the pool and a hugetlbfs mounted at ``mount``."""

    pages: int
    mount: Path
    previous: int
    base: Path = SYSFS_2M
    _added: int = field(default=0, repr=False)
    _token: int | None = field(default=None, repr=False)

    @classmethod
    def reserve(cls, pages: int = 64, base: Path = SYSFS_2M) -> Hugepages:
        """Raise nr_hugepages by ``pages`` (on top of what others hold) and mount hugetlbfs for them."""
        if pages <= 0:
            raise ValueError("pages must be positive")
        if not base.is_dir():
            raise FileNotFoundError(f"{base}: this kernel has no 2 MiB hugepages")
        previous = read_counter("nr_hugepages", base)
        free_before = read_counter("free_hugepages", base)
        hp = cls(pages=pages, mount=Path(tempfile.mkdtemp(prefix="wislice-huge-")), previous=previous, base=base)
        hp._token = janitor.register(f"hugepages {hp.mount} (nr_hugepages back to {previous})", hp.release)
        try:
            hp._added = pages  # until we know what the kernel gave: release() then takes back no more than that
            (base / "nr_hugepages").write_text(str(previous + pages))
            hp._added = max(0, read_counter("nr_hugepages", base) - previous)
            got = read_counter("free_hugepages", base) - free_before
            if got < pages:
                raise OSError(f"asked for {pages} hugepages, the kernel gave {got} (memory fragmented?)")
            mount("nodev", str(hp.mount), "hugetlbfs", f"pagesize=2M,size={pages * PAGE}")
        except BaseException:
            hp.release()
            raise
        return hp

    def release(self) -> None:
        """Unmount (freeing files left in it), restore the previous nr_hugepages, remove the directory."""
        if self._token is not None:
            janitor.unregister(self._token)
            self._token = None
        if str(self.mount) in hugetlbfs_mounts():  # unmounting frees the pages of files left in it
            umount(str(self.mount), lazy=False)
        if self._added:
            # Give back exactly what we added: others may have raised the pool meanwhile, or given theirs back
            # already (reservations overlap without nesting on a shared machine: a floor at ``previous`` then
            # kept the other run's pages in the pool for good, 384 and 96 pages left behind in one morning).
            current = read_counter("nr_hugepages", self.base)
            target = max(0, current - self._added)
            if current != target:
                (self.base / "nr_hugepages").write_text(str(target))
            self._added = 0
        with contextlib.suppress(FileNotFoundError):
            os.rmdir(self.mount)
