"""A private Docker Engine (Debian docker.io) that never touches the host's firewall, bridge or default socket.

dockerd --data-root D --exec-root E -H unix://S --pidfile P --iptables=false --ip-forward=false --bridge=none
        --cgroup-parent wislice/<name> --shutdown-timeout 2
Containers must use network_mode="none" (or "host"/"container:..."): there is no bridge network.
"""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import signal
import subprocess
import tarfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import janitor
from .mounts import umount_all_under
from .names import unique_name
from .processes import gone, stop_pid, tail

CGROUP_ROOT = Path("/sys/fs/cgroup")
CGROUP_BASE = "wislice"
BUSYBOX = Path("/bin/busybox")
BUSYBOX_IMAGE = "wislice/busybox:latest"


def run_base() -> Path:
    """Where private daemons keep their state: ``$WISLICE_RUN`` or ``/tmp/wislice-run-<uid>`` (short, so unix
    socket paths stay under 108 bytes). leakcheck scans it for dockerd sockets."""
    return Path(os.environ.get("WISLICE_RUN", f"/tmp/wislice-run-{os.getuid()}"))


def dockerd_argv(root: Path, cgroup_parent: str, dockerd: str = "dockerd", live_restore: bool = False) -> list[str]:
    """live_restore: containers outlive the daemon's stop, crash and restart (as a MEC node's engine should run)."""
    return [dockerd, "--data-root", str(root / "data"), "--exec-root", str(root / "exec"),
            "-H", f"unix://{root / 'docker.sock'}", "--pidfile", str(root / "docker.pid"),
            "--iptables=false", "--ip-forward=false", "--bridge=none", "--cgroup-parent", cgroup_parent,
            "--shutdown-timeout", "2", *(["--live-restore"] if live_restore else [])]


def have_dockerd() -> str | None:
    return shutil.which("dockerd") or next((p for p in ("/usr/sbin/dockerd", "/usr/bin/dockerd")
                                            if os.access(p, os.X_OK)), None)


@dataclass
class PrivateDockerd:
    root: Path
    cgroup_parent: str
    live_restore: bool = False
    proc: subprocess.Popen[bytes] | None = None
    _client: Any = field(default=None, repr=False)
    _token: int | None = field(default=None, repr=False)

    @property
    def socket(self) -> Path:
        return self.root / "docker.sock"

    @property
    def base_url(self) -> str:
        return f"unix://{self.socket}"

    @property
    def log(self) -> Path:
        return self.root / "dockerd.log"

    @property
    def client(self) -> Any:
        """A docker.DockerClient bound to this daemon."""
        if self._client is None:
            import docker

            self._client = docker.DockerClient(base_url=self.base_url, timeout=60)
        return self._client

    @classmethod
    def start(cls, tag: str = "dk", *, timeout: float = 30.0, live_restore: bool = False) -> PrivateDockerd:
        exe = have_dockerd()
        if exe is None:
            raise FileNotFoundError("dockerd is not installed (Debian package docker.io)")
        name = unique_name(tag)
        root = run_base() / name
        root.mkdir(parents=True, mode=0o700)
        d = cls(root=root, cgroup_parent=f"{CGROUP_BASE}/{name}", live_restore=live_restore)
        d._token = janitor.register(f"dockerd {root}", d.stop)
        d._launch(exe)
        try:
            d._wait_ready(timeout)
        except BaseException:
            d.stop()
            raise
        return d

    def _wait_ready(self, timeout: float) -> None:
        import docker

        deadline = time.monotonic() + timeout
        while True:
            assert self.proc is not None
            if self.proc.poll() is not None:
                raise RuntimeError(f"dockerd exited {self.proc.returncode}:\n" + "\n".join(tail(self.log, 20)))
            if self.socket.exists():
                try:
                    if docker.APIClient(base_url=self.base_url, timeout=2).ping():
                        return
                except Exception:
                    pass
            if time.monotonic() > deadline:
                raise TimeoutError(f"dockerd not ready after {timeout} s:\n" + "\n".join(tail(self.log, 20)))
            time.sleep(0.05)

    def crash(self) -> None:
        """SIGKILL to dockerd (and the containerd it started, in its process group), as a crash: containers and
        their shims live on."""
        assert self.proc is not None
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)
        if self._client is not None:
            self._client.close()
            self._client = None

    def restart(self, timeout: float = 60.0) -> None:
        """dockerd started again on the same root, as its supervisor would; returns once it answers."""
        assert self.proc is not None and self.proc.poll() is not None, "dockerd is still running"
        # Its containerd died with it but may linger as a zombie (this machine's init reaps late): dockerd would
        # take its pid file for a running containerd and wait for it forever.
        pidfile = self.root / "exec" / "containerd" / "containerd.pid"
        with contextlib.suppress(OSError, ValueError):
            if gone(int(pidfile.read_text().split()[0])):
                pidfile.unlink()
        exe = have_dockerd()
        assert exe is not None
        self._launch(exe)
        self._wait_ready(timeout)

    def _launch(self, exe: str) -> None:
        with open(self.log, "ab") as out:  # a restart's lines follow the first run's
            self.proc = subprocess.Popen(dockerd_argv(self.root, self.cgroup_parent, exe, self.live_restore),
                                         stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                         start_new_session=True)

    def stop(self) -> None:
        """Remove every container, stop dockerd by pid, kill what it left (containerd, shims: ours), unmount what
        is left under the root, remove our cgroups and the state directory. Idempotent."""
        if self._token is not None:
            janitor.unregister(self._token)
            self._token = None
        if self.proc is not None and self.proc.poll() is None:
            try:
                for c in self.client.containers.list(all=True):
                    c.remove(force=True)
            except Exception as exc:
                print(f"[wislice_testbed] removing containers of {self.root}: {exc}")
        if self._client is not None:
            self._client.close()
            self._client = None
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)
        for pid in processes_mentioning(str(self.root)):
            stop_pid(pid, timeout=2)
        umount_all_under(self.root)
        remove_cgroups(self.cgroup_parent)
        shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> PrivateDockerd:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def processes_mentioning(text: str) -> list[int]:
    """Pids whose command line contains ``text`` (e.g. the containerd a private dockerd started for its root)."""
    pids = []
    me = os.getpid()
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == me:
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                if text.encode() in f.read():
                    pids.append(int(entry))
        except OSError:
            continue
    return pids


