"""The agent's protocol side against the in-test controller (schema-checked) and the fake hostapd."""

import contextlib
import json
import ssl
import subprocess

import pytest
from conftest import vap_spec
from support.controller import TestController, wait_until
from support.fake_hostapd import FakeHostapd
from wislice_agent_proto import client as client_mod

from wislice_ap_agent import agent as agent_mod
from wislice_ap_agent import config as config_mod


def test_hello_hmac_and_table_ii(run_agent, controller, fake_hostapd):
    run_agent(controller)
    s = controller.next_session()
    assert s.hello["agent_id"] == "ap-1" and s.hello["auth"]["scheme"] == "hmac-sha256"
    assert s.hello["capabilities"]["radios"][0]["max_vaps"] == 4 and s.hello["capabilities"]["pof_switch"] is True
    r = s.request("createVap", {"vap": vap_spec("v1", security={"mode": "wpa3-sae", "passphrase": "12345678"})})
    assert r["ok"], r
    assert r["result"]["vap"]["ifname"] == "wlan0_1" and r["result"]["vap"]["pof_port"] == 3
    s.wait_event("vapState", vap_id="v1", state="up")
    fake_hostapd.associate("wlan0_1", "02:00:00:00:01:00", signal=-44)
    s.wait_event("clientAssociated", vap_id="v1", mac="02:00:00:00:01:00", signal_dbm=-44)
    assert s.request("getVaps")["result"]["vaps"][0]["clients"] == 1
    status = s.request("getStatus")["result"]
    assert status["vaps"] == 1 and status["clients"] == 1 and status["radios"][0]["vaps_used"] == 1
    assert s.request("getClient", {"vap_id": "v1"})["result"]["clients"][0]["signal_dbm"] == -44
    assert s.request("removeClient", {"mac": "02:00:00:00:01:00"})["ok"]
    s.wait_event("clientDisassociated", vap_id="v1", mac="02:00:00:00:01:00")
    assert s.request("changeChannel", {"radio": "phy0", "channel": 1})["result"]["radio"]["channel"] == 1
    assert set(s.request("getTxRate", {"vap_id": "v1"})["result"]) == {"vap_id", "bps", "packets_per_s", "interval_s"}
    stats = s.wait_event("stats", timeout=5)
    assert stats["data"]["vaps"][0]["vap_id"] == "v1"
    assert s.request("delVap", {"vap_id": "v1"})["ok"]
    s.wait_event("vapState", vap_id="v1", state="removed")
    assert s.request("delVap", {"vap_id": "v1"})["error"]["code"] == "not_found"
    assert wait_until(lambda: s.pings > 0, 5)  # keepalive
    assert s.schema_errors == []


def test_bad_requests_get_error_replies_and_the_session_survives(run_agent, controller, fake_hostapd):
    run_agent(controller)
    s = controller.next_session()
    r = s.request("createVap", {"vap": vap_spec("v1", ssid="x\nctrl_interface=/tmp")})
    assert r["error"]["code"] == "bad_request" and "ssid" in r["error"]["message"]
    assert s.request("reboot")["error"]["code"] == "unknown_method"
    assert s.request("createVnf", {"vnf": {"tenant_id": 1, "instance_id": 0, "image": "fw", "cpu": 1,
                                           "memory_mib": 1, "chain_position": 0}})["error"]["code"] == "unsupported"
    assert s.request("createVap", {"vap": vap_spec("v1", rate_limit={"down_kbps": -1, "up_kbps": 0})})[
        "error"]["code"] == "bad_request"
    assert fake_hostapd.commands_named("ADD") == []
    s.send({"type": "ping", "id": 77})
    assert s.request("getVaps")["result"] == {"vaps": []}
    assert s.pongs == [77]
    assert s.schema_errors == []


def test_malformed_line_closes_connection_and_agent_reconnects(run_agent, controller):
    run_agent(controller)
    s = controller.next_session()
    s.send_raw(b"this is not json\n")
    assert s.wait_closed(5)
    s2 = controller.next_session()
    assert s2.request("getVaps")["ok"]


def test_overlong_line_closes_connection(run_agent, controller):
    run_agent(controller)
    s = controller.next_session()
    # the agent may hang up before the whole line is sent: that is the point
    with contextlib.suppress(OSError):
        s.send_raw(b"{" + b" " * (1 << 20) + b"\n")
    assert s.wait_closed(10)
    controller.next_session()


