"""The whole one-machine testbed, wired as in docs/ARCHITECTURE.md "A slice, end to end":

    station ~air~ vAP [AP VM: hostapd + ap-agent + AP pof-switch dev 1] --tap-- core pof-switch dev 2
        --veth-- MEC pof-switch dev 3 -- vNF containers (private dockerd, mec-agent)      server netns

With two APs, ap-2 (switch dev 4) has its own tap to the core's port 3; with two MEC nodes too, ap-2 and mec-2
(switch dev 5) form a second edge site behind an edge switch (dev 6) on the core's port 3, and each MEC switch has
a port 2 into a bridge in the server netns (the topology's egress; see testbed/README.md "A second MEC node").

ONOS runs the wifi, nfv and network controllers; the orchestrator-api drives them. ``Testbed.up()`` is a context
manager; everything is removed on exit, also when bring-up fails halfway.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wislice_agent_proto.usign import SigningKey

from ..netns import Namespace
from ..processes import ProcessManager
from ..tap import tap_device
from ..veth import create_veth
from .apnode import ApNode, ap_node
from .common import StepLog
from .mecnode import MecNode, mec_node
from .onos import Onos, onos_runtime
from .orchestrator import Orchestrator, orchestrator
from .pofswitch import device_id, start_switch
from .secondap import SecondAp
from .site2 import EDGE2_DEV_ID, edge_site

CORE_DEV_ID = 2
MEC2_DEV_ID = 5
LINK_MTU = 1600
LINK_KBPS = 100_000


@dataclass
class Testbed:
    onos: Onos
    ap: ApNode
    mec: MecNode
    orch: Orchestrator
    server: Namespace
    processes: ProcessManager
    log_dir: Path
    core_switch: Any = None
    # The operator's usign key for firmware: the orchestrator and the AP trust it (fleet upgrades, issue 18).
    firmware_key: SigningKey | None = None
    mec2: MecNode | None = None  # up(..., mecs=2): mec-2 on the second edge site
    edge_switch: Any = None

    @property
    def mec_nodes(self) -> list[MecNode]:
        return [self.mec] + ([self.mec2] if self.mec2 is not None else [])

    @property
    def ap2(self) -> SecondAp | None:
        """The second AP (agent ap-2, switch dev 4) of ``up(..., aps=2)``, in the same VM as ``ap``."""
        return self.ap.second

    def restart_core_switch(self) -> None:
        self.core_switch = self.processes.restart(self.core_switch)

    def wired_topology(self, egress: bool = False) -> dict[str, Any]:
        """What the operator declares to the orchestrator: agents behind switches, links with capacities.
        No egress port by default: a kernel-fwd vNF's second interface is the MEC node's link to the server (see
        README); ``egress`` (two MEC nodes only): each MEC switch's port 2, into the server netns's bridge."""
        ap, core, mec = self.ap.device_id, device_id(CORE_DEV_ID), self.mec.device_id
        topo: dict[str, Any] = {
            "attachments": {self.ap.agent_id: ap, self.mec.agent_id: mec},
            "links": [link(ap, 1, core, 1), link(core, 2, mec, 1)],
            "egress": {}}
        if self.mec2 is not None and self.ap2 is not None:  # ap-2 and mec-2 behind the edge switch (core port 3)
            ap2, edge, mec2 = self.ap2.device_id, device_id(EDGE2_DEV_ID), self.mec2.device_id
            topo["attachments"].update({self.ap2.agent_id: ap2, self.mec2.agent_id: mec2})
            topo["links"] += [link(ap2, 1, edge, 1), link(edge, 2, core, 3), link(edge, 3, mec2, 1)]
        elif self.ap2 is not None:  # ap-2's uplink is the core switch's port 3
            topo["attachments"][self.ap2.agent_id] = self.ap2.device_id
            topo["links"].append(link(self.ap2.device_id, 1, core, 3))
        if egress:
            if self.mec2 is None:
                raise ValueError("egress ports exist on the two-MEC testbed only (up(..., mecs=2))")
            topo["egress"] = {node.device_id: 2 for node in self.mec_nodes}
        return topo


def link(a: str, a_port: int, b: str, b_port: int) -> dict[str, Any]:
    return {"a": a, "a_port": a_port, "b": b, "b_port": b_port, "capacity_kbps": LINK_KBPS}


@contextmanager
def up(log: StepLog, stations: int = 2, radio_capacity_kbps: int = 0, mec_switch: str = "dpdk",
       aps: int = 1, keep_logs: bool = True, mecs: int = 1) -> Iterator[Testbed]:
    """``mec_switch``: the MEC node's switch, "dpdk" (the DPDK pofswitch, see mecnode) or "afp" (pofswitch-afp).
    ``aps``: 1, or 2 for a second AP (ap-2, switch dev 4) in the same AP VM on its own uplink, a second tap wired
    to the core switch's port 3 (see secondap.py). ``mecs``: 1, or 2 (with aps=2) for a second MEC node (mec-2,
    pofswitch-afp dev 5) beside ap-2 behind an edge switch, and both MEC nodes' egress links to the server netns.
    ``keep_logs`` False: the processes' log directory is removed when the block ends without an exception (a
    benchmark's; the demo shows its logs, a failure keeps them)."""
    if aps not in (1, 2):
        raise ValueError(f"aps must be 1 or 2, got {aps}")
    if mecs not in (1, 2) or (mecs == 2 and aps != 2):
        raise ValueError(f"mecs must be 1, or 2 with aps=2; got mecs={mecs}, aps={aps}")
    log_dir = Path(tempfile.mkdtemp(prefix="wislice-demo-logs-"))
    with ExitStack() as stack:
        firmware_key = SigningKey("the testbed operator's firmware key")
        # Whose it is: another pytest session finishing meanwhile leaves a live testbed's logs alone (pytest_plugin).
        (log_dir / "owner.pid").write_text(f"{os.getpid()}\n")
        processes = ProcessManager(log_dir)
        stack.callback(processes.stop_all)
        with log.step("onos", "ONOS runtime + wifi/nfv/network controller apps"):
            onos = stack.enter_context(onos_runtime(say=log.say, keep_log_in=log_dir))
        with log.step("wires", "wired POF network: tap (AP uplink), core switch, core-MEC link, server netns"):
            tap = stack.enter_context(tap_device(LINK_MTU))
            tap2 = stack.enter_context(tap_device(LINK_MTU)) if aps == 2 else None
            mec_link = create_veth(None, None, mtu=LINK_MTU, tag="lk")
            stack.callback(mec_link.delete)
            server = Namespace.create("srv")
            stack.callback(server.delete)
            core_ports = [("ap", tap), ("mec", mec_link.a)]
            site2 = None
            if mecs == 2 and tap2:
                site2 = stack.enter_context(edge_site(processes, server, tap2, log_dir, onos, LINK_MTU))
                core_ports.append(("edge2", site2.core_end))
            elif tap2:
                core_ports.append(("ap2", tap2))
            core_switch = start_switch(processes, CORE_DEV_ID, core_ports,
                                       log_dir / "core-mgmt.sock", f"127.0.0.1:{onos.pof_port}")
        with log.step("ap", "AP VM: hostapd, ap-agent, AP pof-switch, stations"):
            ap = stack.enter_context(ap_node(onos, tap, stations=stations, say=log.say,
                                                capacity_kbps=radio_capacity_kbps, firmware_key=firmware_key,
                                                second_tap=tap2))
        with log.step("mec", f"MEC node: private dockerd, MEC pof-switch ({mec_switch}), mec-agent"):
            mec = stack.enter_context(mec_node(onos, processes, mec_link.b, say=log.say, switch=mec_switch,
                                               server_link=site2.server_ends[0] if site2 else ""))
        mec2 = None
        if site2 is not None:
            with log.step("mec-2", "second MEC node: private dockerd, pofswitch-afp dev 5, mec-agent mec-2"):
                mec2 = stack.enter_context(mec_node(onos, processes, site2.mec2_end, agent_id="mec-2", say=log.say,
                                                    switch="afp", dev_id=MEC2_DEV_ID,
                                                    server_link=site2.server_ends[1]))
        with log.step("orchestrator", "orchestrator-api (SQLite, real ONOS controllers)"):
            orch = stack.enter_context(orchestrator(onos, processes, say=log.say,
                                                    firmware_keys=[firmware_key.public_line]))
        tb = Testbed(onos, ap, mec, orch, server, processes, log_dir, core_switch, firmware_key, mec2,
                     site2.switch if site2 else None)
        log.say("core switch connected: " + str(onos.switch_connected(device_id(CORE_DEV_ID))))
        if site2 is not None:
            log.say("edge switch connected: " + str(onos.switch_connected(device_id(EDGE2_DEV_ID))))
        yield tb
    if not keep_logs:
        shutil.rmtree(log_dir, ignore_errors=True)
