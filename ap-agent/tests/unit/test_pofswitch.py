"""The pof-switch management client against a fake unix stream server speaking pof_mgmt's text protocol."""

import socket
import threading

import pytest
from wislice_agent_proto.validate import ValidationError

from wislice_ap_agent.pofswitch import NoSwitch, PofSwitchMgmt, SwitchError, make_attacher


class FakeMgmt:
    def __init__(self, path):
        self.lines = []
        self.ports = {}
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(path)
        self.sock.listen()
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def serve(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with conn:
                line = conn.makefile("rb").readline().decode().strip()
                self.lines.append(line)
                conn.sendall((self.answer(line) + "\n").encode())

    def answer(self, line):
        words = line.split()
        if words[0] == "port-add":
            if words[1] in self.ports:
                return f"ERROR port {words[1]} exists"
            self.ports[words[1]] = len(self.ports) + 1
            return f"OK {self.ports[words[1]]}"
        if words[0] == "ports":
            return "OK" + "".join(f" {n}:{name}:1:0:0:0:0" for name, n in self.ports.items())
        if words[0] == "port-del":
            return "OK" if self.ports.pop(words[1], None) else f"ERROR no port {words[1]}"
        return f"ERROR unknown command {words[0]}"

    def close(self):
        self.sock.shutdown(socket.SHUT_RDWR)
        self.sock.close()
        self.thread.join(2)


@pytest.fixture
def mgmt(sockdir):
    m = FakeMgmt(str(sockdir / "mgmt.sock"))
    yield m
    m.close()


def test_attach_detach(mgmt, sockdir):
    sw = make_attacher(str(sockdir / "mgmt.sock"))
    assert sw.present and sw.attach("wlan0_1") == 1 and sw.attach("wlan0_2") == 2
    assert mgmt.lines[:2] == ["port-add wlan0_1 wlan0_1", "port-add wlan0_2 wlan0_2"]
    assert sw.attach("wlan0_1") == 1  # already attached (agent restart): the existing number
    sw.detach("wlan0_1")
    sw.detach("wlan0_1")  # already gone: quiet
    assert mgmt.ports == {"wlan0_2": 2}


def test_dpdk_args_template(mgmt, sockdir):
    sw = PofSwitchMgmt(str(sockdir / "mgmt.sock"), "net_af_packet_{ifname},iface={ifname}")
    sw.attach("wlan0_3")
    assert mgmt.lines[-1] == "port-add wlan0_3 net_af_packet_wlan0_3,iface=wlan0_3"
    with pytest.raises(SwitchError):
        PofSwitchMgmt("/x", "a b\nport-del x")


def test_errors_are_clear(sockdir):
    with pytest.raises(SwitchError, match="management socket"):
        PofSwitchMgmt(str(sockdir / "none")).attach("wlan0_1")
    with pytest.raises(ValidationError):
        PofSwitchMgmt(str(sockdir / "none")).attach("bad name")
    assert NoSwitch().attach("x") is None and not NoSwitch().present
