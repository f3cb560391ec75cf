"""A vAP's WMM access category (VapSpec wmm_ac): applied with the vAP, reported, changed in place, applied again
after agent and hostapd restarts, removed with the vAP; hostapd's WMM is on for every BSS."""

from __future__ import annotations

import pytest
from conftest import vap_spec
from wislice_agent_proto.errors import AgentError

from wislice_ap_agent.hostapd_ctrl import HostapdControl
from wislice_ap_agent.vaps import VapManager


def test_voice_vap_applied_reported_and_removed(manager, fake_hostapd, shaper):
    vap = manager.create(vap_spec("v1", wmm_ac="vo"))
    assert shaper.acs["wlan0_1"] == "vo"
    assert vap.public()["wmm_ac"] == "vo"
    assert "wmm_enabled=1" in (manager.conf_dir / "wlan0_1.conf").read_text().splitlines()
    plain = manager.create(vap_spec("v2"))
    assert shaper.acs["wlan0_2"] == "be" and plain.public()["wmm_ac"] == "be"
    manager.delete("v1")
    assert "wlan0_1" not in shaper.acs


def test_access_category_changes_in_place_by_sync(manager, fake_hostapd, shaper):
    manager.create(vap_spec("v1"))
    adds = len(fake_hostapd.commands_named("ADD"))
    result = manager.sync([vap_spec("v1", wmm_ac="vo")])
    assert result["kept"] == ["v1"] and result["removed"] == [] and result["created"] == []
    assert shaper.acs["wlan0_1"] == "vo" and manager.vaps["v1"].public()["wmm_ac"] == "vo"
    assert len(fake_hostapd.commands_named("ADD")) == adds  # the BSS and its stations stayed
    manager.sync([vap_spec("v1")])  # wmm_ac left out: back to be
    assert shaper.acs["wlan0_1"] == "be"


def test_voice_survives_agent_and_hostapd_restarts(manager, fake_hostapd, sockdir, radio, shaper, switch):
    manager.create(vap_spec("v1", wmm_ac="vo"))
    again_shaper = type(shaper)()
    again = VapManager(HostapdControl(fake_hostapd.path, str(sockdir)), [radio], str(manager.conf_dir),
                       "/var/run/hostapd", again_shaper, switch)
    try:
        again.setup_radios()
        assert again.adopt_existing() == ["v1"]
        assert again_shaper.acs["wlan0_1"] == "vo" and again.vaps["v1"].public()["wmm_ac"] == "vo"
        del fake_hostapd.bss["wlan0_1"]  # hostapd restarted without the vAP: the netdev and its filters are new
        again_shaper.acs.clear()
        assert again.recover() == ["v1"]
        assert again_shaper.acs["wlan0_1"] == "vo"
    finally:
        again.hostapd.close()


def test_unknown_access_category_is_a_bad_request(manager, fake_hostapd):
    with pytest.raises(AgentError) as e:
        manager.create(vap_spec("v1", wmm_ac="voice"))
    assert e.value.code == "bad_request"
    assert fake_hostapd.commands_named("ADD") == []
