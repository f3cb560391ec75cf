"""Network namespaces (pyroute2) with helpers to run programs inside them (``ip netns exec``)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Sequence
from typing import Any

from . import janitor
from .names import unique_name

NETNS_DIR = "/var/run/netns"


def exec_argv(netns: str | None, argv: Sequence[str]) -> list[str]:
    """argv that runs ``argv`` inside ``netns`` (unchanged for the host namespace). ``ip netns exec`` execs, so the
    child's pid is the program's pid."""
    if not argv:
        raise ValueError("empty argv")
    return [*(["ip", "netns", "exec", netns] if netns else []), *map(str, argv)]


def pids_in(name: str) -> list[int]:
    """Pids of processes whose network namespace is the named one."""
    try:
        ino = os.stat(os.path.join(NETNS_DIR, name)).st_ino
    except FileNotFoundError:
        return []
    pids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.stat(f"/proc/{entry}/ns/net").st_ino == ino:
                    pids.append(int(entry))
            except OSError:
                continue
    return pids


class Namespace:
    """A named network namespace that this process created; ``delete()`` is idempotent."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._token: int | None = None

    @classmethod
    def create(cls, tag: str = "") -> Namespace:
        from pyroute2 import NetNS, netns

        ns = cls(unique_name(tag))
        netns.create(ns.name)
        ns._token = janitor.register(f"netns {ns.name}", ns.delete)
        try:
            with NetNS(ns.name) as ipr:
                ipr.link("set", index=ipr.link_lookup(ifname="lo")[0], state="up")
        except BaseException:
            ns.delete()
            raise
        return ns

    @property
    def path(self) -> str:
        return os.path.join(NETNS_DIR, self.name)

    def exists(self) -> bool:
        return os.path.exists(self.path)

    def argv(self, argv: Sequence[str]) -> list[str]:
        return exec_argv(self.name, argv)

    def exec(self, argv: Sequence[str], *, check: bool = True, timeout: float = 60, **kw: Any
             ) -> subprocess.CompletedProcess[str]:
        """Run to completion inside the namespace; output captured as text unless overridden."""
        kw.setdefault("capture_output", "stdout" not in kw and "stderr" not in kw)
        kw.setdefault("text", True)
        return subprocess.run(self.argv(argv), check=check, timeout=timeout, **kw)

    def popen(self, argv: Sequence[str], **kw: Any) -> subprocess.Popen[Any]:
        """Start inside the namespace; the caller stops it (or use the ``processes`` fixture)."""
        return subprocess.Popen(self.argv(argv), **kw)

    def delete(self, grace: float = 2.0) -> None:
        """Stop whatever still runs in the namespace (it is ours), then remove it; its interfaces go with it."""
        if self._token is not None:
            janitor.unregister(self._token)
            self._token = None
        for sig in (signal.SIGTERM, signal.SIGKILL):
            pids = [p for p in pids_in(self.name) if p != os.getpid()]
            if not pids:
                break
            for pid in pids:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, sig)
            deadline = time.monotonic() + grace
            while time.monotonic() < deadline and any(_alive(p) for p in pids):
                time.sleep(0.05)
        if self.exists():
            from pyroute2 import netns

            netns.remove(self.name)

    def __enter__(self) -> Namespace:
        return self

    def __exit__(self, *exc: object) -> None:
        self.delete()

    def __repr__(self) -> str:
        return f"Namespace({self.name!r})"


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, IndexError):
        return False
