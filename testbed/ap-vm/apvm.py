"""Boot and drive the AP VM: qemu TCG, mac80211_hwsim radios, a 9p share, user networking, a command channel.

    from apvm import ApVm
    with ApVm(radios=3) as vm:              # builds (or reuses) the image, boots, waits for the command server
        print(vm.run("iw dev").out)
        vm.share / "x.conf"                 # host side of the 9p share; /mnt/share inside the guest

The guest reaches the host's 127.0.0.1:P at 10.0.2.2:P (qemu user networking, nothing touches the host network).
Commands go over a virtio-serial port to guest/guestd.py. Teardown powers the guest off, then kills qemu by its pid
if it is still there, and removes the work directory, also when the boot failed.
"""

from __future__ import annotations

import contextlib
import ctypes
import itertools
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import build_image

QEMU = "qemu-system-x86_64"


def _die_with_parent() -> None:
    """In the qemu child before exec: SIGKILL it if the process that started it dies (a SIGKILLed test run)."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


PR_SET_PDEATHSIG = 1
WORKDIR_PREFIX = "wislice-apvm-"


def sweep_stale_workdirs() -> None:
    """Work directories of VMs whose qemu is gone (their runner was SIGKILLed; qemu died with it)."""
    for d in Path(tempfile.gettempdir()).glob(f"{WORKDIR_PREFIX}*"):
        try:
            pid = int((d / "qemu.pid").read_text())
        except (OSError, ValueError):
            if time.time() - d.stat().st_mtime < 120:  # maybe a VM being started right now
                continue
            pid = 0
        if pid and Path(f"/proc/{pid}").exists():
            continue
        shutil.rmtree(d, ignore_errors=True)


class GuestError(RuntimeError):
    """A guest command failed, or the guest stopped answering."""


@dataclass
class Result:
    rc: int
    out: str
    err: str


class ApVm:
    def __init__(self, radios: int = 3, memory_mib: int = 1024, cpus: int = 2, image_dir: Path | None = None,
                 boot_timeout: float = 90.0, uplink_tap: str | None = None,
                 uplink_mac: str = "52:54:00:5e:00:01", more_uplinks: tuple[tuple[str, str], ...] = ()) -> None:
        """``uplink_tap``: a host tap device given to the guest as a second NIC (MAC ``uplink_mac``): the AP's
        data-plane link into the host testbed, beside the user-mode NIC that carries control traffic.
        ``more_uplinks``: further (tap, MAC) NICs, one per extra AP the VM runs (the two-AP testbed)."""
        if not 1 <= radios <= 16:
            raise ValueError(f"radios must be 1..16, got {radios}")
        self.radios = radios
        self.memory_mib = memory_mib
        self.cpus = cpus
        self.image_dir = image_dir
        self.boot_timeout = boot_timeout
        self.uplink_tap = uplink_tap
        self.uplink_mac = uplink_mac
        self.more_uplinks = more_uplinks
        self.workdir: Path | None = None
        self.proc: subprocess.Popen[bytes] | None = None
        self.boot_s = 0.0
        self._sock: socket.socket | None = None
        self._ids = itertools.count(1)
        self._replies: dict[int, dict[str, object]] = {}
        self._cond = threading.Condition()
        self._reader: threading.Thread | None = None
        self._janitor_token: int | None = None

    # --- lifecycle ---------------------------------------------------------------------------------------------

    @property
    def share(self) -> Path:
        assert self.workdir is not None, "VM not started"
        return self.workdir / "share"

    @property
    def console_log(self) -> Path:
        assert self.workdir is not None, "VM not started"
        return self.workdir / "console.log"

    def start(self) -> ApVm:
        if shutil.which(QEMU) is None:
            raise GuestError(f"{QEMU} not installed (declared in testbed/ap-vm/deps/apt.txt; run make deps)")
        image = self.image_dir or build_image.build(quiet=True)
        sweep_stale_workdirs()
        self.workdir = Path(tempfile.mkdtemp(prefix=WORKDIR_PREFIX))
        self.share.mkdir()
        sock_path = self.workdir / "cmd.sock"
        argv = [
            QEMU, "-accel", "tcg", "-cpu", "max", "-m", str(self.memory_mib), "-smp", str(self.cpus),
            "-nodefaults", "-no-user-config", "-display", "none", "-no-reboot",
            "-serial", f"file:{self.console_log}",
            "-kernel", str(image / "vmlinux"), "-initrd", str(image / "initramfs.cpio.gz"),
            "-append", f"console=ttyS0 loglevel=4 panic=-1 wislice.radios={self.radios}",
            "-device", "virtio-serial-pci",
            "-chardev", f"socket,id=cmd,path={sock_path},server=on,wait=off",
            "-device", "virtserialport,chardev=cmd,name=wislice.cmd",
            "-netdev", "user,id=n0,net=10.0.2.0/24,host=10.0.2.2",
            "-device", "virtio-net-pci,netdev=n0",
            "-virtfs", f"local,path={self.share},mount_tag=share,security_model=none,id=share",
        ]
        if self.uplink_tap:
            argv += ["-netdev", f"tap,id=up0,ifname={self.uplink_tap},script=no,downscript=no,vnet_hdr=off",
                     "-device", f"virtio-net-pci,netdev=up0,mac={self.uplink_mac}"]
        for index, (tap, mac) in enumerate(self.more_uplinks, start=1):
            argv += ["-netdev", f"tap,id=up{index},ifname={tap},script=no,downscript=no,vnet_hdr=off",
                     "-device", f"virtio-net-pci,netdev=up{index},mac={mac}"]
        started = time.monotonic()
        with open(self.workdir / "qemu.log", "wb") as qlog:
            self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=qlog, stderr=subprocess.STDOUT,
                                         start_new_session=True, preexec_fn=_die_with_parent)
        (self.workdir / "qemu.pid").write_text(f"{self.proc.pid}\n")
        self._register_janitor()
        try:
            self._connect(sock_path, started + self.boot_timeout)
            self._wait_ready(started + self.boot_timeout)
        except BaseException:
            self.stop()
            raise
        self.boot_s = time.monotonic() - started
        return self

    def _register_janitor(self) -> None:
        # Last-resort cleanup when the shared helper is installed (an interrupted pytest session).
        try:
            from wislice_testbed import janitor
        except ImportError:
            return
        self._janitor_token = janitor.register(f"AP VM qemu pid {self.proc.pid if self.proc else '?'}", self.stop)

    def _connect(self, path: Path, deadline: float) -> None:
        while True:
            self._check_alive()
            try:
                sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                sock.connect(str(path))
                break
            except (FileNotFoundError, ConnectionRefusedError):
                sock.close()
                if time.monotonic() > deadline:
                    raise GuestError("qemu never opened its command socket") from None
                time.sleep(0.05)
        self._sock = sock
        self._reader = threading.Thread(target=self._read_loop, name="apvm-reader", daemon=True)
        self._reader.start()

    def _wait_ready(self, deadline: float) -> None:
        # Pings sent before guestd opens its port may be lost: repeat until one is answered.
        while time.monotonic() < deadline:
            self._check_alive()
            try:
                self._request({"op": "ping"}, timeout=1.0)
                return
            except TimeoutError:
                continue
        raise GuestError(f"guest did not answer within {self.boot_timeout} s; console:\n{self.console_tail()}")

    def _check_alive(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            qlog = (self.workdir / "qemu.log").read_text(errors="replace") if self.workdir else ""
            raise GuestError(f"qemu exited ({self.proc.returncode if self.proc else None}): {qlog.strip()}\n"
                             f"console:\n{self.console_tail()}")

    def console_tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.console_log.read_text(errors="replace").splitlines()[-lines:])
        except (OSError, AssertionError):
            return "(no console log)"

    def stop(self) -> None:
        """Power the guest off, kill qemu by pid if it lingers, remove the work directory. Safe to call twice."""
        if self.proc is not None and self.proc.poll() is None and self._sock is not None:
            with contextlib.suppress(Exception):
                self._send({"id": next(self._ids), "op": "poweroff"})
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(timeout=10)
        if self.proc is not None:
            for sig, wait in ((signal.SIGTERM, 5.0), (signal.SIGKILL, 5.0)):
                if self.proc.poll() is not None:
                    break
                with contextlib.suppress(ProcessLookupError):
                    os.kill(self.proc.pid, sig)
                with contextlib.suppress(subprocess.TimeoutExpired):
                    self.proc.wait(timeout=wait)
        if self._sock is not None:
            with contextlib.suppress(OSError):
                self._sock.close()
            self._sock = None
        if self.workdir is not None:
            shutil.rmtree(self.workdir, ignore_errors=True)
            self.workdir = None
        if self._janitor_token is not None:
            from wislice_testbed import janitor
            janitor.unregister(self._janitor_token)
            self._janitor_token = None

    def __enter__(self) -> ApVm:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # --- the command channel -----------------------------------------------------------------------------------

    def _send(self, obj: dict[str, object]) -> None:
        if self._sock is None:
            raise GuestError("VM not running")
        self._sock.sendall((json.dumps(obj) + "\n").encode())

    def _read_loop(self) -> None:
        buf = b""
        sock = self._sock
        assert sock is not None
        while True:
            try:
                chunk = sock.recv(65536)
            except OSError:
                chunk = b""
            if not chunk:
                with self._cond:
                    self._replies[-1] = {"closed": True}
                    self._cond.notify_all()
                return
            buf += chunk
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                try:
                    msg = json.loads(line)
                except ValueError:
                    continue
                if isinstance(msg, dict) and isinstance(msg.get("id"), int):
                    with self._cond:
                        self._replies[msg["id"]] = msg
                        self._cond.notify_all()

    def _request(self, req: dict[str, object], timeout: float) -> dict[str, object]:
        rid = next(self._ids)
        self._send({"id": rid, **req})
        deadline = time.monotonic() + timeout
        with self._cond:
            while rid not in self._replies:
                if -1 in self._replies:
                    raise GuestError(f"command channel closed; console:\n{self.console_tail()}")
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"guest did not answer {req.get('op')} within {timeout} s")
                self._cond.wait(left)
            reply = self._replies.pop(rid)
        if "error" in reply:
            raise GuestError(f"guestd: {reply['error']}")
        return reply

    def run(self, cmd: str, timeout: float = 60.0, check: bool = True) -> Result:
        """Run a shell command (dash) in the guest; raises GuestError on a non-zero exit when ``check``."""
        reply = self._request({"op": "run", "cmd": cmd, "timeout": timeout}, timeout + 10)
        res = Result(int(reply["rc"]), str(reply["out"]), str(reply["err"]))  # type: ignore[call-overload]
        if check and res.rc != 0:
            raise GuestError(f"guest command failed (rc {res.rc}): {cmd}\nstdout: {res.out}\nstderr: {res.err}")
        return res

    def spawn(self, cmd: str, log: str = "/dev/null") -> int:
        """Start a long-running guest process in its own session, output to ``log``; returns its guest pid."""
        reply = self._request({"op": "spawn", "cmd": cmd, "log": log}, 30)
        return int(reply["pid"])  # type: ignore[call-overload]

    def wait_for(self, cmd: str, timeout: float = 30.0, interval: float = 0.2) -> Result:
        """Repeat ``cmd`` in the guest until it exits 0."""
        deadline = time.monotonic() + timeout
        while True:
            res = self.run(cmd, timeout=max(5.0, timeout), check=False)
            if res.rc == 0:
                return res
            if time.monotonic() > deadline:
                raise GuestError(f"timed out after {timeout} s waiting for: {cmd}\n{res.out}{res.err}")
            time.sleep(interval)
