"""Issue 17's failover on a real three-node ONOS cluster with real pofswitch-afp switches, metered slices and
traffic (real_switches.py). Marker `cluster_failover` (make -C onos-apps test-cluster-failover). Measured numbers
are printed (pytest -s), with the non-master nodes' flow views that were not the master's (reported, not
required: real_switches.state)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cluster_helpers import Cluster, wait_for
from real_switches import POFSWITCH, Rig, failover_round, install_slice, rejoin, remove_slices, state, wait_settled
from wislice_testbed.pytest_plugin import requires_root

pytestmark = pytest.mark.cluster_failover
KEPT_GAP_MS = 200  # see the test's bounds
ORPHAN_GAP_MS = 1000


def test_failover_with_real_switches_slices_and_traffic(cluster: Cluster, tmp_path: Path) -> None:
    """Issue 17's failover, on real switches: pofswitch-afp 1 dials A, B, C in that order, switch 2 B, C, A (two
    masters); a metered slice over each (POSTed on A, and on C for switch 2: through a node that is not the
    master), a 10 ms ping through each. kill -9 of A's Karaf: switch 2's stream goes on (its master B survives),
    switch 1 dials B at once, a survivor becomes its master, and its flows and meters are exactly what they were
    (none lost, none duplicated: on the switch, in its master's view and in every node's meters); its stream
    resumes. A restarted rejoins and sees the same state; the slices deleted leave nothing behind on any node or
    switch."""
    requires_root("real switches need root (namespaces, veths)")
    if not POFSWITCH.exists():
        pytest.skip(f"{POFSWITCH} not built (make -C pof-switch build)")
    a, b, c = sorted(cluster.nodes)
    pof = {n: cluster.nodes[n]["pof"] for n in cluster.nodes}
    rig = Rig(tmp_path)
    try:
        sw1 = rig.add_switch(0x1711, [pof[a], pof[b], pof[c]])
        sw2 = rig.add_switch(0x1712, [pof[b], pof[c], pof[a]])
        for sw, master in ((sw1, a), (sw2, b)):
            wait_for(f"{sw.device} available in every view, mastered by {master}", lambda sw=sw, master=master: all(
                cluster.available(n, sw.device) and cluster.master(n, sw.device) == master for n in (a, b, c)), 60)
        empty = wait_for("every view of the switches without flows", lambda: (
            st := state(cluster, [a, b, c], rig.switches)) and not st["errors"] and st, 60)
        install_slice(cluster, a, sw1)
        install_slice(cluster, c, sw2)
        before = wait_settled(cluster, [a, b, c], rig.switches, 60)
        rig.start_streams()
        wait_for("both streams answered", lambda: all(len(sw.stream.replies()) >= 50 for sw in rig.switches), 30)

        out = failover_round(cluster, rig, a, before)
        print("failover numbers: " + json.dumps({k: v for k, v in out.items() if k != "differences"}))
        assert out["orphans"] == [sw1.device], out
        assert out["lost_or_leaked"] == 0, out["differences"]
        # Bounds: switch 2 never lost its master, so its datapath and session were untouched: the 200 ms allow
        # for scheduling on a 2-core machine running three Karafs (measured 24-43 ms). Switch 1 keeps its tables
        # across sessions (on-connect keep) and the new session's controller keeps its entries (QUERYALL, claimed
        # by ONOS's rules): its stream must not pause for the failover either (measured 73 ms; it was 2.3-5.1 s
        # while the flows were deleted and re-added), and its flows never leave the switch.
        assert out["kept_gap_ms"] <= KEPT_GAP_MS, out
        assert out["orphan_gap_ms"] <= ORPHAN_GAP_MS, out
        assert out["failover_s"] <= 30, out
        flows_before = before["switch"][sw1.device]["flows"]
        assert out["orphan_datapath"][sw1.device]["flows_min"] == flows_before, out["orphan_datapath"]
        assert out["orphan_datapath"][sw1.device]["samples"] >= 20, out["orphan_datapath"]

        back = rejoin(cluster, rig, a, before, timeout=30)
        print("rejoin numbers: " + json.dumps(back))
        assert back["lost_or_leaked"] == 0, back["differences"]
        assert cluster.master(a, sw1.device) == out["new_masters"][sw1.device]
        rig.stop_streams()
        leaked, what = remove_slices(cluster, b, rig, empty)
        assert leaked == 0, what
    finally:
        rig.close()
