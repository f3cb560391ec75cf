"""Snapshot the root resources tests may leave behind, and compare later: anything new is a leak.

    python -m wislice_testbed.leakcheck snapshot   # before the tests
    python -m wislice_testbed.leakcheck compare    # after: exit 1 and list what is new
    python -m wislice_testbed.leakcheck show       # print the current state as JSON

Watched: network namespaces, host interfaces named veth*/ws*, qemu-system-*, dockerd and pofswitch/pof-switch
processes, containers of every private dockerd socket under the run dirs, hugetlbfs mounts, nr_hugepages.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .dockerd import run_base
from .hugepages import SYSFS_2M, hugetlbfs_mounts, read_counter
from .netns import NETNS_DIR

Snapshot = dict[str, Any]
LIST_KEYS = ("netns", "interfaces", "processes", "containers", "hugetlbfs_mounts")
WATCHED_PROCESSES = ("qemu-system-", "dockerd", "pofswitch", "pof-switch", "containerd-shim")
INTERFACE_PREFIXES = ("veth", "ws")


def default_file() -> Path:
    return Path(os.environ.get("WISLICE_LEAKCHECK_FILE", f"/tmp/wislice-leakcheck-{os.getuid()}.json"))


def run_dirs() -> list[Path]:
    dirs = [run_base()]
    if os.environ.get("WISLICE_ROOT"):
        dirs.append(Path(os.environ["WISLICE_ROOT"]) / "testbed" / "run")
    return dirs


def watched_process(comm: str, argv0: str) -> bool:
    names = (comm, os.path.basename(argv0))
    return any(n.startswith(w) for n in names for w in WATCHED_PROCESSES)


def list_processes() -> list[str]:
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            comm = Path(f"/proc/{entry}/comm").read_text().strip()
            argv = Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        argv0 = argv[0].decode(errors="replace") if argv else ""
        if argv0 and watched_process(comm, argv0):  # no argv: a zombie or kernel thread
            found.append(f"{entry} {' '.join(a.decode(errors='replace') for a in argv if a)[:200]}")
    return sorted(found)


class _UnixHTTPConnection(http.client.HTTPConnection):
    def __init__(self, path: str, timeout: float = 3.0) -> None:
        super().__init__("localhost", timeout=timeout)
        self._path = path

    def connect(self) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(self.timeout)
        self.sock.connect(self._path)


def docker_sockets(dirs: Iterable[Path]) -> list[Path]:
    socks: list[Path] = []
    for d in dirs:
        if d.is_dir():
            socks.extend(p for p in d.glob("*/docker.sock") if p.is_socket())
            socks.extend(p for p in d.glob("*/*/docker.sock") if p.is_socket())
    return sorted(set(socks))


def list_containers(dirs: Iterable[Path]) -> list[str]:
    """``<socket> <id12> <name>`` for every container of every reachable private dockerd (a dead socket is skipped:
    its dockerd shows up under processes if it still runs)."""
    found = []
    for sock in docker_sockets(dirs):
        conn = _UnixHTTPConnection(str(sock))
        try:
            conn.request("GET", "/containers/json?all=1")
            resp = conn.getresponse()
            items = json.loads(resp.read()) if resp.status == 200 else []
        except (OSError, ValueError, http.client.HTTPException):
            continue
        finally:
            conn.close()
        found.extend(f"{sock} {c['Id'][:12]} {','.join(c.get('Names') or [])}" for c in items)
    return sorted(found)


def list_interfaces() -> list[str]:
    try:
        names = os.listdir("/sys/class/net")
    except FileNotFoundError:
        return []
    return sorted(n for n in names if n.startswith(INTERFACE_PREFIXES))


def list_netns() -> list[str]:
    try:
        return sorted(os.listdir(NETNS_DIR))
    except FileNotFoundError:
        return []


def take() -> Snapshot:
    try:
        nr = read_counter("nr_hugepages", SYSFS_2M)
    except OSError:
        nr = 0
    return {"netns": list_netns(), "interfaces": list_interfaces(), "processes": list_processes(),
            "containers": list_containers(run_dirs()), "hugetlbfs_mounts": sorted(hugetlbfs_mounts()),
            "nr_hugepages": nr}


def diff(before: Snapshot, after: Snapshot) -> list[str]:
    """Human-readable lines for everything in ``after`` that was not in ``before`` (leaks only, not removals)."""
    leaks = []
    for key in LIST_KEYS:
        old = set(before.get(key, []))
        leaks.extend(f"{key}: {item}" for item in after.get(key, []) if item not in old)
    if after.get("nr_hugepages", 0) > before.get("nr_hugepages", 0):
        leaks.append(f"nr_hugepages: {before.get('nr_hugepages', 0)} -> {after['nr_hugepages']}")
    return leaks


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m wislice_testbed.leakcheck", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=("snapshot", "compare", "show"))
    parser.add_argument("--file", type=Path, default=None, help=f"snapshot file (default {default_file()})")
    args = parser.parse_args(argv)
    path = args.file or default_file()
    now = take()
    if args.command == "show":
        print(json.dumps(now, indent=2))
        return 0
    if args.command == "snapshot":
        path.write_text(json.dumps(now, indent=2) + "\n")
        print(f"leakcheck: snapshot written to {path}")
        return 0
    try:
        before = json.loads(path.read_text())
    except FileNotFoundError:
        print(f"leakcheck: no snapshot at {path}; run `python -m wislice_testbed.leakcheck snapshot` first",
              file=sys.stderr)
        return 2
    leaks = diff(before, now)
    for line in leaks:
        print(f"leakcheck: LEFT BEHIND {line}")
    print(f"leakcheck: {'FAILED, ' + str(len(leaks)) + ' leftovers' if leaks else 'clean'} (against {path})")
    return 1 if leaks else 0


if __name__ == "__main__":
    sys.exit(main())
