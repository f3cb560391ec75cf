"""A small POF test controller: accepts one switch, runs the reference handshake, sends and awaits messages.

Uses the Python codec (tests/pofwire.py) that is checked against spec/pof/vectors.
"""

from __future__ import annotations

import socket
import sys
import time
from pathlib import Path
from typing import Any

from wislice_agent_proto.switch_mgmt import SwitchMgmt
from wislice_agent_proto.switch_mgmt import parse_ports as switch_ports

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import pofwire  # noqa: E402

ETH_DST = {"field_id": 0, "offset": 0, "length": 48}
ETH_TYPE = {"field_id": 2, "offset": 96, "length": 16}
IP_DST = {"field_id": 5, "offset": 240, "length": 32}

# A scripted controller reads only while it awaits an answer, so the switch's ECHO_REQUEST to a quiet session goes
# unanswered and the switch drops it after --controller-timeout (15 s): a test step longer than that (a dockerd
# restart, a traffic run) would lose its controller. Switches driven by this controller get an hour; the liveness
# tests (test_abuse_channel.py) set their own short timeout after these.
SCRIPTED_CONTROLLER_ARGS = ("--controller-timeout", "3600")


def mgmt_command(path: Path | str, line: str) -> str:
    """One command on a switch's management socket (spec/switch-mgmt: a line in, a line out), its reply stripped;
    through the agents' client of it."""
    return SwitchMgmt(str(path)).request(line)


def parse_ports(reply: str) -> dict[str, dict]:
    """The management socket's ``ports`` reply, ``OK <id>:<name>:<enabled>:<rx_packets>:<tx_packets>:<rx_bytes>:
    <tx_bytes> ...``, as name -> {"id", "enabled", and the counters}."""
    if not (reply == "OK" or reply.startswith("OK ")):
        raise ValueError(f"ports: {reply!r}")
    return {name: {"id": p.port_id, "enabled": p.enabled, "rx_packets": p.rx_packets, "tx_packets": p.tx_packets,
                   "rx_bytes": p.rx_bytes, "tx_bytes": p.tx_bytes} for name, p in switch_ports(reply[3:]).items()}


def mx(field: dict, value: bytes, mask: bytes | None = None) -> dict:
    n = (field["length"] + 7) // 8
    mask = mask if mask is not None else b"\xff" * n
    return {**field, "value": value.hex().ljust(32, "0"), "mask": mask.hex().ljust(32, "0")}


def output(port: int) -> dict:
    return {"type": "OUTPUT", "port_type": 0, "metadata_offset": 0, "metadata_len": 0, "packet_offset": 0,
            "value": port}


