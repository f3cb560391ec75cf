from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from wislice_mec_agent.scheduler import (
    MIN_SHARES,
    Backpressure,
    CostEstimator,
    Head,
    Sample,
    SchedulerLoop,
    ThrottlePlan,
    compute_shares,
    favour_latency,
    parse_proc_net_rx,
)
from wislice_mec_agent.wiring import LinkStats

from .conftest import Node, spec

LEGACY = (1, None)  # the chain of tenant 1's vNFs sent without a chain_id (an older controller): the whole tenant


def test_shares_follow_rate_times_cost() -> None:
    # Same arrival rate, costs 1:2:4 -> shares 1:2:4 (scaled so the average is 1024).
    shares = compute_shares({1: 1000 * 100.0, 2: 1000 * 200.0, 3: 1000 * 400.0})
    assert shares[2] == pytest.approx(2 * shares[1], rel=0.01) and shares[3] == pytest.approx(4 * shares[1], rel=0.01)
    assert sum(shares.values()) == pytest.approx(3 * 1024, abs=3)


def test_idle_node_gets_equal_shares_and_floor_applies() -> None:
    assert compute_shares({1: 0.0, 2: 0.0}) == {1: 1024, 2: 1024}
    assert compute_shares({1: 1e9, 2: 1.0})[2] == 2
    assert compute_shares({}) == {}


def test_backpressure_hysteresis() -> None:
    bp = Backpressure(high=100, low=20)
    assert bp.update("c", [50, 10]) is False
    assert bp.update("c", [150, 10]) is True  # over high: throttle
    assert bp.update("c", [60, 10]) is True  # between the watermarks: stay throttled
    assert bp.update("c", [19, 5]) is False  # under low: release
    assert bp.update("c", [60, 10]) is False  # between: stay released
    with pytest.raises(ValueError):
        Backpressure(high=10, low=10)


def test_cost_estimator_measures_rate_and_ns_per_packet() -> None:
    e = CostEstimator()
    e.add(Sample(0.0, 0, 0))
    e.add(Sample(1.0, 50_000_000, 10_000))  # 10 kpps, 5 us per packet
    assert e.rate == pytest.approx(10_000) and e.cost_ns == pytest.approx(5000)
    assert e.load == pytest.approx(10_000 * 5000)


def test_scheduler_loop_writes_shares_and_throttle_files(tmp_path) -> None:
    node = Node(tmp_path)
    head = node.manager.create(spec(instance=1, chain_position=0))
    tail = node.manager.create(spec(instance=2, chain_position=1))
    applied: dict[int, int] = {}
    loop = SchedulerLoop(node.manager, 1.0, high=100, low=10, apply=lambda pid, v: applied.update({pid: v}) or True,
                         socket_queue=lambda pid: 0)
    loop.step()
    assert sorted(applied.values()) == [1024, 1024]  # no load measured yet: equal shares
    head_dir = node.config.vnf_dir / str(head["vnf_id"])
    (node.config.vnf_dir / str(tail["vnf_id"]) / "queue").write_text("150\n")
    loop.step()
    assert (head_dir / "throttle").exists()
    (node.config.vnf_dir / str(tail["vnf_id"]) / "queue").write_text("50\n")
    loop.step()
    assert (head_dir / "throttle").exists()  # hysteresis: still above the low watermark
    (node.config.vnf_dir / str(tail["vnf_id"]) / "queue").write_text("5\n")
    loop.step()
    assert not (head_dir / "throttle").exists()


UDP_TABLE = """\
   sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode ref pointer drops
  752: 00000000:138C 00000000:0000 07 00000000:00021A00 00:00000000 00000000     0        0 41234 2 0000 0
  753: 0100007F:1389 0100007F:138C 01 00000900:00000100 00:00000000 00000000     0        0 41235 2 0000 0
"""
TCP_TABLE = """\
  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000:0050 00000000:0000 0A 00000000:00000080 00:00000000 00000000     0        0 1 1 0000 100 0 0 10 0
   1: 0200000A:0050 0100000A:C350 01 00000010:00001000 00:00000000 00000000     0        0 2 1 0000 20 4 30 10 -1
"""


