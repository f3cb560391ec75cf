"""The two-AP testbed (issue 16): one AP VM runs ap-1 and ap-2, each its own hwsim radio, hostapd, ap-agent and
AP pofswitch on its own uplink to the core switch. A station with a 10 ms UDP echo stream roams ap-1 -> ap-2 ->
ap-1 (wpa_cli roam, an 802.11r FT-PSK transition), then the wifi-controller steers it to ap-2 (802.11v BTM, POST
/onos/wifi/clients/{mac}/steer). After each move hostapd and the wifi-controller show the station at the new AP
and not at the old one, and the largest echo gap is bounded (scenarios/roaming.py says what the stream crosses).

A second test does it inside an orchestrator slice on both APs, the stream crossing the slice's POF path and vNF,
then steers the station under a TCP download through the slice; a third has the slice's vNF follow the station to
the nearest of two MEC nodes.

Marked ``twoap``: in the testbed tier (make test-integration); alone: ``make -C testbed test-two-aps``."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from wislice_testbed import demo
from wislice_testbed.pytest_plugin import requires_root
from wislice_testbed.topology.common import StepLog, repo_root, wait_for

pytestmark = pytest.mark.twoap

# An FT reassociation on hwsim is a few frames; in the TCG VM each costs several ms, and the station keeps its
# neighbour entries across the move (Roaming's keep_neighbours): 68-174 ms in the handover bench (README). 600 ms is
# far above that and below the ~1.05 s of a lost ARP retried after Linux's retrans_time, let alone a fallback to a
# full disconnect, scan and connect (seconds).
MAX_GAP_MS = 600.0


def where(roam: Any, mac: str) -> dict[str, Any]:
    return {"hostapd": {v.agent_id for v in roam.vaps if mac in roam.hostapd_stations(v)},
            "controller": roam.controller_agents(mac), "station": roam.vap_of(roam.serving()).agent_id}


def wait_at(roam: Any, mac: str, agent: str) -> None:
    """The station is on ``agent``'s BSS, and only that AP's hostapd and the wifi-controller list it there."""
    try:
        wait_for(f"{mac} at {agent} only", lambda: where(roam, mac) == {
            "hostapd": {agent}, "controller": {agent}, "station": agent}, timeout=20, period=0.5)
    except TimeoutError as exc:
        raise AssertionError(f"{exc}: {where(roam, mac)}, station {roam.sta.state()}") from exc


def orchestrator_at(roam: Any, mac: str, agent: str) -> None:
    """The orchestrator's view (operator GET /api/v1/clients) lists the station at ``agent`` only, as hostapd and the
    wifi-controller do (wait_at)."""
    def agents() -> set[str]:
        clients = roam.tb.orch.call("GET", "/api/v1/clients")[1]["clients"]
        return {c["agent_id"] for c in clients if c["mac"].lower() == mac}
    try:
        wait_for(f"the orchestrator lists {mac} at {agent} only", lambda: agents() == {agent}, timeout=20, period=0.5)
    except TimeoutError as exc:
        raise AssertionError(f"{exc}: {agents()}") from exc


def placed_on(roam: Any, mac: str, vap: Any) -> None:
    """The network controller sends the client's downlink to vap's AP (its branch, or the main path)."""
    try:
        wait_for(f"{mac} placed on {vap.vap_id}", lambda: roam.placement(mac) == vap.vap_id, timeout=20, period=0.2)
    except TimeoutError as exc:
        raise AssertionError(f"{exc}: {roam.path()}") from exc


@pytest.fixture(scope="module")
def two_aps() -> Iterator[tuple[Any, StepLog]]:
    requires_root()
    missing = demo.missing_parts(repo_root())
    if missing:
        pytest.skip(f"not built: {missing}")
    from wislice_testbed.topology.testbed import up

    log = StepLog("two-aps")
    with up(log, stations=1, aps=2, mecs=2) as tb:
        yield tb, log


def test_station_roams_between_two_aps_and_is_steered_back(two_aps) -> None:
    from wislice_testbed.scenarios.roaming import Roaming, summary

    tb, log = two_aps
    assert tb.ap2 is not None
    agents = {a["agent_id"]: a for a in tb.onos.get("/onos/wifi/agents")["agents"]}
    assert agents["ap-1"]["connected"] and agents["ap-2"]["connected"], agents
    topo = tb.wired_topology()
    # Two edge sites: ap-1 and mec-1 on the core, ap-2 and mec-2 behind the edge switch (dev 6).
    assert topo["attachments"]["ap-2"] == "pof:00000004" and topo["attachments"]["mec-2"] == "pof:00000005", topo
    assert len(topo["links"]) == 5, topo
    started = time.monotonic()
    roam = Roaming(tb)
    try:
        roam.open()
        ap1, ap2 = roam.vaps
        mac = roam.sta.mac()
        joined = roam.vap_of(roam.serving())
        wait_at(roam, mac, joined.agent_id)  # joined one AP; the other never saw it
        if joined is ap2:  # start from ap-1 (this move is not measured)
            roam.roam(ap1)
            roam.release_old(mac, ap1)
            wait_at(roam, mac, ap1.agent_id)
        handovers = []
        for target in (ap2, ap1):
            handovers.append(roam.roam(target))
            kicked = roam.release_old(mac, target)
            log.say(f"roamed to {target.agent_id}: {handovers[-1]}; stale association removed at {kicked}")
            wait_at(roam, mac, target.agent_id)
        # Controller-initiated: the wifi-controller asks ap-1 for a BTM request to ap-2's BSS.
        steer: list[Any] = []

        def start_steer() -> None:
            steer[:] = roam.steer(mac, ap2)

        handovers.append(roam.roam(ap2, start=start_steer))
        code, body = steer
        assert code == 200 and body["accepted"] is True, (code, body)
        assert (body["agent_id"], body["target_agent_id"]) == ("ap-1", "ap-2"), body
        kicked = roam.release_old(mac, ap2)
        log.say(f"steered to ap-2: {handovers[-1]}; stale association removed at {kicked}")
        wait_at(roam, mac, ap2.agent_id)
        result = summary(handovers)
        log.say(f"handovers: {result}; test body {time.monotonic() - started:.1f} s")
        for h in handovers:
            # A lower bound too: the stream really ran across each move (echoes at 10 ms on the new AP).
            assert h.echoes_after >= 30, h
            assert 5.0 <= h.interruption_ms <= MAX_GAP_MS, (h, result)
            assert h.key_mgmt == "FT-PSK", h  # both BSSes offer 802.11r: every move is a fast transition
    finally:
        roam.close()


def test_slice_path_follows_a_roaming_station(two_aps) -> None:
    """A slice with its SSID on both APs, made by the orchestrator (one POF path, the other AP's route a branch
    joining it on the core switch, both vAPs with 802.11r): the station's 10 ms echo stream to the server crosses
    the slice's flows and vNF; on each FT roam the controllers (the mobility app, on the association event) place
    the client's downlink on the new AP's branch and remove the old AP's association, and the stream comes back
    through the new AP."""
    from wislice_testbed.handover_slice import tcp_dips
    from wislice_testbed.scenarios.roaming import summary
    from wislice_testbed.scenarios.slice_roaming import SliceRoaming

    tb, log = two_aps
    roam = SliceRoaming(tb, log)
    try:
        roam.open()
        ap1, ap2 = roam.vaps
        mac = roam.sta.mac().lower()
        joined = roam.vap_of(roam.serving())
        wait_at(roam, mac, joined.agent_id)
        placed_on(roam, mac, joined)
        handovers = []
        targets = (ap2 if joined is ap1 else ap1, joined)
        for target in targets:
            handovers.append(roam.roam(target))
            placed_on(roam, mac, target)
            wait_at(roam, mac, target.agent_id)  # the old AP's association removed by the controllers
            orchestrator_at(roam, mac, target.agent_id)
            log.say(f"roamed to {target.agent_id} in the slice: {handovers[-1]}")
        result = summary(handovers)
        log.say(f"slice handovers: {result}")
        for h in handovers:
            assert h.echoes_after >= 30, h
            assert 5.0 <= h.interruption_ms <= MAX_GAP_MS, (h, result)
            assert h.key_mgmt == "FT-PSK", h  # the orchestrator gave the slice's vAPs 802.11r
        # The mobility app's own record of the two moves: where it put the downlink, how long the path took.
        followed = [h for h in tb.onos.get("/onos/mobility/handovers")["handovers"] if h["mac"].lower() == mac]
        log.say(f"the mobility app's handovers: {followed}")
        moves = followed[-2:]
        assert [h["vap_id"] for h in moves] == [t.vap_id for t in targets], followed
        for h in moves:
            # Both on the controller's clock: the switch's confirmation is part of the path switch.
            assert h["error"] is None and 0 <= h["switch_confirm_ms"] <= h["path_switch_ms"] < 5000, h
        # A TCP download through the slice while the wifi-controller steers the station 4 times (BTM): it goes on
        # across every move (handover_slice.tcp_dips, the bench's tcp_dip_pct).
        dips, steady_mbps = tcp_dips(tb, roam, mac)
        log.say(f"TCP download across 4 steers: steady {steady_mbps:.2f} Mbit/s, dips {dips} %")
        assert steady_mbps >= 0.5 and len(dips) == 4, (steady_mbps, dips)
        assert max(dips) <= 90, dips  # each move's 1.5 s still carried at least a tenth of the steady rate
    finally:
        roam.close()


def test_vnf_chain_follows_the_station_to_the_nearest_mec_node(two_aps) -> None:
    """A slice with vnf_follow, its SSID on both APs and a transcoder (a bump in the wire to the egress): the
    wifi-controller steers the station to the other AP, the orchestrator moves the chain to that AP's nearest MEC
    node (new transcoder there, the path switched, the old one removed: nothing left on the old node), and back
    while a real video stream crosses it, which resumes re-encoded from the new node."""
    from wislice_testbed.scenarios.vnf_follow import VnfFollowRoaming, stalled_seconds

    tb, log = two_aps
    roam = VnfFollowRoaming(tb, log)
    try:
        roam.open()
        mac = roam.sta.mac().lower()
        home, away = roam.start_near_chain()
        wait_at(roam, mac, home.agent_id)
        out = roam.follow(away)
        log.say(f"vNF follow {out}")
        back = roam.video_across_follow(home)
        log.say(f"vNF follow back with video: {back['follow']}; rates {back['rates_mbps']}, {back['codec']} "
                f"{back['bit_rate']:.0f} bit/s")
        for f, target in ((out, away), (back["follow"], home)):
            assert f.to_node == roam.nearest(target) and f.from_node != f.to_node, f
            assert f.left_on_old == {"containers": 0, "flows": 0}, f  # the old chain and its flows removed
            # Lower bounds too: the follow is a container start and a path install (seconds, not zero).
            assert 0.2 <= f.follow_s <= 30 and 0 < f.orchestrator_follow_s <= 30, f
            assert 5.0 <= f.gap_ms <= 5000, f
        assert roam.node() == roam.nearest(home)
        wait_at(roam, mac, home.agent_id)
        orchestrator_at(roam, mac, home.agent_id)
        # The transcoder resumed the stream on the new node: MPEG-2 at its rate, flowing again at the end.
        assert back["codec"] == "mpeg2video", back
        assert 250_000 <= back["bit_rate"] <= 1_000_000, back
        rates, own = back["rates_mbps"], back["transcoded_kbps"] / 1000
        # Before the move (8 s in) the station is on ap-2, a branch of the slice's path, and the transcoder on
        # mec-2 reaches it without a broadcast ARP (which would reach the main path's AP only): 0 before that fix.
        assert min(rates[2:7]) >= own / 2, rates
        assert min(rates[-5:]) >= own / 2, rates
        assert stalled_seconds(rates, back["transcoded_kbps"], 10) <= 8, rates
    finally:
        roam.close()
    assert all(not node.vnf_containers() for node in tb.mec_nodes)
