from __future__ import annotations

import tarfile
from pathlib import Path

import pytest

from wislice_mec_agent import images
from wislice_mec_agent.catalog import Catalog
from wislice_mec_agent.config import load_config


def test_rootfs_is_built_once_and_holds_what_the_image_needs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    try:
        images.busybox_path()
    except FileNotFoundError:
        pytest.skip("busybox-static is not installed")
    monkeypatch.setenv("WISLICE_CACHE", str(tmp_path))
    image = Catalog.load().get("kernel-fwd")
    tar, key = images.build_rootfs(image)
    mtime = tar.stat().st_mtime_ns
    assert images.build_rootfs(image) == (tar, key) and tar.stat().st_mtime_ns == mtime  # cached
    with tarfile.open(tar) as t:
        names = t.getnames()
    assert len(names) == len(set(names)), "docker import refuses duplicate paths"
    assert {"bin/busybox", "bin/sh", "vnf/entry.sh", "vnf/run.sh", "run/vnf", "etc/passwd"} <= set(names)


def test_image_key_changes_with_the_recipe(monkeypatch: pytest.MonkeyPatch) -> None:
    cat = Catalog.load()
    a = images.image_key(cat.get("kernel-fwd"), [])
    b = images.image_key(cat.get("monitor"), [])
    assert a != b and len(a) == 16


def test_config_rejects_unknown_settings_and_bad_values(tmp_path: Path) -> None:
    p = tmp_path / "a.toml"
    p.write_text('agent_id = "mec-1"\nstate_dir = "/tmp/x"\ncolour = "red"\n')
    with pytest.raises(ValueError, match="unknown settings colour"):
        load_config(p)
    p.write_text('agent_id = "mec 1"\nstate_dir = "/tmp/x"\n')
    with pytest.raises(ValueError, match="agent_id"):
        load_config(p)
    p.write_text('agent_id = "mec-1"\nstate_dir = "/tmp/x"\nveth_prefix = "toolongprefix"\n')
    with pytest.raises(ValueError, match="veth prefix"):
        load_config(p)
    p.write_text('agent_id = "mec-1"\nstate_dir = "/tmp/x"\n[warm_pool]\nkernel-fwd = 2\n')
    assert load_config(p).warm_pool == {"kernel-fwd": 2}


def test_example_config_loads() -> None:
    cfg = load_config(Path(__file__).resolve().parents[2] / "examples" / "mec-agent.toml")
    assert cfg.agent_id == "mec-1" and cfg.warm_pool["kernel-fwd"] == 2
