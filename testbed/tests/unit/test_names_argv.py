import re
from pathlib import Path

import pytest

from wislice_testbed.dockerd import dockerd_argv
from wislice_testbed.names import IFNAMSIZ, is_ours, unique_name
from wislice_testbed.netns import exec_argv
from wislice_testbed.veth import parse_addr


def test_unique_names_fit_an_interface_and_differ() -> None:
    names = {unique_name("averyveryverylongtag!") for _ in range(200)}
    assert len(names) == 200
    for n in names:
        assert len(n) <= IFNAMSIZ
        assert re.fullmatch(r"ws[a-zA-Z0-9]+", n)
        assert is_ours(n)


def test_unique_name_keeps_short_tag_and_rejects_bad_sizes() -> None:
    assert unique_name("a").startswith("wsa")
    assert len(unique_name("", rand_hex=6)) == 8
    with pytest.raises(ValueError):
        unique_name("x", rand_hex=2)
    with pytest.raises(ValueError):
        unique_name("x", max_len=5)


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
