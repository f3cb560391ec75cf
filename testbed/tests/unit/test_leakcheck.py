import json
from pathlib import Path

import pytest

from wislice_testbed import leakcheck

BASE = {"netns": ["other"], "interfaces": ["veth0"], "processes": ["10 dockerd -H unix:///x"], "containers": [],
        "hugetlbfs_mounts": ["/dev/hugepages"], "nr_hugepages": 8}


def test_identical_snapshots_have_no_leaks() -> None:
    assert leakcheck.diff(BASE, json.loads(json.dumps(BASE))) == []


def test_new_items_are_leaks_and_removals_are_not() -> None:
    after = {**BASE, "netns": ["wsa123456"], "interfaces": ["veth0", "wsb1c2d3"],
             "processes": ["10 dockerd -H unix:///x", "42 qemu-system-x86_64 -kernel k"],
             "containers": ["/tmp/s/docker.sock abc vnf"], "hugetlbfs_mounts": ["/dev/hugepages", "/tmp/h"],
             "nr_hugepages": 72}
    assert leakcheck.diff(BASE, after) == [
        "netns: wsa123456", "interfaces: wsb1c2d3", "processes: 42 qemu-system-x86_64 -kernel k",
        "containers: /tmp/s/docker.sock abc vnf", "hugetlbfs_mounts: /tmp/h", "nr_hugepages: 8 -> 72"]


def test_fewer_hugepages_is_not_a_leak() -> None:
    assert leakcheck.diff(BASE, {**BASE, "nr_hugepages": 0}) == []


@pytest.mark.parametrize(("comm", "argv0", "watched"), [
    ("qemu-system-x86", "/usr/bin/qemu-system-x86_64", True), ("dockerd", "/usr/sbin/dockerd", True),
    ("pofswitch", "./pofswitch", True), ("pof-switch", "build/pof-switch", True), ("bash", "/bin/bash", False),
    ("python3", "/usr/bin/python3", False)])
def test_watched_processes(comm: str, argv0: str, watched: bool) -> None:
    assert leakcheck.watched_process(comm, argv0) is watched


def test_compare_round_trip_and_exit_codes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    state = dict(BASE)
    monkeypatch.setattr(leakcheck, "take", lambda: dict(state))
    snap = tmp_path / "snap.json"
    assert leakcheck.main(["compare", "--file", str(snap)]) == 2  # no snapshot yet
    assert leakcheck.main(["snapshot", "--file", str(snap)]) == 0
    assert leakcheck.main(["compare", "--file", str(snap)]) == 0
    state["netns"] = ["other", "wsleak1"]
    assert leakcheck.main(["compare", "--file", str(snap)]) == 1
    assert "LEFT BEHIND netns: wsleak1" in capsys.readouterr().out


def test_containers_of_unreachable_sockets_are_skipped(tmp_path: Path) -> None:
    (tmp_path / "wsdk1").mkdir()
    assert leakcheck.list_containers([tmp_path, tmp_path / "missing"]) == []
