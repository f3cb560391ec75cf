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


def test_built_program_is_in_the_rootfs_with_its_libraries(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """dpdk-vnf's image holds the program built from vnfs/dpdk-vnf at /usr/bin/dpdk-vnf, and the virtio-user PMD
    it links; a rebuilt program gives a new key (its size and mtime are part of it)."""
    image = Catalog.load().get("dpdk-vnf")
    try:
        images.busybox_path()
        built = images.built_files(image)
    except (FileNotFoundError, OSError) as exc:  # no busybox-static, or no meson / libdpdk to build with
        pytest.skip(f"cannot build dpdk-vnf here: {exc}")
    monkeypatch.setenv("WISLICE_CACHE", str(tmp_path))
    tar, key = images.build_rootfs(image)
    with tarfile.open(tar) as t:
        names = set(t.getnames())
        program = t.extractfile("usr/bin/dpdk-vnf")
        assert program is not None and program.read() == built["usr/bin/dpdk-vnf"].read_bytes()
    assert any(n.endswith("librte_net_virtio.so.23") for n in names), sorted(names)
    monkeypatch.setattr(images, "built_files", lambda image: {"usr/bin/dpdk-vnf": tmp_path / "other"})
    (tmp_path / "other").write_bytes(b"another build")
    assert images.image_key(image, []) != images.image_key(Catalog.load().get("dpdk-fwd"), [])
    first = images.image_key(image, [])
    (tmp_path / "other").write_bytes(b"a newer build")
    assert images.image_key(image, []) != first


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
    for bad in ('"127.0.0.1"', '"a:1,b"', '"a:99999"', "6691"):
        p.write_text(f'agent_id = "mec-1"\nstate_dir = "/tmp/x"\ncontroller = {bad}\n')
        with pytest.raises(ValueError, match="controller"):
            load_config(p)
    p.write_text('agent_id = "mec-1"\nstate_dir = "/tmp/x"\ncontroller = "10.0.0.1:6691,10.0.0.2:6691"\n')
    assert load_config(p).controller == "10.0.0.1:6691,10.0.0.2:6691"  # the nodes of a cluster, dialled in turn


def test_example_config_loads() -> None:
    cfg = load_config(Path(__file__).resolve().parents[2] / "examples" / "mec-agent.toml")
    assert cfg.agent_id == "mec-1" and cfg.warm_pool["kernel-fwd"] == 2
