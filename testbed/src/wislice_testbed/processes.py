"""Child processes with log files, optionally inside a network namespace, stopped by pid (SIGTERM, then SIGKILL)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from . import janitor
from .netns import Namespace, exec_argv


def stop_pid(pid: int, timeout: float = 5.0, *, group: bool = False) -> None:
    """SIGTERM ``pid`` (and its process group when ``group``), wait up to ``timeout``, then SIGKILL."""
    for sig, wait in ((signal.SIGTERM, timeout), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(pid, sig) if group else os.kill(pid, sig)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            if _reap_or_gone(pid):
                return
            time.sleep(0.02)


def gone(pid: int) -> bool:
    """The process has exited (reaped here if it was our child; a zombie counts as gone)."""
    return _reap_or_gone(pid)


def _reap_or_gone(pid: int) -> bool:
    try:
        done, _ = os.waitpid(pid, os.WNOHANG)
        return done == pid
    except ChildProcessError:  # not our child: gone when /proc says so
        try:
            with open(f"/proc/{pid}/stat") as f:
                return f.read().rsplit(")", 1)[1].split()[0] == "Z"
        except FileNotFoundError:
            return True


def stop(proc: subprocess.Popen[Any], timeout: float = 5.0) -> int | None:
    """Stop a Popen started by :class:`ProcessManager`: SIGTERM to its process group (it leads its own session),
    wait up to ``timeout``, then SIGKILL the group. Returns the exit status (negative signal number)."""
    for sig, wait in ((signal.SIGTERM, timeout), (signal.SIGKILL, 5.0)):
        if proc.poll() is not None:
            break
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            break
        try:
            proc.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            continue
    with contextlib.suppress(ProcessLookupError, PermissionError):  # members that outlived the group leader
        os.killpg(proc.pid, signal.SIGKILL)
    return proc.poll()


class ProcessManager:
    """Starts processes with stdout+stderr in ``log_dir/<log_name>.log``; ``stop_all()`` stops them, newest first."""

    def __init__(self, log_dir: Path | str) -> None:
        self.log_dir = Path(log_dir)
        self.log_dir.mkdir(parents=True, exist_ok=True)
        self._procs: list[tuple[subprocess.Popen[Any], Path, int]] = []
        self._how: dict[int, dict[str, Any]] = {}  # pid -> how it was started, for restart()

    def start(self, argv: Sequence[str], *, netns: Namespace | str | None = None, log_name: str | None = None,
              env: Mapping[str, str] | None = None, cwd: str | Path | None = None, **kw: Any
              ) -> subprocess.Popen[Any]:
        name = netns.name if isinstance(netns, Namespace) else netns
        log_name = log_name or Path(str(argv[0])).name
        log = self.log_dir / f"{log_name}.log"
        n = 1
        while log.exists():
            n += 1
            log = self.log_dir / f"{log_name}.{n}.log"
        full_env = {**os.environ, **env} if env is not None else None
        with open(log, "wb") as out:
            proc = subprocess.Popen(exec_argv(name, argv), stdout=out, stderr=subprocess.STDOUT,
                                    stdin=subprocess.DEVNULL, env=full_env, cwd=cwd, start_new_session=True, **kw)
        token = janitor.register(f"process {proc.pid} {argv[0]}", lambda p=proc: stop(p))
        self._procs.append((proc, log, token))
        self._how[proc.pid] = dict(argv=list(argv), netns=name, log_name=log_name, env=env, cwd=cwd, **kw)
        return proc

    def crash(self, proc: subprocess.Popen[Any]) -> None:
        """SIGKILL to the process's group, as a crash: no handler of it runs, nothing it started is stopped."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)

    def restart(self, proc: subprocess.Popen[Any]) -> subprocess.Popen[Any]:
        """Starts again what ``proc`` ran (same argv, namespace, environment), as a supervisor would after it
        died; the new process logs to a new file beside the old one."""
        if proc.poll() is None:
            raise RuntimeError(f"pid {proc.pid} is still running")
        return self.start(**self._how[proc.pid])

    def log_path(self, proc: subprocess.Popen[Any]) -> Path:
        return next(log for p, log, _ in self._procs if p is proc)

    def stop(self, proc: subprocess.Popen[Any], timeout: float = 5.0) -> int | None:
        for entry in list(self._procs):
            if entry[0] is proc:
                rc = stop(proc, timeout)
                janitor.unregister(entry[2])
                return rc
        raise ValueError(f"pid {proc.pid} was not started here")

    def stop_all(self, timeout: float = 5.0) -> None:
        for proc, _, token in reversed(self._procs):
            stop(proc, timeout)
            janitor.unregister(token)

    def tails(self, lines: int = 30) -> str:
        """The last ``lines`` of every log, headed by argv and exit status, for failure reports."""
        parts = []
        for proc, log, _ in self._procs:
            rc = proc.poll()
            state = "running" if rc is None else f"exit {rc}"
            parts.append(f"--- {log.name} (pid {proc.pid}, {state}): {' '.join(map(str, proc.args))}")
            parts.extend(tail(log, lines))
        return "\n".join(parts)


def tail(path: Path, lines: int = 30) -> list[str]:
    try:
        data = path.read_bytes()[-64 * 1024:]
    except FileNotFoundError:
        return ["(no log)"]
    return data.decode(errors="replace").splitlines()[-lines:]
