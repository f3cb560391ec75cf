"""Issue 17's takeover scenario with a killed process, shared by tests/integration/test_ha_processes.py (one run) and
bench/takeover.py (N runs): two orchestrator processes (`wislice serve`, orch-a and orch-b) on one PostgreSQL, both
driving one set of fake ONOS apps on loopback (fake_onos.py) that holds orch-a's create_path call. orch-a has then
created the slice's vAP and vNF and is waiting for its path; it is killed (SIGKILL) there, the held call then takes
effect anyway (a controller finishes what it got; the reply goes nowhere), and orch-b takes the operation over once
its lease expired. A slice creation rolls back when interrupted (saga.py), so the operation ends failed with every
step undone, the path that appeared after the kill included; then the slice is deleted and created again through
orch-b, and the controllers hold exactly the new slice's parts.

What a run saw is an Observed; `problems()` lists every way it differs from that (empty: takeover OK)."""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import requests
import sqlalchemy as sa
from abuse_targets import topology
from fake_hold import hold_on
from fake_onos import ServedOnos
from orch_helpers import slice_body
from orch_served import free_port

from wislice_orchestrator.models import ACTIVE_STATES, Operation

LEASE_S = 2.0
RENEW_S = 0.5
# The operation ends within LEASE_S (the dead instance's last renewal) + RENEW_S (orch-b's next keeper round) + the
# rollback's own calls; the bound leaves room for a loaded 2-core machine.
END_BOUND_S = LEASE_S + 6.0
EMPTY = {"vaps": [], "vnfs": [], "paths": []}
CREATES = ("create_vap", "create_vnf", "create_path")


@dataclass
class Observed:
    held_with: dict[str, int] = field(default_factory=dict)  # what the controllers held when the call was held
    path_after_kill: bool = False  # the held create_path took effect after orch-a died
    busy_status: int = 0  # orch-b's answer to a DELETE of the slice while orch-a's lease ran
    op: dict[str, Any] = field(default_factory=dict)  # the operation as orch-b served it once it ended
    takeover_s: float | None = None  # kill -> the operation ended (None: it did not within END_BOUND_S)
    lease_owner: str | None = None
    after_rollback: dict[str, Any] = field(default_factory=dict)  # the controllers' resources then
    calls: Counter[str] = field(default_factory=Counter)  # controller calls up to then
    delete_status: str = ""  # the next operation on the slice (deleting it) through orch-b
    recreate_status: str = ""  # the slice created again through orch-b
    final: dict[str, int] = field(default_factory=dict)  # the controllers' resources at the end, counted

    def problems(self) -> list[str]:
        """Every check of the scenario that failed, in words."""
        found = []
        if self.held_with != {"vaps": 1, "vnfs": 1, "paths": 0}:
            found.append(f"not mid-saga when orch-a was killed: the controllers held {self.held_with}")
        if not self.path_after_kill:
            found.append("the held create_path did not take effect after the kill")
        if self.busy_status != 409:
            found.append(f"orch-b answered {self.busy_status}, not 409, to a DELETE while orch-a's lease ran")
        if self.takeover_s is None:
            found.append(f"the operation did not end within {END_BOUND_S:g} s of the kill: {self.op}")
        elif self.takeover_s < LEASE_S - RENEW_S - 0.2:
            found.append(f"the operation ended {self.takeover_s:.2f} s after the kill: before orch-a's lease expired")
        if self.op.get("status") != "failed" or "orch-a" not in (self.op.get("error") or ""):
            found.append(f"the operation did not end failed and interrupted by orch-a: {self.op}")
        states = [s.get("state") for s in self.op.get("steps", [])]
        if states != ["undone"] * 3:
            found.append(f"its three steps are not all undone: {states}")
        if self.lease_owner != "orch-b":
            found.append(f"the operation's lease_owner is {self.lease_owner!r}, not orch-b")
        if self.after_rollback != EMPTY:
            found.append(f"left at the controllers after the rollback: {self.after_rollback}")
        doubled = {m: self.calls[m] for m in CREATES if self.calls[m] != 1}
        if doubled:
            found.append(f"create calls not made exactly once before the rollback ended: {doubled}")
        if self.delete_status != "succeeded" or self.recreate_status != "succeeded":
            found.append(f"through orch-b afterwards: delete {self.delete_status}, create again {self.recreate_status}")
        if self.final != {"vaps": 1, "vnfs": 1, "paths": 1}:
            found.append(f"the controllers do not hold exactly the recreated slice's parts: {self.final}")
        return found


