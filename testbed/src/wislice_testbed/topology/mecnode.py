"""The MEC node: a private dockerd, the node's pof-switch on the host, and the real mec-agent daemon dialling
the nfv-controller. vNF containers get veths whose host ends the agent hot-adds to the switch.

The switch is the DPDK pofswitch (``switch="dpdk"``, the default): the node reserves hugepages
(testbed/hugepages.py) for the switch and the DPDK vNFs, the uplink and kernel vNFs' veths are net_af_packet vdevs,
and DPDK vNFs get vhost-user ports (the switch is the server); or pofswitch-afp (``switch="afp"``). The agent keeps
a warm pool of the catalog images every slice of the testbed uses (WARM_POOL). See testbed/README.md."""

from __future__ import annotations

import secrets
import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wislice_mec_agent.ids import container_name

from .. import janitor
from ..dockerd import PrivateDockerd
from ..hugepages import Hugepages
from .common import wait_for
from .onos import Onos
from .pofswitch import device_id, start_dpdk_switch, start_switch

MEC_DEV_ID = 3
VETH_PREFIX = "wsv"  # vNF veths are wsv<vnf_id hex>: "ws" so leakcheck would notice any left behind
# A second MEC node on the same host needs its own prefix: each agent's reconcile removes host veths with its
# prefix that are not its vNFs' (on separate hosts, as deployed, one prefix serves every node).
VETH_PREFIX_2 = "wsw"
# The DPDK switch: 2 MiB pages for its mempool and the DPDK vNFs' (mec-agent's tests run a switch and two dpdk-vnf
# on 64), and its one lcore; the agent keeps DPDK vNFs off that core (switch_cpus).
DPDK_HUGEPAGES = 96
DPDK_SWITCH_LCORE = 1
# The agent's port templates for the DPDK switch (mec-agent README, examples/mec-agent.toml): qdisc_bypass=0 so
# the scheduler's backpressure filter on a kernel vNF's veth sees what the switch sends it.
DPDK_VETH_ARGS = "net_af_packet_{name},iface={ifname},qdisc_bypass=0"
DPDK_VHOST_ARGS = "net_vhost_{name},iface={socket}"
# Containers the agent keeps created and started per catalog image, so a slice's vNF is claimed, not made: the
# demo's forwarder is in every slice of the testbed.
WARM_POOL = {"kernel-fwd": 2}


@dataclass
class MecNode:
    agent_id: str
    dockerd: PrivateDockerd
    state_dir: Path
    mgmt: Path
    agent: Any
    switch: Any
    processes: Any = field(repr=False, default=None)
    switch_kind: str = "afp"
    hugepages: Hugepages | None = None
    dev_id: int = MEC_DEV_ID

    @property
    def device_id(self) -> str:
        return device_id(self.dev_id)

    def vnf_container(self, vnf_id: int, all: bool = True) -> Any | None:
        """The docker container of a vNF, found by the name the agent gives it (ids.container_name): a container
        claimed from the warm pool keeps the pool's labels (docker labels are fixed at creation) but is renamed."""
        name = container_name(self.agent_id, vnf_id)
        # docker's name filter is a substring match ("wv-mec-1-1" also finds "wv-mec-1-12"): exact here.
        found = [c for c in self.dockerd.client.containers.list(all=all, filters={"name": name}) if c.name == name]
        return found[0] if found else None

    def vnf_containers(self) -> dict[int, Any]:
        """Every running vNF container by vnf_id (warm pool containers not yet claimed are not vNFs)."""
        prefix = container_name(self.agent_id, 0)[:-1]
        out = {}
        for c in self.dockerd.client.containers.list(filters={"name": prefix}):
            tail = c.name[len(prefix):]
            if c.name.startswith(prefix) and tail.isdigit():
                out[int(tail)] = c
        return out

    def restart_agent(self) -> None:
        """The mec-agent started again with its config and state directory, as its supervisor would."""
        self.agent = self.processes.restart(self.agent)

    def restart_switch(self) -> None:
        self.switch = self.processes.restart(self.switch)


