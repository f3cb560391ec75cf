"""The init scripts' UCI -> program translation, run for real under the procd harness (busybox ash and dash):
the ap-agent INI file they write is loaded by the real ap-agent config loader and matches UCI; hostile UCI values
(line breaks, quotes, $(...), backticks, leading dashes) are refused before any file is written, or, for the
secret, stored verbatim and never evaluated."""

from __future__ import annotations

import stat
import sys
from pathlib import Path

import pytest
from owrt import (
    AGENT_PROTO_SRC,
    AP_AGENT_SRC,
    SHELLS,
    Section,
    agent_wrapper,
    check_config,
    init_script,
    render_uci,
    run_harness,
)

sys.path.insert(0, str(AGENT_PROTO_SRC))
sys.path.insert(0, str(AP_AGENT_SRC))
from wislice_ap_agent import config as agent_config  # the real loader, from the tree being packaged

AGENT = "wislice-ap-agent"
SWITCH = "wislice-pofswitch"
SECRET = "s3cret-0123456789-abcdef"
METRICS_TOKEN = "metrics-token-0123456789"

pytestmark = pytest.mark.parametrize("shell", SHELLS, ids=" ".join)


def agent_sections(tmp: Path, **agent: str) -> list[Section]:
    opts: dict[str, str | list[str]] = {"enabled": "1", "agent_id": "ap-7", "controller_host": "192.0.2.10",
                                        "controller_port": "6690", "secret": SECRET}
    opts.update(agent)
    return [Section("agent", "agent", {k: v for k, v in opts.items() if v is not None}),
            Section("radio", "radio0", {"phy": "phy0", "iface": "wlan0", "max_vaps": "4"})]


def start_agent(shell, tmp: Path, sections: list[Section]):
    run_dir = tmp / "run"
    run = run_harness(shell, init_script(AGENT), render_uci(sections), "start", tmp / "h",
                      {"PROG": str(agent_wrapper(tmp)), "RUN_DIR": str(run_dir)})
    return run, run_dir