def test_silent_controller_is_dropped_and_redialled(run_agent, controller, monkeypatch):
    monkeypatch.setattr(client_mod, "SILENCE_LIMIT_S", 1.5)
    run_agent(controller)
    s = controller.next_session()
    s.answer_pings = False  # the controller hangs: the agent hears nothing more
    assert s.wait_closed(8)
    assert controller.next_session().request("getVaps")["ok"]


def test_wrong_secret_gets_bye_and_retries(run_agent, controller):
    run_agent(controller, secret="wrong")
    assert wait_until(lambda: len(controller.rejected) >= 2, 10)
    assert controller.rejected[0] == "bad hmac"


def test_reconnect_keeps_matching_vaps_untouched(run_agent, controller, fake_hostapd):
    run_agent(controller)
    s = controller.next_session()
    specs = [vap_spec("a"), vap_spec("b", security={"mode": "wpa2-psk", "passphrase": "abcdefgh"})]
    assert s.request("syncVaps", {"vaps": specs})["result"]["created"] == ["a", "b"]
    fake_hostapd.associate("wlan0_1", "02:00:00:00:01:00")
    s.wait_event("clientAssociated", vap_id="a")
    adds = len(fake_hostapd.commands_named("ADD"))
    s.close()  # controller restarts / network blip
    s2 = controller.next_session()
    r = s2.request("syncVaps", {"vaps": specs})["result"]
    assert r == {"created": [], "removed": [], "kept": ["a", "b"], "failed": []}
    assert len(fake_hostapd.commands_named("ADD")) == adds and fake_hostapd.commands_named("REMOVE") == []
    assert "02:00:00:00:01:00" in fake_hostapd.bss["wlan0_1"].stations
    assert s2.request("getVaps")["result"]["vaps"][0]["clients"] == 1


def test_hostapd_restart_restores_vaps(run_agent, controller, fake_hostapd, switch, monkeypatch):
    monkeypatch.setattr(agent_mod, "HOSTAPD_CHECK_S", 0.2)
    run_agent(controller)
    s = controller.next_session()
    assert s.request("createVap", {"vap": vap_spec("v1", rate_limit={"down_kbps": 100, "up_kbps": 0})})["ok"]
    number = switch.ports["wlan0_1"]
    fake_hostapd.close()  # hostapd crashes and is restarted with only its primary BSS
    reborn = FakeHostapd(fake_hostapd.path)
    try:
        assert wait_until(lambda: "wlan0_1" in reborn.bss, 10)
        assert reborn.commands_named("ADD")[0].startswith("ADD bss_config=phy0:")
        assert s.request("getVaps")["result"]["vaps"][0]["state"] == "up"
        # a new netdev: the switch port is made again on it, with the number the flows use
        assert wait_until(lambda: switch.attached[1:] == [("wlan0_1", number)], 5), switch.attached
        reborn.associate("wlan0_1", "02:00:00:00:05:00")  # events flow again on the new socket
        s.wait_event("clientAssociated", mac="02:00:00:00:05:00")
    finally:
        reborn.close()


def test_sync_in_the_same_segment_as_welcome(run_agent, fake_hostapd):
    c = TestController(sync_on_welcome=[vap_spec("early")])
    try:
        run_agent(c)
        s = c.next_session()
        assert s.wait_reply(1000)["result"]["created"] == ["early"]
        assert "wlan0_1" in fake_hostapd.bss
    finally:
        c.close()


def test_tls(run_agent, fake_hostapd, sockdir):
    key, cert = sockdir / "key.pem", sockdir / "cert.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out",
                    str(cert), "-days", "1", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost"],
                   check=True, capture_output=True)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)
    c = TestController(tls=ctx)
    try:
        run_agent(c, tls=True, tls_ca_file=str(cert), tls_server_name="localhost")
        s = c.next_session()
        assert s.request("getStatus")["result"]["agent_id"] == "ap-1"
    finally:
        c.close()


