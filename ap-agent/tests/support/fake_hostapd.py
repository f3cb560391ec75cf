"""A fake hostapd for unit tests: a real unix datagram server speaking hostapd's control text protocol on a
global socket (ADD/REMOVE/ATTACH, per-BSS commands with IFNAME=), with stations injected by the test."""

from __future__ import annotations

import contextlib
import os
import socket
import threading
from dataclasses import dataclass, field

KNOWN_KEYS = {
    "interface", "driver", "ctrl_interface", "bssid", "ssid2", "utf8_ssid", "hw_mode", "channel",
    "ignore_broadcast_ssid", "max_num_sta", "wpa", "wpa_key_mgmt", "rsn_pairwise", "ieee80211w", "sae_require_mfp",
    "wpa_passphrase", "wpa_psk", "sae_password", "bss_transition", "wmm_enabled",
}
# Extended Capabilities with bit 19 (BSS Transition) set, as wpa_supplicant's station announces it.
EXT_CAPAB_BTM = "0000080000000040"


@dataclass
class FakeBss:
    ifname: str
    conf: dict[str, str]
    state: str = "ENABLED"
    stations: dict[str, dict[str, str]] = field(default_factory=dict)


class FakeHostapd:
    def __init__(self, path: str, phys: tuple[str, ...] = ("phy0",)) -> None:
        self.path = path
        self.phys = phys
        self.bss: dict[str, FakeBss] = {"wlan0": FakeBss("wlan0", {"channel": "6", "bssid": "02:00:00:00:00:00"})}
        self.attached: set[str] = set()
        self.commands: list[str] = []
        self.fail_next: dict[str, str] = {}  # command word -> reply to give once
        self.btm_status: dict[str, int] = {}  # station MAC -> the BTM response status it answers (none: silent)
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(path)
        self.sock.settimeout(0.05)  # lets close() stop the server thread promptly
        self.lock = threading.Lock()
        self.stopping = False
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.stopping = True
        self.thread.join(2)
        self.sock.close()
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)

    # ---- test controls ---------------------------------------------------------------------------------------

    def event(self, text: str, ifname: str | None = None) -> None:
        line = (f"IFNAME={ifname} " if ifname else "") + f"<3>{text}"
        for peer in list(self.attached):
            try:
                self.sock.sendto(line.encode(), peer)
            except OSError:
                self.attached.discard(peer)

    def associate(self, ifname: str, mac: str, signal: int | None = -40, btm: bool = True) -> None:
        with self.lock:
            info = {"connected_time": "3", "tx_bytes": "1000", "rx_bytes": "2000"}
            if btm:
                info["ext_capab"] = EXT_CAPAB_BTM
            if signal is not None:
                info["signal"] = str(signal)
            self.bss[ifname].stations[mac] = info
        self.event(f"AP-STA-CONNECTED {mac}", ifname)

    def commands_named(self, word: str) -> list[str]:
        return [c for c in self.commands if c.split(" ", 1)[0] == word]

    # ---- protocol -------------------------------------------------------------------------------------------

    def _serve(self) -> None:
        while not self.stopping:
            try:
                data, peer = self.sock.recvfrom(65536)
            except TimeoutError:
                continue
            except OSError:
                return
            text = data.decode()
            with self.lock:
                self.commands.append(text)
                reply = self._handle(text, peer)
            with contextlib.suppress(OSError):
                self.sock.sendto(reply.encode(), peer)

    def _handle(self, text: str, peer: str) -> str:
        ifname = None
        if text.startswith("IFNAME="):
            head, _, text = text.partition(" ")
            ifname = head[len("IFNAME="):]
        word, _, arg = text.partition(" ")
        self.commands[-1] = text
        if word in self.fail_next:
            return self.fail_next.pop(word)
        if ifname is not None:
            bss = self.bss.get(ifname)
            if bss is None:
                return "FAIL\n"
            return self._per_bss(bss, word, arg)
        handler = {
            "PING": lambda: "PONG\n",
            "ATTACH": lambda: self._attach(peer),
            "DETACH": lambda: self._detach(peer),
            "ADD": lambda: self._add(arg),
            "REMOVE": lambda: self._remove(arg),
            "INTERFACES": lambda: "".join(f"{n}\n" for n in self.bss),
        }.get(word)
        return handler() if handler else "UNKNOWN COMMAND\n"

    def _attach(self, peer: str) -> str:
        self.attached.add(peer)
        return "OK\n"

    def _detach(self, peer: str) -> str:
        self.attached.discard(peer)
        return "OK\n"

    def _add(self, arg: str) -> str:
        if arg.startswith("bss_config="):
            phy, _, path = arg[len("bss_config="):].partition(":")
            if phy not in self.phys:
                return "FAIL\n"
        else:
            _, _, path = arg.partition(" config=")
        try:
            with open(path) as f:
                lines = f.read().splitlines()
        except OSError:
            return "FAIL\n"
        conf = {}
        for line in lines:
            if not line or line.startswith("#"):
                continue
            key, sep, value = line.partition("=")
            if not sep or key not in KNOWN_KEYS:
                return "FAIL\n"
            conf[key] = value
        ifname = conf.get("interface", "")
        if not ifname or ifname in self.bss or conf.get("channel") != self.bss["wlan0"].conf["channel"]:
            return "FAIL\n"
        self.bss[ifname] = FakeBss(ifname, conf)
        self.event("AP-ENABLED ", ifname)
        return "OK\n"

    def _remove(self, ifname: str) -> str:
        bss = self.bss.pop(ifname, None)
        if bss is None or ifname == "wlan0":
            return "FAIL\n"
        for mac in bss.stations:
            self.event(f"AP-STA-DISCONNECTED {mac}", ifname)
        self.event("AP-DISABLED ", ifname)
        self.event("CTRL-EVENT-TERMINATING ", ifname)
        return "OK\n"

    def _per_bss(self, bss: FakeBss, word: str, arg: str) -> str:
        if word == "STATUS":
            conf = bss.conf
            return f"state={bss.state}\nchannel={conf.get('channel')}\nfreq=2437\nbssid[0]={conf.get('bssid')}\n"
        if word == "ENABLE":
            bss.state = "ENABLED"
            return "OK\n"
        if word in ("STA", "STA-FIRST", "STA-NEXT"):
            macs = list(bss.stations)
            if word == "STA":
                mac = arg if arg in bss.stations else None
            elif word == "STA-FIRST":
                mac = macs[0] if macs else None
            else:
                i = macs.index(arg) + 1 if arg in macs else len(macs)
                mac = macs[i] if i < len(macs) else None
            if mac is None:
                return "FAIL\n" if word == "STA" else ""
            return mac + "\n" + "".join(f"{k}={v}\n" for k, v in bss.stations[mac].items())
        if word in ("DEAUTHENTICATE", "DISASSOCIATE"):
            mac = arg.split()[0]
            if bss.stations.pop(mac, None) is not None:
                self.event(f"AP-STA-DISCONNECTED {mac}", bss.ifname)
            return "OK\n"
        if word == "BSS_TM_REQ":
            mac = arg.split()[0]
            if mac not in bss.stations:
                return "FAIL\n"
            if mac in self.btm_status:
                self.event(f"BSS-TM-RESP {mac} status_code={self.btm_status[mac]} bss_termination_delay=0",
                           bss.ifname)
            return "OK\n"
        if word == "CHAN_SWITCH":
            cs_count, freq = arg.split()[:2]
            for b in self.bss.values():
                b.conf["channel"] = str((int(freq) - 2407) // 5)
            self.event(f"AP-CSA-FINISHED freq={freq} dfs=0", bss.ifname)
            return "OK\n"
        return "UNKNOWN COMMAND\n"
