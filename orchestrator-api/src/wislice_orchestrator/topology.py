"""The wired topology the operator declares: which pof-switch each agent sits behind, the links between switches
with their capacity, and optionally each MEC switch's egress port toward the servers. Paths are searched here."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Link:
    a: str
    a_port: int
    b: str
    b_port: int
    capacity_kbps: int

    @property
    def key(self) -> str:
        """Direction-free name used for reservations."""
        return "|".join(sorted((f"{self.a}:{self.a_port}", f"{self.b}:{self.b_port}")))


@dataclass
class Topology:
    attachments: dict[str, str]
    links: list[Link]
    egress: dict[str, int]

    @classmethod
    def from_json(cls, doc: dict[str, Any] | None) -> Topology:
        doc = doc or {}
        links = [Link(str(x["a"]), int(x["a_port"]), str(x["b"]), int(x["b_port"]), int(x["capacity_kbps"]))
                 for x in doc.get("links", [])]
        return cls(dict(doc.get("attachments", {})), links, {k: int(v) for k, v in doc.get("egress", {}).items()})

    def to_json(self) -> dict[str, Any]:
        return {"attachments": self.attachments,
                "links": [{"a": x.a, "a_port": x.a_port, "b": x.b, "b_port": x.b_port, "capacity_kbps": x.capacity_kbps}
                          for x in self.links],
                "egress": self.egress}

    def shortest_path(self, src: str, dst: str, need_kbps: int, reserved: dict[str, int],
                      max_links: int) -> list[tuple[Link, str]] | None:
        """Fewest-links path from switch src to switch dst using only links with `need_kbps` left.
        Returns [(link, device it leaves from)], [] when src == dst, None when there is none within max_links."""
        if src == dst:
            return []
        previous: dict[str, tuple[str, Link]] = {}
        queue = deque([(src, 0)])
        seen = {src}
        while queue:
            device, depth = queue.popleft()
            if depth >= max_links:
                continue
            for link in self.links:
                if link.capacity_kbps - reserved.get(link.key, 0) < need_kbps:
                    continue
                for here, there in ((link.a, link.b), (link.b, link.a)):
                    if here != device or there in seen:
                        continue
                    seen.add(there)
                    previous[there] = (device, link)
                    if there == dst:
                        path: list[tuple[Link, str]] = []
                        node = dst
                        while node != src:
                            prev, via = previous[node]
                            path.append((via, prev))
                            node = prev
                        return list(reversed(path))
                    queue.append((there, depth + 1))
        return None


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