def test_full_translation_is_loaded_by_the_agent(shell, tmp_path):
    for name in ("ca.pem", "ap.pem", "ap.key"):
        (tmp_path / name).write_text("x")
    (tmp_path / "metrics.token").write_text(METRICS_TOKEN + "\n")
    sections = agent_sections(
        tmp_path, controller_host="2001:db8::10", controller_port="16690", tls="1",
        tls_ca_file=str(tmp_path / "ca.pem"), tls_cert_file=str(tmp_path / "ap.pem"),
        tls_key_file=str(tmp_path / "ap.key"), tls_server_name="ctl.example.org", shaping="none",
        pof_switch_socket="/var/run/pofswitch.sock", stats_interval="7", keepalive="12", remove_vaps_on_exit="yes",
        log_level="DEBUG", hostapd_global="/var/run/hostapd/global", conf_dir="/var/lib/wislice-ap-agent",
        pof_switch_uplink="wan.1", default_capacity_kbps="30000", metrics_listen="[2001:db8::1]:9690",
        metrics_token_file=str(tmp_path / "metrics.token"), firmware_keys_dir="/etc/wislice/keys",
        firmware_version_file="/etc/wislice/v", firmware_state_dir="/srv/fw",
        firmware_cache_dir="/usr/share/wislice/ipk",
        firmware_work_dir="/tmp/fw", firmware_ca_file=str(tmp_path / "ca.pem"), firmware_max_bytes="1073741824",
        firmware_download_timeout_s="60")
    sections.append(Section("radio", "radio1", {"phy": "phy1", "iface": "wlan1", "max_vaps": "2", "driver": "wired",
                                                "mac": "02:00:00:00:01:00", "channel": "36", "hw_mode": "a",
                                                "capacity_kbps": "54000"}))
    run, run_dir = start_agent(shell, tmp_path, sections)
    assert run.rc == 0, run.errors()
    ini = run_dir / "agent.ini"
    assert run.command()[1:] == ["--config", str(ini)]
    assert check_config(ini).returncode == 0
    cfg = agent_config.load(str(ini))
    assert (cfg.agent_id, cfg.controllers) == ("ap-7", [("2001:db8::10", 16690)])
    assert cfg.secret == SECRET.encode()
    assert (cfg.tls, cfg.tls_ca_file, cfg.tls_server_name) == (True, str(tmp_path / "ca.pem"), "ctl.example.org")
    assert (cfg.shaping, cfg.stats_interval_s, cfg.keepalive_s, cfg.log_level) == ("none", 7, 12, "DEBUG")
    assert cfg.remove_vaps_on_exit is True
    assert (cfg.pof_switch_socket, cfg.pof_switch_uplink) == ("/var/run/pofswitch.sock", "wan.1")
    assert cfg.default_capacity_kbps == 30000
    assert (cfg.metrics_listen, cfg.metrics_token) == (("2001:db8::1", 9690), METRICS_TOKEN)
    fw = cfg.firmware
    assert (fw.keys_dir, fw.version_file, fw.state_dir, fw.cache_dir, fw.work_dir, fw.ca_file) == (
        "/etc/wislice/keys", "/etc/wislice/v", "/srv/fw", "/usr/share/wislice/ipk", "/tmp/fw", str(tmp_path / "ca.pem"))
    assert (fw.max_bytes, fw.download_timeout_s) == (1 << 30, 60)
    # an operator capacity only where UCI sets one; radio0 is left to the agent's measurement
    assert cfg.radios == [
        {"name": "phy0", "iface": "wlan0", "max_vaps": 4, "driver": "nl80211"},
        {"name": "phy1", "iface": "wlan1", "max_vaps": 2, "driver": "wired", "mac": "02:00:00:00:01:00",
         "channel": 36, "hw_mode": "a", "capacity_kbps": 54000}]
    # the secret lives in its own file that only root reads, and procd watches it
    secret_file = run_dir / "secret"
    assert stat.S_IMODE(secret_file.stat().st_mode) == 0o600
    assert stat.S_IMODE(ini.stat().st_mode) == 0o600
    (inst,) = run.instances()
    assert ["procd_set_param", "file", str(ini)] in inst
    assert ["procd_append_param", "file", str(secret_file)] in inst
    assert ["procd_append_param", "file", str(tmp_path / "metrics.token")] in inst
    assert ["procd_set_param", "respawn", "3600", "5", "0"] in inst
    assert ["procd_set_param", "stdout", "1"] in inst and ["procd_set_param", "stderr", "1"] in inst


def test_controller_list_is_loaded_by_the_agent(shell, tmp_path):
    """A cluster's nodes: `list controller` in order, loaded by the agent as its controllers, over controller_host."""
    run, run_dir = start_agent(shell, tmp_path, agent_sections(
        tmp_path, controller=["192.0.2.10:6690", "onos-b:16690", "[2001:db8::3]:6690"]))
    assert run.rc == 0, run.errors()
    cfg = agent_config.load(str(run_dir / "agent.ini"))
    assert cfg.controllers == [("192.0.2.10", 6690), ("onos-b", 16690), ("2001:db8::3", 6690)]


@pytest.mark.parametrize("item", ["192.0.2.10", ":6690", "-x:1", "a b:1", "a:1,b:2", "$(touch PWNED):1",
                                  "a`touch PWNED`:1", "a\nb:1"], ids=repr)
def test_bad_controller_list_items_are_refused(shell, tmp_path, item):
    run, run_dir = start_agent(shell, tmp_path, agent_sections(tmp_path, controller=["192.0.2.10:6690", item]))
    assert_refused(run, run_dir, tmp_path)
    assert "controller" in run.errors(), run.errors()


def test_more_than_eight_controllers_are_refused(shell, tmp_path):
    run, run_dir = start_agent(shell, tmp_path, agent_sections(
        tmp_path, controller=[f"10.0.0.{i}:6690" for i in range(9)]))
    assert_refused(run, run_dir, tmp_path)
    assert "at most 8 controllers" in run.errors(), run.errors()


