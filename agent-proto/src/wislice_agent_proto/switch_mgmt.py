"""The pof-switch's management socket (spec/switch-mgmt/README.md): a unix stream socket, one command line in, one
reply line out, ``OK ...`` or ``ERROR <reason>``. The one client of it: the ap-agent (vAP ports, its uplink port's
rate, the latency probes on its vAPs' ports), the mec-agent (vNF ports and their counters) and pof-switch's own tests.

``request()`` sends any line and returns the reply as it is; the typed methods check what they send, parse what
comes back and raise MgmtError when the switch refuses (``reason`` = the text after ``ERROR``).
"""

from __future__ import annotations

import ipaddress
import re
import socket
from dataclasses import dataclass, fields

MAX_COMMAND = 510  # bytes before the newline: the switch reads a line into 512 bytes with its newline and a NUL
MAX_REPLY = 65536  # the switch's longest reply (`ports` with 254 ports) is 49152 bytes


class MgmtError(Exception):
    """The switch refused a command (``reason`` is its text after ``ERROR``), or could not be reached or read."""

    def __init__(self, message: str, reason: str | None = None) -> None:
        super().__init__(message)
        self.reason = reason


@dataclass
class SwitchPort:
    """One item of ``ports``. Counters are the switch's side: rx = what the switch received from the port."""

    name: str
    port_id: int
    enabled: bool = True
    rx_packets: int = 0
    tx_packets: int = 0
    rx_bytes: int = 0
    tx_bytes: int = 0


def parse_ports(text: str) -> dict[str, SwitchPort]:
    """The text after ``OK`` of ``ports``: ``<id>:<name>:<enabled>:<rx_packets>:<tx_packets>:<rx_bytes>:<tx_bytes>``
    items separated by spaces, by name."""
    out = {}
    for item in text.split():
        fields = item.split(":")
        if len(fields) != 7 or not all(f.isdigit() for f in (fields[0], *fields[2:])) or fields[2] not in ("0", "1"):
            raise MgmtError(f"pof-switch: unparsable port entry {item!r}")
        pid, name, enabled, rx, tx, rx_bytes, tx_bytes = fields
        out[name] = SwitchPort(name=name, port_id=int(pid), enabled=enabled == "1", rx_packets=int(rx),
                               tx_packets=int(tx), rx_bytes=int(rx_bytes), tx_bytes=int(tx_bytes))
    return out


def parse_counters(text: str) -> dict[str, int]:
    """The text after ``OK`` of ``port-stats`` and ``stats``: ``key=N`` items separated by spaces."""
    out = {}
    for item in text.split():
        key, _, value = item.partition("=")
        if not key or not value.isdigit():
            raise MgmtError(f"pof-switch: unparsable counter {item!r}")
        out[key] = int(value)
    return out


@dataclass
class ProbeStats:
    """``probe-stats`` of one in-band latency probe session (spec/switch-mgmt/README.md, "Probes"): requests sent,
    replies counted, requests lost (no reply within 1 s), RTT percentiles in microseconds over the latest ``samples``
    (at most 1024; 0 without samples), the ARP answers it gave and (DST_MAC auto) the ARP requests it sent, and
    whether it knows its next hop's MAC (False while an auto session waits for its first answer). A switch older
    than DST_MAC auto reports no arp_requests/resolved: 0 and True."""

    sent: int
    received: int
    lost: int
    p50_us: int
    p90_us: int
    p99_us: int
    max_us: int
    samples: int
    arp_replies: int = 0
    arp_requests: int = 0
    resolved: bool = True


def parse_probe_stats(text: str) -> ProbeStats:
    """The text after ``OK`` of ``probe-stats``; keys it does not know (a later switch's) are left out."""
    counters = parse_counters(text)
    known = {f.name for f in fields(ProbeStats)}
    missing = [k for k in ("sent", "received", "lost", "p50_us", "p90_us", "p99_us", "max_us", "samples")
               if k not in counters]
    if missing:
        raise MgmtError(f"pof-switch: probe-stats without {', '.join(missing)}: {text!r}")
    values: dict[str, int | bool] = {k: v for k, v in counters.items() if k in known}
    if "resolved" in values:
        values["resolved"] = values["resolved"] == 1
    return ProbeStats(**values)  # type: ignore[arg-type]


