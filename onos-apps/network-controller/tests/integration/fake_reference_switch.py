"""A switch that speaks POF as the POF reference switch does, for the controller's side of interoperability.

It dials the controller, runs the reference's handshake with the reference's identity (a vendor_id that is not
pof-switch's "WiSlice", RESOURCE_REPORT with 128 groups), and then behaves as the reference does towards a
controller: TABLE_MOD, FLOW_MOD, METER_MOD, COUNTER_MOD and PORT_MOD are taken without an answer (the reference
stores a meter's rate but applies none), ECHO and COUNTER_REQUEST are answered, and MULTIPART (a WiSlice
extension) gets ERROR BAD_REQUEST/BAD_TYPE. QUERYALL_REQUEST is answered as the reference answers it on a switch it
has just started (it keeps nothing of what it was sent): after the reference's 0.1 s pause, no tables, flows,
meters or counters to replay, then QUERYALL_FIN with the request's xid; a slot other than 0 and 0xFFFF gets the
reference's ERROR SOFTWARE_FAILED/INVALID_SLOT_ID instead. A request whose body is not the reference's 8 bytes with
slot_id 0xFFFF is recorded in `violations` (the reference reads its slot from those bytes; without them it reads
whatever its buffer holds). It forwards no packets. Messages go through pof-switch's Python codec
(pof-switch/tests/pofwire.py), the codec the spec vectors check.
"""

from __future__ import annotations

import socket
import sys
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[4] / "pof-switch" / "tests"))
import pofwire  # noqa: E402

REFERENCE_VENDOR = "POF reference (fake)"
BAD_REQUEST, BAD_TYPE = 1, 1
QUERYALL_PAUSE_S = 0.1  # the reference waits this long before it answers QUERYALL


def _port(dev_id: int, port_id: int) -> dict[str, Any]:
    return {"slot_id": 0, "port_id": port_id, "dev_id": dev_id, "hw_addr": f"02000000{dev_id & 0xff:02x}{port_id:02x}",
            "name": f"r{port_id}", "config": 0, "state": 0, "curr": 0, "advertised": 0, "supported": 0, "peer": 0,
            "curr_speed": 1_000_000, "max_speed": 1_000_000, "of_enable": 0}


