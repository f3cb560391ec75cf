"""The radio's downlink hierarchy without root: the exact tc/ip/nft lines the tc backend runs (and how few
processes), the same plan over netlink, kernels without fq_codel or act_skbedit, backend selection."""

from __future__ import annotations

import socket
import subprocess

import pytest
from pyroute2.netlink.rtnl import RTM_NEWTFILTER

from wislice_ap_agent import radio_qos, shaping
from wislice_ap_agent.radio_qos import radio_ifb, uplink_ifb
from wislice_ap_agent.shaping import (
    Netlink,
    NullShaper,
    ShapingError,
    TcShaper,
    failed_lines,
    make_shaper,
)

IFB = radio_ifb("phy0")
SKB = "action skbedit priority"
MIRRED = f"action mirred egress redirect dev {IFB}"


class Runs:
    """subprocess.run stand-in for tc/ip/nft: records each process (argv, its stdin lines) and fails lines that
    contain a word of ``fail`` the way tc -batch does (error text, then "Command failed -:N")."""

    def __init__(self) -> None:
        self.runs: list[tuple[list[str], list[str]]] = []
        self.fail: dict[str, str] = {}

    def __call__(self, argv, input=None, **kw):
        lines = input.splitlines() if input else []
        self.runs.append((list(argv), lines))
        if argv[0] == "nft":
            bad = any(w in line for line in lines for w in self.fail)
            return subprocess.CompletedProcess(argv, 1 if bad else 0, "", "Error: nope" if bad else "")
        errors = []
        for n, line in enumerate(lines, 1):
            word = next((w for w in self.fail if w in line), None)
            if word is not None:
                errors.append(f"Error: {self.fail[word]}\nCommand failed -:{n}")
                if "-force" not in argv:
                    break
        return subprocess.CompletedProcess(argv, 1 if errors else 0, "", "\n".join(errors))

    @property
    def lines(self) -> list[str]:
        """Every command as `<program> <line>`, in order."""
        return [f"{argv[0]} {line}" for argv, lines in self.runs for line in lines]

    def clear(self) -> None:
        self.runs.clear()


@pytest.fixture
def runs(monkeypatch):
    r = Runs()
    monkeypatch.setattr(shaping.subprocess, "run", r)
    return r


@pytest.fixture
def existing(monkeypatch):
    """The netdevs that exist, for the planner's no-process existence check."""
    names: set[str] = {"wlan0", "wlan0_1", "wlan0_2"}
    monkeypatch.setattr(radio_qos, "netdev_exists", lambda name: name in names)
    return names


def rl(down=0, up=0, down_g=None, up_g=None):
    out = {"down_kbps": down, "up_kbps": up}
    if down_g is not None:
        out["down_guaranteed_kbps"] = down_g
    if up_g is not None:
        out["up_guaranteed_kbps"] = up_g
    return out


