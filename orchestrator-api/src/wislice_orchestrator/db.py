"""Engine, sessions and schema migrations (Alembic, run programmatically at start)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from sqlalchemy import Engine, create_engine, event
from sqlalchemy.orm import Session, sessionmaker

from . import at_rest

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"


def make_engine(url: str) -> Engine:
    if url.startswith("sqlite"):
        # The saga worker thread and request threads share the file; wait for the lock instead of failing.
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30})

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_conn, _record):  # noqa: ANN001 - DB-API objects are untyped
            cursor = dbapi_conn.cursor()
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute("PRAGMA journal_mode=WAL")
            # WAL + NORMAL stays consistent across a process crash; only a power cut may lose the last commits.
            cursor.execute("PRAGMA synchronous=NORMAL")
            # Deleted and overwritten content is zeroed, not left in free pages (a passphrase sealed by migration
            # 0006 leaves no clear copy behind in the file).
            cursor.execute("PRAGMA secure_delete=ON")
            cursor.close()

        return engine
    return create_engine(url, pool_pre_ping=True)


def alembic_config(engine: Engine, box: at_rest.PassphraseBox | None = None) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    cfg.attributes["engine"] = engine
    cfg.attributes["passphrase_box"] = box  # migrations that seal or open stored passphrases need it (0006)
    return cfg


def upgrade(engine: Engine, revision: str = "head", box: at_rest.PassphraseBox | None = None) -> None:
    """Bring the schema to `revision`; idempotent. With `box`, its key is recorded as the one the database's
    passphrases are sealed under."""
    command.upgrade(alembic_config(engine, box), revision)
    if box is not None:
        at_rest.record_key_id(engine, box)
    _checkpoint(engine)


def downgrade(engine: Engine, revision: str, box: at_rest.PassphraseBox | None = None) -> None:
    command.downgrade(alembic_config(engine, box), revision)
    _checkpoint(engine)


def _checkpoint(engine: Engine) -> None:
    """SQLite: move the write-ahead log into the database file, so pages a migration rewrote (e.g. a passphrase
    it sealed) replace the old ones in the file now, not at some later checkpoint."""
    if engine.dialect.name == "sqlite":
        with engine.connect() as conn:
            conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")


def open_database(settings: dict[str, Any]) -> tuple[Engine, at_rest.PassphraseBox]:
    """The engine of DATABASE_URL, migrated, and the passphrase key (at_rest.py): every process that writes the
    database (the service, the CLI's server commands) opens it so. A missing or wrong key file fails here."""
    engine = make_engine(settings["DATABASE_URL"])
    try:
        box = at_rest.open_box(engine, at_rest.key_path(settings))
        upgrade(engine, box=box)
    except BaseException:
        engine.dispose()
        raise
    return engine, box


def make_session_factory(engine: Engine, box: at_rest.PassphraseBox | None = None) -> sessionmaker[Session]:
    """Sessions carry the passphrase key in their info (at_rest.session_box): the service seals with it and the
    saga's create_vap step opens with it, without every step's signature passing it along."""
    return sessionmaker(bind=engine, expire_on_commit=False, info={at_rest.SESSION_INFO_KEY: box})
