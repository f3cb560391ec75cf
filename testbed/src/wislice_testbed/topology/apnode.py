"""The AP node: the AP VM (testbed/ap-vm: qemu TCG, mac80211_hwsim, real hostapd) with, inside it, the AP's own
pofswitch-afp (as on an OpenWrt AP), the real ap-agent attaching vAP netdevs to that switch, and stations (hwsim
radios in their own namespaces). The agent and the switch are the image's installed OpenWrt packages, configured
in UCI (/etc/config/wislice-ap-agent, /etc/config/wislice-pofswitch) and run by their init scripts under the VM's
procd (testbed/ap-vm/firmware.py): the firmware path an integrator's AP runs. The VM gets a second NIC on a host
tap device: the AP switch's uplink, which is a port of the core switch on the host. Control traffic (agent ->
wifi-controller, switch -> network controller) uses qemu user networking (the guest reaches the host's 127.0.0.1:P
at 10.0.2.2:P).
"""

from __future__ import annotations

import shutil
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from typing import Any

from .common import repo_root, wait_for
from .onos import Onos
from .pofswitch import device_id
from .secondap import AP2_UPLINK_MAC, SecondAp

UPLINK_MAC = "52:54:00:5e:00:01"
UPLINK_MTU = 1600  # the slice tag adds 4 bytes between switches
AP_DEV_ID = 1
MGMT = "/run/wislice/pof-mgmt.sock"
# GRO off on a guest netdev without ethtool (not in the image): SIOCETHTOOL with ETHTOOL_SGRO, value 0.
GRO_OFF = ("python3 -c \"import fcntl,socket,struct,array,sys;s=socket.socket();"
           "b=array.array('B',struct.pack('II',0x2c,0));"
           "fcntl.ioctl(s,0x8946,struct.pack('16sP',sys.argv[1].encode(),b.buffer_info()[0]))\" ")


AGENT = "wislice-ap-agent"
SWITCH = "wislice-pofswitch"


def _ap_vm_modules() -> tuple[Any, Any, Any]:
    """testbed/ap-vm is a directory of modules, not a package: import its driver from there."""
    path = str(repo_root() / "testbed" / "ap-vm")
    if path not in sys.path:
        sys.path.insert(0, path)
    import apvm
    import firmware
    import wifi
    return apvm, wifi, firmware


@dataclass
class ApNode:
    vm: Any
    hostapd: Any
    stations: list[Any]
    agent_id: str
    tap: str
    agent_pid: int
    switch_pid: int
    wifi: Any = field(repr=False, default=None)
    onos: Any = field(repr=False, default=None)
    firmware: Any = field(repr=False, default=None)
    capacity_kbps: int = 0
    # The two-AP testbed's second AP in the same VM (secondap.py), None in the one-AP testbed.
    second: Any = None

    def crash(self, pid: int) -> None:
        """kill -9 of a guest process, as a crash (procd would respawn the agent or switch after 5 s)."""
        self.vm.run(f"kill -9 {pid}; while kill -0 {pid} 2>/dev/null; do sleep 0.05; done", check=False)

    def restart_agent(self) -> None:
        """The ap-agent started again at once (`/etc/init.d/wislice-ap-agent restart`), not after procd's respawn
        delay."""
        self.start_agent(self.capacity_kbps, action="restart")

    def restart_switch(self) -> None:
        self.vm.run(f"/etc/init.d/{SWITCH} restart")
        self.switch_pid = self.firmware.service_pid(self.vm, SWITCH)

    def hostapd_pid(self) -> int:
        return int(self.vm.run("cat /run/hostapd.pid").out.split()[0])

    def restart_hostapd(self) -> None:
        """hostapd started again with its own radio's configuration only, as procd would; the vAPs it lost are
        the ap-agent's to add again."""
        self.vm.run("rm -f /run/hostapd.pid", check=False)
        self.hostapd.start()

    @property
    def device_id(self) -> str:
        return device_id(AP_DEV_ID)

    def start_agent(self, capacity_kbps: int = 0, action: str = "start") -> None:
        """Starts the ap-agent from UCI through its init script (capacity_kbps: the radio's usable capacity as the
        operator sets it in the agent's config; 0 = the agent measures it from its stations' PHY rates) and waits
        until both it and the AP switch are connected to their controllers."""
        self.capacity_kbps = capacity_kbps
        self.firmware.write_uci(self.vm, AGENT, [
            ("agent", "agent", {"enabled": True, "agent_id": self.agent_id, "controller_host": "10.0.2.2",
                                "controller_port": self.onos.wifi_port, "secret": self.onos.secret,
                                "hostapd_global": "/run/hostapd-global", "hostapd_ctrl_dir": "/run/hostapd",
                                "conf_dir": "/run/wislice/agent", "shaping": "tc", "stats_interval": 2,
                                "pof_switch_socket": MGMT, "remove_vaps_on_exit": True, "log_level": "INFO"}),
            ("radio", "radio0", {"phy": "phy0", "iface": "wlan0", "max_vaps": 4,
                                 **({"capacity_kbps": capacity_kbps} if capacity_kbps else {})})])
        if action == "start":
            self.firmware.start_services(self.vm, AGENT)
        else:
            self.vm.run(f"/etc/init.d/{AGENT} {action}")
        self.agent_pid = self.firmware.service_pid(self.vm, AGENT)
        try:
            wait_for("ap-agent connected to the wifi-controller", lambda: any(
                a["agent_id"] == self.agent_id and a.get("connected") and
                (not capacity_kbps or any(r.get("capacity_kbps") == capacity_kbps for r in a.get("radios", [])))
                for a in self.onos.get("/onos/wifi/agents")["agents"]), timeout=90, period=0.5)
            wait_for("AP pof-switch connected to the network controller",
                     lambda: self.onos.switch_connected(self.device_id), timeout=60, period=0.5)
        except TimeoutError as exc:
            raise RuntimeError(f"{exc}\nagent log:\n{self.agent_log()}\nswitch log:\n{self.switch_log()}") from exc

    def stop_agent(self) -> None:
        """`/etc/init.d/wislice-ap-agent stop`: procd ends it with SIGTERM (it removes its vAPs on exit), SIGKILL
        after 5 s."""
        self.vm.run(f"/etc/init.d/{AGENT} stop", check=False)

    def set_radio_capacity(self, capacity_kbps: int) -> None:
        """The operator changes the radio's capacity in the agent's config and restarts the agent (no slice may
        be on the AP: the agent removes its vAPs on exit)."""
        self.stop_agent()
        self.start_agent(capacity_kbps)

    def agent_log(self, lines: int = 40) -> str:
        return self.vm.run(f"tail -n {lines} /var/log/{AGENT}.log", check=False).out

    def switch_log(self, lines: int = 40) -> str:
        return self.vm.run(f"tail -n {lines} /var/log/{SWITCH}.log", check=False).out


