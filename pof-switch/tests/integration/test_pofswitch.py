"""The real pofswitch (AF_PACKET backend) on veths in test namespaces, programmed by the test controller:
forwarding, rewriting, metering, counters, PACKET_IN, port hot-plug, malformed messages."""

from __future__ import annotations

import json
import os
import shutil
import socket
import struct
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import ASAN_BUILD, Host, Switch, pofswitch_afp, start_switch
from pofctl import ETH_TYPE, IP_DST, SCRIPTED_CONTROLLER_ARGS, Controller, mx, output

pytestmark = pytest.mark.integration

MM, EM = 0, 2
EM0 = 20          # global id of EM table 0 (10 MM + 10 LPM before it)
METER_SLICE = 1
COUNTER_H2 = 5


def program(c: Controller, sw: Switch, hosts: list[Host], meter_kbps: int = 10000) -> dict[str, int]:
    """MM 0 on the ethertype: ARP floods (and goes to the controller), IPv4 goes to EM 0 on the IPv4 dst.
    EM 0: h1 and h3 plain output; h2 through a 10 Mbit/s meter with a counter; 10.9.0.99 is rewritten to h3."""
    port = {f"10.9.0.{i}": sw.ports[f"s{i}"]["port_id"] for i in (1, 2, 3)}
    c.table(MM, 0, "classify", [ETH_TYPE])
    c.table(EM, 0, "steer", [IP_DST])
    c.meter(METER_SLICE, meter_kbps)
    c.send({"type": "COUNTER_MOD", "body": {"command": 0, "slot_id": 0, "counter_id": COUNTER_H2, "packets": 0,
                                             "bytes": 0}})
    c.flow(MM, 0, 0, [mx(ETH_TYPE, b"\x08\x06")], [{"type": "APPLY_ACTIONS", "actions": [
        {"type": "PACKET_IN", "value": 1}, output(255)]}], priority=10)
    c.flow(MM, 0, 1, [mx(ETH_TYPE, b"\x08\x00")], [
        {"type": "GOTO_TABLE", "next_table_id": EM0, "packet_offset": 0, "matches": [IP_DST]}], priority=10)
    c.flow(EM, 0, 0, [mx(IP_DST, socket.inet_aton("10.9.0.1"))],
           [{"type": "APPLY_ACTIONS", "actions": [output(port["10.9.0.1"])]}])
    c.flow(EM, 0, 1, [mx(IP_DST, socket.inet_aton("10.9.0.2"))],
           [{"type": "METER", "meter_id": METER_SLICE},
            {"type": "APPLY_ACTIONS", "actions": [output(port["10.9.0.2"])]}], counter_id=COUNTER_H2)
    c.flow(EM, 0, 2, [mx(IP_DST, socket.inet_aton("10.9.0.3"))],
           [{"type": "APPLY_ACTIONS", "actions": [output(port["10.9.0.3"])]}])
    h3 = hosts[2]
    c.flow(EM, 0, 3, [mx(IP_DST, socket.inet_aton("10.9.0.99"))], [{"type": "APPLY_ACTIONS", "actions": [
        {"type": "SET_FIELD", "field": mx({"field_id": 0, "offset": 0, "length": 48}, h3.mac)},
        {"type": "SET_FIELD", "field": mx(IP_DST, socket.inet_aton(h3.ip))},
        {"type": "MODIFY_FIELD", "field": {"field_id": 9, "offset": 176, "length": 8}, "increment": -1},
        {"type": "CALC_CHECKSUM", "checksum_pos_type": 0, "calc_pos_type": 0, "checksum_pos": 192,
         "checksum_len": 16, "calc_start": 112, "calc_len": 160},
        output(port["10.9.0.3"])]}])
    c.echo()  # everything above is applied once the echo comes back (one ordered stream)
    c.expect_no("ERROR", wait=0.2)
    return port


def ping(h: Host, ip: str, count: int = 3) -> bool:
    r = h.ns.exec(["ping", "-c", str(count), "-i", "0.2", "-W", "1", ip], check=False, capture_output=True)
    return r.returncode == 0


