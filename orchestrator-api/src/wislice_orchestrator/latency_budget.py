"""Admission by latency (issue 15): the latency a slice's path will add, summed from per-element costs, against the
slice's latency_budget_us (the wired + MEC part).

Arithmetic only. The costs: per switch traversed (the topology's `switch_latency_us` per device, else the
configured default), per wired link (the link's `latency_us`, else the default) and per vNF: measured where a
running vNF of the same image on the same MEC node reports its own (`measured`: the p99 of the time a packet spent
in it over its last report, under the node's current load, as dpdk-vnf reports it; the largest of that image's
vNFs there), else the operator's estimate by image, else by class (images named dpdk-* are the dpdk class, the
others kernel). A switch's cost: the topology's `switch_latency_us` for that device when the operator set one,
else what the switch measured (`measured_switch`: the p99 of the time packets stayed in it over its last 1-2 s,
its worst output port, as pof-switch reports it through the network controller and the telemetry poll reads it),
else the default. The operator's value wins over the measurement on purpose: it is an explicit override per device
(for a switch whose measurement misses part of its cost, e.g. a NIC or kernel queue after the hand-off the switch
times, or one the operator wants to plan with a margin), while the default is only a guess, which a measurement
replaces. Links do not report theirs yet: they stay estimates.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

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
    measured: dict[tuple[str, str], int] = field(default_factory=dict)  # (MEC node, image) -> measured p99, us
    measured_switch: dict[str, int] = field(default_factory=dict)  # device id -> the switch's measured p99, us

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

    def vnf(self, image: str, node: str | None = None) -> tuple[str, int]:
        """(what the cost is named by, microseconds) of one vNF of `image` on MEC node `node`."""
        if (node, image) in self.measured:
            return "measured p99", self.measured[(node, image)]
        if image in self.vnf_us:
            return image, self.vnf_us[image]
        kind = "dpdk" if image.startswith("dpdk") else "kernel"
        return kind, self.vnf_us.get(kind, DEFAULT_VNF_US[kind])


def with_measured(costs: LatencyCosts, vnfs: list[dict[str, Any]], p99_us: dict[int, int],
                  switch_us: dict[str, int] | None = None) -> LatencyCosts:
    """`costs` with the measured ones: per (node, image) of the controller's vNFs that reported a p99 (`p99_us` by
    vnf_id), the largest; per switch its own measured p99 (`switch_us` by device id)."""
    if switch_us:
        costs = replace(costs, measured_switch=dict(switch_us))
    measured: dict[tuple[str, str], int] = {}
    for v in vnfs:
        us = p99_us.get(v.get("vnf_id"))  # type: ignore[arg-type]
        node, image = v.get("node"), v.get("image")
        if us is not None and isinstance(node, str) and isinstance(image, str):
            measured[(node, image)] = max(us, measured.get((node, image), 0))
    return replace(costs, measured=measured) if measured else costs


def path_costs(topo: Topology, src: str, route: Route, images: list[str],
               costs: LatencyCosts, node: str | None = None) -> list[tuple[str, int]]:
    """(element, microseconds) along one vAP's path to MEC node `node`: each switch as often as the path passes it
    (the MEC switch once into the chain and once after each vNF), each link, each vNF in chain order."""
    def switch(device: str) -> tuple[str, int]:
        if device in topo.switch_latency_us:  # the operator's override wins (see the module's text)
            return f"switch {device}", topo.switch_latency_us[device]
        if device in costs.measured_switch:
            return f"switch {device} (measured p99)", costs.measured_switch[device]
        return f"switch {device}", costs.switch_us

    items: list[tuple[str, int]] = []
    device = src
    for link, leaving in route:
        items.append(switch(device))
        there = link.other(leaving)
        items.append((f"link {leaving}->{there}", costs.link_us if link.latency_us is None else link.latency_us))
        device = there
    items.append(switch(device))
    for image in images:
        kind, us = costs.vnf(image, node)
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
