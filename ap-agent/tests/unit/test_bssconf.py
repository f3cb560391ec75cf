import pytest
from conftest import vap_spec
from wislice_agent_proto.validate import ValidationError

from wislice_ap_agent import bssconf


def conf(radio, **over):
    text = bssconf.render(vap_spec(**over), radio, "wlan0_1", "02:00:00:00:00:01", "/var/run/hostapd")
    return dict(line.split("=", 1) for line in text.splitlines() if not line.startswith("#"))


def test_open(radio):
    c = conf(radio, ssid="Café Slice")
    assert c["interface"] == "wlan0_1" and c["driver"] == "nl80211" and c["bssid"] == "02:00:00:00:00:01"
    assert bytes.fromhex(c["ssid2"]).decode() == "Café Slice"
    assert c["hw_mode"] == "g" and c["channel"] == "6"
    assert "wpa" not in c and "ignore_broadcast_ssid" not in c


def test_wpa2_psk(radio):
    c = conf(radio, security={"mode": "wpa2-psk", "passphrase": "correct horse"})
    assert c["wpa"] == "2" and c["wpa_key_mgmt"] == "WPA-PSK" and c["wpa_passphrase"] == "correct horse"
    assert c["rsn_pairwise"] == "CCMP"


def test_wpa2_psk_fast_transition(radio):
    c = conf(radio, ssid="roam", security={"mode": "wpa2-psk", "passphrase": "correct horse", "fast_transition": True})
    assert c["wpa_key_mgmt"] == "WPA-PSK FT-PSK" and c["ft_over_ds"] == "0" and c["ft_psk_generate_local"] == "1"
    assert c["nas_identifier"] == "020000000001"
    # One mobility domain per network (SSID and passphrase), the same on every AP that carries it.
    assert c["mobility_domain"] == bssconf.mobility_domain("roam", "correct horse")
    assert len(c["mobility_domain"]) == 4 and int(c["mobility_domain"], 16) >= 0
    assert bssconf.mobility_domain("roam", "other pass") != c["mobility_domain"]
    plain = conf(radio, ssid="roam", security={"mode": "wpa2-psk", "passphrase": "correct horse"})
    assert plain["wpa_key_mgmt"] == "WPA-PSK" and "mobility_domain" not in plain


@pytest.mark.parametrize("security", [{"mode": "wpa3-sae", "passphrase": "12345678", "fast_transition": True},
                                      {"mode": "open", "fast_transition": True},
                                      {"mode": "wpa2-psk", "passphrase": "12345678", "fast_transition": "yes"}])
def test_fast_transition_only_as_a_wpa2_psk_boolean(radio, security):
    with pytest.raises(ValidationError):
        conf(radio, security=security)


def test_wpa2_hex_psk(radio):
    c = conf(radio, security={"mode": "wpa2-psk", "passphrase": "AB" * 32})
    assert c["wpa_psk"] == "ab" * 32 and "wpa_passphrase" not in c


def test_wpa3_sae_requires_mfp(radio):
    c = conf(radio, security={"mode": "wpa3-sae", "passphrase": "sae|mac=ff:ff:ff:ff:ff:ff"})
    assert c["wpa_key_mgmt"] == "SAE" and c["ieee80211w"] == "2"
    # '|' has meaning in sae_password: a plain passphrase goes through wpa_passphrase, never sae_password.
    assert c["wpa_passphrase"] == "sae|mac=ff:ff:ff:ff:ff:ff" and "sae_password" not in c


def test_mixed_mode(radio):
    c = conf(radio, security={"mode": "wpa2-wpa3", "passphrase": "12345678"})
    assert c["wpa_key_mgmt"] == "WPA-PSK SAE" and c["ieee80211w"] == "1"


def test_hidden_and_max_clients(radio):
    c = conf(radio, hidden=True, max_clients=7)
    assert c["ignore_broadcast_ssid"] == "1" and c["max_num_sta"] == "7"


@pytest.mark.parametrize("over", [
    {"ssid": "x\nctrl_interface=/tmp"},
    {"security": {"mode": "wpa2-psk", "passphrase": "12345678\nwpa=0"}},
    {"security": {"mode": "open"}, "wpa_key_mgmt": "NONE"},
    {"vap_id": "../etc"},
])
def test_injection_refused(radio, over):
    with pytest.raises(ValidationError):
        conf(radio, **over)


def test_bad_ctrl_dir_refused(radio):
    with pytest.raises(ValidationError):
        bssconf.render(vap_spec(), radio, "wlan0_1", "02:00:00:00:00:01", "/run\nx=1")


def test_bssids_unique_local_unicast():
    seen = {bssconf.derive_bssid("00:11:22:33:44:55", s) for s in range(1, 65)}
    assert len(seen) == 64 and "00:11:22:33:44:55" not in seen
    for b in seen:
        first = int(b[:2], 16)
        assert first & 0x02 and not first & 0x01
    assert bssconf.derive_bssid("02:00:00:00:00:00", 1) == "02:00:00:00:00:01"
    r0 = {bssconf.derive_bssid("02:00:00:00:00:00", s) for s in range(1, 65)}
    r1 = {bssconf.derive_bssid("02:00:00:00:01:00", s) for s in range(1, 65)}
    assert not r0 & r1


def test_ifname_limit():
    assert bssconf.vap_ifname("wlan0", 12) == "wlan0_12"
    with pytest.raises(ValidationError):
        bssconf.vap_ifname("a-very-long-ifn", 12)