def test_capacity_and_uplink_defaults_are_the_agents(shell, tmp_path):
    """Unset in UCI, the rendered values are the agent's own defaults (so the INI says what the agent would do)."""
    run, run_dir = start_agent(shell, tmp_path, agent_sections(tmp_path))
    assert run.rc == 0, run.errors()
    ini = run_dir / "agent.ini"
    lines = ini.read_text().splitlines()
    assert "pof_switch_uplink = up" in lines and "default_capacity_kbps = 20000" in lines
    assert not any(line.startswith("capacity_kbps") for line in lines)
    cfg = agent_config.load(str(ini))
    defaults = agent_config.AgentConfig("a", "h", 1, "/g", [])
    assert (cfg.pof_switch_uplink, cfg.default_capacity_kbps) == (defaults.pof_switch_uplink,
                                                                  defaults.default_capacity_kbps)
    assert "capacity_kbps" not in cfg.radios[0]
    assert not any(line.startswith("metrics_") for line in lines) and cfg.metrics_listen is None  # off
    # no firmware option in UCI: none in the INI file, the agent's own upgrade defaults
    assert not any(line.startswith("firmware_") for line in lines)
    assert cfg.firmware == agent_config.FirmwareSettings()


@pytest.mark.parametrize(("field", "value"), [("firmware_max_bytes", "1048575"),
                                              ("firmware_download_timeout_s", "3601"),
                                              ("firmware_max_bytes", "01048576"),
                                              ("firmware_cache_dir", "relative/dir")])
def test_bad_firmware_options_are_refused(shell, tmp_path, field, value):
    run, run_dir = start_agent(shell, tmp_path, agent_sections(tmp_path, **{field: value}))
    assert_refused(run, run_dir, tmp_path, field)


@pytest.mark.parametrize("value", ["127.0.0.1:9690", "0.0.0.0:0", "[::1]:65535", "ap-1.lan:9690"])
def test_metrics_listen_is_passed_on(shell, tmp_path, value):
    run, run_dir = start_agent(shell, tmp_path, agent_sections(tmp_path, metrics_listen=value))
    assert run.rc == 0, run.errors()
    assert f"metrics_listen = {value}" in (run_dir / "agent.ini").read_text().splitlines()


@pytest.mark.parametrize("value", ["9690", "h:port", "-h:1", "h:1 2", "[::1]", "h:123456", "h/x:1", "h:1:"],
                         ids=repr)
def test_bad_metrics_listen_is_refused(shell, tmp_path, value):
    run, run_dir = start_agent(shell, tmp_path, agent_sections(tmp_path, metrics_listen=value))
    assert_refused(run, run_dir, tmp_path, "metrics_listen")
    assert "want host:port or [v6]:port" in run.errors()


def test_metrics_token_file_must_be_readable_and_a_token(shell, tmp_path):
    run, run_dir = start_agent(shell, tmp_path, agent_sections(tmp_path, metrics_listen="127.0.0.1:9690",
                                                               metrics_token_file=str(tmp_path / "missing")))
    assert_refused(run, run_dir, tmp_path)
    assert "metrics_token_file" in run.errors()
    (tmp_path / "short.token").write_text("short")  # readable, but the agent's loader refuses it
    run, run_dir = start_agent(shell, tmp_path, agent_sections(tmp_path, metrics_listen="127.0.0.1:9690",
                                                               metrics_token_file=str(tmp_path / "short.token")))
    assert_refused(run, run_dir, tmp_path)
    assert "refused the generated config" in run.errors()


@pytest.mark.parametrize("value", ["1", "20000", "10000000"])
def test_capacity_bounds_are_accepted(shell, tmp_path, value):
    sections = agent_sections(tmp_path, default_capacity_kbps=value)
    sections[1].options["capacity_kbps"] = value
    run, run_dir = start_agent(shell, tmp_path, sections)
    assert run.rc == 0, run.errors()
    cfg = agent_config.load(str(run_dir / "agent.ini"))
    assert cfg.default_capacity_kbps == cfg.radios[0]["capacity_kbps"] == int(value)


# Out of the agent's range, not a whole number, or a form the init script does not pass on (leading zero, sign).
BAD_KBPS = ["0", "10000001", "99999999999999999999", "-5", "+5", "1.5", "1e6", "020000", "0x10", " 5", "5 ",
            "five"]


