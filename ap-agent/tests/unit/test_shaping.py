"""Shaping backends without root: the tc backend's command sequence and its rollback, backend selection."""

import subprocess

import pytest

from wislice_ap_agent import shaping
from wislice_ap_agent.shaping import NullShaper, ShapingError, TcShaper, ifb_name, make_shaper


class Recorded(list):
    fail_on: dict


@pytest.fixture
def calls(monkeypatch):
    recorded = Recorded()
    fail_on = {}

    def fake_run(argv, input=None, **kw):
        # One line per command: a -batch run is recorded as the commands it was fed, prefixed with the program.
        lines = [f"{argv[0]} {line}" for line in input.splitlines()] if input else [" ".join(argv)]
        recorded.extend(lines)
        rc = 2 if any(w in line for line in lines for w in fail_on) else 0
        return subprocess.CompletedProcess(argv, rc, "", "RTNETLINK answers: nope" if rc else "")

    monkeypatch.setattr(shaping.subprocess, "run", fake_run)
    recorded.fail_on = fail_on
    return recorded




def test_downlink_htb_and_uplink_ifb(calls):
    TcShaper().apply("wlan0_1", 5000, 2000)
    ifb = ifb_name("wlan0_1")
    want = [
        f"ip link add {ifb} up type ifb",
        "tc qdisc replace dev wlan0_1 root handle 1: htb default 10",
        f"tc class replace dev wlan0_1 parent 1: classid 1:10 htb rate 5000kbit ceil 5000kbit burst {16 * 1514} "
        f"cburst {16 * 1514}",
        f"tc qdisc replace dev {ifb} root handle 1: htb default 10",
        "tc qdisc add dev wlan0_1 handle ffff: ingress",
        "tc filter add dev wlan0_1 parent ffff: protocol all u32 match u32 0 0 action mirred egress redirect "
        f"dev {ifb}",
    ]
    applied = [c for c in calls if " del" not in c and "class replace dev ifb" not in c]
    assert applied == want
    assert len(ifb) <= 15 and ifb != ifb_name("wlan0_2")


def test_uncapped_installs_nothing(calls):
    TcShaper().apply("wlan0_1", 0, 0)
    assert all(" del " in c for c in calls)  # only the clean-up of a previous run


def test_failure_rolls_back(calls):
    calls.fail_on["ingress"] = True
    with pytest.raises(ShapingError, match="nope"):
        TcShaper().apply("wlan0_1", 0, 1000)
    assert calls[-1] == f"ip link del {ifb_name('wlan0_1')}"


def test_one_batch_per_program_run(monkeypatch):
    """The whole cap is a handful of process starts: clean-up (tc batch, ip), the IFB, then one tc batch."""
    runs = []

    def fake_run(argv, input=None, **kw):
        runs.append((argv, input))
        return subprocess.CompletedProcess(argv, 0, "", "")

    monkeypatch.setattr(shaping.subprocess, "run", fake_run)
    TcShaper().apply("wlan0_1", 5000, 2000)
    assert [argv for argv, _ in runs] == [["tc", "-force", "-batch", "-"], ["ip", "link", "del", ifb_name("wlan0_1")],
                                          ["ip", "link", "add", ifb_name("wlan0_1"), "up", "type", "ifb"],
                                          ["tc", "-batch", "-"]]
    assert runs[-1][1].count("\n") == 6 and runs[-1][1].endswith("\n")


def test_selection(monkeypatch):
    assert isinstance(make_shaper("none"), NullShaper)
    with pytest.raises(ShapingError):
        NullShaper().apply("x", 1, 0)
    with pytest.raises(ShapingError, match="unknown"):
        make_shaper("magic")
    assert make_shaper("tc").name == "tc"
    import builtins

    real_import = builtins.__import__

    def no_pyroute2(name, *a, **kw):
        if name.startswith("pyroute2"):
            raise ImportError(name)
        return real_import(name, *a, **kw)

    monkeypatch.setattr(builtins, "__import__", no_pyroute2)
    assert make_shaper("auto").name == "tc"  # clean fallback where pyroute2 is absent (OpenWrt)
    with pytest.raises(ShapingError, match="not installed"):
        make_shaper("pyroute2")
