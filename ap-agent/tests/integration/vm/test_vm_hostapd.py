"""The AP VM path without the agent: stock hostapd adds and removes BSSes at run time on its global control socket,
stations associate over the simulated air, and removing one BSS drops only its own station."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from apvm import ApVm, GuestError
from wifi import Hostapd, Station


@pytest.fixture
def bsses(hostapd: Hostapd) -> Iterator[list[str]]:
    """Names of BSSes a test added; whatever is still there afterwards is removed."""
    added: list[str] = []
    yield added
    for name in added:
        hostapd.ctl(f"REMOVE {name}", check=False)


def test_vm_has_radios_and_host_link(vm: ApVm) -> None:
    # Listed by device, not /sys/class/ieee80211: station phys live in their own namespaces.
    radios = vm.run("ls /sys/devices/virtual/mac80211_hwsim").out.split()
    assert [r for r in radios if r.startswith("hwsim")] == ["hwsim0", "hwsim1", "hwsim2", "hwsim3"]
    assert "10.0.2.15/24" in vm.run("ip -4 addr show eth0").out


def test_add_remove_bss_and_stations(vm: ApVm, hostapd: Hostapd, bsses: list[str],
                                     clean_stations: list[Station]) -> None:
    sta1, sta2, sta3 = clean_stations
    bsses.append(hostapd.add_bss(1, "hv-open"))
    bsses.append(hostapd.add_bss(2, "hv-wpa2", "wpa2-psk", "hv wpa2 passphrase"))
    bsses.append(hostapd.add_bss(3, "hv-sae", "wpa3-sae", "hv sae passphrase"))
    assert hostapd.bss_ctl("wlan0_2", "STATUS").count("state=ENABLED") == 1

    sta1.connect("hv-open")
    sta2.connect("hv-wpa2", "wpa2-psk", "hv wpa2 passphrase")
    sta3.connect("hv-sae", "wpa3-sae", "hv sae passphrase")
    for sta in (sta1, sta2, sta3):
        sta.wait_associated()
    assert sta2.state()["key_mgmt"] == "WPA2-PSK"
    assert sta3.state()["key_mgmt"] == "SAE"
    assert sta1.mac() in hostapd.bss_ctl("wlan0_1", "STA-FIRST")

    hostapd.remove_bss("wlan0_1")
    sta1.wait_disassociated()
    assert sta2.state()["wpa_state"] == "COMPLETED"
    assert sta3.state()["wpa_state"] == "COMPLETED"
    assert "AP-STA-DISCONNECTED " + sta1.mac() in hostapd.log()


def test_wrong_passphrase_does_not_associate(hostapd: Hostapd, bsses: list[str],
                                             clean_stations: list[Station]) -> None:
    bsses.append(hostapd.add_bss(4, "hv-wpa2-b", "wpa2-psk", "the right passphrase"))
    sta = clean_stations[0]
    sta.connect("hv-wpa2-b", "wpa2-psk", "a wrong passphrase")
    with pytest.raises(GuestError, match="not associated"):
        sta.wait_associated(timeout=8)


def test_add_on_unknown_phy_fails(hostapd: Hostapd) -> None:
    hostapd.write_file("/run/wislice/bad.conf", "interface=wlan9_1\ndriver=nl80211\nssid=x\n")
    assert hostapd.ctl("ADD bss_config=phy9:/run/wislice/bad.conf", check=False).startswith("FAIL")
