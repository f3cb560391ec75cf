"""Unit-test helpers: an app over a temporary SQLite database and fake controllers, tokens for three callers."""

from __future__ import annotations

import atexit
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fake_controllers import FakeControllers

from wislice_orchestrator import auth
from wislice_orchestrator.app import create_app
from wislice_orchestrator.models import Setting, Tenant


@dataclass
class World:
    app: Any
    client: Any
    fake: FakeControllers
    operator: str
    tenant_a: str
    tenant_b: str

    def headers(self, token: str | None) -> dict[str, str]:
        return {"Authorization": f"Bearer {token}"} if token else {}

    def call(self, method: str, path: str, token: str | None = None, **kw: Any) -> Any:
        return self.client.open(path, method=method, headers={**self.headers(token), **kw.pop("headers", {})}, **kw)

    @property
    def service(self) -> Any:
        return self.app.extensions["wislice"]


def slice_body(name: str = "video", agent: str = "ap-1", vnfs: int = 1, **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "name": name,
        "bandwidth": {"down_guaranteed_kbps": 5000, "up_guaranteed_kbps": 1000, "down_cap_kbps": 20000,
                      "up_cap_kbps": 5000},
        "latency_class": "low",
        "latency_budget_us": 500,
        "vaps": [{"agent_id": agent, "radio": "phy0", "ssid": f"{name}-wifi",
                  "security": {"mode": "wpa2-psk", "passphrase": "secret-pass-1"}}],
        "vnfs": [{"image": "firewall", "cpu": 0.5, "memory_mib": 256} for _ in range(vnfs)],
    }
    body.update(extra)
    return body


_template: list[Path] = []
UNIT_INSTANCE = "unit-a"


def _migrated_template() -> Path:
    """A database migrated once per test session; each test copies it (migrations take most of create_app)."""
    if not _template:
        tmp = Path(tempfile.mkdtemp(prefix="wislice-template-"))
        atexit.register(shutil.rmtree, tmp, True)
        app = create_app({"DATABASE_URL": f"sqlite:///{tmp}/template.db", "START_WORKER": False,
                          "TELEMETRY": False},
                         controllers=FakeControllers())
        app.extensions["wislice_engine"].dispose()
        _template.append(tmp / "template.db")
    return _template[0]


def seed_topology(app: Any, fake: FakeControllers) -> None:
    """The fake infrastructure's wired topology (a star around pof:core), unless the database has one."""
    with app.extensions["wislice"].session_factory() as db:
        if db.get(Setting, "topology") is None:
            db.add(Setting(key="topology", value=FakeControllers.default_topology(list(fake.agents),
                                                                                 list(fake.nodes))))
            db.commit()


def make_world(tmp_path: Any, **config: Any) -> World:
    fake = FakeControllers(aps=2, mec_nodes=2)
    if not (Path(tmp_path) / "test.db").exists():
        shutil.copy(_migrated_template(), Path(tmp_path) / "test.db")
        # The template recorded its passphrase key's id: the copy goes with that key (at_rest.key_path).
        shutil.copy(f"{_migrated_template()}.key", Path(tmp_path) / "test.db.key")
    # A fixed instance id: a test's "restarted process" (test_saga.make_world_again) is the same instance, which
    # takes its interrupted operations back at once, not after their lease expires.
    settings = {"DATABASE_URL": f"sqlite:///{tmp_path}/test.db", "START_WORKER": False, "TELEMETRY": False,
                "TESTING": True, "INSTANCE_ID": UNIT_INSTANCE}
    settings.update(config)
    app = create_app(settings, controllers=fake)
    seed_topology(app, fake)
    factory = app.extensions["wislice"].session_factory
    with factory() as db:
        operator = auth.issue_token(db, "operator", None, "test-operator")
        db.add(Tenant(id=1, name="alpha"))
        db.add(Tenant(id=2, name="beta"))
        db.flush()
        tenant_a = auth.issue_token(db, "tenant", 1, "a")
        tenant_b = auth.issue_token(db, "tenant", 2, "b")
        db.commit()
    return World(app, app.test_client(), fake, operator, tenant_a, tenant_b)