def test_forwarding_counters_and_packet_in(switch: Switch, controller: Controller, hosts: list[Host]) -> None:
    ports = program(controller, switch, hosts)
    h1, h2, h3 = hosts
    assert ping(h1, h2.ip) and ping(h1, h3.ip) and ping(h3, h2.ip)
    pin = controller.recv("PACKET_IN")["body"]
    assert pin["port_id"] in ports.values() and pin["data"][24:28] == "0806"
    assert pin["table_id"] == 0
    ctr = controller.counter(COUNTER_H2)
    assert ctr["packets"] >= 6 and ctr["bytes"] >= 6 * 98
    # QUERYALL replays the state as the messages that built it, then QUERYALL_FIN, all with the request's xid.
    xid = controller.send({"type": "QUERYALL_REQUEST"})
    controller.recv("QUERYALL_FIN", where=lambda m: m["xid"] == xid)
    dump = [m for m in controller.pending if m["xid"] == xid]
    kinds = [m["type"] for m in dump]
    assert kinds.count("TABLE_MOD") == 2 and kinds.count("FLOW_MOD") == 6 and kinds.count("METER_MOD") == 1
    assert kinds.count("PORT_STATUS") == 3 and kinds[0] == "RESOURCE_REPORT"
    steer = [m["body"] for m in dump if m["type"] == "FLOW_MOD" and m["body"]["table_type"] == EM]
    assert [f["index"] for f in steer] == [0, 1, 2, 3] and steer[1]["counter_id"] == COUNTER_H2
    assert steer[3]["instructions"][0]["actions"][0]["type"] == "SET_FIELD"
    # A flow removed stops forwarding: delete h3's entry, pings to h3 now fail.
    controller.flow(EM, 0, 2, [], [], command=3)
    controller.echo()
    assert not ping(h1, h3.ip, count=2)


def test_rewrite_to_another_host(switch: Switch, controller: Controller, hosts: list[Host]) -> None:
    program(controller, switch, hosts)
    h1, _, h3 = hosts
    assert ping(h1, h3.ip, count=1)  # ARP settled
    h1.ns.exec(["ip", "neigh", "replace", "10.9.0.99", "lladdr", "02:00:00:00:00:99", "dev", h1.ifname])
    receiver = h3.ns.popen(["python3", "-c", (
        "import socket,sys;s=socket.socket(socket.AF_INET,socket.SOCK_DGRAM);s.bind(('0.0.0.0',5000));"
        "s.settimeout(8);d,a=s.recvfrom(100);print(d.decode(),a[0]);sys.stdout.flush()")],
        stdout=-1, text=True)
    time.sleep(0.3)
    # UDP checksum off (SO_NO_CHECK): the rewrite changes the pseudo-header; the IP checksum is recomputed.
    h1.ns.exec(["python3", "-c", (
        "import socket,time;s=socket.socket(socket.AF_INET,socket.SOCK_DGRAM);s.setsockopt(socket.SOL_SOCKET,11,1);"
        "[(s.sendto(b'rewritten',('10.9.0.99',5000)),time.sleep(0.2)) for _ in range(5)]")])
    out, _ = receiver.communicate(timeout=10)
    assert out.split() == ["rewritten", "10.9.0.1"]


@pytest.mark.rates
def test_tcp_through_a_10_mbit_meter_gets_its_cap(switch: Switch, controller: Controller, hosts: list[Host],
                                                  processes: Any) -> None:
    program(controller, switch, hosts, meter_kbps=10000)
    h1, h2, _ = hosts
    assert ping(h1, h2.ip, count=1)
    processes.start(["iperf3", "-s", "-1", "-B", h2.ip], netns=h2.ns, log_name="iperf3-server")
    time.sleep(0.5)
    r = h1.ns.exec(["iperf3", "-c", h2.ip, "-t", "6", "-O", "1", "-J"], capture_output=True, text=True, timeout=30)
    mbps = json.loads(r.stdout)["end"]["sum_received"]["bits_per_second"] / 1e6
    assert 9.0 <= mbps <= 10.5, f"{mbps:.2f} Mbit/s through a 10 Mbit/s meter"


