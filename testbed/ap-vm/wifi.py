"""WiFi inside the AP VM: hostapd with its global control socket on one radio, and stations (other hwsim radios
moved into their own network namespaces, each running wpa_supplicant) so traffic really crosses the simulated air.

All values written into hostapd/wpa_supplicant files here come from test code, yet are still checked: a test
helper must not become a way to inject config lines.
"""

from __future__ import annotations

import re
import shlex
import time
from dataclasses import dataclass

from apvm import ApVm, GuestError, Result

GLOBAL_SOCKET = "/run/hostapd-global"
CTRL_DIR = "/run/hostapd"
CONF_DIR = "/run/wislice"
HOSTAPD_LOG = "/tmp/hostapd.log"
SAFE = re.compile(r"^[A-Za-z0-9 _.,:+=@#%/-]{1,63}$")
NAME = re.compile(r"^[A-Za-z0-9_]{1,15}$")


def _safe(value: str, what: str, pattern: re.Pattern[str] = SAFE) -> str:
    if not pattern.match(value):
        raise ValueError(f"{what} {value!r} has characters this helper does not write into a config file")
    return value


def security_lines(mode: str, passphrase: str | None) -> list[str]:
    """hostapd lines for a BSS's security mode."""
    if mode == "open":
        return []
    assert passphrase is not None
    pw = _safe(passphrase, "passphrase")
    if mode == "wpa2-psk":
        return ["wpa=2", "wpa_key_mgmt=WPA-PSK", "rsn_pairwise=CCMP", f"wpa_passphrase={pw}"]
    if mode == "wpa3-sae":
        return ["wpa=2", "wpa_key_mgmt=SAE", "rsn_pairwise=CCMP", "ieee80211w=2", f"sae_password={pw}"]
    raise ValueError(f"unknown security mode {mode!r}")


def bss_conf(ifname: str, ssid: str, bssid: str, channel: int = 1, mode: str = "open",
             passphrase: str | None = None, ctrl_dir: str = CTRL_DIR) -> str:
    lines = [f"interface={_safe(ifname, 'ifname', NAME)}", "driver=nl80211", f"ctrl_interface={_safe(ctrl_dir, 'dir')}",
             f"ssid={_safe(ssid, 'ssid')}", "hw_mode=g", f"channel={int(channel)}", f"bssid={bssid}",
             *security_lines(mode, passphrase)]
    return "\n".join(lines) + "\n"


class Hostapd:
    """hostapd on the VM's phy0 (netdev wlan0) with a primary BSS, driven through its global control socket.
    ``name`` other than "hostapd" runs a further instance (the two-AP testbed's second AP, on its own phy) with
    its own global socket, control directory, pid file and log, all derived from the name."""

    def __init__(self, vm: ApVm, iface: str = "wlan0", channel: int = 1, phy: str = "phy0",
                 name: str = "hostapd") -> None:
        self.vm = vm
        self.iface = iface
        self.channel = channel
        self.phy = _safe(phy, "phy", NAME)
        self.name = _safe(name, "name", re.compile(r"^[A-Za-z0-9_-]{1,15}$"))
        first = name == "hostapd"
        self.global_socket = GLOBAL_SOCKET if first else f"/run/{name}-global"
        self.ctrl_dir = CTRL_DIR if first else f"/run/{name}"
        self.pid_file = f"/run/{name}.pid"
        self.log_file = HOSTAPD_LOG if first else f"/tmp/{name}.log"

    def start(self, ssid: str = "wislice-primary") -> None:
        mac = self.vm.run(f"cat /sys/class/net/{self.iface}/address").out.strip()
        conf = bss_conf(self.iface, ssid, mac, self.channel, ctrl_dir=self.ctrl_dir)
        self.write_file(f"{CONF_DIR}/{self.iface}.conf", conf)
        self.vm.run(f"mkdir -p {self.ctrl_dir} && hostapd -B -t -f {self.log_file} -P {self.pid_file} "
                    f"-g {self.global_socket} {CONF_DIR}/{self.iface}.conf")
        self.vm.wait_for(f"test -S {self.ctrl_dir}/{self.iface}", timeout=20)

    def stop(self) -> None:
        self.vm.run(f"test -f {self.pid_file} && kill $(cat {self.pid_file}); rm -f {self.pid_file}", check=False)
        if self.name == "hostapd":
            self.vm.wait_for("! pidof hostapd", timeout=10)

    def write_file(self, path: str, text: str) -> None:
        self.vm.run(f"mkdir -p $(dirname {shlex.quote(path)}) && cat > {shlex.quote(path)} <<'WISLICE_EOF'\n"
                    f"{text}WISLICE_EOF")

    def ctl(self, cmd: str, sock: str = "", check: bool = True) -> str:
        sock = sock or self.global_socket
        res = self.vm.run(f"python3 /opt/wislice/hostapd_ctl.py {sock} {shlex.quote(cmd)}", check=False)
        if check and res.rc != 0:
            raise GuestError(f"hostapd {cmd!r} -> {res.out.strip()} {res.err.strip()}")
        return res.out.strip()

    def bss_ctl(self, ifname: str, cmd: str, check: bool = True) -> str:
        return self.ctl(cmd, sock=f"{self.ctrl_dir}/{_safe(ifname, 'ifname', NAME)}", check=check)

    def vap_bssid(self, slot: int) -> str:
        """A locally administered BSSID per slot, derived from the radio MAC."""
        mac = self.vm.run(f"cat /sys/class/net/{self.iface}/address").out.strip()
        octets = [int(x, 16) for x in mac.split(":")]
        octets[0] |= 0x02
        octets[5] ^= slot
        return ":".join(f"{o:02x}" for o in octets)

    def add_bss(self, slot: int, ssid: str, mode: str = "open", passphrase: str | None = None) -> str:
        ifname = f"{self.iface}_{slot}"
        path = f"{CONF_DIR}/{ifname}.conf"
        self.write_file(path, bss_conf(ifname, ssid, self.vap_bssid(slot), self.channel, mode, passphrase,
                                       self.ctrl_dir))
        self.ctl(f"ADD bss_config={self.phy}:{path}")
        return ifname

    def remove_bss(self, ifname: str) -> None:
        self.ctl(f"REMOVE {ifname}")

    def log(self) -> str:
        return self.vm.run(f"cat {self.log_file}", check=False).out