_MAC = re.compile(r"[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){5}")
PROBE_SIZE = (64, 1472)
PROBE_INTERVAL_US = (1000, 60_000_000)
PROBE_COUNT = (1, 1_000_000_000)


def _probe_id(probe_id: int) -> int:
    if isinstance(probe_id, bool) or not isinstance(probe_id, int) or not 0 <= probe_id <= 65535:
        raise ValueError(f"a probe id is an integer 0-65535, not {probe_id!r}")
    return probe_id


def _mac(what: str, mac: str, unicast: bool) -> str:
    if not isinstance(mac, str) or not _MAC.fullmatch(mac) or (
            unicast and (int(mac[:2], 16) & 1 or int(mac.replace(":", ""), 16) == 0)):
        raise ValueError(f"{what} is a {'unicast ' if unicast else ''}MAC address xx:xx:xx:xx:xx:xx, not {mac!r}")
    return mac


def _ipv4(what: str, ip: str) -> str:
    try:
        if isinstance(ip, str) and str(ipaddress.IPv4Address(ip)) == ip:
            return ip
    except ValueError:
        pass
    raise ValueError(f"{what} is an IPv4 address a.b.c.d, not {ip!r}")


def _option(key: str, value: int | None, bounds: tuple[int, int]) -> str:
    if value is None:
        return ""
    if isinstance(value, bool) or not isinstance(value, int) or not bounds[0] <= value <= bounds[1]:
        raise ValueError(f"probe {key} is an integer {bounds[0]}-{bounds[1]}, not {value!r}")
    return f" {key}={value}"


def _name(name: str) -> str:
    """A NAME argument: one word (the switch splits the line at white space)."""
    if not name or len(name.split()) != 1 or name != name.strip():
        raise ValueError(f"a switch port name is one word, not {name!r}")
    return name


