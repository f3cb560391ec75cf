"""The whole one-machine testbed, wired as in docs/ARCHITECTURE.md "A slice, end to end":

    station ~air~ vAP [AP VM: hostapd + ap-agent + AP pof-switch dev 1] --tap-- core pof-switch dev 2
        --veth-- MEC pof-switch dev 3 -- vNF containers (private dockerd, mec-agent)      server netns

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

CORE_DEV_ID = 2
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

    @property
    def ap2(self) -> SecondAp | None:
        """The second AP (agent ap-2, switch dev 4) of ``up(..., aps=2)``, in the same VM as ``ap``."""
        return self.ap.second

    def restart_core_switch(self) -> None:
        self.core_switch = self.processes.restart(self.core_switch)

    def wired_topology(self) -> dict[str, Any]:
        """What the operator declares to the orchestrator: agents behind switches, links with capacities.
        No egress port: the kernel vNF's second interface is the MEC node's link to the server (see README)."""
        ap, core, mec = self.ap.device_id, device_id(CORE_DEV_ID), self.mec.device_id
        topo: dict[str, Any] = {
            "attachments": {self.ap.agent_id: ap, self.mec.agent_id: mec},
            "links": [{"a": ap, "a_port": 1, "b": core, "b_port": 1, "capacity_kbps": LINK_KBPS},
                      {"a": core, "a_port": 2, "b": mec, "b_port": 1, "capacity_kbps": LINK_KBPS}],
            "egress": {}}
        if self.ap2 is not None:  # ap-2's uplink is the core switch's port 3
            topo["attachments"][self.ap2.agent_id] = self.ap2.device_id
            topo["links"].append({"a": self.ap2.device_id, "a_port": 1, "b": core, "b_port": 3,
                                  "capacity_kbps": LINK_KBPS})
        return topo


@contextmanager
def up(log: StepLog, stations: int = 2, radio_capacity_kbps: int = 0, mec_switch: str = "dpdk",
       aps: int = 1, keep_logs: bool = True) -> Iterator[Testbed]:
    """``mec_switch``: the MEC node's switch, "dpdk" (the DPDK pofswitch, see mecnode) or "afp" (pofswitch-afp).
    ``aps``: 1, or 2 for a second AP (ap-2, switch dev 4) in the same AP VM on its own uplink, a second tap wired
    to the core switch's port 3 (see secondap.py). ``keep_logs`` False: the processes' log directory is removed
    when the block ends without an exception (a benchmark's; the demo shows its logs, a failure keeps them)."""
    if aps not in (1, 2):
        raise ValueError(f"aps must be 1 or 2, got {aps}")
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
            link = create_veth(None, None, mtu=LINK_MTU, tag="lk")
            stack.callback(link.delete)
            core_ports = [("ap", tap), ("mec", link.a)] + ([("ap2", tap2)] if tap2 else [])
            core_switch = start_switch(processes, CORE_DEV_ID, core_ports,
                                       log_dir / "core-mgmt.sock", f"127.0.0.1:{onos.pof_port}")
            server = Namespace.create("srv")
            stack.callback(server.delete)
        with log.step("ap", "AP VM: hostapd, ap-agent, AP pof-switch, stations"):
            ap = stack.enter_context(ap_node(onos, tap, stations=stations, say=log.say,
                                                capacity_kbps=radio_capacity_kbps, firmware_key=firmware_key,
                                                second_tap=tap2))
        with log.step("mec", f"MEC node: private dockerd, MEC pof-switch ({mec_switch}), mec-agent"):
            mec = stack.enter_context(mec_node(onos, processes, link.b, say=log.say, switch=mec_switch))
        with log.step("orchestrator", "orchestrator-api (SQLite, real ONOS controllers)"):
            orch = stack.enter_context(orchestrator(onos, processes, say=log.say,
                                                    firmware_keys=[firmware_key.public_line]))
        tb = Testbed(onos, ap, mec, orch, server, processes, log_dir, core_switch, firmware_key)
        log.say("core switch connected: " + str(onos.switch_connected(device_id(CORE_DEV_ID))))
        yield tb
    if not keep_logs:
        shutil.rmtree(log_dir, ignore_errors=True)
