"""Fast checks of the image builder's pure parts (no apt, no qemu)."""

import lzma
from pathlib import Path

import apt_packages
import apvm
import build_image
import pytest


def test_deb_path_encodes_epoch(tmp_path: Path) -> None:
    (tmp_path / "hostapd_2%3a2.10-12_amd64.deb").write_bytes(b"")
    assert apt_packages.deb_path(tmp_path, "hostapd", "2:2.10-12").exists()
    assert not apt_packages.deb_path(tmp_path, "hostapd", "2:2.10-13").exists()


def test_extract_vmlinux_finds_the_xz_elf(tmp_path: Path) -> None:
    payload = b"\x7fELF" + b"kernel" * 100
    (tmp_path / "vmlinuz").write_bytes(b"MZ-bzimage-header" + lzma.compress(payload, format=lzma.FORMAT_XZ))
    build_image.extract_vmlinux(tmp_path / "vmlinuz", tmp_path / "vmlinux")
    assert (tmp_path / "vmlinux").read_bytes() == payload


def test_extract_vmlinux_rejects_non_kernel(tmp_path: Path) -> None:
    (tmp_path / "vmlinuz").write_bytes(b"no compressed payload here")
    with pytest.raises(SystemExit, match="no xz payload"):
        build_image.extract_vmlinux(tmp_path / "vmlinuz", tmp_path / "vmlinux")


def test_image_key_changes_with_versions() -> None:
    a = build_image.image_key({"hostapd": "2:2.10-12"})
    assert a == build_image.image_key({"hostapd": "2:2.10-12"})
    assert a != build_image.image_key({"hostapd": "2:2.10-13"})


@pytest.mark.parametrize("radios", [0, 17, -1])
def test_radio_count_is_validated(radios: int) -> None:
    with pytest.raises(ValueError, match="radios"):
        apvm.ApVm(radios=radios)


def test_sweep_removes_only_dead_vm_workdirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import os
    import tempfile

    monkeypatch.setattr(tempfile, "gettempdir", lambda: str(tmp_path))
    dead = tmp_path / f"{apvm.WORKDIR_PREFIX}dead"
    alive = tmp_path / f"{apvm.WORKDIR_PREFIX}alive"
    starting = tmp_path / f"{apvm.WORKDIR_PREFIX}starting"
    for d in (dead, alive, starting):
        d.mkdir()
    (dead / "qemu.pid").write_text("999999999\n")
    (alive / "qemu.pid").write_text(f"{os.getpid()}\n")
    apvm.sweep_stale_workdirs()
    assert not dead.exists()
    assert alive.exists() and starting.exists()


def test_installed_agent_carries_its_protocol_and_schema(tmp_path: Path) -> None:
    """The image gets the ap-agent from its package: wislice_agent_proto and the schema are in site-packages, where
    the VM's python (through the .pth) and the ap-agent VM tests' PYTHONPATH=/opt/wislice/ap-agent find them; with
    nothing but that directory on the path the protocol validator loads the schema installed beside it."""
    import os
    import subprocess
    import sys

    import firmware

    ipks = firmware.build_packages(tmp_path / "ipk")
    root = tmp_path / "root"
    root.mkdir()
    firmware.install(root, ipks)
    site = root / firmware.SITE_PACKAGES.lstrip("/")
    assert os.readlink(root / "opt/wislice/ap-agent") == firmware.SITE_PACKAGES
    assert (root / "usr/lib/python3/dist-packages/openwrt-site-packages.pth").read_text().strip() == \
        firmware.SITE_PACKAGES
    assert sorted(p.name for p in (root / "usr/share/wislice/ipk").iterdir()) == sorted(p.name for p in ipks)
    # the agent's installed package set is seeded with the image's own (an upgrade's rollback reinstalls it)
    cache = root / firmware.INSTALLED_SET_DIR.lstrip("/")
    assert {p.name: p.read_bytes() for p in cache.iterdir()} == {p.name: p.read_bytes() for p in ipks}
    assert (root / "etc/wislice/firmware_version").read_text().strip() == ipks[0].name.split("_")[1]
    probe = "import wislice_ap_agent; from wislice_agent_proto import validate; print(validate.schema_path())"
    out = subprocess.run([sys.executable, "-S", "-c", probe], capture_output=True, text=True, check=True,
                         env={"PYTHONPATH": str(site)}, cwd=tmp_path).stdout.strip()
    assert out == str(site / "wislice_agent_proto" / "message.schema.json")
    assert {p.name for p in build_image.overlay_files()} >= {"opkg.py", "procd.py", "rc.common", "functions.sh",
                                                              "procd.sh", "init", "firmware.py"}
