"""Chain backpressure on real vNFs: the agent measures a stalled downstream vNF's socket receive queue from outside
and drops at the chain head's host veth (clsact egress filter), then releases once the queue drained.

Chain of tenant 9: kernel-fwd (position 0, the head) -> transcoder (position 1; ffmpeg reads MPEG-TS on UDP
in_port). ffmpeg's reader thread drains its socket into its own FIFO at once, so the queue is built by freezing
the transcoder (`docker pause`, cgroup freezer) while the node blasts UDP at it."""

from __future__ import annotations

import contextlib
import socket
import time
from pathlib import Path

import pytest

from wislice_mec_agent.scheduler import SchedulerLoop, socket_rx_bytes
from wislice_mec_agent.wiring import TcHeadDrop, netns_path, run_in_netns

from .conftest import RealNode

pytestmark = pytest.mark.integration
TENANT = 9
SLICE = 3
CHAIN = (TENANT, SLICE)  # the scheduler's chain key: (tenant_id, chain_id)
IN_PORT = 5004
TS_NULL = (b"\x47\x1f\xff\x10" + b"\xff" * 184) * 7  # 7 MPEG-TS null packets = 1316 bytes, what ffmpeg expects


def kspec(instance: int, image: str, position: int, **kw: object) -> dict:
    s = {"tenant_id": TENANT, "instance_id": instance, "image": image, "params": {}, "cpu": 0.5,
         "memory_mib": 256 if image == "transcoder" else 32, "chain_position": position, "chain_id": SLICE}
    s.update(kw)
    return s


def udp_listening(pid: int, port: int) -> bool:
    for table in ("udp", "udp6"):
        with contextlib.suppress(OSError):
            for line in Path(f"/proc/{pid}/net/{table}").read_text().splitlines()[1:]:
                if line.split()[1].endswith(f":{port:04X}"):
                    return True
    return False


def wait_for(cond, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def ping_ok(node: RealNode, address: str) -> bool:
    return node.ns.exec(["ping", "-c", "3", "-i", "0.2", "-W", "1", address], check=False).returncode == 0


def test_stalled_downstream_throttles_the_chain_head_and_releases_after_draining(real_node: RealNode) -> None:
    cfg = real_node.config
    high, low = cfg.backpressure_high_bytes, cfg.backpressure_low_bytes  # the defaults: 128 KiB / 32 KiB
    head = real_node.manager.create(kspec(1, "kernel-fwd", 0))
    tail = real_node.manager.create(kspec(2, "transcoder", 1, params={"in_port": IN_PORT}))
    head_if, head_addr = head["ports"][0]["name"], head["address"]
    tail_addr = tail["address"]
    for s in (head, tail):
        real_node.ns.exec(["ip", "route", "add", f"{s['address']}/32", "dev", s["ports"][0]["name"]])
    tail_cid = real_node.manager.store.get(tail["vnf_id"]).container_id
    tail_pid = real_node.runtime.inspect(tail_cid).pid
    head_dir = real_node.manager.vnf_dir(head["vnf_id"])
    docker = real_node.runtime.client.api
    drop = TcHeadDrop(cfg.node_netns)
    loop = SchedulerLoop(real_node.manager, 1.0)
    tx = run_in_netns(netns_path(cfg.node_netns), lambda: socket.socket(socket.AF_INET, socket.SOCK_DGRAM))
    paused = False
    try:
        wait_for(lambda: udp_listening(tail_pid, IN_PORT), 30, f"ffmpeg listening on udp {IN_PORT}")
        loop.step()
        assert not loop.report()[CHAIN]["throttled"] and not drop.active(head_if)
        assert ping_ok(real_node, head_addr)

        docker.pause(tail_cid)
        paused = True
        sent = 0
        while socket_rx_bytes(tail_pid) <= high:
            assert sent < 4000, f"queue stuck at {socket_rx_bytes(tail_pid)} bytes after {sent} datagrams"
            for _ in range(20):
                tx.sendto(TS_NULL, (tail_addr, IN_PORT))
            sent += 20
        loop.step()
        rep = loop.report()[CHAIN]
        assert rep["throttled"] and rep["head"] == head["vnf_id"], rep
        assert rep["queues"][tail["vnf_id"]] > high, rep
        assert drop.active(head_if) and (head_dir / "throttle").exists()
        assert not ping_ok(real_node, head_addr), "the throttled head still answers"
        drops = loop.report()[CHAIN]["drops"]
        assert drops >= 3, loop.report()  # the pings (and their ARP) died on the head's host veth

        loop.step()  # between the watermarks nothing changes (the tail is still frozen)
        assert loop.report()[CHAIN]["throttled"]

        docker.unpause(tail_cid)
        paused = False
        wait_for(lambda: socket_rx_bytes(tail_pid) < low, 20, "the transcoder draining its socket")
        assert real_node.runtime.inspect(tail_cid).status == "running"
        loop.step()
        rep = loop.report()[CHAIN]
        assert not rep["throttled"] and rep["drops"] >= drops and rep["episodes"] == 1, rep
        assert not drop.active(head_if) and not (head_dir / "throttle").exists()
        assert ping_ok(real_node, head_addr)
        print(f"\nbackpressure: {sent} datagrams queued, report {rep}")
    finally:
        tx.close()
        if paused:
            docker.unpause(tail_cid)
        loop.stop()
    assert not drop.active(head_if)
    for s in (head, tail):
        real_node.manager.delete(s["vnf_id"])
    assert not any(real_node.holdings().values()), real_node.holdings()
