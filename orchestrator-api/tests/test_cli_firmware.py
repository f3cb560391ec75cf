"""The CLI's fleet upgrade commands (firmware upload/list/rm, rollout start/list/show/cancel) against the app
served on a loopback port over the fake controllers' simulated APs."""

from __future__ import annotations

import json

import pytest
import served_app
from firmware_helpers import upgrade_world
from wislice_agent_proto.usign import SigningKey

from wislice_orchestrator.cli import main


@pytest.fixture
def served(tmp_path):
    key = SigningKey()
    w = upgrade_world(tmp_path, key, aps=3)
    try:
        with served_app.served(w.app) as url:
            yield w, key, url
    finally:
        w.app.extensions["wislice_engine"].dispose()


def run(capsys, url, token, *argv):
    code = main(["--url", url, "--token", token, *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_upload_then_roll_out_show_and_cancel(served, capsys, tmp_path):
    w, key, url = served
    image = tmp_path / "wislice-2.0.bin"
    image.write_bytes(b"image bytes " * 50)
    (tmp_path / "wislice-2.0.bin.sig").write_text(key.sign(image.read_bytes()))
    code, out, err = run(capsys, url, w.operator, "--json", "firmware", "upload", str(image), "--version", "2.0")
    assert code == 0, err
    fid = json.loads(out)["firmware_id"]
    code, out, _ = run(capsys, url, w.operator, "firmware", "list")
    assert code == 0 and out.splitlines()[0].split()[:2] == ["FIRMWARE_ID", "VERSION"] and "2.0" in out
    # A tampered image is refused with the signature's reason.
    image.write_bytes(b"other bytes " * 50)
    code, _, err = run(capsys, url, w.operator, "firmware", "upload", str(image), "--version", "2.1")
    assert code == 1 and "422" in err and "does not match" in err
    code, out, err = run(capsys, url, w.operator, "rollout", "start", str(fid), "--aps", "ap-1,ap-2,ap-3",
                         "--stage-size", "1")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].split()[:4] == ["ROLLOUT_ID", "FIRMWARE_ID", "VERSION", "STATUS"]
    assert [line.split()[0] for line in lines[3:]] == ["ap-1", "ap-2", "ap-3"]
    rid = lines[1].split()[0]
    runner = w.app.extensions["wislice_rollouts"]
    for _ in range(8):
        runner.tick()
    code, out, _ = run(capsys, url, w.operator, "--json", "rollout", "show", rid)
    shown = json.loads(out)
    assert {ap["agent_id"]: ap["state"] for ap in shown["aps"]}["ap-1"] == "done"
    code, out, _ = run(capsys, url, w.operator, "rollout", "cancel", rid)
    assert code == 0 and " cancelled " in out.splitlines()[1]
    code, out, _ = run(capsys, url, w.operator, "rollout", "list")
    assert code == 0 and out.splitlines()[1].split()[0] == rid
    code, _, err = run(capsys, url, w.operator, "firmware", "rm", str(fid))
    assert code == 1 and "409" in err  # ap-2 is still upgrading under the cancelled rollout
    code, _, err = run(capsys, url, w.tenant_a, "rollout", "list")
    assert code == 1 and "403" in err
