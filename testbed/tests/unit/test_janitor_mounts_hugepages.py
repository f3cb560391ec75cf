import io
import tarfile
from pathlib import Path

import pytest

from wislice_testbed import janitor, mounts
from wislice_testbed.dockerd import busybox_rootfs_tar, remove_cgroups
from wislice_testbed.hugepages import Hugepages


def test_janitor_runs_newest_first_survives_errors_and_forgets_unregistered() -> None:
    done: list[str] = []

    def boom() -> None:
        raise RuntimeError("boom")

    janitor.register("a", lambda: done.append("a"))
    janitor.register("boom", boom)
    skipped = janitor.register("skipped", lambda: done.append("skipped"))
    janitor.register("c", lambda: done.append("c"))
    janitor.unregister(skipped)
    assert janitor.run_all() == ["boom: boom"]
    assert done == ["c", "a"]
    assert janitor.pending() == []


def test_mounts_under_orders_deepest_first(monkeypatch: pytest.MonkeyPatch) -> None:
    table = [("/", "ext4", "/dev/vda"), ("/r/data", "ext4", "/dev/vda"), ("/r/data/overlay2/x/merged", "overlay", "o"),
             ("/r/exec/netns/abc", "nsfs", "nsfs"), ("/rr", "tmpfs", "t")]
    monkeypatch.setattr(mounts, "mounts", lambda: table)
    monkeypatch.setattr(mounts.os.path, "realpath", lambda p: p)
    assert mounts.mounts_under("/r") == ["/r/data/overlay2/x/merged", "/r/exec/netns/abc", "/r/data"]


def test_mountinfo_unescape() -> None:
    assert mounts._unescape(r"/tmp/a\040b") == "/tmp/a b"


def test_hugepages_release_gives_back_only_what_was_added(tmp_path: Path) -> None:
    (tmp_path / "nr_hugepages").write_text("80\n")  # we added 64 on top of 8; someone else added 8 more
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    hp = Hugepages(pages=64, mount=mnt, previous=8, base=tmp_path, _added=64)
    hp.release()
    hp.release()  # idempotent
    assert (tmp_path / "nr_hugepages").read_text() == "16"
    assert not mnt.exists()


def test_hugepages_release_after_an_earlier_reservation_was_given_back(tmp_path: Path) -> None:
    # A (previous 0) took 384, we (previous 384) took 96, A gave its 384 back first: we give back our 96, down
    # to 0, not to our stale previous (384).
    (tmp_path / "nr_hugepages").write_text("96\n")
    hp = Hugepages(pages=96, mount=tmp_path / "gone", previous=384, base=tmp_path, _added=96)
    hp.release()
    assert (tmp_path / "nr_hugepages").read_text() == "0"


def test_hugepages_release_never_goes_below_zero(tmp_path: Path) -> None:
    (tmp_path / "nr_hugepages").write_text("10\n")
    hp = Hugepages(pages=64, mount=tmp_path / "gone", previous=8, base=tmp_path, _added=64)
    hp.release()
    assert (tmp_path / "nr_hugepages").read_text() == "0"


def test_busybox_rootfs_tar(tmp_path: Path) -> None:
    fake = tmp_path / "busybox"
    fake.write_bytes(b"\x7fELF fake")
    fake.chmod(0o755)
    with tarfile.open(fileobj=io.BytesIO(busybox_rootfs_tar(fake, ("sh", "ping"))), mode="r") as tar:
        members = {m.name: m for m in tar.getmembers()}
    assert members["bin/busybox"].isfile() and members["bin/busybox"].mode & 0o111
    assert members["bin/sh"].issym() and members["bin/sh"].linkname == "busybox"
    assert members["tmp"].isdir() and "etc/passwd" in members


def test_remove_cgroups_depth_first_and_empty_ancestors(tmp_path: Path) -> None:
    for h in ("cpu", "memory"):
        (tmp_path / h / "wislice" / "wsdk1" / "c0ffee").mkdir(parents=True)
    (tmp_path / "memory" / "wislice" / "wsdk2").mkdir()  # another daemon's: keeps wislice/ alive there
    remove_cgroups("wislice/wsdk1", base=tmp_path)
    assert not (tmp_path / "cpu" / "wislice").exists()
    assert not (tmp_path / "memory" / "wislice" / "wsdk1").exists()
    assert (tmp_path / "memory" / "wislice" / "wsdk2").is_dir()