@contextmanager
def ap_node(onos: Onos, tap: str, agent_id: str = "ap-1", stations: int = 2, say: Any = print,
            capacity_kbps: int = 0, firmware_key: Any = None, second_tap: str | None = None) -> Iterator[ApNode]:
    """capacity_kbps: the radio's usable capacity as the operator sets it in the agent's config (0 = the agent
    measures it from its stations' PHY rates). firmware_key: a usign SigningKey whose public key the AP trusts
    for firmware upgrades (in /etc/opkg/keys, as an integrator's image would carry it). second_tap: the uplink of
    a second AP in the same VM (agent ap-2 on phy1, see secondap.py; the stations then start at phy2)."""
    apvm, wifi, firmware = _ap_vm_modules()
    if shutil.which(apvm.QEMU) is None:
        raise RuntimeError(f"{apvm.QEMU} missing (testbed/ap-vm/deps/apt.txt)")
    aps = 2 if second_tap else 1
    vm = apvm.ApVm(radios=aps + stations, uplink_tap=tap, uplink_mac=UPLINK_MAC,
                   more_uplinks=((second_tap, AP2_UPLINK_MAC),) if second_tap else ())
    vm.start()
    try:
        say(f"AP VM booted in {vm.boot_s:.1f} s (qemu TCG, {aps + stations} hwsim radios, uplink tap {tap}"
            + (f", ap-2's uplink tap {second_tap})" if second_tap else ")"))
        # The uplink NIC, found by its MAC: up, room for the tag, no GRO (AF_PACKET must see wire-sized frames).
        up = vm.run(f"grep -l {UPLINK_MAC} /sys/class/net/*/address").out.split("/")[4]
        vm.run(f"ip link set {up} mtu {UPLINK_MTU} up && {GRO_OFF}{up}")
        if firmware_key is not None:
            firmware.trust_key(vm, firmware_key.public_text, firmware_key.key_hex)
        firmware.write_uci(vm, SWITCH, [("switch", "switch", {
            "enabled": True, "controller_host": "10.0.2.2", "controller_port": onos.pof_port, "dev_id": AP_DEV_ID,
            "mgmt_socket": MGMT, "port": [f"up={up}"]})])
        firmware.start_services(vm, SWITCH)
        switch_pid = firmware.service_pid(vm, SWITCH)
        vm.wait_for(f"test -S {MGMT}", timeout=20)
        hostapd = wifi.Hostapd(vm, iface="wlan0", channel=1)
        hostapd.start()
        second = SecondAp(vm, wifi.Hostapd(vm, iface="wlan1", channel=1, phy="phy1", name="hostapd-2"), onos,
                          tap=second_tap) if second_tap else None
        stas = [wifi.Station(vm, f"sta{i}", f"phy{i + aps - 1}").setup() for i in range(1, stations + 1)]
        node = ApNode(vm, hostapd, stas, agent_id, tap, 0, switch_pid, wifi, onos, firmware, second=second)
        node.start_agent(capacity_kbps)
        try:
            if second is not None:
                up2 = vm.run(f"grep -l {AP2_UPLINK_MAC} /sys/class/net/*/address").out.split("/")[4]
                vm.run(f"ip link set {up2} mtu {UPLINK_MTU} up && {GRO_OFF}{up2}")
                second.start_switch(up2)
                second.hostapd.start(ssid="wislice-primary-2")
                second.start_agent()
            yield node
        finally:
            for sta in stas:
                with suppress(Exception):
                    sta.disconnect()
            if second is not None:
                second.stop()
            # The agent removes its vAPs on exit (remove_vaps_on_exit); then the switch.
            node.stop_agent()
            vm.run(f"/etc/init.d/{SWITCH} stop", check=False)
            time.sleep(0.1)
    finally:
        vm.stop()
