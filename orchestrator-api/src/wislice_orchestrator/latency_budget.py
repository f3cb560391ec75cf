"""Admission by latency (issue 15): the latency a slice's path will add, summed from per-element costs, against the
slice's latency_budget_us (the wired + MEC part).

Arithmetic only. The costs are the operator's estimates: per switch traversed (the topology's `switch_latency_us`
per device, else the configured default), per wired link (the link's `latency_us`, else the default) and per vNF
(by image, else by class: images named dpdk-* are the dpdk class, the others kernel). They become measured values
(p99 under the node's current load) once the agents and switches report them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .topology import Route, Topology

DEFAULT_SWITCH_US = 20
DEFAULT_LINK_US = 50
DEFAULT_VNF_US = {"kernel": 120, "dpdk": 30}


@dataclass(frozen=True)
class LatencyCosts:
    """Default costs in microseconds; `vnf_us` by image name or vNF class."""

    switch_us: int = DEFAULT_SWITCH_US
    link_us: int = DEFAULT_LINK_US
    vnf_us: dict[str, int] = field(default_factory=lambda: dict(DEFAULT_VNF_US))

    @classmethod
    def parse(cls, text: str) -> LatencyCosts:
        """`switch=20,link=50,kernel=120,dpdk=30,transcoder=4000` (any subset; the rest keep their defaults)."""
        values = {}
        for item in filter(None, (x.strip() for x in text.split(","))):
            name, sep, number = item.partition("=")
            if not sep or not number.strip().isdigit():
                raise ValueError(f"latency cost {item!r}: expected NAME=MICROSECONDS")
            values[name.strip()] = int(number)
        vnf = dict(DEFAULT_VNF_US) | {k: v for k, v in values.items() if k not in ("switch", "link")}
        return cls(values.get("switch", DEFAULT_SWITCH_US), values.get("link", DEFAULT_LINK_US), vnf)

    def vnf(self, image: str) -> tuple[str, int]:
        """(what the cost is named by, microseconds) of one vNF of `image`."""
        if image in self.vnf_us:
            return image, self.vnf_us[image]
        kind = "dpdk" if image.startswith("dpdk") else "kernel"
        return kind, self.vnf_us.get(kind, DEFAULT_VNF_US[kind])


def path_costs(topo: Topology, src: str, route: Route, images: list[str],
               costs: LatencyCosts) -> list[tuple[str, int]]:
    """(element, microseconds) along one vAP's path: each switch as often as the path passes it (the MEC switch
    once into the chain and once after each vNF), each link, each vNF in chain order."""
    def switch(device: str) -> tuple[str, int]:
        return f"switch {device}", topo.switch_latency_us.get(device, costs.switch_us)

    items: list[tuple[str, int]] = []
    device = src
    for link, leaving in route:
        items.append(switch(device))
        there = link.other(leaving)
        items.append((f"link {leaving}->{there}", costs.link_us if link.latency_us is None else link.latency_us))
        device = there
    items.append(switch(device))
    for image in images:
        kind, us = costs.vnf(image)
        items.append((f"vNF {image}" + ("" if kind == image else f" ({kind})"), us))
        items.append(switch(device))
    return items


def describe(items: list[tuple[str, int]]) -> str:
    """`switch a 20 us, link a->b 50 us, switch b 3 x 20 us, ...`: repeats of one element counted together."""
    counts: dict[tuple[str, int], int] = {}
    for item in items:
        counts[item] = counts.get(item, 0) + 1
    return ", ".join(f"{name} {n} x {us} us" if n > 1 else f"{name} {us} us" for (name, us), n in counts.items())


def over_budget(label: str, items: list[tuple[str, int]], budget_us: int | None) -> str | None:
    """The refusal with its numbers when the path's sum exceeds the budget; None when it fits (or no budget)."""
    total = sum(us for _, us in items)
    if budget_us is None or total <= budget_us:
        return None
    return f"{label}: path needs ~{total} us: {describe(items)}; budget {budget_us} us"
