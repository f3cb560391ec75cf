"""SQLite records of the vNFs this agent owns. A record is written (state 'creating') BEFORE any side effect,
so after a crash the agent knows what it may have half-built and can undo it."""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from .spec import VnfSpec, parse_vnf_spec

SCHEMA = """
CREATE TABLE IF NOT EXISTS vnfs (
  vnf_id INTEGER PRIMARY KEY,
  spec TEXT NOT NULL,
  vnf_class TEXT NOT NULL,
  state TEXT NOT NULL,
  container_name TEXT NOT NULL,
  container_id TEXT NOT NULL DEFAULT '',
  host_ifname TEXT NOT NULL DEFAULT '',
  config_dir TEXT NOT NULL,
  ports TEXT NOT NULL DEFAULT '[]',
  created_at REAL NOT NULL
);
"""
STATES = ("creating", "running", "stopped", "failed")


@dataclass(frozen=True)
class VnfRecord:
    vnf_id: int
    spec: VnfSpec
    vnf_class: str
    state: str
    container_name: str
    config_dir: str
    container_id: str = ""
    host_ifname: str = ""
    ports: list[dict[str, Any]] = field(default_factory=list)
    created_at: float = 0.0

    def with_(self, **changes: Any) -> VnfRecord:
        return replace(self, **changes)


class Store:
    def __init__(self, path: Path | str) -> None:
        self.path = str(path)
        Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        # One connection used from the agent's single worker thread at a time (the agent serialises requests).
        self.db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.executescript(SCHEMA)

    def close(self) -> None:
        self.db.close()

    def put(self, rec: VnfRecord) -> None:
        if rec.state not in STATES:
            raise ValueError(f"bad state {rec.state!r}")
        self.db.execute(
            "INSERT OR REPLACE INTO vnfs VALUES (?,?,?,?,?,?,?,?,?,?)",
            (rec.vnf_id, json.dumps(rec.spec.to_json()), rec.vnf_class, rec.state, rec.container_name,
             rec.container_id, rec.host_ifname, rec.config_dir, json.dumps(rec.ports), rec.created_at or time.time()))

    def insert_new(self, rec: VnfRecord) -> bool:
        """Insert unless the vnf_id exists; False when it does (duplicate instance)."""
        try:
            self.db.execute(
                "INSERT INTO vnfs VALUES (?,?,?,?,?,?,?,?,?,?)",
                (rec.vnf_id, json.dumps(rec.spec.to_json()), rec.vnf_class, rec.state, rec.container_name,
                 rec.container_id, rec.host_ifname, rec.config_dir, json.dumps(rec.ports), time.time()))
        except sqlite3.IntegrityError:
            return False
        return True

    def get(self, vnf_id: int) -> VnfRecord | None:
        row = self.db.execute("SELECT * FROM vnfs WHERE vnf_id=?", (vnf_id,)).fetchone()
        return _row(row) if row else None

    def all(self) -> list[VnfRecord]:
        return [_row(r) for r in self.db.execute("SELECT * FROM vnfs ORDER BY vnf_id")]

    def delete(self, vnf_id: int) -> None:
        self.db.execute("DELETE FROM vnfs WHERE vnf_id=?", (vnf_id,))


def _row(row: tuple[Any, ...]) -> VnfRecord:
    vnf_id, spec, vnf_class, state, cname, cid, ifname, cdir, ports, created = row
    return VnfRecord(vnf_id=vnf_id, spec=parse_vnf_spec(json.loads(spec)), vnf_class=vnf_class, state=state,
                     container_name=cname, container_id=cid, host_ifname=ifname, config_dir=cdir,
                     ports=json.loads(ports), created_at=created)