@pytest.mark.rates
def test_unmetered_path_is_much_faster(switch: Switch, controller: Controller, hosts: list[Host],
                                       processes: Any) -> None:
    """The cap comes from the meter, not from the switch: h1 -> h3 has no meter."""
    program(controller, switch, hosts)
    h1, _, h3 = hosts
    assert ping(h1, h3.ip, count=1)
    processes.start(["iperf3", "-s", "-1", "-B", h3.ip], netns=h3.ns, log_name="iperf3-server")
    time.sleep(0.5)
    r = h1.ns.exec(["iperf3", "-c", h3.ip, "-t", "3", "-J"], capture_output=True, text=True, timeout=30)
    mbps = json.loads(r.stdout)["end"]["sum_received"]["bits_per_second"] / 1e6
    assert mbps > 50, f"unmetered TCP only {mbps:.1f} Mbit/s"


def test_port_hot_add_and_remove_are_reported(switch: Switch, controller: Controller, netns: Any,
                                              veth: Any) -> None:
    ns = netns("h4")
    pair = veth(ns, None, addr_a="10.9.0.4/24")
    assert switch.mgmt_cmd(f"port-add s4 {pair.b}").startswith("OK ")
    st = controller.recv("PORT_STATUS", where=lambda m: m["body"]["port"]["name"] == "s4")["body"]
    assert st["reason"] == 0 and st["port"]["of_enable"] == 0
    assert switch.mgmt_cmd("port-add s4 whatever").startswith("ERROR port s4 exists")
    assert switch.mgmt_cmd("port-add s5 no-such-netdev").startswith("ERROR no netdev no-such-netdev")
    assert switch.mgmt_cmd("port-del s4") == "OK"
    st = controller.recv("PORT_STATUS", where=lambda m: m["body"]["port"]["name"] == "s4")["body"]
    assert st["reason"] == 1
    assert "s4" not in switch.mgmt_cmd("ports")
    controller.echo()


def malformed_messages_get_errors(controller: Controller, switch: Switch) -> None:
    def error_for(raw: bytes) -> dict:
        controller.send_raw(raw)
        return controller.recv("ERROR", where=lambda m: m["xid"] == struct.unpack(">I", raw[4:8])[0])["body"]

    e = error_for(bytes.fromhex("0415000800000201"))  # BARRIER: not supported, as in the reference
    assert (e["type"], e["code"]) == (1, 1)
    e = error_for(bytes.fromhex("040f001000000202") + bytes(8))  # FLOW_MOD with an 8-byte body
    assert (e["type"], e["code"]) == (1, 6)
    e = error_for(bytes.fromhex("01050008") + struct.pack(">I", 0x203))  # version 1
    assert (e["type"], e["code"]) == (1, 0)
    e = error_for(bytes.fromhex("04c8000c00000204") + b"junk")  # unknown type 200
    assert (e["type"], e["code"]) == (1, 1)
    # A FLOW_MOD for a table that does not exist, and a TABLE_MOD with an out-of-range id.
    xid = controller.flow(MM, 7, 0, [], [])
    e = controller.recv("ERROR", where=lambda m: m["xid"] == xid)["body"]
    assert (e["type"], e["code"]) == (5, 2)
    xid = controller.send({"type": "TABLE_MOD", "body": {"command": 0, "table_id": 9, "table_type": EM,
                                                          "size": 4, "slot_id": 0, "name": "x",
                                                          "matches": [IP_DST]}})
    e = controller.recv("ERROR", where=lambda m: m["xid"] == xid)["body"]
    assert (e["type"], e["code"]) == (8, 3)
    # 200 messages of random bytes with valid framing: every one is answered, none crashes the switch.
    import random

    rnd = random.Random(7)
    for i in range(200):
        body = bytes(rnd.randrange(256) for _ in range(rnd.randrange(0, 400)))
        mtype = rnd.choice([15, 17, 18, 30, 31, 32, 14, 2, 9, 34, rnd.randrange(256)])
        controller.send_raw(struct.pack(">BBHI", 4, mtype, 8 + len(body), 0x1000 + i) + body)
    controller.echo(b"still alive")
    assert switch.proc.poll() is None


