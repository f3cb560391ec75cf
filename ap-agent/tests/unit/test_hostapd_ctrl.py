import socket
import time

import pytest

from wislice_ap_agent import events as E
from wislice_ap_agent.hostapd_ctrl import (
    CtrlConnection,
    CtrlError,
    CtrlTimeout,
    HostapdControl,
    channel_to_freq,
    freq_to_channel,
    parse_kv,
)


def test_ping_status_add_remove(fake_hostapd, sockdir):
    h = HostapdControl(fake_hostapd.path, str(sockdir))
    assert h.ping()
    conf = sockdir / "b.conf"
    conf.write_text("interface=wlan0_1\ndriver=nl80211\nchannel=6\nssid2=6869\n")
    h.add_bss("phy0", str(conf))
    assert h.status("wlan0_1")["state"] == "ENABLED"
    with pytest.raises(CtrlError, match="ADD"):
        h.add_bss("phy9", str(conf))
    h.remove("wlan0_1")
    with pytest.raises(CtrlError):
        h.remove("wlan0_1")
    assert fake_hostapd.commands_named("ADD")[0] == f"ADD bss_config=phy0:{conf}"
    h.close()


def test_events_on_attached_connection(fake_hostapd, sockdir):
    h = HostapdControl(fake_hostapd.path, str(sockdir))
    ev = CtrlConnection(fake_hostapd.path, str(sockdir))
    ev.attach()
    fake_hostapd.associate("wlan0", "02:00:00:00:01:00")
    deadline = time.monotonic() + 2
    line = None
    while line is None and time.monotonic() < deadline:
        line = ev.recv_event()
        time.sleep(0.01)
    assert E.parse_event(line) == E.StaConnected("wlan0", "02:00:00:00:01:00")
    # a request on the attached connection skips interleaved events
    fake_hostapd.associate("wlan0", "02:00:00:00:02:00")
    assert ev.request("PING").strip() == "PONG"
    stas = h.all_sta("wlan0")
    assert [s["mac"] for s in stas] == ["02:00:00:00:01:00", "02:00:00:00:02:00"]
    assert h.sta("wlan0", "02:00:00:00:01:00")["signal"] == "-40"
    assert h.sta("wlan0", "02:00:00:00:09:00") is None
    ev.close()
    h.close()


def test_timeout_on_silent_socket(sockdir):
    silent = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    silent.bind(str(sockdir / "silent"))
    conn = CtrlConnection(str(sockdir / "silent"), str(sockdir), timeout=0.2)
    t = time.monotonic()
    with pytest.raises(CtrlTimeout):
        conn.request("PING")
    assert 0.15 < time.monotonic() - t < 2
    conn.close()
    silent.close()
    assert list(sockdir.glob("c*")) == []  # the client path is unlinked


def test_connect_error_is_clear(sockdir):
    with pytest.raises(CtrlError, match="cannot connect"):
        CtrlConnection(str(sockdir / "nothing"), str(sockdir))


def test_newline_in_command_refused(fake_hostapd, sockdir):
    h = HostapdControl(fake_hostapd.path, str(sockdir))
    with pytest.raises(CtrlError):
        h.raw("STA 02:00:00:00:00:01\nREMOVE wlan0")
    h.close()


@pytest.mark.parametrize("line,expected", [
    ("IFNAME=wlan0_1 <3>AP-STA-CONNECTED 02:00:00:00:01:00", E.StaConnected("wlan0_1", "02:00:00:00:01:00")),
    ("<3>AP-STA-DISCONNECTED 02:AA:00:00:01:00", E.StaDisconnected(None, "02:aa:00:00:01:00")),
    ("IFNAME=wlan0_1 <3>AP-ENABLED ", E.BssEnabled("wlan0_1")),
    ("IFNAME=wlan0_1 <3>AP-DISABLED ", E.BssDisabled("wlan0_1")),
    ("IFNAME=wlan0_1 <3>CTRL-EVENT-TERMINATING ", E.BssDisabled("wlan0_1")),
    ("IFNAME=wlan0 <3>AP-CSA-FINISHED freq=2462 dfs=0", E.ChannelSwitched("wlan0", 2462)),
    ("IFNAME=wlan0 <2>WPS-PBC-ACTIVE", E.OtherEvent("wlan0", "WPS-PBC-ACTIVE", "WPS-PBC-ACTIVE")),
    ("OK", None),
    ("<3>AP-STA-CONNECTED not-a-mac", E.OtherEvent(None, "MALFORMED", "not-a-mac")),
])
def test_parse_event(line, expected):
    assert E.parse_event(line) == expected


def test_helpers():
    assert parse_kv("state=ENABLED\nbssid[0]=02:00:00:00:00:00\nnoise\n") == {
        "state": "ENABLED", "bssid[0]": "02:00:00:00:00:00"}
    assert channel_to_freq(6) == 2437 and freq_to_channel(2437) == 6
    assert channel_to_freq(36) == 5180 and freq_to_channel(5180) == 36
    with pytest.raises(ValueError):
        channel_to_freq(0)
