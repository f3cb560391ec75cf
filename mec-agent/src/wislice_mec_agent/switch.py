"""The node's pof-switch, as the agent sees it: hot-add and remove a vNF's port, list ports.

``SwitchAttachment`` is the boundary. ``MgmtSwitch`` uses the pof-switch's management socket (spec/switch-mgmt,
through wislice_agent_proto's client; the switch's refusals become AgentError internal). Port ARGS come from
templates in the agent config because they depend on the switch build: pofswitch-afp wants the netdev
(``{ifname}``), the DPDK pofswitch wants devargs (``net_af_packet_{name},iface={ifname}`` or
``net_vhost_{name},iface={socket}``). ``NoSwitch`` is for a node without a switch (ports report pof_port null;
kernel vNFs are still reachable on their host veth).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, TypeVar

from wislice_agent_proto.errors import AgentError
from wislice_agent_proto.switch_mgmt import MgmtError, SwitchMgmt, SwitchPort

__all__ = ["MgmtSwitch", "NoSwitch", "SwitchAttachment", "SwitchPort"]

T = TypeVar("T")


class SwitchAttachment(Protocol):
    present: bool

    # port_id: the number to ask for (a port re-added after the switch restarted keeps the one flows use)
    def add_veth(self, name: str, ifname: str, port_id: int | None = None) -> int | None: ...
    def add_vhost(self, name: str, socket_path: str, port_id: int | None = None) -> int | None: ...
    def remove(self, name: str) -> bool: ...
    def ports(self) -> dict[str, SwitchPort]: ...
    # the switch's latency mode on a port: burst 1 on receive and a run loop that never sleeps
    def latency(self, name: str, on: bool) -> None: ...


class NoSwitch:
    present = False

    def add_veth(self, name: str, ifname: str, port_id: int | None = None) -> int | None:
        return None

    def add_vhost(self, name: str, socket_path: str, port_id: int | None = None) -> int | None:
        raise AgentError("unsupported", "this node has no pof-switch, DPDK vNFs need one for their vhost-user port")

    def remove(self, name: str) -> bool:
        return False

    def ports(self) -> dict[str, SwitchPort]:
        return {}

    def latency(self, name: str, on: bool) -> None:
        pass


class MgmtSwitch:
    present = True

    def __init__(self, path: str, veth_args: str = "{ifname}", vhost_args: str = "net_vhost_{name},iface={socket}",
                 timeout: float = 5.0) -> None:
        self.mgmt = SwitchMgmt(path, timeout)
        self.veth_args = veth_args
        self.vhost_args = vhost_args

    @staticmethod
    def _call(call: Callable[[], T]) -> T:
        try:
            return call()
        except MgmtError as exc:
            raise AgentError("internal", str(exc)) from exc

    def add_veth(self, name: str, ifname: str, port_id: int | None = None) -> int | None:
        return self._call(lambda: self.mgmt.port_add(name, self.veth_args.format(name=name, ifname=ifname),
                                                     port_id))

    def add_vhost(self, name: str, socket_path: str, port_id: int | None = None) -> int | None:
        return self._call(lambda: self.mgmt.port_add(name, self.vhost_args.format(name=name, socket=socket_path),
                                                     port_id))

    def remove(self, name: str) -> bool:
        """False when the switch has no such port."""
        return self._call(lambda: self.mgmt.port_del(name))

    def ports(self) -> dict[str, SwitchPort]:
        return self._call(self.mgmt.ports)

    def latency(self, name: str, on: bool) -> None:
        self._call(lambda: self.mgmt.latency(name, on))
