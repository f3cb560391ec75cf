from __future__ import annotations

import json

import pytest
from wislice_agent_proto.errors import AgentError

from wislice_mec_agent.catalog import Catalog
from wislice_mec_agent.ids import address_of, host_ifname, mac_of, vnf_id_from_ifname, vnf_id_of
from wislice_mec_agent.manager import params_env
from wislice_mec_agent.spec import parse_vnf_spec

from .conftest import spec


def test_vnf_id_and_address_mapping() -> None:
    assert vnf_id_of(1, 2) == 65538
    assert address_of(65538) == "0.1.0.2"
    assert mac_of(65538) == "02:00:00:01:00:02" and mac_of(0xABCD1234) == "02:00:ab:cd:12:34"
    assert address_of(vnf_id_of(0xABCD, 0x1234)) == "171.205.18.52"
    assert host_ifname("wm", 65538) == "wm00010002"
    assert vnf_id_from_ifname("wm", "wm00010002") == 65538
    assert vnf_id_from_ifname("wm", "wmx") is None


@pytest.mark.parametrize(("tenant", "instance"), [(0, 0), (0x7F00, 1), (0xE000, 5), (0xFFFF, 0xFFFF)])
def test_non_unicast_addresses_are_refused(tenant: int, instance: int) -> None:
    with pytest.raises(AgentError) as err:
        parse_vnf_spec(spec(tenant, instance))
    assert err.value.code == "bad_request" and "unicast" in err.value.message


@pytest.mark.parametrize(("change", "words"), [
    ({"tenant_id": 65536}, "tenant_id 65536 out of range"),
    ({"instance_id": -1}, "instance_id -1 out of range"),
    ({"tenant_id": True}, "tenant_id must be an integer"),
    ({"cpu": 0}, "cpu must be"),
    ({"cpu": float("nan")}, "cpu must be"),
    ({"memory_mib": 0}, "memory_mib 0 out of range"),
    ({"image": "a/b"}, "image must be"),
    ({"params": {"rules": {"x": 1}}}, "must be a string, number or boolean"),
    ({"params": {"bad-name": 1}}, "parameter name"),
    ({"params": {"x": "a\nb"}}, "no control characters"),
    ({"extra": 1}, "unknown VnfSpec fields: extra"),
    ({"chain_id": 0}, "chain_id 0 out of range"),
    ({"chain_id": "7"}, "chain_id must be an integer"),
    ({"latency_class": "urllc"}, "latency_class must be one of ultra_low, low, best_effort"),
    ({"latency_class": None}, "latency_class must be a string"),
])
def test_spec_validation_errors(change: dict, words: str) -> None:
    with pytest.raises(AgentError) as err:
        parse_vnf_spec(spec(**change))
    assert err.value.code == "bad_request"
    assert words in err.value.message


def test_chain_id_vectors() -> None:
    from .test_protocol import SPEC

    good = json.loads((SPEC / "vectors" / "valid" / "req-createVnf-chain.json").read_text())
    parsed = parse_vnf_spec(good["params"]["vnf"])
    assert parsed.chain_id == 42 and parsed.chain == (1, 42) and parsed.to_json() == good["params"]["vnf"] | {
        "params": {}}
    assert parse_vnf_spec(spec()).chain == (1, None) and "chain_id" not in parse_vnf_spec(spec()).to_json()
    bad = json.loads((SPEC / "vectors" / "invalid" / "vnf-chain-id-zero.json").read_text())
    with pytest.raises(AgentError, match="chain_id 0 out of range"):
        parse_vnf_spec(bad["message"]["params"]["vnf"])


def test_latency_class_vectors() -> None:
    from .test_protocol import SPEC

    good = json.loads((SPEC / "vectors" / "valid" / "req-createVnf-latency.json").read_text())
    parsed = parse_vnf_spec(good["params"]["vnf"])
    assert parsed.latency_class == "ultra_low" and parsed.to_json() == good["params"]["vnf"]
    assert "latency_class" not in parse_vnf_spec(spec()).to_json()
    bad = json.loads((SPEC / "vectors" / "invalid" / "vnf-latency-class-unknown.json").read_text())
    with pytest.raises(AgentError, match="latency_class must be one of"):
        parse_vnf_spec(bad["message"]["params"]["vnf"])