def test_proc_net_rx_queue_is_summed_in_bytes_and_tcp_listeners_are_skipped() -> None:
    assert parse_proc_net_rx(UDP_TABLE) == 0x21A00 + 0x100  # rx only; tx_queue is not work for the vNF
    assert parse_proc_net_rx(TCP_TABLE) == 0x1000  # the LISTEN (0A) row's 0x80 is an accept backlog, not bytes
    assert parse_proc_net_rx("") == 0 and parse_proc_net_rx(UDP_TABLE.splitlines()[0] + "\n  junk\n") == 0


def test_throttle_plan_applies_releases_and_moves_heads() -> None:
    plan = ThrottlePlan()
    a, b = Head(1, "wm1", "/d/1"), Head(3, "wm3", "/d/3")
    assert plan.decide({}) == ([], [])
    apply, release = plan.decide({"t1": a})
    assert apply == [("t1", a)] and release == []
    plan.mark("t1", a)
    assert plan.decide({"t1": a}) == ([], [])  # steady: nothing to do
    assert plan.decide({"t1": b}) == ([("t1", b)], [("t1", a)])  # the head changed: release the old, drop at new
    assert plan.decide({}) == ([], [("t1", a)])  # released, or the chain vanished
    plan.unmark("t1")
    assert plan.active == {}


class FakeDrop:
    """TcHeadDrop's interface over a dict: filters per ifname and their drop counters."""

    def __init__(self, links: dict[str, Any]) -> None:
        self.links = links  # the FakeWiring's: a deleted veth takes its filter along
        self.filters: dict[str, int] = {}
        self.calls: list[tuple[str, str]] = []

    def apply(self, ifname: str) -> bool:
        self.calls.append(("apply", ifname))
        if ifname not in self.links:
            return False
        self.filters.setdefault(ifname, 0)
        return True

    def release(self, ifname: str) -> bool:
        self.calls.append(("release", ifname))
        return self.filters.pop(ifname, None) is not None

    def dropped(self, ifname: str) -> int | None:
        if ifname not in self.links:
            self.filters.pop(ifname, None)
        return self.filters.get(ifname)


class Chain:
    def __init__(self, tmp_path, n: int = 2, **kw: Any) -> None:
        self.node = Node(tmp_path)
        self.states = [self.node.manager.create(spec(instance=i + 1, chain_position=i)) for i in range(n)]
        self.queues: dict[int, int] = {}  # vnf_id -> bytes the /proc tables would show
        self.drop = FakeDrop(self.node.wiring.links)
        self.loop = SchedulerLoop(self.node.manager, 1.0, high=1000, low=100, apply=lambda pid, v: True,
                                  dropper=self.drop, socket_queue=self.queue_of_pid, **kw)

    def pid(self, vnf_id: int) -> int:
        return self.node.runtime.inspect(self.node.manager.store.get(vnf_id).container_id).pid

    def queue_of_pid(self, pid: int) -> int:
        return next((q for v, q in self.queues.items() if self.pid(v) == pid), 0)

    def ifname(self, i: int) -> str:
        return self.states[i]["ports"][0]["name"]

    def throttle_file(self, i: int):
        return self.node.manager.vnf_dir(self.states[i]["vnf_id"]) / "throttle"


def test_measured_downstream_queue_throttles_the_head_counts_drops_and_releases(tmp_path) -> None:
    c = Chain(tmp_path, 3)
    head, mid, tail = (s["vnf_id"] for s in c.states)
    c.queues = {mid: 50, tail: 999}
    c.loop.step()
    assert not c.drop.filters and not c.loop.report()[LEGACY]["throttled"]
    c.queues[tail] = 1001  # over high
    c.loop.step()
    assert c.drop.filters == {c.ifname(0): 0} and c.throttle_file(0).exists()
    assert not c.throttle_file(1).exists()
    c.drop.filters[c.ifname(0)] = 42  # the filter dropped 42 packets
    c.queues[tail] = 500
    c.loop.step()
    rep = c.loop.report()[LEGACY]
    assert rep == {"throttled": True, "head": head, "queues": {mid: 50, tail: 500}, "episodes": 1, "drops": 42}
    c.queues[tail] = 99
    c.loop.step()
    assert c.drop.filters == {} and not c.throttle_file(0).exists()
    assert c.loop.report()[LEGACY]["drops"] == 42 and not c.loop.report()[LEGACY]["throttled"]
    assert c.drop.calls.count(("apply", c.ifname(0))) == 1  # applied once per episode, not every step