def test_one_hierarchy_per_radio(runs, existing):
    s = TcShaper()
    s.add_radio("phy0", "wlan0", 20000)
    s.apply("phy0", "wlan0_1", 1, rl(down_g=8000))
    s.apply("phy0", "wlan0_2", 2, rl(down=5000))
    assert runs.lines == [
        # the radio: its IFB, root at the capacity, the default class (primary BSS and unsliced traffic)
        f"ip link add {IFB} up type ifb",
        f"tc qdisc add dev {IFB} root handle 1: htb default 100",
        f"tc class replace dev {IFB} parent 1: classid 1:1 htb rate 20000kbit ceil 20000kbit burst 25000 "
        "cburst 25000 quantum 1514",
        f"tc class replace dev {IFB} parent 1:1 classid 1:100 htb rate 200kbit ceil 20000kbit burst 24224 "
        "cburst 25000 prio 7 quantum 1514",
        f"tc qdisc replace dev {IFB} parent 1:100 handle 100: fq_codel",
        f"tc filter add dev {IFB} parent 1: protocol all prio 1 fw",
        "tc qdisc add dev wlan0 clsact",
        "tc filter del dev wlan0 egress prio 1",
        f"tc filter add dev wlan0 egress protocol all prio 1 u32 match u32 0 0 {SKB} 1:100 "
        f"pipe {MIRRED}",
        # vAP in slot 1: guarantee 8 Mbit/s, uncapped (ceil = capacity)
        f"tc class replace dev {IFB} parent 1:1 classid 1:101 htb rate 8000kbit ceil 20000kbit burst 24224 "
        "cburst 25000 prio 1 quantum 1514",
        f"tc qdisc replace dev {IFB} parent 1:101 handle 101: fq_codel",
        "tc qdisc add dev wlan0_1 clsact",
        "tc filter del dev wlan0_1 egress prio 1",
        f"tc filter add dev wlan0_1 egress protocol all prio 1 u32 match u32 0 0 {SKB} 1:101 "
        f"pipe {MIRRED}",
        # vAP in slot 2: no guarantee (the 8 kbit floor), capped at 5 Mbit/s
        f"tc class replace dev {IFB} parent 1:1 classid 1:102 htb rate 8kbit ceil 5000kbit burst 24224 "
        "cburst 24224 prio 1 quantum 1514",
        f"tc qdisc replace dev {IFB} parent 1:102 handle 102: fq_codel",
        "tc qdisc add dev wlan0_2 clsact",
        "tc filter del dev wlan0_2 egress prio 1",
        f"tc filter add dev wlan0_2 egress protocol all prio 1 u32 match u32 0 0 {SKB} 1:102 "
        f"pipe {MIRRED}",
    ]
    # a handful of process starts: ip + tc for the radio, one tc per vAP; lines that may exist already under -force
    assert [argv for argv, _ in runs.runs] == [["ip", "-batch", "-"], ["tc", "-force", "-batch", "-"],
                                               ["tc", "-force", "-batch", "-"], ["tc", "-force", "-batch", "-"]]


def test_update_touches_only_that_class(runs, existing):
    s = TcShaper()
    s.add_radio("phy0", "wlan0", 20000)
    s.apply("phy0", "wlan0_1", 1, rl(down_g=8000))
    s.apply("phy0", "wlan0_2", 2, rl())
    runs.clear()
    s.apply("phy0", "wlan0_1", 1, rl(down=12000, down_g=4000))
    assert runs.runs == [(["tc", "-batch", "-"], [
        f"class replace dev {IFB} parent 1:1 classid 1:101 htb rate 4000kbit ceil 12000kbit burst 24224 "
        "cburst 24224 prio 1 quantum 1514"])]
    runs.clear()
    s.apply("phy0", "wlan0_1", 1, rl(down=12000, down_g=4000, up_g=100))  # an uplink guarantee is the switch's
    assert runs.runs == []


def test_uplink_cap_on_a_per_vap_ifb(runs, existing):
    s = TcShaper()
    s.add_radio("phy0", "wlan0", 20000)
    s.apply("phy0", "wlan0_1", 1, rl())
    runs.clear()
    up = uplink_ifb("wlan0_1")
    s.apply("phy0", "wlan0_1", 1, rl(up=3000))
    assert runs.lines == [
        f"ip link add {up} up type ifb",
        f"tc qdisc add dev {up} root handle 1: htb default 10",
        f"tc class replace dev {up} parent 1: classid 1:10 htb rate 3000kbit ceil 3000kbit burst 24224 "
        "cburst 24224 quantum 1514",
        "tc filter del dev wlan0_1 ingress prio 2",
        f"tc filter add dev wlan0_1 ingress protocol all prio 2 u32 match u32 0 0 action mirred egress redirect "
        f"dev {up}",
    ]
    existing.add(up)
    runs.clear()
    s.apply("phy0", "wlan0_1", 1, rl())
    assert runs.lines == ["tc filter del dev wlan0_1 ingress prio 2", f"ip link del {up}"]