def test_cli_check_config(tmp_path, capsys):
    from wislice_ap_agent.__main__ import main

    p = tmp_path / "agent.ini"
    p.write_text("[agent]\nagent_id = ap-1\ncontroller = 127.0.0.1:6690\nhostapd_global = /run/hostapd-global\n"
                 "[radio phy0]\niface = wlan0\nmax_vaps = 8\n")
    assert main(["--config", str(p), "--check-config"]) == 0
    p.write_text(json.dumps({"agent_id": "ap-1", "controller": "x:1", "hostapd_global": "/g", "radios": [],
                             "typo_key": 1}))
    assert main(["--config", str(p), "--check-config"]) == 2
    assert "typo_key" in capsys.readouterr().err


def test_update_vap_capacity_in_hello_and_stats(run_agent, controller, fake_hostapd, shaper, switch):
    run_agent(controller, default_capacity_kbps=18000, pof_switch_uplink="wan")
    s = controller.next_session()
    radio = s.hello["capabilities"]["radios"][0]
    assert radio["capacity_kbps"] == 18000 and radio["capacity_source"] == "default"
    assert switch.port_rates == [("wan", 18000)]
    assert s.request("createVap", {"vap": vap_spec("v1")})["ok"]
    fake_hostapd.associate("wlan0_1", "02:00:00:00:01:00")
    rates = {"down_kbps": 0, "up_kbps": 3000, "down_guaranteed_kbps": 8000, "up_guaranteed_kbps": 1000}
    r = s.request("updateVap", {"vap_id": "v1", "rate_limit": rates})
    assert r["ok"], r
    assert r["result"]["vap"]["rate_limit"] == rates and r["result"]["vap"]["clients"] == 1
    assert shaper.rates["wlan0_1"] == rates
    assert fake_hostapd.commands_named("REMOVE") == []  # hostapd untouched: the station stays
    bad = s.request("updateVap", {"vap_id": "v1", "rate_limit": {"down_kbps": 1000, "up_kbps": 0,
                                                                 "down_guaranteed_kbps": 2000}})
    assert bad["error"]["code"] == "bad_request"
    assert s.request("updateVap", {"vap_id": "nope", "rate_limit": rates})["error"]["code"] == "not_found"
    assert s.request("updateVap", {"vap_id": "v1"})["error"]["code"] == "bad_request"
    # a measured capacity reaches the controller in the next stats event, without a reconnect
    fake_hostapd.bss["wlan0_1"].stations["02:00:00:00:01:00"].update(tx_rate_info="540", tx_packets="800")
    s.discard("stats")
    stats = s.wait_event("stats", timeout=5)
    assert stats["data"]["radios"] == [{"name": "phy0", "capacity_kbps": 27000, "capacity_source": "measured"}]
    # and the station's counters (the same STA replies), with rates from its second report on
    assert stats["data"]["clients"][0]["mac"] == "02:00:00:00:01:00"
    later = s.wait_event("stats", timeout=5)["data"]["clients"][0]
    assert later["vap_id"] == "v1" and later["tx_bytes"] == 1000 and later["tx_bps"] == 0.0
    assert s.request("getStatus")["result"]["radios"][0]["capacity_kbps"] == 27000
    assert shaper.radios["phy0"] == 27000 and switch.port_rates[-1] == ("wan", 27000)
    assert s.schema_errors == []


def test_config_capacity_keys(tmp_path):
    cfg = config_mod.from_dict({"agent_id": "a", "controller": "h:1", "hostapd_global": "/g",
                                "default_capacity_kbps": 30000, "pof_switch_uplink": "eth0.2",
                                "radios": [{"name": "phy0", "iface": "wlan0", "capacity_kbps": "54000"}]})
    assert cfg.default_capacity_kbps == 30000 and cfg.pof_switch_uplink == "eth0.2"
    assert cfg.radios[0]["capacity_kbps"] == 54000
    defaults = config_mod.from_dict({"agent_id": "a", "controller": "h:1", "hostapd_global": "/g",
                                     "radios": [{"name": "phy0", "iface": "wlan0"}]})
    assert defaults.default_capacity_kbps == 20000 and defaults.pof_switch_uplink == "up"
    assert "capacity_kbps" not in defaults.radios[0]
    for bad in ({"default_capacity_kbps": 0}, {"pof_switch_uplink": "up 1"},
                {"radios": [{"name": "phy0", "iface": "wlan0", "capacity_kbps": -5}]}):
        with pytest.raises(config_mod.ConfigError):
            config_mod.from_dict({"agent_id": "a", "controller": "h:1", "hostapd_global": "/g",
                                  "radios": [{"name": "phy0", "iface": "wlan0"}], **bad})
