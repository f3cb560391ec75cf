from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from support.fake_hostapd import FakeHostapd

from wislice_ap_agent.bssconf import RadioConfig


class RecordingShaper:
    name = "recording"

    def __init__(self) -> None:
        self.caps: dict[str, tuple[int, int]] = {}
        self.fail = False

    def apply(self, ifname: str, down_kbps: int, up_kbps: int) -> None:
        from wislice_ap_agent.shaping import ShapingError

        if self.fail:
            raise ShapingError("tc exploded")
        self.caps[ifname] = (down_kbps, up_kbps)

    def remove(self, ifname: str) -> None:
        self.caps.pop(ifname, None)


class FakeSwitch:
    present = True

    def __init__(self) -> None:
        self.ports: dict[str, int] = {}
        self.next_port = 3

    def attach(self, ifname: str) -> int:
        self.ports[ifname] = self.next_port
        self.next_port += 1
        return self.ports[ifname]

    def detach(self, ifname: str) -> None:
        self.ports.pop(ifname, None)


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
