"""The control client and the BSS renderer against the real hostapd (driver=wired: no radio on this host)."""

from __future__ import annotations

import time

import pytest
from conftest import PRIMARY, add_veth

from wislice_ap_agent import bssconf
from wislice_ap_agent import events as E
from wislice_ap_agent.hostapd_ctrl import CtrlConnection, CtrlError, HostapdControl

pytestmark = pytest.mark.integration

RADIO = bssconf.RadioConfig("phy0", PRIMARY, "02:00:00:00:00:00", 6, "g", 2, driver="wired")


def spec(**over):
    s = {"vap_id": "v1", "radio": "phy0", "ssid": "Café Slice", "security": {"mode": "open"}, "tenant_id": 1,
         "slice_id": "s-1", "rate_limit": {"down_kbps": 0, "up_kbps": 0}}
    s.update(over)
    return s


def next_event(conn: CtrlConnection, timeout: float = 5.0) -> E.Event:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = conn.recv_event()
        if line is not None:
            ev = E.parse_event(line)
            if ev is not None:
                return ev
        time.sleep(0.01)
    raise TimeoutError("no hostapd event")


def test_control_client_add_enable_remove_with_events(wired_ap, sockdir):
    add_veth(wired_ap.ns, f"{PRIMARY}_1", f"{PRIMARY}_1p")
    h = HostapdControl(wired_ap.global_path, str(sockdir))
    events = CtrlConnection(wired_ap.global_path, str(sockdir))
    try:
        assert h.ping()
        assert h.status(PRIMARY)["state"] == "ENABLED"
        events.attach()
        conf = sockdir / "v1.conf"
        conf.write_text(bssconf.render(spec(), RADIO, f"{PRIMARY}_1", "02:00:00:00:00:01", wired_ap.ctrl_dir))
        t = time.monotonic()
        h.add_interface(f"{PRIMARY}_1", str(conf))
        assert h.raw("ENABLE", f"{PRIMARY}_1").strip() == "OK"
        assert next_event(events) == E.BssEnabled(f"{PRIMARY}_1")
        add_ms = (time.monotonic() - t) * 1000
        status = h.status(f"{PRIMARY}_1")
        assert status["state"] == "ENABLED" and status["channel"] == "6"
        assert h.all_sta(f"{PRIMARY}_1") == []
        assert h.sta(f"{PRIMARY}_1", "02:00:00:00:09:09") is None
        assert f"{PRIMARY}_1" in h.raw("INTERFACES")
        h.remove(f"{PRIMARY}_1")
        seen = {next_event(events), next_event(events)}
        assert E.BssDisabled(f"{PRIMARY}_1") in seen
        assert f"{PRIMARY}_1" not in h.raw("INTERFACES")
        with pytest.raises(CtrlError, match="REMOVE"):
            h.remove(f"{PRIMARY}_1")
        assert add_ms < 5000
    finally:
        events.close()
        h.close()


SECURITY = {
    "open": {"security": {"mode": "open"}},
    "hidden": {"security": {"mode": "open"}, "hidden": True, "max_clients": 5},
    "wpa2-psk": {"security": {"mode": "wpa2-psk", "passphrase": "correct horse battery"}},
    "wpa2-hexpsk": {"security": {"mode": "wpa2-psk", "passphrase": "0f" * 32}},
    "wpa3-sae": {"security": {"mode": "wpa3-sae", "passphrase": "sae password|id=x"}},
    "wpa3-sae-hex": {"security": {"mode": "wpa3-sae", "passphrase": "ab" * 32}},
    "wpa2-wpa3": {"security": {"mode": "wpa2-wpa3", "passphrase": "mixed mode 1"}},
}


@pytest.mark.parametrize("kind", list(SECURITY))
def test_rendered_config_parses_in_real_hostapd(wired_ap, sockdir, kind):
    """ADD parses the whole file (a bad line makes it FAIL): every rendered mode is accepted by hostapd 2.10."""
    add_veth(wired_ap.ns, f"{PRIMARY}_1", f"{PRIMARY}_1p")
    h = HostapdControl(wired_ap.global_path, str(sockdir))
    try:
        conf = sockdir / "v.conf"
        conf.write_text(bssconf.render(spec(**SECURITY[kind]), RADIO, f"{PRIMARY}_1", "02:00:00:00:00:01",
                                       wired_ap.ctrl_dir))
        h.add_interface(f"{PRIMARY}_1", str(conf))
        h.remove(f"{PRIMARY}_1")
        # negative control: the same file with one unknown key is refused, so the acceptance above means something
        conf.write_text(conf.read_text() + "no_such_hostapd_key=1\n")
        with pytest.raises(CtrlError, match="ADD"):
            h.add_interface(f"{PRIMARY}_1", str(conf))
    finally:
        h.close()
