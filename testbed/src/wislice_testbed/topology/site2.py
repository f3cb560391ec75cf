"""The two-MEC testbed's second edge site (issue 16, "vNF follows"): ap-2's uplink, the core and mec-2 meet at an edge
pofswitch-afp (dev 6), so ap-2 is one link from mec-2 and three from mec-1, and ap-1 the other way round: the
nearest MEC node differs per AP. Both MEC switches also get a port 2 toward the servers: a veth each into one
bridge in the server netns, the upstream LAN a slice's egress reaches from either node (testbed/README.md "A
second MEC node").

    edge_site(processes, server, ap2_tap, log_dir, onos, mtu) -> EdgeSite (a context manager; removes what it made)
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..netns import Namespace
from ..veth import create_veth
from .pofswitch import offloads_off, start_switch

EDGE2_DEV_ID = 6
SERVER_BRIDGE = "srvbr"


@dataclass
class EdgeSite:
    switch: Any  # the edge switch's Popen: ports ap2 (1), core (2), mec2 (3)
    core_end: str  # host netdev for the core switch's port 3
    mec2_end: str  # host netdev for mec-2's switch port 1
    server_ends: tuple[str, str]  # host netdevs for mec-1's and mec-2's switch port 2 (egress)


@contextmanager
def edge_site(processes: Any, server: Namespace, ap2_tap: str, log_dir: Path, onos: Any,
              mtu: int) -> Iterator[EdgeSite]:
    with ExitStack() as stack:
        def veth(ns_b: Namespace | None, tag: str) -> Any:
            pair = create_veth(None, ns_b, mtu=mtu, tag=tag)
            stack.callback(pair.delete)
            return pair

        to_core, to_mec2 = veth(None, "le"), veth(None, "lm")
        uplinks = [veth(server, "s1"), veth(server, "s2")]
        server.exec(["ip", "link", "add", SERVER_BRIDGE, "type", "bridge"])
        for pair in uplinks:
            # Frames as on the wire: the MEC switches' AF_PACKET ports take what the server's stack hands the veth.
            offloads_off(pair.b, server.name)
            server.exec(["ip", "link", "set", pair.b, "master", SERVER_BRIDGE])
        server.exec(["ip", "link", "set", SERVER_BRIDGE, "up"])
        offloads_off(SERVER_BRIDGE, server.name)
        switch = start_switch(processes, EDGE2_DEV_ID, [("ap2", ap2_tap), ("core", to_core.a), ("mec2", to_mec2.a)],
                              log_dir / "edge2-mgmt.sock", f"127.0.0.1:{onos.pof_port}")
        stack.callback(processes.stop, switch)
        yield EdgeSite(switch, to_core.b, to_mec2.b, (uplinks[0].a, uplinks[1].a))
