"""The classes of vNF behind one interface: how a container of the class is set up, wired to the node's switch,
checked for health after a restart and counted. The manager, the warm pool, reconcile, the stats and the scheduler
ask the vNF's class instead of testing its name. A new class = one class here, its entry in CLASSES, and catalog
images that name it (mec-agent/vnfs/catalog.json "class")."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from .ids import address_of, host_ifnames, mac_of
from .placement import wants_latency
from .runtime import ContainerConfig

if TYPE_CHECKING:
    from .config import AgentConfig
    from .manager import Undo, VnfManager
    from .store import VnfRecord

Ports = list[dict[str, Any]]
VHOST_SOCKET = "vhost.sock"
VHOST_OUT_SOCKET = "vhost-out.sock"  # a dpdk vNF's second port, 'out' (vnfs/dpdk-vnf/README.md, dpdk-bridge)
OUT_PORT_MARKER = "out-port"  # in its config dir: run.sh gives it the second vdev and --ports 2


def port_counters(name: str, rx_packets: int, rx_bytes: int, tx_packets: int, tx_bytes: int) -> dict[str, Any]:
    """A VnfStats port entry, from the vNF's side."""
    return {"name": name, "rx_packets": rx_packets, "rx_bytes": rx_bytes, "tx_packets": tx_packets,
            "tx_bytes": tx_bytes}


class VnfClass:
    """What differs between classes. `host_links`: the vNF has veths in the node's namespace (their qdisc backlog
    counts in its queue; backpressure drops on the head's). `placed`: the vNF gets a core of the node
    (placement.py: its container's cpuset). `further_interfaces`: the interfaces after 'in' a catalog image of
    the class may have (None: any name)."""

    name: ClassVar[str] = ""
    cap_add: ClassVar[tuple[str, ...]] = ()
    sysctls: ClassVar[dict[str, str]] = {}
    needs_switch: ClassVar[bool] = False
    host_links: ClassVar[bool] = False
    placed: ClassVar[bool] = False
    further_interfaces: ClassVar[tuple[str, ...] | None] = ()

    def binds(self, config: AgentConfig) -> dict[str, str]:
        return {}

    def container(self, config: AgentConfig, image_ref: str, name: str, labels: dict[str, str], cpu: float,
                  memory_mib: int, config_dir: Path, cpus: str = "") -> ContainerConfig:
        """A container of this class (its capabilities, sysctls and binds): a vNF's (with its cpuset when it is
        placed), or a warm pool's."""
        return ContainerConfig(name=name, image_ref=image_ref, labels=labels, cpu=cpu, memory_mib=memory_mib,
                               config_dir=str(config_dir), cap_add=list(self.cap_add), sysctls=dict(self.sysctls),
                               binds=self.binds(config), cpus=cpus)

    def host_ifname(self, m: VnfManager, vnf_id: int) -> str:
        """The record's host_ifname: its first host veth, "" for a class without."""
        return ""

    def wire_before_start(self, m: VnfManager, rec: VnfRecord, cdir: Path, undo: Undo) -> Ports:
        """Wiring the container needs when it starts (its ports so far)."""
        return []

    def wire_after_start(self, m: VnfManager, rec: VnfRecord, interfaces: tuple[str, ...], pid: int,
                         undo: Undo) -> Ports:
        """Wiring that needs the running container's namespace (its ports so far)."""
        return []

    def healthy(self, m: VnfManager, rec: VnfRecord, pid: int) -> bool:
        """After a restart: is the vNF still wired (its switch ports were checked already)?"""
        raise NotImplementedError

    def add_switch_port(self, m: VnfManager, rec: VnfRecord, name: str, port_id: int | None = None) -> int | None:
        """Adds the vNF's port NAME to the node's switch (as number port_id when given); its pof_port."""
        raise NotImplementedError

    def port_stats(self, m: VnfManager, rec: VnfRecord) -> Ports:
        raise NotImplementedError