def test_capacity_change_rerates_only_the_classes_that_follow_it(runs, existing):
    s = TcShaper()
    s.add_radio("phy0", "wlan0", 20000)
    s.apply("phy0", "wlan0_1", 1, rl(down_g=8000))  # ceil = capacity
    s.apply("phy0", "wlan0_2", 2, rl(down=5000))  # ceil = its cap
    runs.clear()
    s.set_capacity("phy0", 30000)
    assert runs.runs == [(["tc", "-batch", "-"], [
        f"class change dev {IFB} parent 1: classid 1:1 htb rate 30000kbit ceil 30000kbit burst 37500 "
        "cburst 37500 quantum 1514",
        f"class change dev {IFB} parent 1:1 classid 1:100 htb rate 300kbit ceil 30000kbit burst 24224 "
        "cburst 37500 prio 7 quantum 1514",
        f"class change dev {IFB} parent 1:1 classid 1:101 htb rate 8000kbit ceil 30000kbit burst 24224 "
        "cburst 37500 prio 1 quantum 1514",
    ])]
    runs.clear()
    s.set_capacity("phy0", 30000)
    assert runs.runs == []


def test_remove_vap_and_radio(runs, existing):
    s = TcShaper()
    s.add_radio("phy0", "wlan0", 20000)
    s.apply("phy0", "wlan0_1", 1, rl(up=1000))
    existing.add(uplink_ifb("wlan0_1"))
    s.apply("phy0", "wlan0_2", 2, rl())
    runs.clear()
    s.remove("phy0", "wlan0_1", 1)
    assert runs.runs == [
        (["tc", "-force", "-batch", "-"], ["qdisc del dev wlan0_1 clsact", f"class del dev {IFB} classid 1:101"]),
        (["ip", "-force", "-batch", "-"], [f"link del {uplink_ifb('wlan0_1')}"]),
    ]
    runs.clear()
    s.remove_radio("phy0")
    assert runs.lines == ["tc qdisc del dev wlan0_2 clsact", f"tc class del dev {IFB} classid 1:102",
                          "tc qdisc del dev wlan0 clsact", f"ip link del {IFB}"]


def test_kernel_without_fq_codel_or_skbedit(runs, existing, monkeypatch):
    """The project's CI kernel: no fq_codel (leaves keep pfifo), no act_skbedit (nftables sets the priority)."""
    runs.fail = {"fq_codel": "Specified qdisc kind is unknown.", "skbedit": "Failed to load TC action module."}
    s = TcShaper()
    monkeypatch.setattr(s, "nft_available", lambda: True)
    s.add_radio("phy0", "wlan0", 20000)
    assert not s.fq_codel and not s.skbedit
    runs.clear()
    s.apply("phy0", "wlan0_1", 1, rl(down_g=8000))
    chain = f"netdev wislice_qos {radio_qos._nft_chain('wlan0_1')}"
    assert runs.runs == [
        (["tc", "-force", "-batch", "-"], [
            f"class replace dev {IFB} parent 1:1 classid 1:101 htb rate 8000kbit ceil 20000kbit burst 24224 "
            "cburst 25000 prio 1 quantum 1514",
            "qdisc add dev wlan0_1 clsact",
            "filter del dev wlan0_1 egress prio 1",
            f"filter add dev wlan0_1 egress protocol all prio 1 u32 match u32 0 0 {MIRRED}"]),
        (["nft", "-f", "-"], [
            "add table netdev wislice_qos", f"add chain {chain}", f"flush chain {chain}", f"delete chain {chain}",
            f'add chain {chain} {{ type filter hook egress device "wlan0_1" priority 0; policy accept; }}',
            f"add rule {chain} meta priority set 1:101"]),
    ]
    runs.clear()
    s.remove("phy0", "wlan0_1", 1)
    assert runs.runs[-1] == (["nft", "-f", "-"], [f"flush chain {chain}", f"delete chain {chain}"])