@dataclass
class Instance:
    name: str
    url: str
    proc: subprocess.Popen[Any]

    def call(self, method: str, path: str, token: str, **kw: Any) -> requests.Response:
        return requests.request(method, self.url + path, headers={"Authorization": f"Bearer {token}"}, timeout=30,
                                **kw)


def start_instance(processes: Any, name: str, env: dict[str, str]) -> Instance:
    """`wislice serve` as instance `name` (its own process, started through the testbed's ProcessManager)."""
    port = free_port()
    proc = processes.start([sys.executable, "-m", "wislice_orchestrator.cli", "serve", "--port", str(port)],
                           log_name=name, env={**env, "WISLICE_INSTANCE_ID": name})
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        if proc.poll() is not None:
            raise RuntimeError(f"{name} exited with {proc.returncode} during start; see its log")
        try:
            if requests.get(url + "/api/v1/openapi.json", timeout=1).ok:
                return Instance(name, url, proc)
        except requests.ConnectionError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"{name} did not answer within 30 s")
        time.sleep(0.1)


def counted(resources: dict[str, Any]) -> dict[str, int]:
    return {kind: len(items) for kind, items in resources.items()}


def wait_ended(orch: Instance, location: str, token: str, timeout_s: float) -> dict[str, Any] | None:
    """The operation once it ended, read through `orch`; None if it is still active after timeout_s."""
    deadline = time.monotonic() + timeout_s
    while True:
        op = orch.call("GET", location, token).json()
        if op.get("status") not in ACTIVE_STATES:
            return op
        if time.monotonic() > deadline:
            return None
        time.sleep(0.05)


