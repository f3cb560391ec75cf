"""Firmware uploads (issue 18): signature checked against the trusted keys, size limit, sha256, storage, download
by token, deletion refused while a rollout uses it."""

from __future__ import annotations

import hashlib

import pytest
from firmware_helpers import upgrade_world, upload
from wislice_agent_proto.usign import SigningKey

from wislice_orchestrator import firmware as fw

IMAGE = b"\x27\x05\x19\x56" + bytes(range(256)) * 40  # 10 KiB standing in for a sysupgrade image


@pytest.fixture
def key():
    return SigningKey()


@pytest.fixture
def uw(tmp_path, key):
    w = upgrade_world(tmp_path, key)
    yield w
    w.app.extensions["wislice_engine"].dispose()


def test_upload_stores_verifies_and_serves_by_token(uw, key, tmp_path):
    resp = upload(uw, IMAGE, key.sign(IMAGE))
    assert resp.status_code == 201, resp.get_json()
    got = resp.get_json()
    assert got["sha256"] == hashlib.sha256(IMAGE).hexdigest() and got["size"] == len(IMAGE)
    assert got["version"] == "2.0" and got["kind"] == "sysupgrade" and got["key_id"] == key.key_id.hex()
    assert "download_token" not in got and "token" not in str(got)
    assert (tmp_path / "firmware" / f"{got['sha256']}.bin").read_bytes() == IMAGE
    listed = uw.call("GET", "/api/v1/firmware", uw.operator).get_json()["firmware"]
    assert [f["firmware_id"] for f in listed] == [got["firmware_id"]]
    assert uw.call("GET", f"/api/v1/firmware/{got['firmware_id']}", uw.operator).get_json() == got
    with uw.service.session_factory() as db:
        token = db.get(fw_model(), got["firmware_id"]).download_token
    assert len(token) >= 40
    path = f"/api/v1/firmware/{got['firmware_id']}/download"
    fetched = uw.client.get(f"{path}?token={token}")  # no bearer token: the agents have none
    assert fetched.status_code == 200 and fetched.data == IMAGE
    assert fetched.mimetype == "application/octet-stream"
    for wrong in ("x" * len(token), token[:-1]):
        refused = uw.client.get(f"{path}?token={wrong}")
        assert refused.status_code == 404 and refused.mimetype == "application/problem+json"
    assert uw.client.get(path).status_code == 422  # no token at all
    assert uw.client.get(f"/api/v1/firmware/{got['firmware_id'] + 1}/download?token={token}").status_code == 404
    # The same bytes again are the same artifact.
    again = upload(uw, IMAGE, key.sign(IMAGE), version="2.0b")
    assert again.status_code == 409 and str(got["firmware_id"]) in again.get_json()["detail"]


def fw_model():
    from wislice_orchestrator.models import Firmware
    return Firmware


@pytest.mark.parametrize("case", ["tampered", "other_key", "same_id_other_key", "no_signature", "garbage",
                                  "truncated"])
def test_bad_signatures_are_refused(uw, key, tmp_path, case):
    other = SigningKey()
    impostor = SigningKey()
    impostor.key_id = key.key_id  # claims to be the trusted key
    signature = {"tampered": key.sign(IMAGE[:-1] + b"\x00"), "other_key": other.sign(IMAGE),
                 "same_id_other_key": impostor.sign(IMAGE), "no_signature": None,
                 "garbage": "untrusted comment: x\nnot base64 at all!\n",
                 "truncated": key.sign(IMAGE)[:-20] + "\n"}[case]
    resp = upload(uw, IMAGE, signature)
    assert resp.status_code == 422, resp.get_json()
    problem = resp.get_json()
    assert problem["errors"]["signature"], problem
    assert not (tmp_path / "firmware").exists() or not list((tmp_path / "firmware").iterdir())
    assert uw.call("GET", "/api/v1/firmware", uw.operator).get_json()["firmware"] == []
    if case in ("other_key", "tampered"):
        reason = problem["errors"]["signature"][0]
        assert ("not a trusted key" in reason) if case == "other_key" else ("does not match" in reason)


