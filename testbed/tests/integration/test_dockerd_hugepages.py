import mmap
import os
from pathlib import Path
from typing import Any

import pytest

from wislice_testbed import leakcheck
from wislice_testbed.dockerd import BUSYBOX_IMAGE, PrivateDockerd, import_busybox_image, processes_mentioning
from wislice_testbed.hugepages import PAGE, Hugepages, hugetlbfs_mounts, read_counter
from wislice_testbed.mounts import mounts_under

pytestmark = pytest.mark.requires_root


def test_private_dockerd_runs_an_imported_image(private_dockerd: Any) -> None:
    client = private_dockerd.client
    assert private_dockerd.socket.is_socket() and private_dockerd.base_url.startswith("unix:///")
    import_busybox_image(client)
    out = client.containers.run(BUSYBOX_IMAGE, ["sh", "-c", "echo hello from $(hostname); ip -o link"],
                                network_mode="none", remove=True)
    assert b"hello from" in out and b"lo:" in out and b"eth0" not in out  # --bridge=none: no network but lo
    info = client.info()
    assert info["DockerRootDir"].startswith(str(private_dockerd.root))


def test_private_dockerd_teardown_leaves_nothing() -> None:
    d = PrivateDockerd.start("tdk")
    root = d.root
    try:
        import_busybox_image(d.client)
        c = d.client.containers.run(BUSYBOX_IMAGE, ["sleep", "300"], network_mode="none", detach=True,
                                    cap_add=["NET_ADMIN"], mem_limit="64m")
        c.reload()
        assert c.status == "running"
        assert [s for s in leakcheck.list_containers([root.parent]) if str(root) in s]
        assert any(m.endswith("/merged") for m in mounts_under(root))
        cgroups = [p for p in Path("/sys/fs/cgroup").glob(f"*/{d.cgroup_parent}/{c.id}") if p.is_dir()]
        assert cgroups, "container should live under our cgroup parent"
        pid = d.proc.pid if d.proc else -1
    finally:
        d.stop()
    assert not root.exists()
    assert mounts_under(root) == []
    assert processes_mentioning(str(root)) == []
    assert not os.path.exists(f"/proc/{pid}") or "Z" in Path(f"/proc/{pid}/stat").read_text().split(")")[1][:3]
    assert not [p for p in cgroups if p.exists()]
    assert not [p for p in Path("/sys/fs/cgroup").glob(f"*/{d.cgroup_parent}") if p.exists()]
    d.stop()  # idempotent


def test_hugepages_fixture_gives_usable_pages(hugepages: Any) -> None:
    assert str(hugepages.mount) in hugetlbfs_mounts()
    free = read_counter("free_hugepages")
    assert free >= hugepages.pages
    path = hugepages.mount / "probe"
    fd = os.open(path, os.O_CREAT | os.O_RDWR, 0o600)
    try:
        os.ftruncate(fd, 2 * PAGE)
        with mmap.mmap(fd, 2 * PAGE) as m:
            m[0:5] = b"hello"
            m[PAGE:PAGE + 5] = b"world"
            assert read_counter("free_hugepages") == free - 2
    finally:
        os.close(fd)
        path.unlink()


def test_hugepages_reserve_and_restore() -> None:
    before = read_counter("nr_hugepages")
    hp = Hugepages.reserve(8)
    try:
        assert read_counter("nr_hugepages") == before + 8
        assert str(hp.mount) in hugetlbfs_mounts()
    finally:
        hp.release()
    assert read_counter("nr_hugepages") == before
    assert str(hp.mount) not in hugetlbfs_mounts() and not hp.mount.exists()
