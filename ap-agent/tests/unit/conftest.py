from __future__ import annotations

import tempfile
import threading
from pathlib import Path

import pytest
from support.controller import TestController
from support.fake_hostapd import FakeHostapd
from wislice_agent_proto import client as client_mod

from wislice_ap_agent import config as config_mod
from wislice_ap_agent.agent import Agent
from wislice_ap_agent.bssconf import RadioConfig
from wislice_ap_agent.hostapd_ctrl import HostapdControl
from wislice_ap_agent.stats import RateMeter
from wislice_ap_agent.vaps import VapManager


class RecordingShaper:
    """The Shaper interface, recording instead of shaping: caps[ifname] = (down_kbps, up_kbps), rates[ifname] = the
    whole rate_limit, acs[ifname] = the WMM access category, radios[name] = capacity."""

    name = "recording"

    def __init__(self) -> None:
        self.caps: dict[str, tuple[int, int]] = {}
        self.rates: dict[str, dict] = {}
        self.slots: dict[str, int] = {}
        self.acs: dict[str, str] = {}  # ifname -> WMM access category as applied
        self.radios: dict[str, int] = {}
        self.calls: list[tuple] = []
        self.fail = False

    def add_radio(self, name: str, iface: str, capacity_kbps: int) -> None:
        self.calls.append(("add_radio", name, iface, capacity_kbps))
        self.radios[name] = capacity_kbps

    def set_capacity(self, name: str, capacity_kbps: int) -> None:
        self.calls.append(("set_capacity", name, capacity_kbps))
        self.radios[name] = capacity_kbps

    def remove_radio(self, name: str) -> None:
        self.calls.append(("remove_radio", name))
        self.radios.pop(name, None)

    def apply(self, radio: str, ifname: str, slot: int, rate_limit: dict, wmm_ac: str = "be") -> None:
        from wislice_ap_agent.shaping import ShapingError

        self.calls.append(("apply", radio, ifname, slot, dict(rate_limit)))
        if self.fail:
            raise ShapingError("tc exploded")
        self.acs[ifname] = wmm_ac
        self.caps[ifname] = (rate_limit["down_kbps"], rate_limit["up_kbps"])
        self.rates[ifname] = dict(rate_limit)
        self.slots[ifname] = slot

    def remove(self, radio: str, ifname: str, slot: int) -> None:
        self.calls.append(("remove", radio, ifname, slot))
        self.acs.pop(ifname, None)
        self.caps.pop(ifname, None)
        self.rates.pop(ifname, None)


class FakeSwitch:
    present = True

    def __init__(self) -> None:
        self.ports: dict[str, int] = {}
        self.next_port = 3
        self.port_rates: list[tuple[str, int]] = []
        self.port_rate_error: str | None = None
        self.attached: list[tuple[str, int | None]] = []  # every attach call: (ifname, the number asked for)
        self.probes: dict[tuple[str, int], tuple[str, str, str, int]] = {}
        self.probe_starts: list[tuple[str, int, str, str, str, int]] = []  # every session started
        self.probe_readings: dict[tuple[str, int], dict[str, int]] = {}  # what probe-stats reports

    def attach(self, ifname: str, port_id: int | None = None) -> int:
        self.attached.append((ifname, port_id))
        self.ports[ifname] = port_id or self.next_port
        self.next_port += port_id is None
        return self.ports[ifname]

    def port_names(self) -> set[str]:
        return set(self.ports)

    def detach(self, ifname: str) -> None:
        self.ports.pop(ifname, None)
        for key in [k for k in self.probes if k[0] == ifname]:
            del self.probes[key]

    def set_port_rate(self, name: str, kbps: int) -> None:
        from wislice_ap_agent.pofswitch import SwitchError

        if self.port_rate_error:
            raise SwitchError(f"pof-switch refused port-rate: {self.port_rate_error}")
        self.port_rates.append((name, kbps))

    # Probe sessions as the switch keeps them: (port, id) -> the start's arguments; they go with their port.
    def probe_start(self, port: str, probe_id: int, src_mac: str, src_ip: str, dst_ip: str,
                    interval_us: int) -> None:
        from wislice_ap_agent.pofswitch import SwitchError

        if port not in self.ports:
            raise SwitchError(f"pof-switch refused probe-start: ERROR no port {port}", f"no port {port}")
        if (port, probe_id) in self.probes:
            raise SwitchError("pof-switch refused probe-start: ERROR exists", f"probe {port} {probe_id} exists")
        self.probes[(port, probe_id)] = (src_mac, src_ip, dst_ip, interval_us)
        self.probe_starts.append((port, probe_id, src_mac, src_ip, dst_ip, interval_us))

    def probe_stats(self, port: str, probe_id: int):
        from wislice_agent_proto.switch_mgmt import ProbeStats

        from wislice_ap_agent.pofswitch import SwitchError

        if (port, probe_id) not in self.probes or port not in self.ports:
            raise SwitchError("pof-switch refused probe-stats", f"no probe {port} {probe_id}")
        return ProbeStats(**self.probe_readings.get((port, probe_id), dict.fromkeys(
            ("sent", "received", "lost", "p50_us", "p90_us", "p99_us", "max_us", "samples"), 0)))

    def probe_stop(self, port: str, probe_id: int) -> bool:
        return self.probes.pop((port, probe_id), None) is not None


