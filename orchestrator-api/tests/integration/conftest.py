"""Integration fixtures (helpers in orch_served.py). Run with the shared testbed plugin: see the Makefile."""

from __future__ import annotations

import glob
import pwd
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest
import sqlalchemy as sa
from orch_served import Served, start_orchestrator


@pytest.fixture
def orchestrator(processes, tmp_path) -> Served:
    return start_orchestrator(processes, tmp_path)


def pg_bin(name: str) -> str:
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    if not found:
        pytest.skip("PostgreSQL server binaries missing (Debian package postgresql, declared in deps/apt.txt)")
    return found[-1]


@pytest.fixture
def postgres_url(processes):
    """A private PostgreSQL server for one test: initdb into a temporary directory, a unix socket only (no TCP),
    stopped by pid through the testbed helper."""
    try:
        user = pwd.getpwnam("postgres")
    except KeyError:
        pytest.skip("no postgres system user (created by the Debian package postgresql)")
    # initdb refuses to run as root: the cluster belongs to the postgres user, in a directory it can reach.
    base = Path(tempfile.mkdtemp(prefix="wislice-pg-"))
    try:
        base.chmod(0o755)
        data, sock = base / "data", base / "sock"
        sock.mkdir()
        shutil.chown(sock, user.pw_uid, user.pw_gid)
        shutil.chown(base, user.pw_uid, user.pw_gid)
        as_pg = ["runuser", "-u", "postgres", "--"]
        subprocess.run(as_pg + [pg_bin("initdb"), "-D", str(data), "-A", "trust", "-U", "wislice", "-E", "UTF8"],
                       check=True, capture_output=True)
        port = "5433"  # names the socket file in our private directory only: no TCP listener, no clash
        proc = processes.start(as_pg + [pg_bin("postgres"), "-D", str(data), "-k", str(sock), "-p", port,
                                        "-c", "listen_addresses=", "-c", "fsync=off"], log_name="postgres")
        url = f"postgresql+psycopg://wislice@/postgres?host={sock}&port={port}"
        engine = sa.create_engine(url)
        deadline = time.monotonic() + 30
        while True:
            try:
                with engine.connect() as conn:
                    conn.execute(sa.text("select 1"))
                break
            except sa.exc.OperationalError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    pytest.fail("PostgreSQL did not start; see its log")
                time.sleep(0.2)
        engine.dispose()
        yield url
    finally:
        processes.stop_all()
        shutil.rmtree(base, ignore_errors=True)
