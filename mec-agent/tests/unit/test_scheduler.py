from __future__ import annotations

import pytest

from wislice_mec_agent.scheduler import Backpressure, CostEstimator, Sample, compute_shares


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
    from wislice_mec_agent.scheduler import SchedulerLoop

    from .conftest import Node, spec

    node = Node(tmp_path)
    head = node.manager.create(spec(instance=1, chain_position=0))
    tail = node.manager.create(spec(instance=2, chain_position=1))
    applied: dict[int, int] = {}
    loop = SchedulerLoop(node.manager, 1.0, high=100, low=10, apply=lambda pid, v: applied.update({pid: v}) or True)
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