def test_missing_fields() -> None:
    s = spec()
    del s["cpu"], s["chain_position"]
    with pytest.raises(AgentError, match="missing VnfSpec fields: chain_position, cpu"):
        parse_vnf_spec(s)


def test_catalog_declares_every_image_with_class_and_needs() -> None:
    cat = Catalog.load()
    assert set(cat.names()) == {"kernel-fwd", "firewall", "monitor", "transcoder", "dpdk-fwd", "dpdk-vnf",
                                "dpdk-bridge"}
    assert cat.get("dpdk-fwd").vnf_class == "dpdk" and cat.get("dpdk-vnf").vnf_class == "dpdk"
    assert cat.get("dpdk-vnf").built == {"/usr/bin/dpdk-vnf": "dpdk-vnf/build/dpdk-vnf"}
    assert all(cat.get(n).cpu > 0 and cat.get(n).memory_mib > 0 for n in cat.names())


def test_catalog_checks_image_params_and_minimums() -> None:
    cat = Catalog.load()
    with pytest.raises(AgentError, match="unknown image 'nope'"):
        cat.check_spec(parse_vnf_spec(spec(image="nope")))
    with pytest.raises(AgentError, match="has no parameter 'colour'"):
        cat.check_spec(parse_vnf_spec(spec(image="firewall", params={"colour": "red"})))
    with pytest.raises(AgentError, match="allow_icmp must be a boolean"):
        cat.check_spec(parse_vnf_spec(spec(image="firewall", params={"allow_icmp": "yes"})))
    with pytest.raises(AgentError, match="needs at least 256 MiB"):
        cat.check_spec(parse_vnf_spec(spec(image="transcoder", memory_mib=64)))
    cat.check_spec(parse_vnf_spec(spec(image="firewall", params={"allow_tcp": "80,443", "log": True})))
    with pytest.raises(AgentError, match="cost_cycles must be a integer"):
        cat.check_spec(parse_vnf_spec(spec(image="dpdk-vnf", params={"cost_cycles": 1.5})))
    cat.check_spec(parse_vnf_spec(spec(image="dpdk-vnf", params={"mode": "cost", "cost_cycles": 2000, "burst": 32,
                                                                 "vhost_server": False})))


@pytest.mark.parametrize("built", [{"usr/bin/x": "p/build/x"}, {"/usr/bin/x": "/abs/x"},
                                   {"/usr/bin/x": "../outside/x"}, {"/usr/bin/x": ""}])
def test_catalog_refuses_built_programs_outside_vnfs(tmp_path, built: dict[str, str]) -> None:
    body = {"images": {"x": {"class": "dpdk", "cpu": 0.1, "memory_mib": 8, "rootfs": {"built": built}}}}
    path = tmp_path / "catalog.json"
    path.write_text(json.dumps(body))
    with pytest.raises(ValueError, match="built"):
        Catalog.load(path)


def test_params_env_quotes_values() -> None:
    text = params_env({"allow_tcp": "80; rm -rf /", "log": True, "n": 3})
    assert text == "P_allow_tcp='80; rm -rf /'\nP_log=true\nP_n=3\n"


@pytest.mark.parametrize(("interfaces", "vnf_class", "ok"), [
    (["in"], "kernel", True), (["in", "out"], "kernel", True), (["out"], "kernel", False),
    (["in", "in"], "kernel", False), (["in", "out", "x"], "kernel", False), (["in", "Out!"], "kernel", False),
    (["in", "out"], "dpdk", True), (["in", "x"], "dpdk", False), (["in", "out", "out2"], "dpdk", False),
])
def test_catalog_interfaces(tmp_path, interfaces: list[str], vnf_class: str, ok: bool) -> None:
    body = {"images": {"x": {"class": vnf_class, "cpu": 0.1, "memory_mib": 8, "interfaces": interfaces}}}
    path = tmp_path / "catalog.json"
    path.write_text(json.dumps(body))
    if ok:
        assert Catalog.load(path).get("x").interfaces == tuple(interfaces)
    else:
        with pytest.raises(ValueError, match="interfaces"):
            Catalog.load(path)
    assert Catalog.load().get("transcoder").interfaces == ("in", "out")