@dataclass
class Station:
    """A hwsim radio in its own network namespace ``ns`` inside the VM, running wpa_supplicant."""

    vm: ApVm
    ns: str
    phy: str
    ifname: str = ""

    @property
    def ctrl_dir(self) -> str:
        return f"/run/wpas-{self.ns}"

    def setup(self) -> Station:
        _safe(self.ns, "namespace", NAME)
        _safe(self.phy, "phy", NAME)
        ifname = self.vm.run(f"ls /sys/class/ieee80211/{self.phy}/device/net/").out.split()[0]
        self.ifname = _safe(ifname, "ifname", NAME)
        self.vm.run(f"ip netns add {self.ns} && iw phy {self.phy} set netns name {self.ns} && "
                    f"ip -n {self.ns} link set lo up && ip -n {self.ns} link set {self.ifname} up")
        return self

    def exec(self, cmd: str, timeout: float = 60.0, check: bool = True) -> Result:
        return self.vm.run(f"ip netns exec {self.ns} {cmd}", timeout=timeout, check=check)

    def evict_neighbours_on_carrier_loss(self, evict: bool) -> None:
        """Linux's arp_evict_nocarrier / ndisc_evict_nocarrier (default 1): whether the station's neighbour entries
        are flushed when its carrier goes down. mac80211 drops the carrier on every roam, so with 1 the first
        datagram after a move waits for an ARP exchange (and ~1 s more when that request is lost); the kernel's
        documentation names 0 as the setting for a wireless client roaming between APs of one network."""
        value = int(evict)
        conf = f"/proc/sys/net/ipv4/conf/{self.ifname}/arp_evict_nocarrier"
        conf6 = f"/proc/sys/net/ipv6/conf/{self.ifname}/ndisc_evict_nocarrier"
        self.exec(f"sh -c 'echo {value} > {conf}; if [ -e {conf6} ]; then echo {value} > {conf6}; fi'")

    def connect(self, ssid: str, mode: str = "open", passphrase: str | None = None, address: str | None = None
                ) -> None:
        """(Re)start wpa_supplicant for one network; returns at once (see wait_associated)."""
        self.disconnect()
        net = [f'ssid="{_safe(ssid, "ssid")}"', "scan_ssid=1"]
        if mode == "open":
            net.append("key_mgmt=NONE")
        elif mode in ("wpa2-psk", "wpa2-ft-psk"):
            # wpa2-ft-psk: 802.11r FT-PSK where the BSS offers it (a roam within its mobility domain skips the
            # 4-way handshake), WPA-PSK elsewhere.
            key_mgmt = "FT-PSK WPA-PSK" if mode == "wpa2-ft-psk" else "WPA-PSK"
            net += [f"key_mgmt={key_mgmt}", f'psk="{_safe(passphrase or "", "passphrase")}"']
        elif mode == "wpa3-sae":
            net += ["key_mgmt=SAE", f'sae_password="{_safe(passphrase or "", "passphrase")}"', "ieee80211w=2"]
        else:
            raise ValueError(f"unknown security mode {mode!r}")
        conf = f"ctrl_interface={self.ctrl_dir}\nnetwork={{\n  " + "\n  ".join(net) + "\n}\n"
        path = f"{CONF_DIR}/wpas-{self.ns}.conf"
        self.vm.run(f"mkdir -p {CONF_DIR} && cat > {path} <<'WISLICE_EOF'\n{conf}WISLICE_EOF")
        self.exec(f"wpa_supplicant -B -i {self.ifname} -c {path} -P /run/wpas-{self.ns}.pid "
                  f"-f /tmp/wpas-{self.ns}.log -t")
        if address:
            self.exec(f"ip addr replace {_safe(address, 'address')} dev {self.ifname}")

    def disconnect(self) -> None:
        self.vm.run(f"f=/run/wpas-{self.ns}.pid; if [ -f $f ]; then kill $(cat $f); "
                    f"while [ -e $f ]; do sleep 0.05; done; fi", timeout=15)

    def state(self) -> dict[str, str]:
        res = self.exec(f"wpa_cli -p {self.ctrl_dir} -i {self.ifname} status", check=False)
        return dict(line.split("=", 1) for line in res.out.splitlines() if "=" in line)

    def wait_associated(self, timeout: float = 30.0) -> float:
        """Seconds until wpa_supplicant reports COMPLETED (associated and, if secured, keys installed)."""
        started = time.monotonic()
        while time.monotonic() - started < timeout:
            if self.state().get("wpa_state") == "COMPLETED":
                return time.monotonic() - started
            time.sleep(0.2)
        log = self.vm.run(f"tail -n 30 /tmp/wpas-{self.ns}.log", check=False).out
        raise GuestError(f"station {self.ns} not associated after {timeout} s: {self.state()}\n{log}")

    def wait_disassociated(self, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.state().get("wpa_state") != "COMPLETED":
                return
            time.sleep(0.2)
        raise GuestError(f"station {self.ns} still associated after {timeout} s")

    def mac(self) -> str:
        return self.exec(f"cat /sys/class/net/{self.ifname}/address").out.strip()
