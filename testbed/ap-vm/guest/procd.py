"""procd for the AP VM: runs the instances that /etc/init.d scripts declare through /lib/functions/procd.sh.

The init script's shell side (procd.sh) writes each service as a directory /var/run/procd/services/<service>/
holding one file per instance, one parameter a line: the parameter's name and its values separated by \\037
(command, env, respawn, file, stdout, stderr, term_timeout; others are kept and ignored), and leaves a request
file in /var/run/procd/req/. On each request (polled every 0.1 s) this supervisor reconciles what runs with what
is declared, as procd does:
- a new instance is started; one whose parameters or watched files (`file`, by content) changed is stopped
  (SIGTERM, SIGKILL after term_timeout, default 5 s) and started again; one no longer declared is stopped;
- an instance with `respawn THRESHOLD TIMEOUT RETRY` (procd's defaults 3600 5 5) that exits is started again after
  TIMEOUT seconds; exits within THRESHOLD seconds of its start count towards RETRY (0: no limit), after which it
  stays down until it is declared again; without respawn an exited instance stays down;
- stdout/stderr 1 append to /var/log/<service>.log (the VM has no logd), else /dev/null;
- /var/run/procd/pid/<service>.<instance> holds the running pid (removed when it is down);
then it removes the request files it saw, which is how `/etc/init.d/x start|stop` know they were carried out.
Between requests it only watches its children (the declarations are read again on the next request).
"""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

BASE = Path(os.environ.get("PROCD_BASE", "/var/run/procd"))
SERVICES = BASE / "services"
REQUESTS = BASE / "req"
PIDS = BASE / "pid"
LOGS = Path(os.environ.get("PROCD_LOG_DIR", "/var/log"))
ENV = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin"}
POLL_S = 0.1


def log(msg: str) -> None:
    print(f"procd: {msg}", file=sys.stderr, flush=True)


def read_spec(path: Path) -> dict[str, list[str]]:
    spec: dict[str, list[str]] = {}
    for line in path.read_text().splitlines():
        if line:
            name, *values = line.split("\037")
            spec[name] = values
    return spec


def spec_key(spec: dict[str, list[str]]) -> str:
    """What decides a restart: every parameter and the content of every watched file."""
    h = hashlib.sha256(repr(sorted(spec.items())).encode())
    for f in spec.get("file", []):
        try:
            h.update(Path(f).read_bytes())
        except OSError:
            h.update(b"(missing)")
    return h.hexdigest()


@dataclass
class Instance:
    service: str
    name: str
    spec: dict[str, list[str]]
    key: str
    proc: subprocess.Popen[bytes] | None = None
    started: float = 0.0
    crashes: int = 0
    next_start: float = 0.0  # 0 = now
    down: bool = False  # exited without respawn, or respawn gave up

    @property
    def label(self) -> str:
        return f"{self.service}.{self.name}"

    def start(self) -> None:
        cmd = self.spec.get("command", [])
        if not cmd:
            log(f"{self.label}: no command, not started")
            self.down = True
            return
        env = dict(ENV)
        env.update(kv.split("=", 1) for kv in self.spec.get("env", []) if "=" in kv)  # type: ignore[arg-type]
        wants_log = self.spec.get("stdout") == ["1"] or self.spec.get("stderr") == ["1"]
        out = open(LOGS / f"{self.service}.log", "ab") if wants_log else open(os.devnull, "wb")  # noqa: SIM115
        try:
            self.proc = subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL,
                                         stdout=out if self.spec.get("stdout") == ["1"] else subprocess.DEVNULL,
                                         stderr=out if self.spec.get("stderr") == ["1"] else subprocess.DEVNULL,
                                         start_new_session=True)
        except OSError as exc:
            log(f"{self.label}: cannot start {cmd[0]}: {exc}")
            self.proc = None
            self.exited(127)
            return
        finally:
            out.close()
        self.started = time.monotonic()
        (PIDS / self.label).write_text(f"{self.proc.pid}\n")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            timeout = float((self.spec.get("term_timeout") or ["5"])[0])
            self.proc.terminate()
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None
        (PIDS / self.label).unlink(missing_ok=True)

    def exited(self, rc: int) -> None:
        (PIDS / self.label).unlink(missing_ok=True)
        self.proc = None
        respawn = self.spec.get("respawn")
        if respawn is None:
            log(f"{self.label}: exited ({rc}), no respawn")
            self.down = True
            return
        threshold, timeout, retry = ([int(v) for v in respawn] + [3600, 5, 5][len(respawn):])[:3]
        if time.monotonic() - self.started < threshold:
            self.crashes += 1
        else:
            self.crashes = 0
        if retry and self.crashes > retry:
            log(f"{self.label}: exited ({rc}) {self.crashes} times in a row: crash loop, not respawning")
            self.down = True
            return
        log(f"{self.label}: exited ({rc}), respawning in {timeout} s")
        self.next_start = time.monotonic() + timeout


class Supervisor:
    def __init__(self) -> None:
        self.instances: dict[tuple[str, str], Instance] = {}

    def declared(self) -> dict[tuple[str, str], dict[str, list[str]]]:
        out: dict[tuple[str, str], dict[str, list[str]]] = {}
        for sdir in SERVICES.iterdir():
            if sdir.is_dir() and not sdir.name.startswith("."):
                for f in sdir.iterdir():
                    try:
                        out[(sdir.name, f.name)] = read_spec(f)
                    except OSError:
                        continue
        return out

    def reconcile(self) -> None:
        """Apply what the services declare now (only when asked: procd too compares an instance's parameters and
        watched files when its service is declared again, not all the time), then tick."""
        wanted = self.declared()
        for ident in list(self.instances):
            inst = self.instances[ident]
            spec = wanted.get(ident)
            if spec is None or spec_key(spec) != inst.key:
                inst.stop()
                del self.instances[ident]
                log(f"{inst.label}: stopped" if spec is None else f"{inst.label}: changed, restarting")
        for ident, spec in wanted.items():
            if ident not in self.instances:
                self.instances[ident] = Instance(ident[0], ident[1], spec, spec_key(spec))
        self.tick()

    def tick(self) -> None:
        """Note exits and start what is due: a few waitpid calls, cheap enough to run every POLL_S under TCG."""
        now = time.monotonic()
        for inst in self.instances.values():
            if inst.proc is not None:
                rc = inst.proc.poll()
                if rc is not None:
                    inst.exited(rc)
            if inst.proc is None and not inst.down and now >= inst.next_start:
                inst.start()

    def run(self) -> None:
        for d in (SERVICES, REQUESTS, PIDS, LOGS):
            d.mkdir(parents=True, exist_ok=True)
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
        log("running")
        try:
            while True:
                seen = list(REQUESTS.iterdir())
                # A start/stop/reload (request <service>.<pid>.<n>): its instances that stayed down get another try.
                touched = {r.name.split(".")[0] for r in seen}
                for inst in self.instances.values():
                    if inst.service in touched:
                        inst.down, inst.crashes = False, 0
                if seen:
                    self.reconcile()
                else:
                    self.tick()
                for r in seen:
                    r.unlink(missing_ok=True)
                time.sleep(POLL_S)
        finally:
            for inst in self.instances.values():
                inst.stop()


def main() -> int:
    Supervisor().run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