@pytest.mark.parametrize("where", ["agent", "radio"])
@pytest.mark.parametrize("value", BAD_KBPS, ids=repr)
def test_bad_capacities_are_refused(shell, tmp_path, where, value):
    sections = agent_sections(tmp_path)
    field = "default_capacity_kbps" if where == "agent" else "capacity_kbps"
    sections[0 if where == "agent" else 1].options[field] = value
    run, run_dir = start_agent(shell, tmp_path, sections)
    assert_refused(run, run_dir, tmp_path, field)


def test_capacity_check_of_the_init_script_itself(shell, tmp_path):
    """Values the UCI validator may pass (validate_data's range() reads a leading zero as decimal) are still
    refused by the script's own check, with the option named and the allowed range."""
    sections = agent_sections(tmp_path)
    sections[1].options["capacity_kbps"] = "054000"
    run, run_dir = start_agent(shell, tmp_path, sections)
    assert_refused(run, run_dir, tmp_path)
    assert "option capacity_kbps: bad value '054000' (want kbit/s, 1 to 10000000)" in run.errors()


@pytest.mark.parametrize("value", ["-up", "x" * 16, "up=eth0", "up,rate=1", "up link"], ids=repr)
def test_bad_uplink_port_names_are_refused(shell, tmp_path, value):
    run, run_dir = start_agent(shell, tmp_path, agent_sections(tmp_path, pof_switch_uplink=value))
    assert_refused(run, run_dir, tmp_path, "pof_switch_uplink")
    assert "want portname" in run.errors()


def test_disabled_starts_nothing(shell, tmp_path):
    run, run_dir = start_agent(shell, tmp_path, agent_sections(tmp_path, enabled="0"))
    assert run.rc == 0 and run.instances() == []
    assert not run_dir.exists()


def test_reload_and_triggers(shell, tmp_path):
    sections = agent_sections(tmp_path)
    run = run_harness(shell, init_script(AGENT), render_uci(sections), "reload", tmp_path / "r",
                      {"PROG": str(agent_wrapper(tmp_path)), "RUN_DIR": str(tmp_path / "run")})
    assert run.rc == 0 and len(run.instances()) == 1, run.errors()
    for init, pkg in ((init_script(AGENT), AGENT), (init_script(SWITCH), SWITCH)):
        run = run_harness(shell, init, "", "triggers", tmp_path / f"triggers-{pkg}")
        assert ["procd_add_reload_trigger", pkg] in run.calls
        spec = next(c for c in run.calls if c[0] == "validation_spec")
        assert spec[1] == pkg and all(":" in s for s in spec[3:])


HOSTILE = ["x\n[radio evil]\niface = evil0", "x'y", 'x"y', "$(touch PWNED)", "`touch PWNED`", "x;touch PWNED",
           "x y", "x\r", ""]
AGENT_FIELDS = ["agent_id", "controller_host", "hostapd_global", "hostapd_ctrl_dir", "conf_dir",
                "pof_switch_socket", "tls_server_name", "secret_file", "log_level", "shaping", "pof_switch_uplink",
                "default_capacity_kbps", "metrics_listen", "metrics_token_file", "firmware_keys_dir",
                "firmware_ca_file", "firmware_max_bytes"]
RADIO_FIELDS = ["phy", "iface", "mac", "channel", "hw_mode", "driver", "max_vaps", "capacity_kbps"]


def assert_refused(run, run_dir: Path, tmp: Path, field: str | None = None) -> None:
    assert run.instances() == [], "a hostile value started the agent"
    assert run.errors(), "refused without saying why"
    if field:
        # refused by the init script itself (its check, or validate_data's typed check), not only by the agent
        assert f"option {field}:" in run.errors() or "failed validation" in run.errors(), run.errors()
    assert not (run_dir / "agent.ini").exists()
    assert not list(tmp.rglob("PWNED")), "a UCI value was executed"


