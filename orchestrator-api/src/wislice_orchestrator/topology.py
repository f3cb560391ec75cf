"""The wired topology the operator declares: which pof-switch each agent sits behind, the links between switches
with their capacity, and optionally each MEC switch's egress port toward the servers. Paths are searched here.

Links are full duplex: `capacity_kbps` is available in each direction. Reservations are kept per direction under
`Link.directed_key(leaving)` (the traffic leaves `leaving` over the link). A vAP's path is searched from the AP's
switch to the MEC switch, so its forward direction carries the slice's **up** traffic and the reverse its **down**.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Link:
    a: str
    a_port: int
    b: str
    b_port: int
    capacity_kbps: int
    # The operator's estimate of the link's latency (latency_budget.py); None: the configured default.
    latency_us: int | None = None

    @property
    def key(self) -> str:
        """Direction-free name used for reservations."""
        return "|".join(sorted((f"{self.a}:{self.a_port}", f"{self.b}:{self.b_port}")))

    def other(self, device: str) -> str:
        return self.b if device == self.a else self.a

    def directed_key(self, leaving: str) -> str:
        """Name of one direction of the link: traffic leaving `leaving` towards the other end."""
        there = self.other(leaving)
        return f"{leaving}:{port_on(self, leaving)}>{there}:{port_on(self, there)}"


Route = list[tuple[Link, str]]  # [(link, device the forward traffic leaves it from)], AP switch -> MEC switch


def route_keys(route: Route) -> list[str]:
    """The forward (up) directed keys of a route, in order."""
    return [link.directed_key(leaving) for link, leaving in route]


def reserve(reserved: dict[str, int], route: Route, up_kbps: int, down_kbps: int) -> None:
    """Add one path's guarantees to per-direction reservations: up forward, down on the reverse direction."""
    for link, leaving in route:
        for key, kbps in ((link.directed_key(leaving), up_kbps), (link.directed_key(link.other(leaving)), down_kbps)):
            if kbps:
                reserved[key] = reserved.get(key, 0) + kbps


@dataclass
class Topology:
    attachments: dict[str, str]
    links: list[Link]
    egress: dict[str, int]
    # The operator's estimate of each switch's latency per pass (latency_budget.py); absent: the default.
    switch_latency_us: dict[str, int] = field(default_factory=dict)

    @classmethod
    def from_json(cls, doc: dict[str, Any] | None) -> Topology:
        doc = doc or {}
        links = [Link(str(x["a"]), int(x["a_port"]), str(x["b"]), int(x["b_port"]), int(x["capacity_kbps"]),
                      None if x.get("latency_us") is None else int(x["latency_us"]))
                 for x in doc.get("links", [])]
        return cls(dict(doc.get("attachments", {})), links, {k: int(v) for k, v in doc.get("egress", {}).items()},
                   {k: int(v) for k, v in doc.get("switch_latency_us", {}).items()})

    def to_json(self) -> dict[str, Any]:
        links = [{"a": x.a, "a_port": x.a_port, "b": x.b, "b_port": x.b_port, "capacity_kbps": x.capacity_kbps}
                 | ({} if x.latency_us is None else {"latency_us": x.latency_us}) for x in self.links]
        doc = {"attachments": self.attachments, "links": links, "egress": self.egress}
        return doc | ({"switch_latency_us": self.switch_latency_us} if self.switch_latency_us else {})

    def shortest_path(self, src: str, dst: str, max_links: int, reserved: dict[str, int] | None = None,
                      up_kbps: int = 0, down_kbps: int = 0) -> Route | None:
        """Fewest-links path from switch src to switch dst over links with `up_kbps` left in the src -> dst
        direction and `down_kbps` left in the other (`reserved` is per direction; a direction needing 0 is not
        checked). Returns [(link, device it leaves from)], [] when src == dst, None when there is none within
        max_links."""
        if src == dst:
            return []
        reserved = reserved or {}

        def fits(link: Link, leaving: str) -> bool:
            free_up = link.capacity_kbps - reserved.get(link.directed_key(leaving), 0)
            free_down = link.capacity_kbps - reserved.get(link.directed_key(link.other(leaving)), 0)
            return (not up_kbps or free_up >= up_kbps) and (not down_kbps or free_down >= down_kbps)

        previous: dict[str, tuple[str, Link]] = {}
        queue = deque([(src, 0)])
        seen = {src}
        while queue:
            device, depth = queue.popleft()
            if depth >= max_links:
                continue
            for link in self.links:
                for here, there in ((link.a, link.b), (link.b, link.a)):
                    if here != device or there in seen or not fits(link, here):
                        continue
                    seen.add(there)
                    previous[there] = (device, link)
                    if there == dst:
                        path: Route = []
                        node = dst
                        while node != src:
                            prev, via = previous[node]
                            path.append((via, prev))
                            node = prev
                        return list(reversed(path))
                    queue.append((there, depth + 1))
        return None

    def resolve(self, src: str, keys: list[str]) -> Route | None:
        """The route a list of forward directed keys names, starting at switch src; None when a link is gone
        from the topology or the keys do not chain from src."""
        by_key = {link.directed_key(end): (link, end) for link in self.links for end in (link.a, link.b)}
        route: Route = []
        device = src
        for key in keys:
            hop = by_key.get(key)
            if hop is None or hop[1] != device:
                return None
            route.append(hop)
            device = hop[0].other(device)
        return route


def port_on(link: Link, device: str) -> int:
    return link.a_port if link.a == device else link.b_port


def hops_for(links: list[tuple[Link, str]], src_device: str, in_port: int, dst_device: str,
             vnf_ports: list[tuple[int, int]], egress_port: int | None) -> list[dict[str, Any]]:
    """Forward-direction hops of one vAP's path: AP switch -> links -> MEC switch -> vNF chain -> egress.
    vnf_ports are (in_port, out_port) of each vNF in chain order on the MEC switch."""
    hops: list[dict[str, Any]] = []
    device, port = src_device, in_port
    for link, leaving in links:
        hops.append({"device_id": device, "in_port": port, "out_port": port_on(link, leaving)})
        device = link.b if leaving == link.a else link.a
        port = port_on(link, device)
    assert device == dst_device, "path does not end at the MEC switch"
    for vnf_in, vnf_out in vnf_ports:
        hops.append({"device_id": device, "in_port": port, "out_port": vnf_in})
        port = vnf_out
    if egress_port is not None:
        hops.append({"device_id": device, "in_port": port, "out_port": egress_port})
    return hops