def token_migration_round_trip(engine: Any) -> None:
    """Migration 0005 on `engine` (a fresh database): tokens from before it get the default lifetime from the
    migration on, the bootstrap token none; the downgrade drops revoked and expired tokens with the columns."""
    import datetime as dt

    import sqlalchemy as sa

    from wislice_orchestrator import db
    from wislice_orchestrator.models import utcnow

    db.upgrade(engine, "0004")
    created = utcnow()
    rows = [("b" * 64, "operator", None, "bootstrap"), ("o" * 64, "operator", None, "ops"),
            ("t" * 64, "tenant", 1, "ci"), ("u" * 64, "tenant", 1, "old")]
    with engine.begin() as conn:
        conn.execute(sa.text("INSERT INTO tenants (id, name, quota_slices, quota_vaps, quota_bandwidth_kbps, quota_cpu,"
                             " quota_memory_mib, created_at) VALUES (1, 'alpha', 1, 1, 1, 1, 1, :c)"), {"c": created})
        for digest, role, tenant, name in rows:
            conn.execute(sa.text("INSERT INTO api_tokens (token_hash, prefix, role, tenant_id, name, created_at) "
                                 "VALUES (:h, 'wso_xxxx', :r, :t, :n, :c)"),
                         {"h": digest, "r": role, "t": tenant, "n": name, "c": created})
    before = utcnow()
    db.upgrade(engine)
    after = utcnow()
    with engine.connect() as conn:
        got = {r.name: r for r in conn.execute(sa.text("SELECT name, prefix, expires_at, revoked_at, last_used_at "
                                                       "FROM api_tokens"))}
    assert {r.prefix for r in got.values()} == {"wso_"}  # the secret's first characters are gone
    assert got["bootstrap"].expires_at is None
    day = dt.timedelta(hours=24)
    for name in ("ops", "ci", "old"):
        expires = got[name].expires_at
        expires = dt.datetime.fromisoformat(expires) if isinstance(expires, str) else expires
        assert before + day - dt.timedelta(seconds=1) <= expires <= after + day, (name, expires)
        assert got[name].revoked_at is None and got[name].last_used_at is None
    with engine.begin() as conn:
        conn.execute(sa.text("UPDATE api_tokens SET revoked_at = :t WHERE name = 'ci'"), {"t": after})
        conn.execute(sa.text("UPDATE api_tokens SET expires_at = :t WHERE name = 'old'"),
                     {"t": after - dt.timedelta(seconds=1)})
    db.downgrade(engine, "0004")
    columns = {c["name"] for c in sa.inspect(engine).get_columns("api_tokens")}
    assert not {"expires_at", "revoked_at", "last_used_at"} & columns
    with engine.connect() as conn:
        assert sorted(conn.scalars(sa.text("SELECT name FROM api_tokens"))) == ["bootstrap", "ops"]
    db.upgrade(engine)


def insert_slice_row(conn: Any, slice_id: int, latency_class: str, status: str, created_at: str) -> None:
    """Tenant 1 (unless it exists) and a slice row of it, by SQL: the columns every schema since 0001 has, for
    migration tests that write rows before the ORM's models match the tables."""
    import sqlalchemy as sa

    if conn.scalar(sa.text("SELECT count(*) FROM tenants WHERE id = 1")) == 0:
        conn.execute(sa.text("INSERT INTO tenants (id, name, quota_slices, quota_vaps, quota_bandwidth_kbps, "
                             "quota_cpu, quota_memory_mib, created_at) VALUES (1, 'a', 1, 1, 1, 1, 1, :t)"),
                     {"t": created_at})
    conn.execute(sa.text("INSERT INTO slices (id, tenant_id, name, down_guaranteed_kbps, up_guaranteed_kbps, "
                         "down_cap_kbps, up_cap_kbps, latency_class, status, status_reason, path_links, policies, "
                         "policy_state, created_at) VALUES (:s, 1, 's', 0, 0, 0, 0, :c, :st, '', '[]', '[]', '[]', "
                         ":t)"), {"s": slice_id, "c": latency_class, "st": status, "t": created_at})


def insert_vap(engine: Any, vap_id: str, phrase: str | None, slice_id: int, column: str = "passphrase") -> None:
    """A tenant (once), a slice and a vAP row straight into the tables (`column`: the passphrase's column, clear
    `passphrase` before migration 0006, `sealed_passphrase` after)."""
    import sqlalchemy as sa

    with engine.begin() as conn:
        insert_slice_row(conn, slice_id, "low", "creating", "2024-01-01 00:00:00")
        conn.execute(sa.text("INSERT INTO slice_vaps (slice_id, vap_id, agent_id, radio, ssid, security_mode, "
                             f"{column}, hidden, state) VALUES (:s, :v, 'ap-1', 'phy0', 'x', 'wpa2-psk', :p, false, "
                             "'planned')"), {"s": slice_id, "v": vap_id, "p": phrase})


