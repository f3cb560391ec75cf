"""A vAP's WMM access category on the air (VapSpec wmm_ac), in the AP VM: real hostapd on hwsim phy0, two real
wpa_supplicant stations, one on a "vo" vAP and one on a "be" vAP of the same radio (with the agent's tc shaping,
so the frames take the IFB round trip the access category has to survive).

Downlink frames are sent into each vAP netdev through an AF_PACKET socket, as the AP's pofswitch-afp does, and the
QoS Data frames mac80211 puts on the air are read back from hwsim0 (the hwsim monitor: radiotap + 802.11 header):
the TID in their QoS Control field is 6 or 7 for the vo vAP's station and 0 for the be vAP's one."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import AgentRun, created_vaps
from wifi import Station

FRAMES = 40
# Runs in the guest: capture on hwsim0, send FRAMES IPv4 frames (DSCP 0) to each station through its vAP netdev,
# count the TIDs of the QoS Data frames the AP sent to each station. argv: json [[vap netdev, bssid, sta mac]...].
PROBE = r"""
import json, socket, struct, sys, time
pairs = json.loads(sys.argv[1])
cap = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))
cap.bind(("hwsim0", 0))
cap.settimeout(0.2)
def mac(s): return bytes.fromhex(s.replace(":", ""))
ip = bytes.fromhex("450000" + "1c" + "0000 4000 4011 0000 0a000001 0a000002".replace(" ", "")) + bytes(8)
for dev, bssid, sta in pairs:
    out = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    out.bind((dev, 0))
    for _ in range(%d):
        out.send(mac(sta) + mac(bssid) + b"\x08\x00" + ip)
    out.close()
tids = {sta: {} for _, _, sta in pairs}
end = time.monotonic() + 3
while time.monotonic() < end:
    try:
        f = cap.recv(4096)
    except socket.timeout:
        continue
    f = f[struct.unpack_from("<H", f, 2)[0]:]  # past radiotap
    if len(f) < 26 or (f[0] >> 2) & 3 != 2 or not f[0] & 0x80 or f[1] & 3 != 2:  # QoS data, FromDS only
        continue
    dst = ":".join("%%02x" %% b for b in f[4:10])
    if dst in tids:
        tid = str(f[24] & 0x0F)
        tids[dst][tid] = tids[dst].get(tid, 0) + 1
print(json.dumps(tids))
""" % FRAMES


def vap(vap_id: str, ssid: str, wmm_ac: str | None) -> dict[str, Any]:
    spec: dict[str, Any] = {"vap_id": vap_id, "radio": "phy0", "ssid": ssid, "security": {"mode": "open"},
                            "tenant_id": 1, "slice_id": "s-1", "rate_limit": {"down_kbps": 0, "up_kbps": 0}}
    if wmm_ac is not None:
        spec["wmm_ac"] = wmm_ac
    return spec


@pytest.fixture
def vaps(agent: AgentRun) -> Iterator[dict[str, dict[str, Any]]]:
    yield from created_vaps(agent, [vap(vap_id, f"wmm-{vap_id}", ac) for vap_id, ac in (("v-voice", "vo"),
                                                                                        ("v-bulk", None))])


def test_voice_vap_frames_go_out_with_tid_6_or_7_and_best_effort_with_tid_0(
        agent: AgentRun, vaps: dict[str, dict[str, Any]], clean_stations: list[Station]) -> None:
    assert vaps["v-voice"]["wmm_ac"] == "vo" and vaps["v-bulk"]["wmm_ac"] == "be"
    voice_sta, bulk_sta = clean_stations[0], clean_stations[1]
    voice_sta.connect("wmm-v-voice")
    bulk_sta.connect("wmm-v-bulk")
    voice_sta.wait_associated(timeout=40)
    bulk_sta.wait_associated(timeout=40)
    pairs = [[vaps["v-voice"]["ifname"], vaps["v-voice"]["bssid"], voice_sta.mac()],
             [vaps["v-bulk"]["ifname"], vaps["v-bulk"]["bssid"], bulk_sta.mac()]]
    vm = agent.vm
    vm.run("ip link set hwsim0 up")
    vm.run("cat > /tmp/wmm_probe.py <<'WISLICE_EOF'\n" + PROBE + "WISLICE_EOF")
    started = time.monotonic()
    tids = json.loads(vm.run(f"python3 /tmp/wmm_probe.py '{json.dumps(pairs)}'", timeout=30).out)
    print(f"TIDs on the air {tids} in {time.monotonic() - started:.1f} s")
    voice, bulk = tids[pairs[0][2]], tids[pairs[1][2]]
    # most of the frames reach the air (hwsim retries nothing away), all in the class each vAP asked for
    assert sum(voice.values()) >= FRAMES // 2 and set(voice) <= {"6", "7"}, (tids, agent.log())
    assert sum(bulk.values()) >= FRAMES // 2 and set(bulk) == {"0"}, (tids, agent.log())
    assert agent.ctl.schema_errors == []
