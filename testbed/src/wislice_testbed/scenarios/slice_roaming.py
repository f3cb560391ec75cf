"""A station roams between the two-AP testbed's APs inside one slice, and the slice's POF path follows it (issue 16).

The slice is created through the orchestrator with a vAP of the same SSID on ap-1 and on ap-2 and a kernel-fwd vNF
routing to the server namespace; the network controller holds one path for it, ap-1's or ap-2's route as the main
path and the other as a branch joining it on the core switch. The 10 ms echo stream of roaming.py runs from the
station to an echo server in the server namespace, so each echo crosses the air, the serving AP's switch, the core,
the MEC switch and the vNF both ways. On each association the controllers move the client's downlink to the new
AP's branch (one client-table entry on the core switch) and remove the old AP's stale association: the mobility
app (onos-apps/mobility) does both on the wifi-controller's CLIENT_ASSOCIATED event; the scenario only reads where
the network controller placed the client (GET /onos/pof/slices/{id}/clients)."""

from __future__ import annotations

import sys
from typing import Any

from ..topology.common import StepLog
from . import e2e_slice as e2e
from .roaming import PROBE, PROBE_SRC, Roaming, RoamVap


class SliceRoaming(Roaming):
    """Roaming over a slice's two vAPs instead of two stand-alone vAPs and a hub in the VM."""

    def __init__(self, tb: Any, log: StepLog) -> None:
        super().__init__(tb)
        self.log = log
        self.slice: e2e.SliceRun | None = None
        self.echo: Any = None

    def open(self) -> SliceRoaming:
        s = e2e.SliceRun(1, "roam", 2_000, self.sta)
        e2e.operator_setup(self.tb, self.log, [s])
        self.create(s, self.on_both_aps(e2e.slice_body(s, self.tb.ap.agent_id)))
        e2e.wire_server_side(self.tb, s)
        self.join_and_stream(s.server_addr)
        return self

    def on_both_aps(self, body: dict[str, Any]) -> dict[str, Any]:
        """The slice body with its vAP repeated on ap-2's radio."""
        assert self.tb.ap2 is not None, "the slice roaming scenarios need up(..., aps=2)"
        body["vaps"].append(dict(body["vaps"][0], agent_id=self.tb.ap2.agent_id, radio="phy1"))
        return body

    def create(self, s: e2e.SliceRun, body: dict[str, Any]) -> None:
        """The slice through the orchestrator; its two vAPs as the wifi-controller lists them (ap-1 first)."""
        tb = self.tb
        sl = e2e.create_slice(tb, self.log, s, body)
        self.slice = s
        ctrl = {tb.ap.agent_id: tb.ap.hostapd.ctrl_dir, tb.ap2.agent_id: tb.ap2.hostapd.ctrl_dir}
        live = {v["vap_id"]: v for v in tb.onos.get("/onos/wifi/vaps")["vaps"]}
        for vap in sl["vaps"]:
            v = live[vap["vap_id"]]
            self.vaps.append(RoamVap(v["agent_id"], v["vap_id"], v["ifname"], v["bssid"].lower(),
                                     ctrl[v["agent_id"]]))
        self.vaps.sort(key=lambda v: v.agent_id)

    def join_and_stream(self, target: str) -> None:
        """An echo server in the server netns; the station joins the slice (FT-PSK) and streams to ``target``."""
        assert self.slice is not None
        self.echo = self.tb.processes.start(self.tb.server.argv([sys.executable, "-c", PROBE_SRC, "echo"]),
                                            log_name="roam-echo")
        self.sta.evict_neighbours_on_carrier_loss(not self.keep_neighbours)
        e2e.associate(self.tb, self.log, self.slice, mode="wpa2-ft-psk")  # the slice's vAPs offer FT-PSK
        self.vm.run(f"cat > {PROBE} <<'WISLICE_EOF'\n{PROBE_SRC}WISLICE_EOF")
        self.stream_to(target)

    def path(self) -> dict[str, Any]:
        """The slice's one path on the network controller (the one naming both vAPs)."""
        ours = {v.vap_id for v in self.vaps}
        paths = [p for p in self.tb.onos.get("/onos/pof/slices")["slices"]
                 if {p.get("main_branch_id"), *(b["branch_id"] for b in p.get("branches", []))} >= ours]
        assert len(paths) == 1, f"one path with both vAPs {sorted(ours)}: {paths}"
        return paths[0]

    def placement(self, mac: str) -> str:
        """The vAP whose AP the network controller sends the client's downlink to."""
        path = self.path()
        code, body = self.tb.onos.request("GET", f"/onos/pof/slices/{path['slice_id']}/clients")
        assert code == 200, (code, body)
        placed = [c["branch"] for c in body.get("clients", []) if c["mac"].lower() == mac]
        branch = placed[0] if placed else "main"
        return path["main_branch_id"] if branch == "main" else branch

    def close(self) -> None:
        self.stop_stream()
        if self.echo is not None:
            self.tb.processes.stop(self.echo)
        if self.slice is not None and self.slice.slice_id:
            gone = e2e.delete_slice(self.tb, self.log, self.slice)
            assert all(gone.values()), gone
        self.vaps = []