def passphrase_migration_round_trip(engine: Any) -> None:
    """Migration 0006 on `engine` (a fresh database) with rows: up seals the clear passphrases under the key, down
    opens them back into the clear column, up again."""
    import sqlalchemy as sa

    from wislice_orchestrator import at_rest, db

    phrase = "Zq9-unique-passphrase-7781"
    db.upgrade(engine, "0005")
    insert_vap(engine, "t1s7v1", phrase, 7)
    insert_vap(engine, "t1s8v1", None, 8)
    box = at_rest.PassphraseBox(bytes(range(32)))
    db.upgrade(engine, box=box)
    with engine.connect() as conn:
        rows = dict(conn.execute(sa.text("SELECT vap_id, sealed_passphrase FROM slice_vaps")).all())
    assert rows["t1s8v1"] is None and phrase not in rows["t1s7v1"]
    assert box.open(rows["t1s7v1"], "t1s7v1") == phrase
    assert at_rest.recorded_key_id(engine) == box.key_id
    db.downgrade(engine, "0005", box=box)
    with engine.connect() as conn:
        assert dict(conn.execute(sa.text("SELECT vap_id, passphrase FROM slice_vaps")).all()) == {
            "t1s7v1": phrase, "t1s8v1": None}
    assert at_rest.recorded_key_id(engine) is None
    db.upgrade(engine, box=box)


def budget_migration_round_trip(engine: Any) -> None:
    """Migration 0008 on `engine` (a fresh database) with a latency slice from before it: up adds the budget column
    empty (the slice keeps its class and id), down drops it and keeps the row, up again."""
    import sqlalchemy as sa

    from wislice_orchestrator import db

    db.upgrade(engine, "0007")
    insert_vap(engine, "t1s7v1", None, 7, column="sealed_passphrase")
    db.upgrade(engine, "0008")
    with engine.begin() as conn:
        assert conn.execute(sa.text("SELECT latency_class, latency_budget_us FROM slices WHERE id = 7")).one() == (
            "low", None)
        conn.execute(sa.text("UPDATE slices SET latency_budget_us = 450 WHERE id = 7"))
    db.downgrade(engine, "0007")
    assert "latency_budget_us" not in {c["name"] for c in sa.inspect(engine).get_columns("slices")}
    with engine.connect() as conn:
        assert conn.execute(sa.text("SELECT latency_class FROM slices WHERE id = 7")).scalar() == "low"
        if engine.dialect.name == "sqlite":  # the rebuilt table keeps AUTOINCREMENT (0004)
            ddl = conn.execute(sa.text("SELECT sql FROM sqlite_master WHERE name = 'slices'")).scalar()
            assert "AUTOINCREMENT" in ddl
    db.upgrade(engine)


def check_slice_column_migration(path: Path, before: str, revision: str, column: str, defaults: tuple) -> None:
    """A migration that adds a slice column, on SQLite: a slice from before gets one of ``defaults``, the downgrade
    drops the column and keeps the table (its AUTOINCREMENT, the row), and the upgrade to head works again."""
    import sqlalchemy as sa

    from wislice_orchestrator import db

    engine = db.make_engine(f"sqlite:///{path}")
    try:
        db.upgrade(engine, before)
        with engine.begin() as conn:
            insert_slice_row(conn, 7, "best_effort", "active", "2026-01-01")
        db.upgrade(engine, revision)
        with engine.connect() as conn:
            assert conn.execute(sa.text(f"SELECT {column} FROM slices WHERE id = 7")).scalar() in defaults
        db.downgrade(engine, before)
        assert column not in {c["name"] for c in sa.inspect(engine).get_columns("slices")}
        with engine.connect() as conn:
            ddl = conn.execute(sa.text("SELECT sql FROM sqlite_master WHERE name = 'slices'")).scalar()
            assert "AUTOINCREMENT" in ddl and conn.execute(sa.text("SELECT name FROM slices")).scalar() == "s"
        db.upgrade(engine)
    finally:
        engine.dispose()
