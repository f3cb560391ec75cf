"""The MEC node: a private dockerd, the node's pofswitch-afp on the host, and the real mec-agent daemon dialling
the nfv-controller. vNF containers get veths whose host ends the agent hot-adds to the switch."""

from __future__ import annotations

import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..dockerd import PrivateDockerd
from .common import wait_for
from .onos import Onos
from .pofswitch import device_id, start_switch

MEC_DEV_ID = 3
VETH_PREFIX = "wsv"  # vNF veths are wsv<vnf_id hex>: "ws" so leakcheck would notice any left behind


@dataclass
class MecNode:
    agent_id: str
    dockerd: PrivateDockerd
    state_dir: Path
    mgmt: Path
    agent: Any
    switch: Any
    processes: Any = field(repr=False, default=None)

    @property
    def device_id(self) -> str:
        return device_id(MEC_DEV_ID)

    def restart_agent(self) -> None:
        """The mec-agent started again with its config and state directory, as its supervisor would."""
        self.agent = self.processes.restart(self.agent)

    def restart_switch(self) -> None:
        self.switch = self.processes.restart(self.switch)


@contextmanager
def mec_node(onos: Onos, processes: Any, uplink: str, agent_id: str = "mec-1", say: Any = print
             ) -> Iterator[MecNode]:
    """``uplink`` is the host netdev toward the core switch: port 1 of the MEC switch."""
    state_dir = Path(tempfile.mkdtemp(prefix="wislice-demo-mec-"))
    dockerd = PrivateDockerd.start("mec", live_restore=True)  # as a MEC node's engine runs (mec-agent README)
    agent = node = None
    try:
        say(f"private dockerd up ({dockerd.socket})")
        mgmt = state_dir / "pof-mgmt.sock"
        switch = start_switch(processes, MEC_DEV_ID, [("core", uplink)], mgmt, f"127.0.0.1:{onos.pof_port}")
        wait_for("MEC switch management socket", mgmt.exists, timeout=10)
        (state_dir / "secret").write_text(onos.secret)
        conf = state_dir / "mec-agent.toml"
        conf.write_text("\n".join([
            f'agent_id = "{agent_id}"', f'state_dir = "{state_dir / "state"}"',
            f'docker_url = "unix://{dockerd.socket}"', "capacity_cpu = 2.0", "capacity_memory_mib = 2048",
            f'veth_prefix = "{VETH_PREFIX}"', f'switch_mgmt = "{mgmt}"', 'switch_veth_args = "{ifname}"',
            f'controller = "127.0.0.1:{onos.nfv_port}"', f'secret_file = "{state_dir / "secret"}"',
            "stats_interval_s = 2.0", "scheduler_interval_s = 0.1", ""]))
        agent = processes.start([sys.executable, "-m", "wislice_mec_agent", "--config", str(conf)],
                                log_name="mec-agent")
        node = MecNode(agent_id, dockerd, state_dir, mgmt, agent, switch, processes)
        wait_for("MEC switch connected to the network controller",
                 lambda: onos.switch_connected(node.device_id), timeout=60, period=0.5)
        wait_for("mec-agent connected to the nfv-controller", lambda: any(
            n["agent_id"] == agent_id and n.get("connected") for n in onos.get("/onos/nfv/nodes")["nodes"]),
            timeout=60, period=0.5)
        yield node
    finally:
        if node is not None:
            processes.stop(node.agent)  # the one running now (a fault test may have restarted it)
        elif agent is not None:
            processes.stop(agent)
        # vNFs the demo did not remove go with the dockerd (containers removed, their netns and veths with them).
        dockerd.stop()
        shutil.rmtree(state_dir, ignore_errors=True)