@pytest.mark.parametrize("field", AGENT_FIELDS)
@pytest.mark.parametrize("value", [v for v in HOSTILE if v], ids=repr)
def test_hostile_agent_values_are_refused(shell, tmp_path, field, value):
    run, run_dir = start_agent(shell, tmp_path, agent_sections(tmp_path, **{field: "/x/" + value}))
    assert_refused(run, run_dir, tmp_path, field)
    run, run_dir = start_agent(shell, tmp_path, agent_sections(tmp_path, **{field: value}))
    assert_refused(run, run_dir, tmp_path, field)


@pytest.mark.parametrize("field", ["controller_host", "iface"])
def test_leading_dash_is_refused_where_it_could_read_as_an_option(shell, tmp_path, field):
    sections = agent_sections(tmp_path)
    (sections[0] if field == "controller_host" else sections[1]).options[field] = "-x"
    run, run_dir = start_agent(shell, tmp_path, sections)
    assert_refused(run, run_dir, tmp_path, field)


@pytest.mark.parametrize("field", RADIO_FIELDS)
@pytest.mark.parametrize("value", HOSTILE, ids=repr)
def test_hostile_radio_values_are_refused(shell, tmp_path, field, value):
    sections = agent_sections(tmp_path)
    if value == "" and field in ("mac", "channel", "hw_mode", "driver", "max_vaps", "capacity_kbps"):
        pytest.skip("empty = option unset, which is valid for this field")
    sections[1].options[field] = value
    run, run_dir = start_agent(shell, tmp_path, sections)
    assert_refused(run, run_dir, tmp_path, field)
    assert not (run_dir / "agent.ini.new").exists()


def test_shell_syntax_in_the_secret_is_stored_not_run(shell, tmp_path):
    secret = "$(touch PWNED)`touch PWNED`'\"; x"
    run, run_dir = start_agent(shell, tmp_path, agent_sections(tmp_path, secret=secret))
    assert run.rc == 0 and len(run.instances()) == 1, run.errors()
    assert (run_dir / "secret").read_bytes() == secret.encode()
    assert agent_config.load(str(run_dir / "agent.ini")).secret == secret.encode()
    assert not list(tmp_path.rglob("PWNED"))


@pytest.mark.parametrize("secret", ["short", "0123456789abcdef\nsecond line", "0123456789abcdef\r"], ids=repr)
def test_bad_secrets_are_refused(shell, tmp_path, secret):
    run, run_dir = start_agent(shell, tmp_path, agent_sections(tmp_path, secret=secret))
    assert_refused(run, run_dir, tmp_path)


def test_config_mistakes_are_refused(shell, tmp_path):
    secret_file = tmp_path / "secret.txt"
    secret_file.write_text(SECRET)
    # secret and secret_file together
    run, run_dir = start_agent(shell, tmp_path, agent_sections(tmp_path, secret_file=str(secret_file)))
    assert_refused(run, run_dir, tmp_path)
    # an unreadable secret_file
    run, run_dir = start_agent(shell, tmp_path, agent_sections(tmp_path, secret=None,
                                                               secret_file=str(tmp_path / "missing")))
    assert_refused(run, run_dir, tmp_path)
    # no radio
    run, run_dir = start_agent(shell, tmp_path, agent_sections(tmp_path)[:1])
    assert_refused(run, run_dir, tmp_path)
    # two radios with one phy: only the agent's loader sees this; --check-config stops it before procd
    sections = agent_sections(tmp_path)
    sections.append(Section("radio", "radio1", {"phy": "phy0", "iface": "wlan9"}))
    run, run_dir = start_agent(shell, tmp_path, sections)
    assert_refused(run, run_dir, tmp_path)
    assert "refused the generated config" in run.errors()
    # a value validate_data refuses (port out of range)
    run, run_dir = start_agent(shell, tmp_path, agent_sections(tmp_path, controller_port="70000"))
    assert_refused(run, run_dir, tmp_path)


# --- pof-switch -----------------------------------------------------------------------------------------------
def switch_sections(**opts) -> list[Section]:
    base: dict[str, str | list[str]] = {"enabled": "1", "controller_host": "192.0.2.20", "controller_port": "6643",
                                        "dev_id": "7", "mgmt_socket": "/var/run/pofswitch.sock",
                                        "port": ["eth0", "up=eth1"]}
    base.update(opts)
    return [Section("switch", "switch", base)]