def test_chains_are_slices_not_tenants(tmp_path) -> None:
    # Tenant 1 has slice 7 (a two-vNF chain) and slice 8 (one vNF); grouped by tenant, slice 8's vNF would sit
    # downstream of slice 7's head and its queue would throttle it.
    node = Node(tmp_path)
    a_head, b, a_tail = (node.manager.create(spec(instance=i, chain_position=p, chain_id=c))
                         for i, p, c in ((1, 0, 7), (2, 0, 8), (3, 1, 7)))
    queues: dict[int, int] = {}
    drop = FakeDrop(node.wiring.links)
    loop = SchedulerLoop(node.manager, 1.0, high=1000, low=100, apply=lambda pid, v: True, dropper=drop,
                         socket_queue=lambda pid: next((q for v, q in queues.items() if pid_of(v) == pid), 0))

    def pid_of(vnf_id: int) -> int:
        return node.runtime.inspect(node.manager.store.get(vnf_id).container_id).pid

    queues[b["vnf_id"]] = 5000  # slice 8's only vNF backs up: nothing upstream of it in its slice
    loop.step()
    assert drop.filters == {} and not (node.manager.vnf_dir(a_head["vnf_id"]) / "throttle").exists()
    queues[a_tail["vnf_id"]] = 5000  # slice 7's tail backs up: slice 7's head drops, and only it
    loop.step()
    assert drop.filters == {a_head["ports"][0]["name"]: 0}
    rep = loop.report()
    assert rep[(1, 7)]["throttled"] and rep[(1, 7)]["head"] == a_head["vnf_id"]
    assert rep[(1, 7)]["queues"] == {a_tail["vnf_id"]: 5000} and (1, 8) not in rep


def test_the_vnf_written_queue_file_wins_over_the_measured_queue(tmp_path) -> None:
    c = Chain(tmp_path)
    tail = c.states[1]["vnf_id"]
    c.queues[tail] = 5000
    (c.node.manager.vnf_dir(tail) / "queue").write_text("10\n")
    c.loop.step()
    assert not c.drop.filters and c.loop.report()[LEGACY]["queues"] == {tail: 10}
    (c.node.manager.vnf_dir(tail) / "queue").unlink()
    c.loop.step()
    assert c.drop.filters


def test_a_single_vnf_chain_never_throttles(tmp_path) -> None:
    c = Chain(tmp_path, 1)
    c.queues[c.states[0]["vnf_id"]] = 10**9
    c.loop.step()
    c.loop.step()
    assert not c.drop.filters and not c.throttle_file(0).exists() and ("apply", c.ifname(0)) not in c.drop.calls


def test_deleting_the_downstream_or_the_head_releases_or_moves_the_drop(tmp_path) -> None:
    c = Chain(tmp_path, 3)
    c.queues = {c.states[1]["vnf_id"]: 5000}
    c.loop.step()
    assert set(c.drop.filters) == {c.ifname(0)}
    c.node.manager.delete(c.states[0]["vnf_id"])  # the head goes: the next vNF becomes head, its downstream is full
    c.queues = {c.states[2]["vnf_id"]: 5000}
    c.loop.step()
    assert set(c.drop.filters) == {c.ifname(1)} and c.throttle_file(1).exists()
    c.node.manager.delete(c.states[2]["vnf_id"])  # no downstream left: a chain of one never throttles
    c.loop.step()
    assert c.drop.filters == {} and not c.throttle_file(1).exists()
    assert c.loop.report()[LEGACY]["episodes"] == 2


