"""The NFV controller on the real ONOS 2.5.6 runtime, driven through /onos/nfv, with protocol-level mec-agents
(tests/fake_agent.py: the real mec-agent needs a private dockerd and pof-switch; see the component README)."""
from __future__ import annotations

import asyncio

import pytest

from onos_helpers import Onos, free_port
from fake_agent import FakeAgent

pytestmark = pytest.mark.integration

SECRET = "nfv-integration-secret"
NFV = "org.wislice.onos.nfv.impl.NfvManager"


@pytest.fixture(scope="module")
def nfv(onos: Onos) -> tuple[Onos, int]:
    port = free_port()
    onos.configure(NFV, {"agentPort": port, "sharedSecret": SECRET, "apDistances": "ap-1:mec-near=1,ap-1:mec-far=9"})
    return onos, port


async def connect(port: int, agent_id: str, cpu: float) -> FakeAgent:
    agent = FakeAgent(agent_id, role="mec", port=port, secret=SECRET, capacity={"cpu": cpu, "memory_mib": 4096})
    for _ in range(50):
        try:
            await agent.connect()
            break
        except OSError:
            await asyncio.sleep(0.2)
    await asyncio.wait_for(agent.synced.wait(), 10)
    return agent


def test_placement_create_stats_remove(nfv: tuple[Onos, int]) -> None:
    onos, port = nfv

    async def scenario() -> None:
        near = await connect(port, "mec-near", 2)
        far = await connect(port, "mec-far", 8)
        code, nodes = await asyncio.to_thread(onos.request, "GET", "/onos/nfv/nodes")
        assert code == 200 and {n["agent_id"] for n in nodes["nodes"]} >= {"mec-near", "mec-far"}

        spec = {"tenant_id": 1, "instance_id": 2, "image": "firewall", "params": {"allow_tcp": "80"}, "cpu": 1,
                "memory_mib": 128, "chain_position": 0, "chain_id": 7, "near_ap": "ap-1"}
        code, out = await asyncio.to_thread(onos.request, "POST", "/onos/nfv/vnfs", spec)
        assert code == 201, out
        assert out["node"] == "mec-near" and out["vnf"]["vnf_id"] == 65538 and 65538 in near.vnfs
        assert out["vnf"]["chain_id"] == 7 and near.vnfs[65538]["chain_id"] == 7  # passed through to the node

        # The near node is now half full: a 1.5-CPU vNF must go far away.
        big = dict(spec, instance_id=3, cpu=1.5)
        code, out = await asyncio.to_thread(onos.request, "POST", "/onos/nfv/vnfs", big)
        assert code == 201 and out["node"] == "mec-far" and 65539 in far.vnfs

        code, err = await asyncio.to_thread(onos.request, "POST", "/onos/nfv/vnfs", dict(spec, cpu=100))
        assert code == 409 and err["code"] == "capacity"
        code, err = await asyncio.to_thread(onos.request, "POST", "/onos/nfv/vnfs", dict(spec, image="../x"))
        assert code == 400

        code, stats = await asyncio.to_thread(onos.request, "GET", "/onos/nfv/vnfs/65538/stats")
        assert code == 200 and stats["vnf_id"] == 65538

        # Reconnect: desired vNFs come back with syncVnfs.
        await near.close()
        again = await connect(port, "mec-near", 2)
        assert 65538 in again.vnfs and again.requests_seen[0] == "syncVnfs"
        assert again.vnfs[65538]["chain_id"] == 7  # kept in the controller's desired store

        for vnf_id, agent in ((65538, again), (65539, far)):
            code, _ = await asyncio.to_thread(onos.request, "DELETE", f"/onos/nfv/vnfs/{vnf_id}")
            assert code == 204 and vnf_id not in agent.vnfs
        code, vnfs = await asyncio.to_thread(onos.request, "GET", "/onos/nfv/vnfs")
        assert vnfs["vnfs"] == []
        await again.close()
        await far.close()

    asyncio.run(scenario())