def test_no_skbedit_and_no_nft_is_an_error(runs, existing, monkeypatch):
    runs.fail = {"skbedit": "Failed to load TC action module."}
    s = TcShaper()
    monkeypatch.setattr(s, "nft_available", lambda: False)
    s.add_radio("phy0", "wlan0", 20000)  # logged, retried by the next vAP operation
    with pytest.raises(ShapingError, match="act_skbedit"):
        s.apply("phy0", "wlan0_1", 1, rl(down=1000))


def test_failure_is_reported_and_the_vap_reinstalled_next_time(runs, existing):
    s = TcShaper()
    s.add_radio("phy0", "wlan0", 20000)
    runs.fail = {"1:101": "Invalid argument"}
    with pytest.raises(ShapingError, match="Invalid argument"):
        s.apply("phy0", "wlan0_1", 1, rl(down=1000))
    runs.fail = {}
    runs.clear()
    s.apply("phy0", "wlan0_1", 1, rl(down=1000))
    assert any("clsact" in line for line in runs.lines)  # the whole vAP again, not only its class


def test_failed_lines_parse():
    assert failed_lines("Error: x.\nWe have an error talking to the kernel\nCommand failed -:3\n"
                        "RTNETLINK answers: File exists\nCommand failed /tmp/b:5\n") == {
        3: "Error: x. We have an error talking to the kernel", 5: "RTNETLINK answers: File exists"}


class FakeIpr:
    def __init__(self) -> None:
        self.calls: list[tuple] = []
        self.index = {"wlan0": 2, "wlan0_1": 3}

    def link_lookup(self, ifname):
        return [self.index[ifname]] if ifname in self.index else []

    def link(self, *a, **kw):
        self.calls.append(("link", a, kw))
        if a[0] == "add":
            self.index[kw["ifname"]] = 9

    def tc(self, *a, **kw):
        self.calls.append(("tc", a, kw))

    def nlm_request(self, msg, msg_type, msg_flags):
        self.calls.append(("nlm", (msg_type, msg["index"]), {"parent": msg["parent"], "info": msg["info"],
                                                            "attrs": msg["attrs"]}))


def test_netlink_backend_runs_the_same_plan(existing):
    nl = Netlink.__new__(Netlink)
    nl.ipr, nl.nft = FakeIpr(), "nft"
    s = shaping.RadioScheduler(nl, lambda: True)
    s.add_radio("phy0", "wlan0", 20000)
    s.apply("phy0", "wlan0_1", 1, rl(down=9000, down_g=3000))
    s.set_capacity("phy0", 10000)
    s.remove("phy0", "wlan0_1", 1)
    calls = nl.ipr.calls
    assert calls[0] == ("link", ("add",), {"ifname": IFB, "kind": "ifb"})
    assert calls[1] == ("link", ("set",), {"index": 9, "state": "up"})
    assert calls[2] == ("tc", ("add", "htb", 9, 0x10000), {"default": 0x100})
    vap_class = next(c for c in calls if c[1][:1] == ("replace-class",) and c[1][3] == 0x10101)
    assert vap_class[2] == {"parent": 0x10001, "rate": "3000kbit", "ceil": "9000kbit", "burst": 24224,
                            "cburst": 24224, "prio": 1, "quantum": 1514}
    assert ("tc", ("replace", "fq_codel", 9, 0x1010000), {"parent": 0x10101}) in calls
    redirect = next(c for c in calls if c[1][:1] == ("add-filter",) and c[1][2] == 3)
    assert redirect[1] == ("add-filter", "u32", 3)
    assert redirect[2]["parent"] == 0xFFFFFFF3 and redirect[2]["keys"] == ["0x0/0x0+0"]
    assert redirect[2]["action"] == [{"kind": "skbedit", "priority": 0x10101},
                                     {"kind": "mirred", "direction": "egress", "action": "redirect", "ifindex": 9}]
    changes = [c[1][3] for c in calls if c[1][:1] == ("change-class",)]
    assert changes == [0x10001, 0x10100]  # the vAP is capped at 9000 < 10000: its class keeps its ceil
    assert calls[-2:] == [("tc", ("del", "clsact", 3), {}), ("tc", ("del-class", "htb", 9, 0x10101), {})]