def test_stop_releases_and_the_first_step_sweeps_leftover_filters(tmp_path) -> None:
    c = Chain(tmp_path, 3)
    c.drop.filters[c.ifname(2)] = 7  # left by an agent killed while it throttled
    c.throttle_file(2).touch()
    c.queues = {c.states[2]["vnf_id"]: 5000}
    c.loop.step()
    assert set(c.drop.filters) == {c.ifname(0)} and not c.throttle_file(2).exists()
    c.loop.stop()
    assert c.drop.filters == {} and not c.throttle_file(0).exists() and not c.loop.report()[LEGACY]["throttled"]


def test_watermarks_come_from_the_config_and_are_validated(tmp_path) -> None:
    node = Node(tmp_path, backpressure_high_bytes=4096, backpressure_low_bytes=1024)
    loop = SchedulerLoop(node.manager, 1.0)
    assert (loop.backpressure.high, loop.backpressure.low) == (4096, 1024)
    assert loop.dropper is None  # the fake wiring has no head_drop: throttle files only
    with pytest.raises(ValueError):
        Node(tmp_path, backpressure_high_bytes=10, backpressure_low_bytes=10)


def test_statistics_carry_the_backpressure_view_and_stay_valid_protocol(tmp_path) -> None:
    from wislice_mec_agent.stats import StatsCollector

    from .test_protocol import valid

    c = Chain(tmp_path, 3)
    head, mid, tail = (s["vnf_id"] for s in c.states)
    c.queues = {mid: 50, tail: 5000}
    c.loop.step()
    c.drop.filters[c.ifname(0)] = 7
    vnfs = {v["vnf_id"]: v for v in StatsCollector(c.node.manager, c.loop).collect()["vnfs"]}
    assert vnfs[head]["throttled"] is True and vnfs[head]["backpressure_drops"] == 7
    assert "queue_bytes" not in vnfs[head]
    assert (vnfs[mid]["queue_bytes"], vnfs[tail]["queue_bytes"]) == (50, 5000)
    assert "throttled" not in vnfs[mid]
    c.queues[tail] = 10
    c.loop.step()  # released: the head keeps its count
    stats = StatsCollector(c.node.manager, c.loop).collect(head)
    assert stats["vnfs"][0]["throttled"] is False and stats["vnfs"][0]["backpressure_drops"] == 7
    valid({"type": "event", "event": "stats", "ts": 1, "data": {"interval_s": 5, **stats}})  # VnfStats typed here
    assert "throttled" not in StatsCollector(c.node.manager).collect(head)["vnfs"][0]  # no scheduler, no view


def test_a_dpdk_vnf_arrivals_are_its_switch_port_tx_and_pids_are_cached(tmp_path) -> None:
    node = Node(tmp_path)
    kernel = node.manager.create(spec(instance=1))
    dpdk = node.manager.create(spec(instance=2, image="dpdk-vnf", chain_position=1))
    loop = SchedulerLoop(node.manager, 1.0, apply=lambda pid, v: True, socket_queue=lambda pid: 0)
    inspected: list[str] = []
    inspect = node.runtime.inspect
    node.runtime.inspect = lambda cid: inspected.append(cid) or inspect(cid)  # type: ignore[method-assign]
    loop.step()
    loop.step()
    # FakeSwitch says it sent 7 packets on every port; FakeWiring's host veth sent 2 towards the kernel vNF.
    assert loop.estimators[dpdk["vnf_id"]].last.rx_packets == 7
    assert loop.estimators[kernel["vnf_id"]].last.rx_packets == 2
    assert sorted(inspected) == sorted([kernel["container_id"], dpdk["container_id"]])  # once each in two steps


def test_offered_load_counts_when_higher_and_only_from_the_same_upstream() -> None:
    est = CostEstimator()
    est.add(Sample(0.0, 0, 0, offered=(5, 0)))
    est.add(Sample(1.0, 1000, 100, offered=(5, 300)))  # 300 sent on by upstream 5, 100 got in
    assert est.rate == 300
    assert est.cost_ns == 10  # CPU per packet it took (100), not per packet offered: starved is not cheap
    other = CostEstimator()
    other.add(Sample(0.0, 0, 0, offered=(5, 0)))
    other.add(Sample(1.0, 1000, 100, offered=(6, 900)))  # another upstream: its counter is no rate
    assert other.rate == 100 and other.cost_ns == 10