class Controller:
    """Listens on 127.0.0.1 (ephemeral port); one switch at a time."""

    def __init__(self) -> None:
        self.server = socket.socket()
        self.server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.server.bind(("127.0.0.1", 0))
        self.server.listen(1)
        self.port = self.server.getsockname()[1]
        self.conn: socket.socket | None = None
        self.buf = bytearray()
        self.pending: list[dict] = []
        self.xid = 100

    def close(self) -> None:
        if self.conn:
            self.conn.close()
        self.server.close()

    def accept(self, timeout: float = 10) -> None:
        self.server.settimeout(timeout)
        if self.conn:
            self.conn.close()
        self.conn, _ = self.server.accept()
        self.buf.clear()
        self.pending.clear()

    def send(self, msg: dict) -> int:
        if "xid" not in msg:
            self.xid += 1
            msg = {**msg, "xid": self.xid}
        self.send_raw(pofwire.encode(msg))
        return msg["xid"]

    def send_raw(self, raw: bytes) -> None:
        assert self.conn is not None
        self.conn.sendall(raw)

    def _fill(self, deadline: float) -> None:
        assert self.conn is not None
        self.conn.settimeout(max(0.01, deadline - time.monotonic()))
        try:
            data = self.conn.recv(65536)
        except socket.timeout:
            return
        if not data:
            raise ConnectionError("switch closed the connection")
        self.buf += data
        self.pending += [pofwire.decode(m) for m in pofwire.split_stream(self.buf)]

    def recv(self, mtype: str, timeout: float = 5, where: Any = None) -> dict:
        """Returns the first message of type mtype (and matching where(msg)), keeping the others queued."""
        deadline = time.monotonic() + timeout
        while True:
            for i, m in enumerate(self.pending):
                if m["type"] == mtype and (where is None or where(m)):
                    return self.pending.pop(i)
            if time.monotonic() > deadline:
                raise TimeoutError(f"no {mtype} within {timeout} s; queued: {[m['type'] for m in self.pending]}")
            self._fill(deadline)

    def expect_no(self, mtype: str, wait: float = 0.5) -> None:
        try:
            m = self.recv(mtype, timeout=wait)
        except TimeoutError:
            return
        raise AssertionError(f"unexpected {m}")

    def handshake(self, of10_config: bool = False) -> dict[str, dict]:
        """The reference order; returns the announced ports by name. of10_config: SET_CONFIG in OpenFlow 1.0's
        12-byte form, as controllers written for the reference switch send it (spec/pof "Liberal acceptance")."""
        self.recv("HELLO")
        self.send({"type": "HELLO"})
        self.send({"type": "FEATURES_REQUEST"})
        feats = self.recv("FEATURES_REPLY")["body"]
        config = {"flags": 0, "miss_send_len": 128} if of10_config else {
            "dev_id": feats["dev_id"], "flags": 0, "miss_send_len": 128}
        self.send({"type": "SET_CONFIG", "body": config})
        self.send({"type": "GET_CONFIG_REQUEST"})
        self.config = self.recv("GET_CONFIG_REPLY")["body"]
        self.resources = self.recv("RESOURCE_REPORT")["body"]
        ports = {}
        for _ in range(feats["port_num"]):
            p = self.recv("PORT_STATUS")["body"]["port"]
            ports[p["name"]] = p
        return ports

    def enable_port(self, port: dict) -> None:
        self.send({"type": "PORT_MOD", "body": {"reason": 2, "port": {**port, "of_enable": 1}}})

    def echo(self, data: bytes = b"ping") -> None:
        xid = self.send({"type": "ECHO_REQUEST", "body": {"data": data.hex()}})
        self.recv("ECHO_REPLY", where=lambda m: m["xid"] == xid)

    def table(self, table_type: int, table_id: int, name: str, matches: list[dict], size: int = 256) -> None:
        self.send({"type": "TABLE_MOD", "body": {
            "command": 0, "table_id": table_id, "table_type": table_type, "size": size, "slot_id": 0, "name": name,
            "matches": matches}})

    def flow(self, table_type: int, table_id: int, index: int, matches: list[dict], instructions: list[dict],
             priority: int = 0, counter_id: int = 0, command: int = 0) -> int:
        return self.send({"type": "FLOW_MOD", "body": {
            "command": command, "counter_id": counter_id, "cookie": 0, "cookie_mask": 0, "table_id": table_id,
            "table_type": table_type, "idle_timeout": 0, "hard_timeout": 0, "priority": priority, "index": index,
            "slot_id": 0, "matches": matches, "instructions": instructions}})

    def meter(self, meter_id: int, rate_kbps: int, committed_kbps: int = 0, command: int = 0,
              flags: int = 0) -> int:
        """METER_MOD: rate = the peak (kbit/s); committed_kbps > 0 makes it a two-rate meter (green within it);
        flags 1 (LATENCY) a latency-class meter."""
        return self.send({"type": "METER_MOD", "body": {"command": command, "flags": flags, "slot_id": 0,
                                                        "meter_id": meter_id, "rate": rate_kbps,
                                                        "committed_rate": committed_kbps}})

    def port_stats(self, port_no: int = pofwire.PORT_ALL) -> tuple[int, list[dict]]:
        """MULTIPART PORT_STATS for one port (or all): the request's xid and the entries of all its replies."""
        xid = self.send({"type": "MULTIPART_REQUEST", "body": {"mp_type": 4, "flags": 0, "port_no": port_no}})
        entries: list[dict] = []
        while True:
            body = self.recv("MULTIPART_REPLY", where=lambda m: m["xid"] == xid)["body"]
            entries += body["stats"]
            if not body["flags"] & pofwire.REPLY_MORE:
                return xid, entries

    def counter(self, counter_id: int) -> dict:
        xid = self.send({"type": "COUNTER_REQUEST", "body": {"command": 0, "slot_id": 0, "counter_id": counter_id,
                                                             "packets": 0, "bytes": 0}})
        return self.recv("COUNTER_REPLY", where=lambda m: m["xid"] == xid)["body"]
