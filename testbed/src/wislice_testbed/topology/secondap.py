"""The two-AP testbed's second AP (agent id ap-2), in the same AP VM as the first.

mac80211_hwsim radios share a medium only inside one kernel, so a station can hear, and roam between, two APs only
when both run in one VM (the other way, several VMs joined by wmediumd over vhost-user, needs a wmediumd build and
a second TCG guest: more CPU on a shared 2-core machine). The second AP is a whole AP of its own all the same: its
own hwsim radio (phy1, wlan1), its own hostapd (global socket /run/hostapd-2-global, control dir /run/hostapd-2),
its own ap-agent and its own pofswitch-afp (dev id 4) on its own uplink NIC, which a second host tap wires to a
port of the core switch.

The first AP runs the packaged services from UCI through their init scripts. The init scripts start one instance
each, so the second AP's agent and switch are the same installed programs (/usr/bin/wislice-ap-agent,
/usr/sbin/pofswitch-afp) started by the testbed: the agent from a copy of the INI file the first agent's init
script rendered (and its --check-config accepted), with the second AP's own values put in; not respawned by procd.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import Any

from .common import wait_for
from .pofswitch import device_id

AP2_DEV_ID = 4
AP2_AGENT_ID = "ap-2"
AP2_UPLINK_MAC = "52:54:00:5e:00:02"
AGENT_BIN = "/usr/bin/wislice-ap-agent"
SWITCH_BIN = "/usr/sbin/pofswitch-afp"
AP1_INI = "/var/etc/wislice-ap-agent/agent.ini"
RUN = "/run/wislice/ap-2"
INI = f"{RUN}/agent.ini"
MGMT = f"{RUN}/pof-mgmt.sock"
AGENT_LOG = "/var/log/wislice-ap-agent-2.log"
SWITCH_LOG = "/var/log/wislice-pofswitch-2.log"


def second_agent_ini(first: str, controller_port: int) -> str:
    """The first agent's rendered INI with the second AP's identity, hostapd, switch and radio put in."""
    values = {"agent_id": AP2_AGENT_ID, "hostapd_global": "/run/hostapd-2-global",
              "hostapd_ctrl_dir": "/run/hostapd-2", "conf_dir": f"{RUN}/agent", "pof_switch_socket": MGMT,
              "controller": f"10.0.2.2:{controller_port}"}
    out, seen = [], set()
    for line in first.splitlines():
        key = line.split("=", 1)[0].strip()
        if line.startswith("[radio "):
            if "radio" in seen:
                raise ValueError("the first agent's INI has several radios; the second AP takes one")
            seen.add("radio")
            out.append("[radio phy1]")
        elif key in values:
            seen.add(key)
            out.append(f"{key} = {values[key]}")
        elif key == "iface":
            out.append("iface = wlan1")
        elif key == "capacity_kbps":
            continue  # the second radio's capacity is measured from its stations, or set below
        else:
            out.append(line)
    missing = set(values) - seen
    if missing or "radio" not in seen:
        raise ValueError(f"the first agent's INI lacks {sorted(missing) or ['a radio']}: {first}")
    return "\n".join(out) + "\n"


@dataclass
class SecondAp:
    vm: Any
    hostapd: Any
    onos: Any = field(repr=False)
    agent_id: str = AP2_AGENT_ID
    tap: str = ""
    agent_pid: int = 0
    switch_pid: int = 0

    @property
    def device_id(self) -> str:
        return device_id(AP2_DEV_ID)

    def start_switch(self, uplink_ifname: str) -> None:
        if not re.fullmatch(r"[A-Za-z0-9_.-]{1,15}", uplink_ifname):
            raise ValueError(f"odd uplink netdev {uplink_ifname!r}")
        self.vm.run(f"mkdir -p {RUN}")
        self.switch_pid = self.vm.spawn(
            f"{SWITCH_BIN} --controller 10.0.2.2:{self.onos.pof_port} --mgmt {MGMT} --dev-id {AP2_DEV_ID} "
            f"--port up={uplink_ifname}", log=SWITCH_LOG)
        try:
            self.vm.wait_for(f"test -S {MGMT}", timeout=20)
        except Exception as exc:
            raise RuntimeError(f"ap-2's switch did not start: {exc}\n{self.switch_log()}") from exc

    def start_agent(self) -> None:
        ini = second_agent_ini(self.vm.run(f"cat {AP1_INI}").out, self.onos.wifi_port)
        self.vm.run(f"mkdir -p {RUN}/agent && umask 077 && cat > {INI} <<'WISLICE_EOF'\n{ini}WISLICE_EOF")
        self.vm.run(f"{AGENT_BIN} --config {INI} --check-config")
        self.agent_pid = self.vm.spawn(f"{AGENT_BIN} --config {INI}", log=AGENT_LOG)
        try:
            wait_for("ap-2's agent connected to the wifi-controller", lambda: any(
                a["agent_id"] == self.agent_id and a.get("connected")
                for a in self.onos.get("/onos/wifi/agents")["agents"]), timeout=90, period=0.5)
            wait_for("ap-2's pof-switch connected to the network controller",
                     lambda: self.onos.switch_connected(self.device_id), timeout=60, period=0.5)
        except TimeoutError as exc:
            raise RuntimeError(f"{exc}\nagent log:\n{self.agent_log()}\nswitch log:\n{self.switch_log()}") from exc

    def stop(self) -> None:
        """SIGTERM to the agent (it removes its vAPs on exit) and waits for it, then the switch, then hostapd."""
        for pid in (self.agent_pid, self.switch_pid):
            if pid:
                self.vm.run(f"kill {pid}; for i in $(seq 100); do kill -0 {pid} 2>/dev/null || break; "
                            f"sleep 0.05; done; kill -9 {pid} 2>/dev/null", check=False, timeout=15)
        self.agent_pid = self.switch_pid = 0
        self.hostapd.stop()
        time.sleep(0.1)

    def agent_log(self, lines: int = 40) -> str:
        return self.vm.run(f"tail -n {lines} {AGENT_LOG}", check=False).out

    def switch_log(self, lines: int = 40) -> str:
        return self.vm.run(f"tail -n {lines} {SWITCH_LOG}", check=False).out