def fake_ethtool(tmp: Path) -> Path:
    path = tmp / "ethtool"
    path.write_text(f"#!/bin/sh\necho \"$*\" >> {tmp}/ethtool.log\n")
    path.chmod(0o755)
    return path


def start_switch(shell, tmp: Path, sections):
    return run_harness(shell, init_script(SWITCH), render_uci(sections), "start", tmp / "h",
                       {"ETHTOOL": str(fake_ethtool(tmp))})


def test_switch_command_line(shell, tmp_path):
    run = start_switch(shell, tmp_path, switch_sections(enable_ports="1", max_sleep_us="500"))
    assert run.rc == 0, run.errors()
    assert run.command() == ["/usr/sbin/pofswitch-afp", "--controller", "192.0.2.20:6643", "--mgmt",
                             "/var/run/pofswitch.sock", "--dev-id", "7", "--max-sleep-us", "500", "--enable-ports",
                             "--port", "eth0", "--port", "up=eth1"]
    # offloads off on the netdevs (not the port names)
    assert (tmp_path / "ethtool.log").read_text().splitlines() == [
        "-K eth0 gro off gso off tso off tx off", "-K eth1 gro off gso off tso off tx off"]
    (inst,) = run.instances()
    assert ["procd_set_param", "respawn", "3600", "5", "0"] in inst
    # IPv6 controller: pofswitch splits at the last colon, no brackets
    run = start_switch(shell, tmp_path, switch_sections(controller_host="2001:db8::1", disable_offloads="0"))
    assert run.command()[2] == "2001:db8::1:6643"


def test_switch_controller_list(shell, tmp_path):
    """A cluster's nodes: `list controller` items in order, comma-joined for --controller, over controller_host."""
    run = start_switch(shell, tmp_path, switch_sections(
        controller=["192.0.2.20:6643", "onos-b:16643", "[2001:db8::3]:6643"], disable_offloads="0"))
    assert run.rc == 0, run.errors()
    assert run.command()[1:3] == ["--controller", "192.0.2.20:6643,onos-b:16643,[2001:db8::3]:6643"]


@pytest.mark.parametrize("item", ["192.0.2.20", "192.0.2.20:0", "192.0.2.20:65536", ":6643", "-x:1", "a b:1",
                                  "a:1,b:2", "$(touch PWNED):1", "a`touch PWNED`:1"], ids=repr)
def test_bad_switch_controller_list_items_are_refused(shell, tmp_path, item):
    run = start_switch(shell, tmp_path, switch_sections(controller=["192.0.2.20:6643", item], disable_offloads="0"))
    assert run.instances() == [] and "bad controller" in run.errors(), run.errors()
    assert not list(tmp_path.rglob("PWNED"))


def test_more_than_eight_switch_controllers_are_refused(shell, tmp_path):
    run = start_switch(shell, tmp_path, switch_sections(controller=[f"10.0.0.{i}:6643" for i in range(9)],
                                                        disable_offloads="0"))
    assert run.instances() == [] and "at most 8 controllers" in run.errors(), run.errors()


@pytest.mark.parametrize("field", ["controller_host", "mgmt_socket", "port"])
@pytest.mark.parametrize("value", [v for v in HOSTILE if v] + ["--busy-poll", "-x", "a=b=c", "x" * 16],
                         ids=repr)
def test_hostile_switch_values_are_refused(shell, tmp_path, field, value):
    if field == "mgmt_socket":
        if value in ("--busy-poll", "-x", "a=b=c", "x" * 16):
            pytest.skip("harmless inside an absolute path")
        value = "/run/" + value
    if field == "controller_host" and value == "x" * 16:
        pytest.skip("a 16-letter host name is valid")
    opts = {field: ["eth0", value] if field == "port" else value}
    run = start_switch(shell, tmp_path, switch_sections(**opts))
    assert run.instances() == [] and run.errors()
    assert ("bad port '" if field == "port" else field) in run.errors()
    assert not list(tmp_path.rglob("PWNED"))
    assert not (tmp_path / "ethtool.log").exists()