class FakeReferenceSwitch:
    """Connects on start(); received messages (after the handshake) are kept in `received` by type name."""

    def __init__(self, controller_port: int, dev_id: int, ports: int = 2, host: str = "127.0.0.1") -> None:
        self.address = (host, controller_port)
        self.dev_id = dev_id
        self.ports = ports
        self.received: list[dict[str, Any]] = []
        # What the controller sent that the reference would not read as meant (e.g. a QUERYALL without its body).
        self.violations: list[str] = []
        self.lock = threading.Lock()
        self.sock: socket.socket | None = None
        self.thread: threading.Thread | None = None
        self.error: BaseException | None = None
        self._buf = bytearray()
        self._frames: list[bytes] = []

    def start(self) -> FakeReferenceSwitch:
        self.sock = socket.create_connection(self.address, timeout=30)
        self.thread = threading.Thread(target=self._run, name=f"fake-reference-{self.dev_id}", daemon=True)
        self.thread.start()
        return self

    def handshake_only(self) -> socket.socket:
        """Connects and runs the handshake on this thread, with no reader after it: the caller owns the socket
        (a switch that then misbehaves)."""
        self.sock = socket.create_connection(self.address, timeout=30)
        self._handshake()
        return self.sock

    def close(self) -> None:
        if self.sock is not None:
            try:
                self.sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            self.sock.close()
        if self.thread is not None:
            self.thread.join(timeout=5)

    def __enter__(self) -> FakeReferenceSwitch:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def of_type(self, name: str) -> list[dict[str, Any]]:
        with self.lock:
            return [m for m in self.received if m["type"] == name]

    def _send(self, t: str, xid: int, body: dict[str, Any] | None = None) -> None:
        assert self.sock is not None
        self.sock.sendall(pofwire.encode({"type": t, "xid": xid, "body": body or {}}))

    def _next(self) -> dict[str, Any]:
        assert self.sock is not None
        while not self._frames:
            data = self.sock.recv(65536)
            if not data:
                raise ConnectionError("controller closed the connection")
            self._buf += data
            self._frames += pofwire.split_stream(self._buf)
        raw = self._frames.pop(0)
        try:
            return pofwire.decode(raw)
        except pofwire.CodecError:
            # Something this codec does not read in full: keep the type, as the reference would go on.
            return {"type": pofwire.TYPE_NAMES.get(raw[1], f"TYPE_{raw[1]}"), "xid": int.from_bytes(raw[4:8], "big"),
                    "body": {}}

    def _expect(self, t: str) -> dict[str, Any]:
        m = self._next()
        if m["type"] != t:
            raise AssertionError(f"handshake: expected {t}, got {m['type']}")
        return m

    def _handshake(self) -> None:
        self._send("HELLO", 1)
        self._expect("HELLO")
        fr = self._expect("FEATURES_REQUEST")
        self._send("FEATURES_REPLY", fr["xid"], {
            "dev_id": self.dev_id, "slot_id": 0, "port_num": self.ports, "table_num": 45,
            "capabilities": 0x0F, "vendor_id": REFERENCE_VENDOR, "dev_fw_id": "1.4.0", "dev_lkup_id": "1.4.0"})
        self._expect("SET_CONFIG")
        gc = self._expect("GET_CONFIG_REQUEST")
        self._send("GET_CONFIG_REPLY", gc["xid"], {"dev_id": self.dev_id, "flags": 0, "miss_send_len": 128})
        tables = [{"dev_id": self.dev_id, "type": t, "tbl_num": n, "key_len": 160, "total_size": 8000}
                  for t, n in enumerate((10, 10, 5, 20))]
        self._send("RESOURCE_REPORT", gc["xid"], {"resource_type": 0, "slot_id": 0, "counter_num": 512,
                                                  "meter_num": 256, "group_num": 128, "tables": tables})
        for p in range(1, self.ports + 1):
            self._send("PORT_STATUS", gc["xid"], {"reason": 0, "port": _port(self.dev_id, p)})

    def _answer_queryall(self, m: dict[str, Any]) -> None:
        slot = m["body"].get("slot_id")
        if slot != pofwire.ALL_SLOTS:
            with self.lock:
                self.violations.append(f"QUERYALL_REQUEST xid {m['xid']}: body {m['body']}, the reference reads "
                                       f"slot_id 0xFFFF (every slot) from an 8-byte body")
        if slot not in (None, 0, pofwire.ALL_SLOTS):
            self._send("ERROR", m["xid"], {"type": pofwire.SOFTWARE_FAILED, "code": pofwire.INVALID_SLOT_ID,
                                           "dev_id": self.dev_id, "slot_id": 0, "string": "POF_INVALID_SLOT_ID"})
            return
        time.sleep(QUERYALL_PAUSE_S)
        self._send("QUERYALL_FIN", m["xid"])

    def _run(self) -> None:
        try:
            self._handshake()
            assert self.sock is not None
            self.sock.settimeout(None)
            while True:
                m = self._next()
                with self.lock:
                    self.received.append(m)
                t, xid = m["type"], m["xid"]
                if t == "ECHO_REQUEST":
                    self._send("ECHO_REPLY", xid, m["body"])
                elif t == "COUNTER_REQUEST":
                    self._send("COUNTER_REPLY", xid, {**m["body"], "packets": 0, "bytes": 0})
                elif t == "QUERYALL_REQUEST":
                    self._answer_queryall(m)
                elif t in ("MULTIPART_REQUEST", "BARRIER_REQUEST"):
                    self._send("ERROR", xid, {"type": BAD_REQUEST, "code": BAD_TYPE, "dev_id": self.dev_id,
                                              "slot_id": 0, "string": "unsupported message type"})
        except Exception as exc:  # noqa: BLE001 - the connection ended (or broke): the test reads it
            self.error = exc