@pytest.fixture
def sockdir():
    # AF_UNIX paths are limited to 108 bytes: pytest's tmp_path can be longer.
    with tempfile.TemporaryDirectory(prefix="apag") as d:
        yield Path(d)


@pytest.fixture
def fake_hostapd(sockdir):
    h = FakeHostapd(str(sockdir / "global"))
    yield h
    h.close()


@pytest.fixture
def manager(fake_hostapd, sockdir, radio, shaper, switch):
    """A VapManager on the fake hostapd; ``manager.emitted`` holds its events."""
    emitted = []
    h = HostapdControl(fake_hostapd.path, str(sockdir))
    m = VapManager(h, [radio], str(sockdir / "conf"), "/var/run/hostapd", shaper, switch,
                   emit=lambda name, data: emitted.append((name, data)))
    m.emitted = emitted
    yield m
    h.close()


@pytest.fixture
def radio() -> RadioConfig:
    return RadioConfig("phy0", "wlan0", "02:00:00:00:00:00", 6, "g", 4)


@pytest.fixture
def shaper() -> RecordingShaper:
    return RecordingShaper()


@pytest.fixture
def switch() -> FakeSwitch:
    return FakeSwitch()


def vap_spec(vap_id: str = "v1", **over):
    spec = {"vap_id": vap_id, "radio": "phy0", "ssid": f"ssid-{vap_id}", "security": {"mode": "open"},
            "tenant_id": 1, "slice_id": "s-1", "rate_limit": {"down_kbps": 0, "up_kbps": 0}}
    spec.update(over)
    return spec


def fake_sysfs(root):
    for ifname in ("wlan0_1", "wlan0_2"):
        d = root / ifname / "statistics"
        d.mkdir(parents=True)
        for name in ("tx_bytes", "rx_bytes", "tx_packets", "rx_packets"):
            (d / name).write_text("0\n")
    return root


def make_config(fake_hostapd, sockdir, controller, **over):
    d = {"agent_id": "ap-1", "controller": controller.address, "secret": "test-secret",
         "hostapd_global": fake_hostapd.path, "conf_dir": str(sockdir / "conf"), "client_dir": str(sockdir),
         "stats_interval_s": 1, "keepalive_s": 1,
         "radios": [{"name": "phy0", "iface": "wlan0", "max_vaps": 4, "mac": "02:00:00:00:00:00", "channel": 6,
                     "hw_mode": "g"}]}
    d.update(over)
    return config_mod.from_dict(d)


@pytest.fixture
def controller():
    c = TestController()
    yield c
    c.close()


@pytest.fixture
def run_agent(fake_hostapd, sockdir, shaper, switch, monkeypatch):
    monkeypatch.setattr(client_mod, "BACKOFF_MIN_S", 0.05)
    started = []

    def start(controller, **over):
        a = Agent(make_config(fake_hostapd, sockdir, controller, **over), shaper=shaper, attacher=switch)
        a.vaps.meter = RateMeter(fake_sysfs(sockdir / "sys"))
        t = threading.Thread(target=a.run, daemon=True)
        t.start()
        started.append((a, t))
        return a

    yield start
    for a, t in started:
        a.stop()
        t.join(5)
        a.close()
        assert not t.is_alive()