class SwitchMgmt:
    def __init__(self, path: str, timeout: float = 5.0) -> None:
        self.path = path
        self.timeout = timeout

    def request(self, line: str) -> str:
        """One command line -> the reply line, stripped, whatever it says. MgmtError when the socket cannot be
        used; ValueError for a line the switch would misread (a line break, more than MAX_COMMAND bytes)."""
        data = line.encode()
        if b"\n" in data or b"\r" in data or len(data) > MAX_COMMAND:
            raise ValueError(f"a management command is one line of at most {MAX_COMMAND} bytes: {line[:80]!r}")
        buf = b""
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
                s.settimeout(self.timeout)
                s.connect(self.path)
                s.sendall(data + b"\n")
                while not buf.endswith(b"\n"):
                    chunk = s.recv(65536)
                    if not chunk:
                        break
                    buf += chunk
                    if len(buf) > MAX_REPLY:
                        raise MgmtError(f"pof-switch reply to {line.split(' ', 1)[0]} longer than {MAX_REPLY} bytes")
        except OSError as e:
            raise MgmtError(f"pof-switch management socket {self.path}: {e}") from e
        return buf.decode("utf-8", "replace").strip()

    def call(self, line: str) -> str:
        """The text after ``OK``; MgmtError for anything else (``reason`` set for ``ERROR <reason>``)."""
        reply = self.request(line)
        if reply == "OK" or reply.startswith("OK "):
            return reply[3:]
        reason = reply[6:] if reply.startswith("ERROR ") else None
        raise MgmtError(f"pof-switch refused {line.split(' ', 1)[0]}: {reply or 'no reply'}", reason)

    def port_add(self, name: str, args: str = "", port_id: int | None = None) -> int:
        """Adds port NAME (ARGS: the netdev for AF_PACKET, DPDK devargs, an item rate=KBPS) as number ``port_id``
        (the one it had before the switch restarted) or the lowest free one; its port id."""
        if port_id is not None:
            if not 1 <= port_id <= 254:
                raise ValueError(f"port id {port_id} out of range 1-254")
            args = f"{args},id={port_id}" if args else f"id={port_id}"
        text = self.call(f"port-add {_name(name)} {args}".rstrip())
        if not text.isdigit() or not 1 <= int(text) <= 65535:
            raise MgmtError(f"pof-switch returned no valid port number: {text!r}")
        return int(text)

    def port_del(self, name: str) -> bool:
        """Removes port NAME; False when the switch has no such port."""
        try:
            self.call(f"port-del {_name(name)}")
        except MgmtError as e:
            if e.reason == f"no port {name}":
                return False
            raise
        return True

    def port_rate(self, name: str, kbps: int) -> None:
        """The port sends at kbps, green before best effort; 0 = line rate."""
        if isinstance(kbps, bool) or not isinstance(kbps, int) or kbps < 0:
            raise ValueError(f"a port rate is an integer >= 0 kbit/s, not {kbps!r}")
        self.call(f"port-rate {_name(name)} {kbps}")

    def port_stats(self, name: str) -> dict[str, int]:
        """A port's counters per class (rate, green_*, be_*, tx_dropped)."""
        return parse_counters(self.call(f"port-stats {_name(name)}"))

    def latency(self, name: str, on: bool) -> None:
        """Burst size 1 on the port, and the loop never sleeps (or back to normal)."""
        self.call(f"latency {_name(name)} {'on' if on else 'off'}")

    def on_connect(self, policy: str | None = None) -> str | None:
        """What a new controller session does to the switch's state: the policy now ('keep' or 'reset') when none
        is given, else sets it for the sessions that follow."""
        if policy is None:
            return self.call("on-connect")
        if policy not in ("keep", "reset"):
            raise ValueError(f"an on-connect policy is 'keep' or 'reset', not {policy!r}")
        self.call(f"on-connect {policy}")
        return None

    def ports(self) -> dict[str, SwitchPort]:
        return parse_ports(self.call("ports"))

    def stats(self) -> dict[str, int]:
        """The datapath's counters (processed, miss, dropped, short, tables, flows, packet_in)."""
        return parse_counters(self.call("stats"))

    def probe_start(self, name: str, probe_id: int, src_mac: str, dst_mac: str, src_ip: str, dst_ip: str, *,
                    size: int | None = None, interval_us: int | None = None, count: int | None = None) -> None:
        """Starts in-band latency probe session ``probe_id`` on port NAME: ICMP echo requests from the probe's own
        address (src_mac, src_ip: no host's) to dst_ip through next hop dst_mac, or ``"auto"`` for the switch to
        find that MAC by ARP. Options left out take the switch's defaults (64 bytes, every 10 ms, until stopped).
        MgmtError with reason ``probe NAME ID exists`` when it runs already."""
        line = (f"probe-start {_name(name)} {_probe_id(probe_id)} {_mac('SRC_MAC', src_mac, True)} "
                f"{dst_mac if dst_mac == 'auto' else _mac('DST_MAC', dst_mac, False)} {_ipv4('SRC_IP', src_ip)} "
                f"{_ipv4('DST_IP', dst_ip)}")
        line += (_option("size", size, PROBE_SIZE) + _option("interval_us", interval_us, PROBE_INTERVAL_US)
                 + _option("count", count, PROBE_COUNT))
        self.call(line)

    def probe_stats(self, name: str, probe_id: int) -> ProbeStats:
        """The session's counters and percentiles; MgmtError with reason ``no probe NAME ID`` when it is not
        there (never started, stopped, its port removed, or the switch restarted)."""
        return parse_probe_stats(self.call(f"probe-stats {_name(name)} {_probe_id(probe_id)}"))

    def probe_stop(self, name: str, probe_id: int) -> bool:
        """Ends the session; False when the switch has no such session."""
        try:
            self.call(f"probe-stop {_name(name)} {_probe_id(probe_id)}")
        except MgmtError as e:
            if e.reason == f"no probe {name} {probe_id}":
                return False
            raise
        return True
