import pytest

from wislice_ap_agent import config as C

BASE = {"agent_id": "ap-1", "controller": "10.0.2.2:6690", "hostapd_global": "/run/hostapd-global",
        "radios": [{"name": "phy0", "iface": "wlan0"}]}


def test_defaults():
    cfg = C.from_dict(dict(BASE))
    assert cfg.controllers == [("10.0.2.2", 6690)]
    # the nodes of a controller cluster, dialled in turn
    assert C.from_dict({**BASE, "controller": "10.0.2.2:6690, 10.0.2.3:6690"}).controllers == [
        ("10.0.2.2", 6690), ("10.0.2.3", 6690)]
    assert cfg.radios[0] == {"name": "phy0", "iface": "wlan0", "max_vaps": 8, "driver": "nl80211"}
    assert cfg.shaping == "auto" and cfg.secret is None and not cfg.remove_vaps_on_exit


@pytest.mark.parametrize("over,match", [
    ({"controller": "nohost"}, "host:port"),
    ({"controller": "h:70000"}, "host:port"),
    ({"controller": "h:1,"}, "host:port"),
    ({"agent_id": "a/b"}, "agent_id"),
    ({"hostapd_global": "relative"}, "absolute"),
    ({"radios": []}, "radios"),
    ({"radios": [{"name": "phy0", "iface": "wlan0", "bogus": 1}]}, "unknown"),
    ({"radios": [{"name": "phy0", "iface": "wlan0\n"}]}, "iface"),
    ({"radios": [{"name": "phy0", "iface": "w"}, {"name": "phy0", "iface": "x"}]}, "duplicate"),
    ({"shaping": "magic"}, "shaping"),
    ({"secret": "a", "secret_file": "/x"}, "not both"),
    ({"tls_cert_file": "/c"}, "together"),
    ({"keepalive_s": 60}, "keepalive_s"),
    ({"extra": 1}, "unknown keys"),
])
def test_refused(over, match):
    with pytest.raises(C.ConfigError, match=match):
        C.from_dict({**BASE, **over})


def test_secret_file_and_ini(tmp_path):
    (tmp_path / "s").write_text("hunter2\n")
    ini = tmp_path / "a.ini"
    ini.write_text("[agent]\nagent_id = ap-2\ncontroller = [::1]:6690\nhostapd_global = /run/g\nsecret_file = s\n"
                   "remove_vaps_on_exit = yes\n[radio phy1]\niface = wlan1\nmax_vaps = 3\ndriver = wired\n"
                   "mac = 02:00:00:00:01:00\nchannel = 36\nhw_mode = a\n")
    cfg = C.load(str(ini))
    assert cfg.secret == b"hunter2" and cfg.controllers[0][0] == "::1" and cfg.remove_vaps_on_exit
    assert cfg.radios[0]["driver"] == "wired" and cfg.radios[0]["channel"] == 36
    ini.write_text("[agnet]\nx=1\n")
    with pytest.raises(C.ConfigError, match="unknown section"):
        C.load(str(ini))


def test_example_configs_parse(tmp_path):
    from pathlib import Path

    examples = Path(__file__).resolve().parents[2] / "examples"
    for name in ("ap-agent.vm.json", "ap-agent.ini"):
        text = (examples / name).read_text().replace("/etc/wislice/ap-1.secret", str(tmp_path / "secret"))
        (tmp_path / "secret").write_text("s3cret\n")
        (tmp_path / name).write_text(text)
        cfg = C.load(str(tmp_path / name))
        assert cfg.agent_id == "ap-1" and cfg.secret == b"s3cret" and cfg.radios[0]["iface"] == "wlan0"
