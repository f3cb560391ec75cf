"""The shipped UCI files parse, name only options their init script validates (commented examples included), and
ship disabled; with `enabled` switched on, the shipped defaults pass the init script's checks."""

from __future__ import annotations

import re
import sys

import pytest
from owrt import (
    AGENT_PROTO_SRC,
    AP_AGENT_SRC,
    PACKAGES,
    SHELLS,
    agent_wrapper,
    check_config,
    commented_options,
    init_script,
    parse_uci,
    render_uci,
    run_harness,
    uci_config,
)

sys.path.insert(0, str(AGENT_PROTO_SRC))
sys.path.insert(0, str(AP_AGENT_SRC))
from wislice_ap_agent import config as agent_config  # the real loader, from the tree being packaged

SECTION_TYPES = {"wislice-ap-agent": {"agent", "radio"}, "wislice-pofswitch": {"switch"}}


def validated_options(pkg: str) -> dict[str, set[str]]:
    """Section type -> option names, from the init script's uci_load_validate calls."""
    text = init_script(pkg).read_text()
    out: dict[str, set[str]] = {}
    for m in re.finditer(r'uci_load_validate "\$NAME" (\w+) "\$1" "\$2" \\\n((?:\s+\'[^\']+\'(?: \\)?\n)+)', text):
        out[m.group(1)] = set(re.findall(r"'(\w+):", m.group(2)))
    return out


@pytest.mark.parametrize("pkg", sorted(PACKAGES))
def test_config_parses_and_matches_the_validator(pkg):
    text = uci_config(pkg).read_text()
    sections = parse_uci(text)
    spec = validated_options(pkg)
    assert set(spec) == SECTION_TYPES[pkg]
    assert {s.type for s in sections} == SECTION_TYPES[pkg]
    every_option = set().union(*spec.values())
    for s in sections:
        unknown = set(s.options) - spec[s.type]
        assert not unknown, f"{pkg}: section {s.name} has options the init script ignores: {unknown}"
    assert commented_options(text) <= every_option, commented_options(text) - every_option
    main = sections[0]
    assert main.options["enabled"] == "0", "ship disabled until the integrator sets controller and secret"


def test_parser_refuses_what_uci_would_not_read():
    with pytest.raises(ValueError):
        parse_uci("config agent 'a'\n\toption\n")
    with pytest.raises(ValueError):
        parse_uci("option x 'y'\n")


@pytest.mark.parametrize("shell", SHELLS, ids=" ".join)
def test_shipped_defaults_start_once_enabled(shell, tmp_path):
    secret = tmp_path / "secret"
    secret.write_text("0123456789abcdef0123456789abcdef\n")
    sections = parse_uci(uci_config("wislice-ap-agent").read_text())
    sections[0].options["enabled"] = "1"
    sections[0].options["secret_file"] = str(secret)
    run = run_harness(shell, init_script("wislice-ap-agent"), render_uci(sections), "start", tmp_path / "b",
                      {"PROG": str(agent_wrapper(tmp_path)), "RUN_DIR": str(tmp_path / "run")})
    assert run.rc == 0, run.errors()
    assert run.command()[1:] == ["--config", str(tmp_path / "run" / "agent.ini")]
    assert check_config(tmp_path / "run" / "agent.ini").returncode == 0

    sections = parse_uci(uci_config("wislice-pofswitch").read_text())
    sections[0].options["enabled"] = "1"
    run = run_harness(shell, init_script("wislice-pofswitch"), render_uci(sections), "start", tmp_path / "c",
                      {"ETHTOOL": str(tmp_path / "no-ethtool")})
    assert run.rc == 0, run.errors()
    assert run.command()[0] == "/usr/sbin/pofswitch-afp"


@pytest.mark.parametrize("shell", SHELLS, ids=" ".join)
def test_shipped_agent_and_switch_agree(shell, tmp_path):
    """Both packages as shipped, each translated by its own init script: the agent's switch socket is the switch's
    management socket, and the port the agent rates (pof_switch_uplink, as the agent's loader reads the generated
    INI) is one of the switch's start-up ports, by port name (NAME of NAME=NETDEV)."""
    secret = tmp_path / "secret"
    secret.write_text("0123456789abcdef0123456789abcdef\n")
    sections = parse_uci(uci_config("wislice-ap-agent").read_text())
    sections[0].options.update(enabled="1", secret_file=str(secret))
    run = run_harness(shell, init_script("wislice-ap-agent"), render_uci(sections), "start", tmp_path / "a",
                      {"PROG": str(agent_wrapper(tmp_path)), "RUN_DIR": str(tmp_path / "run")})
    assert run.rc == 0, run.errors()
    agent = agent_config.load(str(tmp_path / "run" / "agent.ini"))
    # the shipped values are the agent's own defaults
    defaults = agent_config.AgentConfig("a", "h", 1, "/g", [])
    assert (agent.pof_switch_uplink, agent.default_capacity_kbps) == (defaults.pof_switch_uplink,
                                                                      defaults.default_capacity_kbps)

    sections = parse_uci(uci_config("wislice-pofswitch").read_text())
    sections[0].options["enabled"] = "1"
    run = run_harness(shell, init_script("wislice-pofswitch"), render_uci(sections), "start", tmp_path / "s",
                      {"ETHTOOL": str(tmp_path / "no-ethtool")})
    assert run.rc == 0, run.errors()
    argv = run.command()
    mgmt = argv[argv.index("--mgmt") + 1]
    port_names = [argv[i + 1].split("=", 1)[0] for i, a in enumerate(argv) if a == "--port"]
    assert agent.pof_switch_socket == mgmt
    assert agent.pof_switch_uplink in port_names, (agent.pof_switch_uplink, port_names)
