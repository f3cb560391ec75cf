"""The parts a fault test kills, each with what a supervisor (systemd on the controller host and the MEC node,
procd on the AP) does once it died: start it again with the same configuration and state."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Fault:
    kind: str
    crash: Callable[[Any], None]
    restart: Callable[[Any], None]
    data_path: bool = False  # the slice's frames cross it: its traffic stops until the part is back
    hold_s: float = 1.0      # how long the part stays dead before its supervisor notices


def _crash_hostapd(tb: Any) -> None:
    tb.ap.crash(tb.ap.hostapd_pid())


# The AP's control network (its ap-agent and switch reach the controllers at the qemu host address 10.0.2.2) cut
# in the guest: established connections go silent, new ones fail; the AP's data uplink is another NIC.
CUT_S = 40.0  # longer than the agent's silence limit (30 s) and the controller's idle timeout


def _cut_ap(tb: Any) -> None:
    tb.ap.vm.run("ip route add blackhole 10.0.2.2/32")


def _heal_ap(tb: Any) -> None:
    tb.ap.vm.run("ip route del blackhole 10.0.2.2/32")


FAULTS: dict[str, Fault] = {f.kind: f for f in (
    Fault("orchestrator", lambda tb: tb.orch.crash(), lambda tb: tb.orch.restart()),
    Fault("ap-agent", lambda tb: tb.ap.crash(tb.ap.agent_pid), lambda tb: tb.ap.restart_agent()),
    Fault("mec-agent", lambda tb: tb.processes.crash(tb.mec.agent), lambda tb: tb.mec.restart_agent()),
    Fault("ap-switch", lambda tb: tb.ap.crash(tb.ap.switch_pid), lambda tb: tb.ap.restart_switch(), True),
    Fault("core-switch", lambda tb: tb.processes.crash(tb.core_switch), lambda tb: tb.restart_core_switch(), True),
    Fault("mec-switch", lambda tb: tb.processes.crash(tb.mec.switch), lambda tb: tb.mec.restart_switch(), True),
    Fault("hostapd", _crash_hostapd, lambda tb: tb.ap.restart_hostapd(), True),
    Fault("dockerd", lambda tb: tb.mec.dockerd.crash(), lambda tb: tb.mec.dockerd.restart()),
    Fault("ap-control-cut", _cut_ap, _heal_ap, hold_s=CUT_S),
    Fault("onos", lambda tb: tb.onos.crash(), lambda tb: tb.onos.restart()),
)}