def test_null_shaper_refuses_rates():
    s = NullShaper()
    s.apply("phy0", "x", 1, rl())
    with pytest.raises(ShapingError):
        s.apply("phy0", "x", 1, rl(down_g=1))


def test_selection(monkeypatch):
    assert isinstance(make_shaper("none"), NullShaper)
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


def test_voice_vap_gets_user_priority_and_its_class_as_mark(runs, existing, monkeypatch):
    """mac80211 reads skb->priority 256 + UP after the IFB: a vo vAP's filter sets 0x106 and its class as mark."""
    s = TcShaper()
    s.add_radio("phy0", "wlan0", 20000)
    runs.clear()
    s.apply("phy0", "wlan0_1", 1, rl(down=5000), "vo")
    assert runs.lines[-1] == (f"tc filter add dev wlan0_1 egress protocol all prio 1 u32 match u32 0 0 {SKB} "
                              f"0:106 mark 0x10101 pipe {MIRRED}")
    runs.clear()
    s.apply("phy0", "wlan0_1", 1, rl(down=5000), "vo")  # nothing changed: nothing sent
    assert runs.lines == []
    s.apply("phy0", "wlan0_1", 1, rl(down=5000), "be")  # back to best effort: only the filter changes
    assert runs.lines == ["tc qdisc add dev wlan0_1 clsact", "tc filter del dev wlan0_1 egress prio 1",
                          f"tc filter add dev wlan0_1 egress protocol all prio 1 u32 match u32 0 0 {SKB} 1:101 "
                          f"pipe {MIRRED}"]


def test_voice_vap_without_skbedit_marks_in_nftables(runs, existing, monkeypatch):
    runs.fail = {"skbedit": "Failed to load TC action module."}
    s = TcShaper()
    monkeypatch.setattr(s, "nft_available", lambda: True)
    s.add_radio("phy0", "wlan0", 20000)
    runs.clear()
    s.apply("phy0", "wlan0_1", 1, rl(), "vi")
    chain = f"netdev wislice_qos {radio_qos._nft_chain('wlan0_1')}"
    assert runs.lines[-1] == f"nft add rule {chain} meta priority set 0:105 meta mark set 0x10101"


def test_voice_vap_refused_without_cls_fw(runs, existing):
    runs.fail = {" fw": "Unknown filter \"fw\", hence option \"\" is unparsable"}
    s = TcShaper()
    s.add_radio("phy0", "wlan0", 20000)
    s.apply("phy0", "wlan0_1", 1, rl())  # best effort needs no fw filter
    with pytest.raises(ShapingError, match="cls_fw"):
        s.apply("phy0", "wlan0_2", 2, rl(), "vo")


def test_netlink_voice_filter_sets_priority_and_mark(existing):
    nl = Netlink.__new__(Netlink)
    nl.ipr, nl.nft = FakeIpr(), "nft"
    s = shaping.RadioScheduler(nl, lambda: True)
    s.add_radio("phy0", "wlan0", 20000)
    s.apply("phy0", "wlan0_1", 1, rl(), "vo")
    calls = nl.ipr.calls
    # the IFB's fw filter without options (the old method: mark = class id), prio 1, protocol all
    assert ("nlm", (RTM_NEWTFILTER, 9), {"parent": 0x10000, "info": 0x10000 | socket.htons(3),
                                         "attrs": [["TCA_KIND", "fw"]]}) in calls
    redirect = next(c for c in calls if c[1][:1] == ("add-filter",) and c[1][2] == 3)
    assert redirect[2]["action"][0] == {"kind": "skbedit", "priority": 0x106, "mark": 0x10101}


def test_null_shaper_refuses_an_access_category():
    s = NullShaper()
    s.apply("phy0", "x", 1, rl(), "be")
    with pytest.raises(ShapingError, match="WMM"):
        s.apply("phy0", "x", 1, rl(), "vo")