def test_malformed_messages_get_errors_not_crashes(switch: Switch, controller: Controller) -> None:
    malformed_messages_get_errors(controller, switch)


def test_malformed_messages_under_asan(processes: Any, controller: Controller, hosts: list[Host],
                                       tmp_path: Any) -> None:
    """The same against the ASan+UBSan build: any memory error aborts the process and fails the check."""
    sw = start_switch(processes, controller, hosts, tmp_path, pofswitch_afp(ASAN_BUILD), "pofswitch-asan")
    program(controller, sw, hosts)
    assert ping(hosts[0], hosts[1].ip, count=2)
    malformed_messages_get_errors(controller, sw)
    assert ping(hosts[0], hosts[2].ip, count=2)
    processes.stop(sw.proc)
    log = processes.log_path(sw.proc).read_text()
    assert "ERROR: AddressSanitizer" not in log and "runtime error" not in log, log[-3000:]


def test_handshake_out_of_order_makes_it_reconnect(processes: Any, controller: Controller, hosts: list[Host],
                                                    tmp_path: Any) -> None:
    argv = [str(pofswitch_afp()), "--controller", f"127.0.0.1:{controller.port}", "--port", f"s1={hosts[0].switch_if}"]
    processes.start(argv, log_name="pofswitch")
    controller.accept()
    controller.recv("HELLO")
    controller.send({"type": "FEATURES_REQUEST"})  # before our HELLO: out of order
    with pytest.raises(ConnectionError):
        controller.recv("FEATURES_REPLY", timeout=3)
    controller.accept(timeout=10)  # it dials again after its backoff
    ports = controller.handshake()
    assert list(ports) == ["s1"] and ports["s1"]["of_enable"] == 0


@pytest.mark.rates
def test_dpdk_backend_forwards_on_veths(request: Any, processes: Any, controller: Controller, hosts: list[Host],
                                        hugepages: Any, tmp_path: Any) -> None:
    """The DPDK build with net_af_packet ports: the same program forwards pings, ports are hot-added."""
    binary = Path(os.environ.get("POFSWITCH_BUILD", Path(__file__).resolve().parents[2] / "build")) / "pofswitch"
    if not binary.exists():
        pytest.skip("pofswitch (DPDK) not built")
    mgmt = tmp_path / "mgmt.sock"
    prefix = f"poftest{os.getpid()}"
    # EAL leaves an empty runtime dir even with --in-memory: remove it after the switch is gone
    request.addfinalizer(lambda: shutil.rmtree(Path("/var/run/dpdk") / prefix, ignore_errors=True))
    argv = [str(binary), "-l", "1", "--in-memory", "--huge-dir", str(hugepages.mount), "--no-pci",
            "--file-prefix", prefix, "--no-telemetry", "--",
            "--controller", f"127.0.0.1:{controller.port}", "--mgmt", str(mgmt), *SCRIPTED_CONTROLLER_ARGS]
    for i, h in enumerate(hosts[:2], 1):
        argv += ["--port", f"s{i}=net_af_packet{i},iface={h.switch_if}"]
    proc = processes.start(argv, log_name="pofswitch-dpdk")
    controller.accept(timeout=20)
    ports = controller.handshake()
    sw = Switch(None, mgmt, ports)
    assert sw.mgmt_cmd(f"port-add s3 net_af_packet3,iface={hosts[2].switch_if}") == "OK 3"
    sw.ports["s3"] = controller.recv("PORT_STATUS", where=lambda m: m["body"]["port"]["name"] == "s3")["body"]["port"]
    for p in sw.ports.values():
        controller.enable_port(p)
    program(controller, sw, hosts)
    assert ping(hosts[0], hosts[1].ip) and ping(hosts[0], hosts[2].ip)
    assert controller.counter(COUNTER_H2)["packets"] >= 3
    assert sw.mgmt_cmd("port-del s3") == "OK"
    assert not ping(hosts[0], hosts[2].ip, count=2)
    assert processes.stop(proc) == 0  # a clean exit: ports closed, EAL cleaned up
