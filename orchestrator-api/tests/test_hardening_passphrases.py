"""Passphrases at rest (issue #13): sealed with AES-GCM under a key file, never in the database in clear; the key
file is created 0600 at first start, a missing or wrong one is refused at start; migration 0006 seals existing
rows and its downgrade opens them; the key can be rotated, and a lost one forgotten."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
import sqlalchemy as sa
from fake_controllers import FakeControllers
from orch_helpers import insert_vap, make_world, passphrase_migration_round_trip, slice_body

from wislice_orchestrator import at_rest, cli, db
from wislice_orchestrator.app import create_app
from wislice_orchestrator.models import SliceVap
from wislice_orchestrator.service import Conflict

PHRASE = "Zq9-unique-passphrase-7781"


def raw_bytes(db_file: Path) -> bytes:
    """The database as it lies on disk: the file and its write-ahead log."""
    return b"".join(p.read_bytes() for p in (db_file, Path(f"{db_file}-wal")) if p.exists())


def body_with(phrase: str = PHRASE, name: str = "video") -> dict:
    body = slice_body(name=name)
    body["vaps"][0]["security"]["passphrase"] = phrase
    return body


def test_the_database_file_holds_no_passphrase_while_the_vap_is_being_created(tmp_path):
    w = make_world(tmp_path)
    db_file = tmp_path / "test.db"
    seen: dict = {}
    real_create_vap = w.fake.create_vap

    def create_vap(agent_id, spec):  # noqa: ANN001, ANN202
        # The row is committed (sealed) before the saga calls the controller: look at the file now.
        seen["file"] = raw_bytes(db_file)
        seen["passphrase"] = spec["security"].get("passphrase")
        with w.service.session_factory() as s:
            seen["stored"] = s.scalar(sa.select(SliceVap.sealed_passphrase))
        return real_create_vap(agent_id, spec)

    w.fake.create_vap = create_vap
    resp = w.call("POST", "/api/v1/tenants/1/slices", w.tenant_a, json=body_with())
    assert resp.status_code == 202
    assert w.call("GET", resp.headers["Location"], w.tenant_a).get_json()["status"] == "succeeded"
    assert seen["passphrase"] == PHRASE  # the controller got it in clear: opened only for that call
    assert seen["stored"].startswith(at_rest.SEALED_PREFIX) and PHRASE not in seen["stored"]
    assert len(seen["file"]) > 4096 and b"t1s1v1" in seen["file"]  # the file was read whole: the vAP row is there
    for form in (PHRASE.encode(), PHRASE.encode("utf-16-le"), PHRASE[:12].encode()):
        assert form not in seen["file"]
        assert form not in raw_bytes(db_file)
    with w.service.session_factory() as s:
        assert s.scalar(sa.select(SliceVap.sealed_passphrase)) is None  # and once the agent has it, not even sealed
    w.app.extensions["wislice_engine"].dispose()


def test_seal_and_open_round_trip():
    box = at_rest.PassphraseBox(bytes(range(32)))
    sealed = [box.seal(p, "t1s1v1") for p in ("12345678", PHRASE, "a" * 63, "f" * 64, "pässwörd-ü")]
    assert [box.open(s, "t1s1v1") for s in sealed] == ["12345678", PHRASE, "a" * 63, "f" * 64, "pässwörd-ü"]
    assert len({len(s) for s in sealed}) == 1  # one length whatever the passphrase's
    assert box.seal(PHRASE, "t1s1v1") != box.seal(PHRASE, "t1s1v1")  # a fresh nonce each time
    with pytest.raises(at_rest.KeyFileError):
        box.open(sealed[1], "t1s1v2")  # bound to its vAP: copied to another row it does not open
    with pytest.raises(at_rest.KeyFileError):
        at_rest.PassphraseBox(bytes(32)).open(sealed[1], "t1s1v1")
    with pytest.raises(at_rest.KeyFileError):
        at_rest.PassphraseBox(b"short")
    assert "key=" not in repr(box)


def start(tmp_path: Path, **config):  # noqa: ANN201
    settings = {"DATABASE_URL": f"sqlite:///{tmp_path}/o.db", "START_WORKER": False, "TELEMETRY": False, **config}
    app = create_app(settings, controllers=FakeControllers())
    app.extensions["wislice_engine"].dispose()
    return app


def test_the_key_file_is_created_0600_beside_the_database_at_first_start(tmp_path):
    start(tmp_path)
    key = tmp_path / "o.db.key"
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    assert len(bytes.fromhex(key.read_text().strip())) == 32
    start(tmp_path)  # a second start takes the same key
    assert not list(tmp_path.glob(".*.tmp"))


def test_the_key_file_can_be_put_elsewhere(tmp_path, monkeypatch):
    elsewhere = tmp_path / "secrets" / "wislice.key"
    start(tmp_path, PASSPHRASE_KEY_FILE=str(elsewhere))
    assert elsewhere.exists() and not (tmp_path / "o.db.key").exists()
    monkeypatch.setenv("WISLICE_PASSPHRASE_KEY_FILE", str(elsewhere))
    start(tmp_path)  # the environment names the same file
    assert not (tmp_path / "o.db.key").exists()


def test_a_missing_key_is_refused_at_start(tmp_path):
    start(tmp_path)
    (tmp_path / "o.db.key").unlink()
    with pytest.raises(at_rest.KeyFileError, match=r"o\.db\.key is missing.*restore"):
        start(tmp_path)
    assert not (tmp_path / "o.db.key").exists()  # no new key was made up for a database sealed under another


def test_a_wrong_key_is_refused_at_start(tmp_path):
    start(tmp_path)
    at_rest.write_key(tmp_path / "o.db.key", bytes(32))
    with pytest.raises(at_rest.KeyFileError, match="sealed under key"):
        start(tmp_path)
    (tmp_path / "o.db.key").write_text("not a key\n")
    with pytest.raises(at_rest.KeyFileError, match="does not hold a key"):
        start(tmp_path)


def test_a_database_that_is_no_sqlite_file_needs_the_setting():
    with pytest.raises(at_rest.KeyFileError, match="WISLICE_PASSPHRASE_KEY_FILE"):
        at_rest.key_path({"DATABASE_URL": "postgresql+psycopg://u@h/db", "PASSPHRASE_KEY_FILE": ""})
    assert at_rest.key_path({"DATABASE_URL": "sqlite://", "PASSPHRASE_KEY_FILE": ""}) is None


def test_the_cli_says_a_missing_key_plainly(tmp_path, monkeypatch, capsys):
    start(tmp_path)
    (tmp_path / "o.db.key").unlink()
    monkeypatch.setenv("WISLICE_DATABASE_URL", f"sqlite:///{tmp_path}/o.db")
    assert cli.main(["db-upgrade"]) == 1
    assert "o.db.key is missing" in capsys.readouterr().err


def test_migration_0006_seals_existing_rows_and_its_downgrade_opens_them(tmp_path):
    db_file = tmp_path / "old.db"
    engine = db.make_engine(f"sqlite:///{db_file}")
    try:
        db.upgrade(engine, "0005")
        insert_vap(engine, "t1s7v1", PHRASE, 7)
        insert_vap(engine, "t1s8v1", None, 8)
        with engine.connect() as conn:
            conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
        assert PHRASE.encode() in raw_bytes(db_file)  # the old schema holds it in clear: the check below can fail
        with pytest.raises(at_rest.KeyFileError, match="needs the passphrase key"):
            db.upgrade(engine)  # not without the key
        box = at_rest.PassphraseBox(bytes(range(32)))
        db.upgrade(engine, box=box)
        assert PHRASE.encode() not in raw_bytes(db_file)  # nor left behind in a free page
        with engine.connect() as conn:
            rows = dict(conn.execute(sa.text("SELECT vap_id, sealed_passphrase FROM slice_vaps")).all())
        assert rows["t1s8v1"] is None
        assert box.open(rows["t1s7v1"], "t1s7v1") == PHRASE
        assert at_rest.recorded_key_id(engine) == box.key_id
        with pytest.raises(at_rest.KeyFileError):
            db.downgrade(engine, "0005")  # opening needs the key too
        db.downgrade(engine, "0005", box=box)
        with engine.connect() as conn:
            rows = dict(conn.execute(sa.text("SELECT vap_id, passphrase FROM slice_vaps")).all())
        assert rows == {"t1s7v1": PHRASE, "t1s8v1": None}
        assert at_rest.recorded_key_id(engine) is None
        db.upgrade(engine, box=box)  # and up again
        with engine.connect() as conn:
            assert box.open(conn.scalar(sa.text("SELECT sealed_passphrase FROM slice_vaps WHERE vap_id = 't1s7v1'")),
                            "t1s7v1") == PHRASE
    finally:
        engine.dispose()


def test_the_shared_migration_round_trip_on_sqlite(tmp_path):
    """The round trip the PostgreSQL integration test runs, here on SQLite."""
    engine = db.make_engine(f"sqlite:///{tmp_path}/rt.db")
    try:
        passphrase_migration_round_trip(engine)
    finally:
        engine.dispose()


def sealed_rows(engine: sa.Engine) -> dict[str, str]:
    with engine.connect() as conn:
        return dict(conn.execute(sa.text("SELECT vap_id, sealed_passphrase FROM slice_vaps "
                                         "WHERE sealed_passphrase IS NOT NULL")).all())


def test_rotation_seals_again_under_a_new_key(tmp_path):
    start(tmp_path)
    path = tmp_path / "o.db.key"
    engine = db.make_engine(f"sqlite:///{tmp_path}/o.db")
    try:
        old = at_rest.PassphraseBox(at_rest.read_key(path))
        insert_vap(engine, "t1s7v1", None, 7, "sealed_passphrase")
        with engine.begin() as conn:
            conn.execute(sa.text("UPDATE slice_vaps SET sealed_passphrase = :s"), {"s": old.seal(PHRASE, "t1s7v1")})
        old_id, new_id, count = at_rest.rotate_key(engine, path)
        assert (old_id, count) == (old.key_id, 1) and new_id != old_id
        new = at_rest.PassphraseBox(at_rest.read_key(path))
        assert new.key_id == new_id == at_rest.recorded_key_id(engine)
        assert new.open(sealed_rows(engine)["t1s7v1"], "t1s7v1") == PHRASE
        assert stat.S_IMODE(path.stat().st_mode) == 0o600 and not Path(f"{path}.new").exists()
        start(tmp_path)  # the service starts with the new key

        # Interrupted after its commit, before the new file replaced the old one: the next start finishes it.
        newer = at_rest.PassphraseBox(bytes(range(32)))
        at_rest.write_key(Path(f"{path}.new"), newer.key)
        at_rest.record_key_id(engine, newer)
        start(tmp_path)
        assert at_rest.read_key(path) == newer.key and not Path(f"{path}.new").exists()
    finally:
        engine.dispose()


def test_a_lost_key_can_be_forgotten(tmp_path, monkeypatch, capsys):
    start(tmp_path)
    path = tmp_path / "o.db.key"
    engine = db.make_engine(f"sqlite:///{tmp_path}/o.db")
    try:
        insert_vap(engine, "t1s7v1", None, 7, "sealed_passphrase")
        with engine.begin() as conn:
            conn.execute(sa.text("UPDATE slice_vaps SET sealed_passphrase = 'aesgcm1:x'"))
        monkeypatch.setenv("WISLICE_DATABASE_URL", f"sqlite:///{tmp_path}/o.db")
        assert cli.main(["passphrase-key", "forget-lost"]) == 1  # refused while a key file is there
        assert "exists" in capsys.readouterr().err
        path.unlink()
        assert cli.main(["passphrase-key", "forget-lost"]) == 0
        assert sealed_rows(engine) == {} and at_rest.recorded_key_id(engine) is None
        start(tmp_path)
        assert path.exists()
    finally:
        engine.dispose()


def test_request_hashes_are_keyed():
    """An Idempotency-Key's request hash covers a body holding the passphrase: keyed, so whoever reads the database
    cannot test passphrase guesses against it offline."""
    import hashlib
    import json

    from wislice_orchestrator.service import request_hash

    body = body_with()
    plain = hashlib.sha256(json.dumps(["create_slice", body], sort_keys=True, default=str).encode()).hexdigest()
    one, two = at_rest.PassphraseBox(bytes(32)), at_rest.PassphraseBox(bytes(range(32)))
    assert request_hash(one, "create_slice", body) == request_hash(one, "create_slice", body)
    assert len({plain, request_hash(one, "create_slice", body), request_hash(two, "create_slice", body)}) == 3


def test_migration_0006_drops_plain_request_hashes_and_a_replay_still_works(tmp_path):
    w = make_world(tmp_path)
    headers = {"Idempotency-Key": "k-1"}
    first = w.call("POST", "/api/v1/tenants/1/slices", w.tenant_a, json=body_with(), headers=headers)
    assert first.status_code == 202
    engine = w.app.extensions["wislice_engine"]
    with engine.begin() as conn:  # as a create from before 0006 left it
        conn.execute(sa.text("UPDATE operations SET request_hash = :h"), {"h": "0" * 64})
    with w.service.session_factory() as s, pytest.raises(Conflict, match="different request"):
        w.service._replay(s, 1, "k-1", "1" * 64)  # a hash that differs is still a conflict
    box = at_rest.PassphraseBox(at_rest.read_key(tmp_path / "test.db.key"))
    db.downgrade(engine, "0005", box=box)
    db.upgrade(engine, box=box)
    with engine.connect() as conn:
        assert conn.scalar(sa.text("SELECT request_hash FROM operations")) is None
    again = w.call("POST", "/api/v1/tenants/1/slices", w.tenant_a, json=body_with(), headers=headers)
    assert again.get_json()["operation_id"] == first.get_json()["operation_id"]
    engine.dispose()