@contextmanager
def mec_node(onos: Onos, processes: Any, uplink: str, agent_id: str = "mec-1", say: Any = print,
             switch: str = "dpdk", dev_id: int = MEC_DEV_ID, server_link: str = "") -> Iterator[MecNode]:
    """``uplink`` is the host netdev toward the core switch: port 1 of the MEC switch. ``switch``: "afp" or "dpdk".
    ``server_link``: a host netdev toward the servers, the switch's port 2 (a topology's egress port), or none."""
    if switch not in ("afp", "dpdk"):
        raise ValueError(f"switch must be 'afp' or 'dpdk', not {switch!r}")
    state_dir = Path(tempfile.mkdtemp(prefix="wislice-demo-mec-"))
    dockerd = hp = sw = None
    ports = [("core", uplink)] + ([("srv", server_link)] if server_link else [])
    agent = node = None
    prefix = f"wsmec{secrets.token_hex(3)}"  # the DPDK switch's EAL --file-prefix
    eal_dir = Path("/var/run/dpdk") / prefix  # EAL leaves it even with --in-memory
    eal_token = None
    try:
        dockerd = PrivateDockerd.start("mec", live_restore=True)  # as a MEC node's engine runs (mec-agent README)
        say(f"private dockerd up ({dockerd.socket})")
        mgmt = state_dir / "pof-mgmt.sock"
        controller = f"127.0.0.1:{onos.pof_port}"
        node_conf = ['switch_veth_args = "{ifname}"']
        if switch == "dpdk":
            hp = Hugepages.reserve(DPDK_HUGEPAGES)
            eal_token = janitor.register(f"DPDK runtime dir {eal_dir}",
                                         lambda: shutil.rmtree(eal_dir, ignore_errors=True))
            sw = start_dpdk_switch(processes, dev_id, [(name, ifname, "") for name, ifname in ports], mgmt,
                                   controller, hp.mount, prefix, DPDK_SWITCH_LCORE)
            node_conf = [f'switch_veth_args = "{DPDK_VETH_ARGS}"', f'switch_vhost_args = "{DPDK_VHOST_ARGS}"',
                         f'hugepages_dir = "{hp.mount}"', f'switch_cpus = "{DPDK_SWITCH_LCORE}"']
            say(f"DPDK pofswitch on lcore {DPDK_SWITCH_LCORE}, {DPDK_HUGEPAGES} hugepages at {hp.mount}")
        else:
            sw = start_switch(processes, dev_id, ports, mgmt, controller)
        wait_for("MEC switch management socket", mgmt.exists, timeout=20)
        (state_dir / "secret").write_text(onos.secret)
        conf = state_dir / "mec-agent.toml"
        conf.write_text("\n".join([
            f'agent_id = "{agent_id}"', f'state_dir = "{state_dir / "state"}"',
            f'docker_url = "unix://{dockerd.socket}"', "capacity_cpu = 2.0", "capacity_memory_mib = 2048",
            f'veth_prefix = "{VETH_PREFIX if dev_id == MEC_DEV_ID else VETH_PREFIX_2}"', f'switch_mgmt = "{mgmt}"',
            *node_conf,
            f'controller = "127.0.0.1:{onos.nfv_port}"', f'secret_file = "{state_dir / "secret"}"',
            "stats_interval_s = 2.0", "scheduler_interval_s = 0.1",
            "warm_pool = {" + ", ".join(f'"{image}" = {n}' for image, n in WARM_POOL.items()) + "}", ""]))
        agent = processes.start([sys.executable, "-m", "wislice_mec_agent", "--config", str(conf)],
                                log_name="mec-agent")
        node = MecNode(agent_id, dockerd, state_dir, mgmt, agent, sw, processes, switch, hp, dev_id)
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
        if dockerd is not None:
            dockerd.stop()
        if switch == "dpdk":
            # The switch and the DPDK vNFs hold hugepages: both gone before the pool shrinks back.
            if sw is not None:
                processes.stop(node.switch if node is not None else sw)
            shutil.rmtree(eal_dir, ignore_errors=True)
            if eal_token is not None:
                janitor.unregister(eal_token)
            if hp is not None:
                hp.release()
        shutil.rmtree(state_dir, ignore_errors=True)