def test_latency_vnfs_get_the_highest_weight() -> None:
    assert favour_latency({1: 3000, 2: 40, 3: 2}, {2}) == {1: 3000, 2: 3000, 3: 2}
    assert favour_latency({1: 300, 2: 40}, {2}) == {1: 300, 2: 1024}  # at least the default
    assert favour_latency({1: 300}, {9}) == {1: 300}  # not running here: nothing to favour


def test_a_downstream_vnf_is_loaded_by_what_its_upstream_sent(tmp_path) -> None:
    c = Chain(tmp_path, 2)
    head, tail = (s["vnf_id"] for s in c.states)
    sent = {"n": 0}

    def stats(ifname: str) -> LinkStats:  # the head forwards 10x what reaches the tail (dropped on the way)
        if ifname == c.ifname(0):
            return LinkStats(rx_packets=sent["n"] * 10, tx_packets=sent["n"] * 10)
        return LinkStats(rx_packets=sent["n"], tx_packets=sent["n"])

    c.node.wiring.stats = stats  # type: ignore[method-assign]
    for _ in range(3):
        sent["n"] += 100
        c.loop.step()
    assert c.loop.estimators[tail].rate == pytest.approx(c.loop.estimators[head].rate)


def test_a_throttled_head_gets_the_floor_weight_and_a_latency_vnf_the_top(tmp_path) -> None:
    c = Chain(tmp_path, 3)
    head, mid, tail = (s["vnf_id"] for s in c.states)
    c.loop.step()
    for est in c.loop.estimators.values():  # equal, positive loads
        est.rate, est.cost_ns = 1000.0, 100.0
    c.queues[tail] = 5000
    shares = c.loop.step()
    assert c.loop.report()[LEGACY]["throttled"]
    assert shares[head] == MIN_SHARES and shares[mid] == shares[tail] > 1024
    c.queues[tail] = 0
    assert c.loop.step()[head] > MIN_SHARES  # released: weighted by its load again
    rec = c.node.manager.store.get(mid)
    c.node.manager.store.put(rec.with_(spec=replace(rec.spec, params={"latency": True})))
    shares = c.loop.step()
    assert shares[mid] == max(shares.values()) >= 1024


def test_a_vnf_that_measures_itself_reports_its_p99_processing_time(tmp_path) -> None:
    import json

    from wislice_mec_agent.stats import StatsCollector, proc_p99_us

    from .test_protocol import valid

    node = Node(tmp_path)
    dpdk = node.manager.create(spec(instance=2, image="dpdk-vnf"))
    kernel = node.manager.create(spec(instance=3))
    cdir = node.manager.vnf_dir(dpdk["vnf_id"])
    (cdir / "stats.json").write_text(json.dumps({"proc_p99_ns": 4095, "proc_packets": 90000}))
    stats = StatsCollector(node.manager).collect()
    vnfs = {v["vnf_id"]: v for v in stats["vnfs"]}
    assert vnfs[dpdk["vnf_id"]]["proc_p99_us"] == 4.095 and "proc_p99_us" not in vnfs[kernel["vnf_id"]]
    valid({"type": "event", "event": "stats", "ts": 1, "data": {"interval_s": 5, **stats}})
    for bad in ({"proc_p99_ns": 10, "proc_packets": 0}, {"proc_p99_ns": -1, "proc_packets": 5}, {"proc_p99_ns": 10},
                {"proc_p99_ns": "10", "proc_packets": 5}):
        (cdir / "stats.json").write_text(json.dumps(bad))  # no packet in the report: nothing measured, no 0
        assert proc_p99_us(cdir) is None, bad
    (cdir / "stats.json").write_text("{")
    assert proc_p99_us(cdir) is None