class KernelVnf(VnfClass):
    """A network namespace with veths: 'in' (addressed, the default route) and the image's further interfaces,
    each a switch port; the Linux stack does the work."""

    name = "kernel"
    cap_add = ("NET_ADMIN", "NET_RAW")
    # send_redirects is OR-ed over "all" and the interface, which takes "default" when it moves into the namespace.
    sysctls: ClassVar[dict[str, str]] = {"net.ipv4.ip_forward": "1", "net.ipv4.conf.all.send_redirects": "0",
                                         "net.ipv4.conf.default.send_redirects": "0",
                                         "net.ipv4.conf.all.rp_filter": "0", "net.ipv4.conf.default.rp_filter": "0"}
    host_links = True
    further_interfaces = None  # each a veth named by the image

    def host_ifname(self, m: VnfManager, vnf_id: int) -> str:
        return m.port_name(vnf_id)

    def wire_after_start(self, m: VnfManager, rec: VnfRecord, interfaces: tuple[str, ...], pid: int,
                         undo: Undo) -> Ports:
        ports: Ports = []
        names = host_ifnames(m.config.veth_prefix, rec.vnf_id, len(interfaces))
        for k, (ifname, inside) in enumerate(zip(names, interfaces, strict=True)):
            # Only 'in' carries the vNF's address and MAC; a further port is a bare link (a bump in the wire).
            m.wiring.create_veth(ifname, pid, address_of(rec.vnf_id) if k == 0 else "",
                                 mac_of(rec.vnf_id) if k == 0 else "", inside)
            undo.push("veth", _call(m.wiring.delete_link, ifname))
            pof_port = self.add_switch_port(m, rec, ifname)
            if m.switch.present:
                undo.push("switch port", _call(m.switch.remove, ifname))
            ports.append({"name": ifname, "pof_port": pof_port})
        return ports

    def healthy(self, m: VnfManager, rec: VnfRecord, pid: int) -> bool:
        return all(m.wiring.exists(ifname) for ifname in m.link_names(rec)) and m.wiring.container_has_link(pid)

    def add_switch_port(self, m: VnfManager, rec: VnfRecord, name: str, port_id: int | None = None) -> int | None:
        return m.switch.add_veth(name, name, port_id)

    def port_stats(self, m: VnfManager, rec: VnfRecord) -> Ports:
        out = []
        for ifname in m.link_names(rec):
            s = m.wiring.stats(ifname)
            if s is not None:  # the host side's tx is what the vNF received
                out.append(port_counters(ifname, s.tx_packets, s.tx_bytes, s.rx_packets, s.rx_bytes))
        return out


class DpdkVnf(VnfClass):
    """A DPDK application on a virtio-user port: the switch is the vhost-user server on a socket in the vNF's
    directory (bind-mounted at /run/vnf), memory from the node's hugetlbfs. An image with interfaces ['in', 'out']
    (dpdk-bridge) has a second port, 'out', on VHOST_OUT_SOCKET, named as a kernel vNF's second veth: the slice
    path enters on 'in' and leaves on 'out'."""

    name = "dpdk"
    cap_add = ("IPC_LOCK", "SYS_NICE")  # hugepage locking, set_mempolicy
    needs_switch = True
    placed = True  # a polling lcore pinned to one core: which core decides whom it competes with
    further_interfaces = ("out",)

    def binds(self, config: AgentConfig) -> dict[str, str]:
        """The node's hugetlbfs mount (EAL sizes its pages from it; memory comes from memfd)."""
        return {config.hugepages_dir: "/dev/hugepages"} if config.hugepages_dir else {}

    def wire_before_start(self, m: VnfManager, rec: VnfRecord, cdir: Path, undo: Undo) -> Ports:
        ports: Ports = []
        interfaces = m.catalog.get(rec.spec.image).interfaces
        for name in host_ifnames(m.config.veth_prefix, rec.vnf_id, len(interfaces)):  # 'in' first, then 'out'
            pof_port = self.add_switch_port(m, rec, name)
            undo.push("switch port", _call(m.switch.remove, name))
            ports.append({"name": name, "pof_port": pof_port})
        if len(ports) > 1:
            (cdir / OUT_PORT_MARKER).touch()  # before the ready gate: run.sh reads it once
        return ports

    def healthy(self, m: VnfManager, rec: VnfRecord, pid: int) -> bool:
        return m.switch.present

    def add_switch_port(self, m: VnfManager, rec: VnfRecord, name: str, port_id: int | None = None) -> int | None:
        """The vNF's vhost-user port; a latency slice's vNF gets the switch's latency mode on it (burst 1 on
        receive, a loop that never sleeps: the slice's packets are switched as they come) where the switch has a
        core of its own, so its never-sleeping loop takes nobody's CPU. The port named by vnf_id is 'in', another
        one 'out' (reconcile re-adds ports by name)."""
        socket = VHOST_SOCKET if name == m.port_name(rec.vnf_id) else VHOST_OUT_SOCKET
        pof_port = m.switch.add_vhost(name, str(Path(rec.config_dir) / socket), port_id)
        if wants_latency(rec.spec) and m.planner.switch and not m.planner.switch_only:
            m.switch.latency(name, True)
        return pof_port

    def port_stats(self, m: VnfManager, rec: VnfRecord) -> Ports:
        table = m.switch.ports() if m.switch.present else {}
        out = []
        for name in m.port_names(rec):  # 'in', then 'out' for a bridge
            port = table.get(name)
            if port is not None:  # the switch's tx on a port is what the vNF received on it
                out.append(port_counters(name, port.tx_packets, port.tx_bytes, port.rx_packets, port.rx_bytes))
        return out


def _call(fn: Callable[[str], Any], arg: str) -> Callable[[], Any]:
    return lambda: fn(arg)


CLASSES: dict[str, VnfClass] = {c.name: c for c in (KernelVnf(), DpdkVnf())}


def vnf_class(name: str) -> VnfClass:
    return CLASSES[name]
