"""The ONOS runtime has no well-known credentials: its one REST/CLI user's password is generated when it is
assembled (or given), and Karaf's own karaf/karaf is gone."""
from __future__ import annotations

import base64
import importlib.machinery
import importlib.util
import os
import stat
import tarfile
import urllib.error
import urllib.request
from pathlib import Path
from types import ModuleType

import pytest

from onos_helpers import ONOS_APPS, Onos

pytestmark = pytest.mark.integration


def load_runtime(run_dir: Path, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    monkeypatch.setenv("ONOS_RUNTIME_DIR", str(run_dir))
    monkeypatch.delenv("ONOS_PASSWORD", raising=False)
    path = str(ONOS_APPS / "runtime" / "onos-runtime")
    loader = importlib.machinery.SourceFileLoader("onos_runtime_under_test", path)
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader(loader.name, loader))
    loader.exec_module(module)
    return module


def test_the_password_is_generated_once_and_kept_private(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    runtime = load_runtime(tmp_path / "run", monkeypatch)
    first = runtime.password()
    assert len(first) >= 20 and first != "rocks" and runtime.password() == first
    assert stat.S_IMODE(os.stat(runtime.CREDENTIALS).st_mode) == 0o600
    other = load_runtime(tmp_path / "other", monkeypatch).password()
    assert other != first  # each runtime its own
    monkeypatch.setenv("ONOS_PASSWORD", "given-by-the-operator")
    assert runtime.password() == "given-by-the-operator"


def test_the_store_key_is_generated_once_and_kept_private(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    runtime = load_runtime(tmp_path / "run", monkeypatch)
    key = runtime.store_key()
    assert len(base64.b64decode(key, validate=True)) == 32 and runtime.store_key() == key
    assert runtime.STORE_KEY == tmp_path / "run" / "store-key"  # where PassphraseCipher looks: Karaf home's parent
    assert stat.S_IMODE(os.stat(runtime.STORE_KEY).st_mode) == 0o600
    assert load_runtime(tmp_path / "other", monkeypatch).store_key() != key


def test_karafs_default_user_is_removed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    runtime = load_runtime(tmp_path / "run", monkeypatch)
    if not runtime.KARAF_TGZ.exists():
        pytest.skip(f"{runtime.KARAF_TGZ} missing: make deps")
    with tarfile.open(runtime.KARAF_TGZ) as tar:
        member = tar.getmember(f"apache-karaf-{runtime.KARAF_VERSION}/etc/users.properties")
        original = tar.extractfile(member).read().decode()  # type: ignore[union-attr]
    assert "\nkaraf = karaf," in original  # what Karaf ships
    (tmp_path / "etc").mkdir()
    (tmp_path / "etc" / "users.properties").write_text(original)
    runtime.write_users(tmp_path / "etc")
    users = [line for line in (tmp_path / "etc" / "users.properties").read_text().splitlines()
             if line.strip() and not line.startswith("#")]
    assert users == ["_g_\\:admingroup = group,admin,manager,viewer,systembundles,ssh",
                     f"onos = {runtime.password()},_g_:admingroup"]


def test_a_booted_runtime_refuses_karafs_default_credentials(onos: Onos) -> None:
    def status(user: str, password: str) -> int:
        req = urllib.request.Request(onos.url + "/onos/v1/applications")
        req.add_header("Authorization", "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode())
        try:
            with urllib.request.urlopen(req, timeout=10) as resp:
                return resp.status
        except urllib.error.HTTPError as err:
            return err.code

    assert status("karaf", "karaf") == 401
    assert status("onos", "rocks") == 401
    assert status(onos.user, onos.password) == 200