def test_bad_uploads_are_refused(uw, key):
    oversize = IMAGE * 7  # 70 KiB > the world's 64 KiB limit
    resp = upload(uw, oversize, key.sign(oversize))
    assert resp.status_code == 413 and resp.mimetype == "application/problem+json"
    resp = upload(uw, IMAGE, key.sign(IMAGE), kind="firmware")
    assert resp.status_code == 422 and "kind" in resp.get_json()["errors"]
    resp = upload(uw, IMAGE, key.sign(IMAGE), version="2.0; reboot")
    assert resp.status_code == 422 and "version" in resp.get_json()["errors"]
    resp = upload(uw, b"", key.sign(b""))
    assert resp.status_code == 422 and "file" in resp.get_json()["errors"]
    resp = upload(uw, IMAGE, key.sign(IMAGE), extra_part="x")
    assert resp.status_code == 422 and "extra_part" in resp.get_json()["errors"]
    resp = uw.call("POST", "/api/v1/firmware", uw.operator, json={"version": "2.0"})
    assert resp.status_code == 400
    # Tenants and anonymous callers upload nothing; the size limit of the upload is the upload's alone.
    assert upload(uw, IMAGE, key.sign(IMAGE), token=uw.tenant_a).status_code == 403
    assert upload(uw, IMAGE, key.sign(IMAGE), token=None).status_code == 401
    big_json = uw.call("PUT", "/api/v1/topology", uw.operator, data=b"{" + b" " * (2 * 1024 * 1024) + b"}",
                       content_type="application/json")
    assert big_json.status_code == 413


def test_no_trusted_keys_refuses_every_upload(tmp_path, key):
    w = upgrade_world(tmp_path, key, FIRMWARE_KEYS="")
    try:
        resp = upload(w, IMAGE, key.sign(IMAGE))
        assert resp.status_code == 422 and "no trusted firmware keys" in resp.get_json()["errors"]["signature"][0]
    finally:
        w.app.extensions["wislice_engine"].dispose()


def test_keys_from_a_directory_or_a_list(tmp_path, key):
    other = SigningKey()
    (tmp_path / "keys").mkdir()
    (tmp_path / "keys" / key.key_id.hex()).write_text(key.public_text)
    (tmp_path / "keys" / "second").write_text(other.public_text)
    keys = fw.load_keys(str(tmp_path / "keys"))
    assert sorted(k.key_id for k in keys) == sorted([key.key_id, other.key_id])
    assert fw.verify(IMAGE, other.sign(IMAGE), keys).key_id == other.key_id
    listed = fw.load_keys(f"{key.public_line}, {other.public_line}")
    assert [k.key_id for k in listed] == [key.key_id, other.key_id]
    assert fw.load_keys("") == []
    with pytest.raises(fw.FirmwareError, match="42"):
        fw.load_keys(key.sign(IMAGE).splitlines()[1])  # a signature is no key
    with pytest.raises(fw.FirmwareError, match="not a directory"):
        fw.load_keys(str(tmp_path / "missing" / "keys"))


def test_delete_removes_row_and_file(uw, key, tmp_path):
    got = upload(uw, IMAGE, key.sign(IMAGE)).get_json()
    file = tmp_path / "firmware" / f"{got['sha256']}.bin"
    assert file.exists()
    assert uw.call("DELETE", f"/api/v1/firmware/{got['firmware_id']}", uw.operator).status_code == 204
    assert not file.exists()
    assert uw.call("GET", f"/api/v1/firmware/{got['firmware_id']}", uw.operator).status_code == 404


def test_migration_0009_down_and_up(tmp_path):
    import sqlalchemy as sa

    from wislice_orchestrator import db

    engine = db.make_engine(f"sqlite:///{tmp_path}/m.db")
    try:
        db.upgrade(engine)
        assert {"firmware", "rollouts", "rollout_aps"} <= set(sa.inspect(engine).get_table_names())
        db.downgrade(engine, "0008")
        assert not {"firmware", "rollouts", "rollout_aps"} & set(sa.inspect(engine).get_table_names())
        db.upgrade(engine)
        with engine.connect() as conn:  # ids never reused (AUTOINCREMENT), as slices and operations
            ddl = conn.execute(sa.text("SELECT sql FROM sqlite_master WHERE name = 'firmware'")).scalar()
        assert "AUTOINCREMENT" in ddl
    finally:
        engine.dispose()


def test_the_upload_alone_takes_bodies_over_max_content_length(tmp_path, key):
    w = upgrade_world(tmp_path, key, MAX_CONTENT_LENGTH=4096)  # the artifact (10 KiB) is over it, under the 64 KiB
    try:
        assert upload(w, IMAGE, key.sign(IMAGE)).status_code == 201
        big = w.call("PUT", "/api/v1/topology", w.operator, data=b"{" + b" " * 8192 + b"}",
                     content_type="application/json")
        assert big.status_code == 413
    finally:
        w.app.extensions["wislice_engine"].dispose()