def remove_cgroups(cgroup_parent: str, base: Path = CGROUP_ROOT) -> None:
    """rmdir ``cgroup_parent`` (depth first) in every hierarchy, then its ancestors when they are empty."""
    for hierarchy in base.iterdir() if base.is_dir() else []:
        top = hierarchy / cgroup_parent
        if top.is_dir():
            for dirpath, _, _ in sorted(os.walk(top), key=lambda w: w[0].count("/"), reverse=True):
                with contextlib.suppress(OSError):
                    os.rmdir(dirpath)
        parent = top.parent
        while parent != hierarchy and parent.is_dir():
            try:
                parent.rmdir()
            except OSError:
                break
            parent = parent.parent


BUSYBOX_APPLETS = ("sh", "ash", "cat", "echo", "env", "hostname", "ip", "ifconfig", "ls", "mkdir", "nc", "ping",
                   "ps", "rm", "sleep", "sysctl", "true", "false", "wget", "httpd", "udhcpc", "touch", "kill", "top")


def busybox_rootfs_tar(busybox: Path = BUSYBOX, applets: tuple[str, ...] = BUSYBOX_APPLETS) -> bytes:
    """A tiny root filesystem (static busybox + applet symlinks) as a tar, for ``docker import``."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for d in ("bin", "dev", "etc", "proc", "sys", "tmp", "var", "run"):
            info = tarfile.TarInfo(d)
            info.type, info.mode = tarfile.DIRTYPE, 0o1777 if d == "tmp" else 0o755
            tar.addfile(info)
        tar.add(str(busybox), arcname="bin/busybox")
        for applet in applets:
            link = tarfile.TarInfo(f"bin/{applet}")
            link.type, link.linkname = tarfile.SYMTYPE, "busybox"
            tar.addfile(link)
        passwd = b"root:x:0:0:root:/:/bin/sh\n"
        info = tarfile.TarInfo("etc/passwd")
        info.size = len(passwd)
        tar.addfile(info, io.BytesIO(passwd))
    return buf.getvalue()


def import_busybox_image(client: Any, ref: str = BUSYBOX_IMAGE) -> str:
    """Import the busybox rootfs as image ``ref`` (no registry needed); returns the image id."""
    repo, _, tag = ref.partition(":")
    client.api.import_image_from_data(busybox_rootfs_tar(), repository=repo, tag=tag or "latest",
                                      changes=['CMD ["/bin/sh"]', "ENV PATH=/bin"])
    return client.images.get(ref).id
