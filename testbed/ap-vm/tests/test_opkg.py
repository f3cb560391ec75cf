"""The VM's opkg (guest/opkg.py) on the host, with the real .ipk files `make -C openwrt packages` builds, installed
into an image-shaped root as the image build does (offline root: the maintainer scripts only enable services)."""

from __future__ import annotations

import gzip
import io
import subprocess
import sys
import tarfile
from collections.abc import Iterator
from pathlib import Path

import firmware
import pytest

OPKG = [sys.executable, str(firmware.GUEST_DIR / "opkg.py")]
sys.path.insert(0, str(firmware.GUEST_DIR))
import opkg  # noqa: E402


@pytest.fixture(scope="module")
def ipks(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    return firmware.build_packages(tmp_path_factory.mktemp("ipk"))


@pytest.fixture
def root(tmp_path: Path, ipks: list[Path]) -> Path:
    """An image overlay with the VM's shell libraries, opkg's base status and both packages installed."""
    r = tmp_path / "root"
    r.mkdir()
    firmware.install(r, ipks)
    return r


def run(root: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    res = subprocess.run([*OPKG, "-o", str(root), *args], capture_output=True, text=True)
    if check:
        assert res.returncode == 0, res.stdout + res.stderr
    return res


def data_files(ipk: Path) -> dict[str, bytes]:
    with tarfile.open(ipk, "r:gz") as outer:
        data = outer.extractfile("./data.tar.gz")
        assert data is not None
        with tarfile.open(fileobj=io.BytesIO(data.read()), mode="r:gz") as tar:
            return {m.name[1:]: tar.extractfile(m).read() for m in tar if m.isfile()}  # type: ignore[union-attr]


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() if p.is_file() and not p.is_symlink() else b"<dir/link>"
            for p in sorted(root.rglob("*"))}


def rebuild(ipk: Path, out: Path, change: dict[str, bytes | None]) -> Path:
    """The package file with outer members replaced (None: left out), in OpenWrt's gzip'd tar form."""
    with tarfile.open(ipk, "r:gz") as outer:
        members = {m.name: outer.extractfile(m).read() for m in outer if m.isfile()}  # type: ignore[union-attr]
    members.update(change)  # type: ignore[arg-type]
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w") as tar:
        for name, data in members.items():
            if data is not None:
                info = tarfile.TarInfo(name)
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
    out.write_bytes(gzip.compress(raw.getvalue()))
    return out


def test_install_puts_every_file_and_records_status(root: Path, ipks: list[Path]) -> None:
    for ipk in ipks:
        name = ipk.name.split("_")[0]
        files = data_files(ipk)
        assert len(files) >= 3
        for path, data in files.items():
            assert (root / path.lstrip("/")).read_bytes() == data, path
        assert sorted((root / f"usr/lib/opkg/info/{name}.list").read_text().split()) == sorted(files)
        assert (root / f"usr/lib/opkg/info/{name}.postinst").exists()
    status = opkg.Opkg(root, offline=True).status
    agent = status["wislice-ap-agent"]
    assert agent["Status"] == "install user installed" and agent["Version"] == "0.1.0-r1"
    assert "/etc/config/wislice-ap-agent " in agent["Conffiles"]
    # the postinst ran with IPKG_INSTROOT set: services enabled in the image, not started
    assert sorted(p.name for p in (root / "etc/rc.d").iterdir()) == [
        "K10wislice-ap-agent", "K10wislice-pofswitch", "S95wislice-pofswitch", "S99wislice-ap-agent"]
    assert run(root, "list-installed").stdout.splitlines() == [
        "wislice-ap-agent - 0.1.0-r1", "wislice-apvm-base - 1", "wislice-pofswitch - 0.1.0-r1"]
    assert "/usr/sbin/pofswitch-afp" in run(root, "files", "wislice-pofswitch").stdout


def test_same_version_is_up_to_date_unless_forced(root: Path, ipks: list[Path]) -> None:
    res = run(root, "install", str(ipks[1]))
    assert "is up to date" in res.stdout
    (root / "usr/sbin/pofswitch-afp").write_bytes(b"damaged")
    res = run(root, "install", "--force-reinstall", str(ipks[1]))
    assert "Removing package wislice-pofswitch" in res.stdout and "Installing wislice-pofswitch" in res.stdout
    assert (root / "usr/sbin/pofswitch-afp").read_bytes() == data_files(ipks[1])["/usr/sbin/pofswitch-afp"]
    assert (root / "etc/rc.d/S95wislice-pofswitch").is_symlink()  # disabled by prerm, enabled again by postinst


def test_install_goes_on_when_its_output_reader_is_gone(root: Path, ipks: list[Path]) -> None:
    """An agent upgrading itself reads opkg's output and is stopped by the prerm: the install must still finish."""
    (root / "usr/sbin/pofswitch-afp").write_bytes(b"damaged")
    proc = subprocess.Popen([*OPKG, "-o", str(root), "install", "--force-reinstall", str(ipks[1])],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdout is not None
    proc.stdout.close()  # the reader is gone before opkg writes its first line
    assert proc.wait(timeout=60) == 0
    assert (root / "usr/sbin/pofswitch-afp").read_bytes() == data_files(ipks[1])["/usr/sbin/pofswitch-afp"]
    assert "wislice-pofswitch" in run(root, "list-installed").stdout


def test_changed_conffile_is_kept_with_the_new_one_beside_it(root: Path, ipks: list[Path]) -> None:
    conf = root / "etc/config/wislice-ap-agent"
    conf.write_text("config agent 'agent'\n\toption enabled '1'\n")
    untouched = (root / "etc/config/wislice-pofswitch").read_bytes()
    res = run(root, "install", "--force-reinstall", *map(str, ipks))
    assert "Not deleting modified conffile /etc/config/wislice-ap-agent" in res.stdout
    assert conf.read_text() == "config agent 'agent'\n\toption enabled '1'\n"
    shipped = data_files(ipks[0])["/etc/config/wislice-ap-agent"]
    assert (root / "etc/config/wislice-ap-agent-opkg").read_bytes() == shipped
    assert (root / "etc/config/wislice-pofswitch").read_bytes() == untouched
    assert not (root / "etc/config/wislice-pofswitch-opkg").exists()


def test_remove_deletes_files_but_a_changed_conffile(root: Path, ipks: list[Path]) -> None:
    (root / "etc/config/wislice-pofswitch").write_text("changed\n")
    run(root, "remove", "wislice-pofswitch")
    assert not (root / "usr/sbin/pofswitch-afp").exists()
    assert not (root / "etc/init.d/wislice-pofswitch").exists()
    assert not list((root / "etc/rc.d").glob("*pofswitch"))  # prerm disabled it
    assert (root / "etc/config/wislice-pofswitch").read_text() == "changed\n"
    assert not list((root / "usr/lib/opkg/info").glob("wislice-pofswitch.*"))
    assert "wislice-pofswitch" not in run(root, "list-installed").stdout


@pytest.fixture
def bad_ipks(tmp_path: Path, ipks: list[Path]) -> Iterator[dict[str, tuple[Path, str]]]:
    """Broken package files and the error each must give."""
    good = ipks[1].read_bytes()
    (tmp_path / "truncated.ipk").write_bytes(good[: len(good) // 2])
    (tmp_path / "text.ipk").write_text("not a package\n")
    evil = io.BytesIO()
    with tarfile.open(fileobj=evil, mode="w:gz") as tar:
        info = tarfile.TarInfo("./../../escape")
        info.size = 2
        tar.addfile(info, io.BytesIO(b"x\n"))
    yield {
        "truncated": (tmp_path / "truncated.ipk", "broken"),
        "text": (tmp_path / "text.ipk", "not a package file"),
        "no-data": (rebuild(ipks[1], tmp_path / "nodata.ipk", {"./data.tar.gz": None}), "no data.tar.gz"),
        "escape": (rebuild(ipks[1], tmp_path / "escape.ipk", {"./data.tar.gz": evil.getvalue()}), "unsafe member"),
    }


@pytest.mark.parametrize("case", ["truncated", "text", "no-data", "escape"])
def test_a_broken_package_changes_nothing(root: Path, ipks: list[Path], bad_ipks: dict[str, tuple[Path, str]],
                                          case: str) -> None:
    bad, message = bad_ipks[case]
    before = snapshot(root)
    res = run(root, "install", "--force-reinstall", str(ipks[0]), str(bad), check=False)
    assert res.returncode == 255
    assert message in res.stderr
    assert snapshot(root) == before
    assert not (root.parent / "escape").exists()


def test_unmet_dependency_is_refused(tmp_path: Path, ipks: list[Path]) -> None:
    bare = tmp_path / "bare"
    bare.mkdir()
    res = run(bare, "install", str(ipks[0]), check=False)
    assert res.returncode == 255
    assert "Cannot satisfy the following dependencies for wislice-ap-agent" in res.stderr
    assert "python3-light" in res.stderr
    assert list(bare.iterdir()) == []


def test_ar_form_installs_too(tmp_path: Path, ipks: list[Path]) -> None:
    with tarfile.open(ipks[1], "r:gz") as outer:
        members = [(n, outer.extractfile(f"./{n}").read()) for n in  # type: ignore[union-attr]
                   ("debian-binary", "control.tar.gz", "data.tar.gz")]
    ar = b"!<arch>\n" + b"".join(f"{n + '/':<16}{0:<12}{0:<6}{0:<6}{100644:<8}{len(d):<10}`\n".encode() + d +
                                 (b"\n" if len(d) % 2 else b"") for n, d in members)
    (tmp_path / "sw.ipk").write_bytes(ar)
    r = tmp_path / "root"
    r.mkdir()
    run(r, "install", "--force-depends", str(tmp_path / "sw.ipk"))
    assert (r / "usr/sbin/pofswitch-afp").read_bytes() == data_files(ipks[1])["/usr/sbin/pofswitch-afp"]


@pytest.mark.parametrize(("a", "b", "sign"), [("0.1.0-r1", "0.1.0-r2", -1), ("0.10.0-r1", "0.9.0-r1", 1),
                                              ("1:0.1-r1", "2.0-r1", 1), ("1.0~rc1-r1", "1.0-r1", -1),
                                              ("0.1.0-r1", "0.1.0-r1", 0)])
def test_versions_order_as_opkg(a: str, b: str, sign: int) -> None:
    cmp = opkg.compare_versions(a, b)
    assert (cmp > 0) - (cmp < 0) == sign
