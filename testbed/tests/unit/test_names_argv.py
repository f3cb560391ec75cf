import itertools
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from wislice_testbed import names
from wislice_testbed.dockerd import dockerd_argv
from wislice_testbed.names import IFNAMSIZ, MIN_LEN, compose, is_ours, unique_name
from wislice_testbed.netns import exec_argv
from wislice_testbed.veth import parse_addr

TAGS = ["", "a", "a1", "1", "tap", "dk", "averyveryverylongtag!", "x-y_z", "0000", "zzzzzz"]


def test_unique_names_never_repeat_in_a_process_and_fit_an_interface() -> None:
    made = [unique_name(TAGS[i % len(TAGS)]) for i in range(3000)]
    assert len(set(made)) == len(made)
    for n in made:
        assert MIN_LEN <= len(n) <= IFNAMSIZ
        assert re.fullmatch(r"ws[a-zA-Z0-9]+", n)
        assert is_ours(n)


def test_two_processes_never_share_a_name() -> None:
    """Simulated: every name two processes (neighbouring pids, the smallest and the largest) can make with each
    number and tag; a tag that looks like digits of a pid cannot make two names alike either."""
    for pid_a, pid_b in ((1000, 1001), (1, 2**22), (36, 1), (os.getpid(), os.getpid() + 1)):
        a = {compose(tag, pid_a, seq) for seq in range(400) for tag in TAGS}
        b = {compose(tag, pid_b, seq) for seq in range(400) for tag in TAGS}
        assert len(a) == len(b) == 400 * len(TAGS)
        assert not a & b
        assert all(len(n) <= IFNAMSIZ for n in a | b)


def test_a_forked_child_keeps_the_sequence_but_not_the_pid(monkeypatch: pytest.MonkeyPatch) -> None:
    parent = [unique_name("f") for _ in range(50)]
    monkeypatch.setattr(names.os, "getpid", lambda: 4_000_000)
    child = [unique_name("f") for _ in range(50)]
    assert not set(parent) & set(child)


def test_another_real_process_makes_other_names() -> None:
    code = "from wislice_testbed.names import unique_name\nfor _ in range(1000): print(unique_name('p'))"
    theirs = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    ours = [unique_name("p") for _ in range(1000)]
    assert len(set(theirs)) == len(set(ours)) == 1000
    assert not set(theirs) & set(ours)


def test_name_lengths_and_limits() -> None:
    assert unique_name("a").startswith("wsa")
    assert len(unique_name("")) == MIN_LEN == 10
    assert len(unique_name("averyveryverylongtag")) == IFNAMSIZ
    assert compose("averyveryverylongtag", 7, 0) == "wsavery00007000"
    assert compose("tag", 2**22, 36**3 - 1) == "wstag2hwcgzzz"
    assert len(unique_name("averyveryverylongtag", max_len=40)) == 30  # the whole tag when there is room
    assert len(unique_name("abc", max_len=MIN_LEN)) == MIN_LEN  # no room: no tag
    with pytest.raises(ValueError):
        unique_name("x", max_len=MIN_LEN - 1)
    with pytest.raises(ValueError):
        compose("x", 36**5, 0)  # a pid that would need a sixth digit
    with pytest.raises(ValueError):
        compose("x", 1, 36**3)


def test_the_sequence_wraps_once_then_a_process_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(names, "_seq_start", names.SEQ_COUNT - 1)
    monkeypatch.setattr(names, "_calls", itertools.count())
    assert unique_name().endswith("zzz")
    assert unique_name().endswith("000")
    monkeypatch.setattr(names, "_calls", itertools.count(names.SEQ_COUNT - 1))
    assert unique_name().endswith("zzy")
    with pytest.raises(RuntimeError):
        unique_name()


def test_exec_argv_wraps_only_for_a_namespace() -> None:
    assert exec_argv("wsab12", ["ping", "-c", 1]) == ["ip", "netns", "exec", "wsab12", "ping", "-c", "1"]
    assert exec_argv(None, ["true"]) == ["true"]
    with pytest.raises(ValueError):
        exec_argv("x", [])


def test_dockerd_argv_is_private_and_firewall_free() -> None:
    argv = dockerd_argv(Path("/r"), "wislice/wsdk1")
    assert argv[0] == "dockerd"
    joined = " ".join(argv)
    for flag in ("--data-root /r/data", "--exec-root /r/exec", "-H unix:///r/docker.sock", "--pidfile /r/docker.pid",
                 "--iptables=false", "--ip-forward=false", "--bridge=none", "--cgroup-parent wislice/wsdk1",
                 "--shutdown-timeout 2"):
        assert flag in joined


@pytest.mark.parametrize(("addr", "want"), [("10.9.0.1/24", ("10.9.0.1", 24)), ("10.9.0.1", ("10.9.0.1", 32)),
                                            ("fd00::1/64", ("fd00::1", 64))])
def test_parse_addr(addr: str, want: tuple[str, int]) -> None:
    assert parse_addr(addr) == want
