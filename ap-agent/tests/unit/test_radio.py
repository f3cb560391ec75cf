import subprocess

from wislice_ap_agent import radio as R
from wislice_ap_agent.hostapd_ctrl import HostapdControl

IW_HWSIM = """Wiphy phy0
    valid interface combinations:
        * #{ managed } <= 1, #{ AP, mesh point } <= 2048, #{ P2P-client, P2P-GO } <= 2048, #{ P2P-device } <= 1,
          total <= 2048, #channels <= 1, STA/AP BI must match
"""


def test_discover_from_hostapd_status(fake_hostapd, sockdir, monkeypatch):
    monkeypatch.setattr(R, "hw_ap_limit", lambda phy: None)
    h = HostapdControl(fake_hostapd.path, str(sockdir))
    r = R.discover({"name": "phy0", "iface": "wlan0", "max_vaps": 8, "driver": "nl80211"}, h)
    assert (r.mac, r.channel, r.hw_mode, r.max_vaps) == ("02:00:00:00:00:00", 6, "g", 8)
    h.close()


def test_hardware_limit_caps_max_vaps(fake_hostapd, sockdir, monkeypatch):
    monkeypatch.setattr(R, "hw_ap_limit", lambda phy: 4)  # 4 AP interfaces, one is the primary BSS
    h = HostapdControl(fake_hostapd.path, str(sockdir))
    assert R.discover({"name": "phy0", "iface": "wlan0", "max_vaps": 8}, h).max_vaps == 3
    h.close()


def test_iw_parse(monkeypatch):
    monkeypatch.setattr(R.shutil, "which", lambda name: "/usr/sbin/iw")
    monkeypatch.setattr(R.subprocess, "run",
                        lambda argv, **kw: subprocess.CompletedProcess(argv, 0, IW_HWSIM, ""))
    assert R.hw_ap_limit("phy0") == 2048
    assert R.hw_ap_limit("phy0; reboot") is None  # never passed to a command