def run_once(processes: Any, database_url: str, workdir: Path) -> Observed:
    """One run of the scenario; its processes are the caller's to stop (through `processes`), also on failure."""
    seen = Observed()
    onos = ServedOnos()
    fake = onos.onos.fake
    hold = hold_on(fake, "create_path")
    try:
        operator = "wso_" + secrets.token_urlsafe(32)
        env = {"WISLICE_DATABASE_URL": database_url, "WISLICE_ONOS_URL": onos.url, "WISLICE_ONOS_TIMEOUT_S": "10",
               "WISLICE_BOOTSTRAP_OPERATOR_TOKEN": operator, "WISLICE_TELEMETRY": "0",
               "WISLICE_PASSPHRASE_KEY_FILE": str(workdir / "passphrase.key"),
               "WISLICE_LEASE_S": str(LEASE_S), "WISLICE_LEASE_RENEW_S": str(RENEW_S)}
        a = start_instance(processes, "orch-a", env)  # first alone: it migrates the database
        b = start_instance(processes, "orch-b", env)
        assert a.call("PUT", "/api/v1/topology", operator, json=topology()).ok
        assert a.call("POST", "/api/v1/tenants", operator, json={"tenant_id": 1, "name": "alpha"}).ok
        tenant = a.call("POST", "/api/v1/tenants/1/tokens", operator, json={"name": "ha"}).json()["token"]

        created = a.call("POST", "/api/v1/tenants/1/slices", tenant, json=slice_body())
        assert created.status_code == 202, created.text
        location, sid = created.headers["Location"], created.json()["slice_id"]
        if not hold.reached.wait(15):
            raise RuntimeError(f"orch-a's create_path never reached the controllers: {fake.calls}")
        seen.held_with = counted(fake.resources())

        os.kill(a.proc.pid, signal.SIGKILL)  # a crash: no handler runs, the lease is left to expire
        a.proc.wait(timeout=10)
        killed = time.monotonic()
        hold.release()
        seen.path_after_kill = hold.done.wait(5) and len(fake.resources()["paths"]) == 1

        seen.busy_status = b.call("DELETE", f"/api/v1/tenants/1/slices/{sid}", tenant).status_code
        op = wait_ended(b, location, tenant, END_BOUND_S)
        if op is not None:
            seen.takeover_s = time.monotonic() - killed
        seen.op = op or b.call("GET", location, tenant).json()
        seen.after_rollback = fake.resources()
        seen.calls = Counter(fake.calls)
        engine = sa.create_engine(database_url)
        try:
            with engine.connect() as conn:
                seen.lease_owner = conn.scalar(sa.select(Operation.lease_owner)
                                               .where(Operation.id == seen.op["operation_id"]))
        finally:
            engine.dispose()
        if op is None:
            return seen  # the operation still runs: the next steps would only be refused

        deleted = b.call("DELETE", f"/api/v1/tenants/1/slices/{sid}", tenant)
        ended = wait_ended(b, deleted.headers.get("Location", ""), tenant, 15) if deleted.status_code == 202 else None
        seen.delete_status = (ended or {}).get("status") or f"HTTP {deleted.status_code}"
        again = b.call("POST", "/api/v1/tenants/1/slices", tenant, json=slice_body())
        ended = wait_ended(b, again.headers.get("Location", ""), tenant, 15) if again.status_code == 202 else None
        seen.recreate_status = (ended or {}).get("status") or f"HTTP {again.status_code}"
        seen.final = counted(fake.resources())
        return seen
    finally:
        hold.release()
        onos.stop()


# --- a private PostgreSQL for the bench (the tests use the postgres_url fixture of conftest.py, the same way) -----
def pg_bin(name: str) -> str:
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    if not found:
        raise RuntimeError("PostgreSQL server binaries missing (Debian package postgresql, deps/apt.txt)")
    return found[-1]


@contextlib.contextmanager
def private_postgres(processes: Any) -> Iterator[str]:
    """initdb into a temporary directory and serve it on a unix socket only, as the postgres user (initdb refuses
    root); the server is stopped by pid through `processes` and the directory removed at the end."""
    user = pwd.getpwnam("postgres")
    base = Path(tempfile.mkdtemp(prefix="wislice-pg-"))
    proc = None
    try:
        base.chmod(0o755)
        data, sock = base / "data", base / "sock"
        sock.mkdir()
        shutil.chown(sock, user.pw_uid, user.pw_gid)
        shutil.chown(base, user.pw_uid, user.pw_gid)
        as_pg = ["runuser", "-u", "postgres", "--"]
        subprocess.run(as_pg + [pg_bin("initdb"), "-D", str(data), "-A", "trust", "-U", "wislice", "-E", "UTF8"],
                       check=True, capture_output=True)
        proc = processes.start(as_pg + [pg_bin("postgres"), "-D", str(data), "-k", str(sock), "-p", "5433",
                                        "-c", "listen_addresses=", "-c", "fsync=off"], log_name="postgres")
        url = f"postgresql+psycopg://wislice@/postgres?host={sock}&port=5433"
        engine = sa.create_engine(url)
        deadline = time.monotonic() + 30
        while True:
            try:
                with engine.connect() as conn:
                    conn.execute(sa.text("select 1"))
                break
            except sa.exc.OperationalError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("PostgreSQL did not start; see its log") from None
                time.sleep(0.2)
        engine.dispose()
        yield url
    finally:
        if proc is not None:
            processes.stop(proc)
        shutil.rmtree(base, ignore_errors=True)
