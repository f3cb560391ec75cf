"""steerClient: controller-initiated handover by 802.11v BSS Transition Management (BTM).

The serving BSS sends the station a BTM request (hostapd's BSS_TM_REQ) whose candidate list holds the target BSS
alone, preferred, and waits a bounded time for the station's BTM response (hostapd's BSS-TM-RESP event). Whether
the station then really moves shows at the target: its association there.

The wait uses its own ATTACHed connection to hostapd's global socket, opened before the request is sent, so the
response cannot slip by between request and wait, and the agent's event connection keeps its own order.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from wislice_agent_proto.errors import AgentError

from .clients import is_associated
from .events import BtmResponse, parse_event
from .hostapd_ctrl import CtrlConnection, CtrlError, HostapdControl
from .vaps import VapManager

# Bounded wait for the station's answer: wpa_supplicant answers within tens of ms; a station that says nothing in
# 3 s is treated as not answering (the agent's loop is blocked meanwhile, so keep it short).
RESPONSE_WAIT_S = 3.0

# Extended Capabilities bit 19 (IEEE 802.11-2020 Table 9-153): BSS Transition.
EXT_CAPAB_BSS_TRANSITION_BIT = 19

# BSSID Information of the candidate (IEEE 802.11-2020 9.4.2.36): AP reachable (bits 0-1 = 3), same security
# (bit 2) and same authenticator (bit 3): the target is another BSS of the same slice, same SSID and credentials.
CANDIDATE_BSSID_INFO = 0x0F

# Optional subelement: BSS Transition Candidate Preference (id 3, length 1) at the highest preference, 255.
CANDIDATE_PREFERENCE = "0301ff"

# BTM response status codes (IEEE 802.11-2020 Table 9-428), for the reply's reason.
BTM_STATUS = {
    0: "accept",
    1: "reject: unspecified",
    2: "reject: insufficient beacons",
    3: "reject: insufficient capacity",
    4: "reject: BSS termination undesired",
    5: "reject: BSS termination delay requested",
    6: "reject: the station has its own candidate list",
    7: "reject: no suitable candidates",
    8: "reject: leaving the ESS",
}


def operating_class(channel: int) -> int:
    """The global operating class (IEEE 802.11-2020 Table E-4) of a 20 MHz channel."""
    if 1 <= channel <= 13:
        return 81
    if channel == 14:
        return 82
    for first, last, op_class in ((36, 48, 115), (52, 64, 118), (100, 144, 121), (149, 177, 125)):
        if first <= channel <= last:
            return op_class
    raise AgentError("bad_request", f"no operating class for channel {channel}")


def phy_type(channel: int) -> int:
    """PHY type of the candidate (IEEE 802.11-2020 Annex C dot11PHYType): ERP on 2.4 GHz, OFDM on 5 GHz (the
    vAPs' BSS files set no HT/VHT)."""
    return 6 if channel <= 14 else 4


def supports_bss_transition(sta: dict[str, str]) -> bool:
    """The station's Extended Capabilities, as hostapd's STA command prints them (ext_capab=<hex>), announce BSS
    Transition. A station without the element cannot take a BTM request."""
    raw = sta.get("ext_capab", "")
    try:
        capab = bytes.fromhex(raw)
    except ValueError:
        return False
    byte, bit = divmod(EXT_CAPAB_BSS_TRANSITION_BIT, 8)
    return len(capab) > byte and bool(capab[byte] & (1 << bit))


@dataclass(frozen=True)
class SteerRequest:
    vap_id: str
    mac: str
    target_bssid: str
    target_channel: int | None = None
    disassoc_timer_tbtt: int | None = None

    @staticmethod
    def of(p: dict[str, Any]) -> SteerRequest:
        return SteerRequest(p["vap_id"], p["mac"], p["target_bssid"], p.get("target_channel"),
                            p.get("disassoc_timer_tbtt"))


def bss_tm_command(req: SteerRequest, channel: int) -> str:
    """hostapd's BSS_TM_REQ for one preferred candidate (values already validated by the schema)."""
    # BSSID Information in hex with its 0x: hostapd reads it with strtol base 0, which takes that form too.
    neighbor = (f"{req.target_bssid},0x{CANDIDATE_BSSID_INFO:02x},{operating_class(channel)},{channel},"
                f"{phy_type(channel)},{CANDIDATE_PREFERENCE}")
    cmd = f"BSS_TM_REQ {req.mac} pref=1 abridged=1 neighbor={neighbor}"
    if req.disassoc_timer_tbtt is not None:
        cmd += f" disassoc_imminent=1 disassoc_timer={req.disassoc_timer_tbtt}"
    return cmd


class Steering:
    def __init__(self, hostapd: HostapdControl, vaps: VapManager, wait_s: float = RESPONSE_WAIT_S) -> None:
        self.hostapd = hostapd
        self.vaps = vaps
        self.wait_s = wait_s

    def _target_channel(self, req: SteerRequest, serving_radio: str) -> int:
        if req.target_channel is not None:
            return req.target_channel
        for vap in self.vaps.vaps.values():
            if vap.bssid == req.target_bssid:
                return self.vaps.radios[vap.spec["radio"]].channel
        return self.vaps.radios[serving_radio].channel

    def steer(self, p: dict[str, Any]) -> dict[str, Any]:
        req = SteerRequest.of(p)
        vap = self.vaps.get(req.vap_id)
        if req.target_bssid == vap.bssid:
            raise AgentError("bad_request", f"{req.target_bssid} is the serving BSS of vAP {req.vap_id}")
        try:
            sta = self.hostapd.sta(vap.ifname, req.mac)
        except CtrlError as e:
            raise AgentError("internal", f"hostapd STA on {vap.ifname}: {e}") from e
        if sta is None or not is_associated(sta):
            raise AgentError("not_found", f"no client {req.mac} on vAP {req.vap_id}")
        if not supports_bss_transition(sta):
            raise AgentError("unsupported", f"client {req.mac} does not announce BSS Transition support")
        cmd = bss_tm_command(req, self._target_channel(req, vap.spec["radio"]))
        try:
            with CtrlConnection(self.hostapd.global_path, self.hostapd.client_dir, self.hostapd.timeout) as events:
                events.attach()
                reply = self.hostapd.raw(cmd, vap.ifname).strip()
                if reply != "OK":
                    raise AgentError("internal", f"hostapd refused BSS_TM_REQ for {req.mac}: {reply or 'no reply'}")
                answer = self._wait_response(events, vap.ifname, req.mac)
        except CtrlError as e:
            raise AgentError("internal", f"hostapd BSS_TM_REQ for {req.mac}: {e}") from e
        if answer is None:
            return {"accepted": False, "status_code": None,
                    "reason": f"no BSS Transition Management response from the station in {self.wait_s:g} s"}
        status = answer.status_code
        words = BTM_STATUS.get(status, "reject: reserved status")
        return {"accepted": status == 0, "status_code": status,
                "reason": "the station accepted the transition" if status == 0 else f"the station answered {words}"}

    def _wait_response(self, events: CtrlConnection, ifname: str, mac: str) -> BtmResponse | None:
        deadline = time.monotonic() + self.wait_s
        while (left := deadline - time.monotonic()) > 0:
            if not events.wait_readable(left):
                break
            line = events.recv_event()
            if line is None:
                continue
            ev = parse_event(line)
            if isinstance(ev, BtmResponse) and ev.mac == mac and ev.ifname in (None, ifname):
                return ev
        return None

