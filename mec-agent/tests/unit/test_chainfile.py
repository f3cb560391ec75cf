"""The chain file of data-plane backpressure (chainfile.py): made, linked into each DPDK vNF of a chain with its
position, cleared and removed with the chain; the scheduler leaves such a chain to its head and reports the head's
own counters."""

from __future__ import annotations

import json
import os
from pathlib import Path

from wislice_mec_agent import chainfile
from wislice_mec_agent.scheduler import SchedulerLoop
from wislice_mec_agent.stats import StatsCollector

from .conftest import Node, spec


def test_attach_links_one_file_with_positions_and_detach_clears_then_removes(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    assert chainfile.attach(tmp_path, (1, 7), 0, a) and chainfile.attach(tmp_path, (1, 7), 1, b)
    path = chainfile.chain_path(tmp_path, (1, 7))
    assert path.stat().st_size == chainfile.CHAIN_LINES * chainfile.LINE
    assert os.path.samefile(a / "chain", path) and os.path.samefile(b / "chain", path)  # one inode, one mapping
    assert (a / "chain-pos").read_text() == "0\n" and (b / "chain-pos").read_text() == "1\n"
    # the vNF at 1 says "over" through its own link; the head's link sees it
    with open(b / "chain", "r+b") as f:
        f.seek(chainfile.LINE)
        f.write((1).to_bytes(4, "little"))
    assert chainfile.over_flags(a / "chain")[:2] == [False, True]
    chainfile.detach(tmp_path, (1, 7), 1, others=1)  # its flag must not hold the head once it is gone
    assert not any(chainfile.over_flags(path))
    assert not chainfile.attach(tmp_path, (1, 7), chainfile.CHAIN_LINES, b)  # past the file: takes no part
    chainfile.detach(tmp_path, (1, 7), 0, others=0)
    assert not path.exists()
    assert chainfile.chain_path(tmp_path, (2, None)).name == "2-none"


def test_dpdk_chain_gets_the_file_and_the_scheduler_leaves_its_backpressure_to_the_head(tmp_path: Path) -> None:
    node = Node(tmp_path)
    head = node.manager.create(spec(instance=1, image="dpdk-vnf", chain_id=5, chain_position=0))
    down = node.manager.create(spec(instance=2, image="dpdk-vnf", chain_id=5, chain_position=1))
    kernel = node.manager.create(spec(instance=3, chain_id=6))  # kernel vNFs: no chain file
    hdir, ddir = node.config.vnf_dir / str(head["vnf_id"]), node.config.vnf_dir / str(down["vnf_id"])
    assert os.path.samefile(hdir / "chain", ddir / "chain") and (ddir / "chain-pos").read_text() == "1\n"
    assert not (node.config.vnf_dir / str(kernel["vnf_id"]) / "chain").exists()

    # a full downstream queue would throttle a kernel chain; here the head's own counters are the report
    (ddir / "queue").write_text("100000\n")
    (hdir / "stats.json").write_text(json.dumps({"backpressure": True, "backpressure_dropped": 4321}))
    loop = SchedulerLoop(node.manager, 1.0, high=1000, low=100, apply=lambda pid, v: True, socket_queue=lambda pid: 0)
    loop.step()
    assert not (hdir / "throttle").exists() and not loop.plan.active
    stats = StatsCollector(node.manager, scheduler=loop).collect(head["vnf_id"])["vnfs"][0]
    assert stats["throttled"] is True and stats["backpressure_drops"] == 4321

    node.manager.delete(down["vnf_id"])
    path = chainfile.chain_path(node.config.state_dir, (1, 5))
    assert path.exists() and not any(chainfile.over_flags(path))
    node.manager.delete(head["vnf_id"])
    assert not path.exists()


def test_without_dataplane_backpressure_a_dpdk_chain_is_throttled_by_the_loop(tmp_path: Path) -> None:
    node = Node(tmp_path)
    node.config.dataplane_backpressure = False
    head = node.manager.create(spec(instance=1, image="dpdk-vnf", chain_id=5, chain_position=0))
    down = node.manager.create(spec(instance=2, image="dpdk-vnf", chain_id=5, chain_position=1))
    hdir, ddir = node.config.vnf_dir / str(head["vnf_id"]), node.config.vnf_dir / str(down["vnf_id"])
    assert not (hdir / "chain").exists() and not (ddir / "chain-pos").exists()
    (ddir / "queue").write_text("100000\n")
    loop = SchedulerLoop(node.manager, 1.0, high=1000, low=100, apply=lambda pid, v: True, socket_queue=lambda pid: 0)
    loop.step()
    assert (hdir / "throttle").exists()
    loop.stop()
