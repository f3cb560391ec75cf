"""The agent attaches each vAP netdev to the AP's local pof-switch (pofswitch-afp, AF_PACKET build, in the VM) and
tells the controller the port number; deleting the vAP detaches it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from apvm import ApVm
from conftest import AgentRun, run_agent
from test_vm_agent import vap
from wifi import Hostapd

MGMT = "/run/pofswitch.sock"


def switch_ports(vm: ApVm) -> str:
    """The switch's `ports` reply (`OK id:name:enabled:rx_packets:tx_packets:rx_bytes:tx_bytes ...`), asked on its
    management socket by the agents' client, which the image has beside the agent."""
    script = ("import sys; from wislice_agent_proto.switch_mgmt import SwitchMgmt; "
              "print(SwitchMgmt(sys.argv[1]).request('ports'))")
    return vm.run(f'env PYTHONPATH=/opt/wislice/ap-agent python3 -c "{script}" {MGMT}').out.strip()


@pytest.fixture(scope="module")
def pof_agent(vm: ApVm, hostapd: Hostapd) -> Iterator[AgentRun]:
    if vm.run("command -v pofswitch-afp", check=False).rc != 0:
        pytest.skip("no pofswitch-afp in the AP VM image (pof-switch/build/pofswitch-afp was not built)")
    pid = vm.spawn(f"pofswitch-afp --controller none --mgmt {MGMT} --enable-ports", log="/tmp/pofswitch.log")
    try:
        vm.wait_for(f"test -S {MGMT}", timeout=20)
        yield from run_agent(vm, hostapd, pof_switch_socket=MGMT)
    finally:
        vm.run(f"kill {pid}; for i in $(seq 50); do kill -0 {pid} 2>/dev/null || break; sleep 0.1; done; "
               f"kill -9 {pid} 2>/dev/null; rm -f {MGMT}; true", check=False)


def test_vap_netdev_becomes_a_switch_port(pof_agent: AgentRun) -> None:
    ctl = pof_agent.ctl
    assert ctl.hello is not None and ctl.hello["capabilities"]["pof_switch"] is True
    reply = ctl.request("createVap", {"vap": vap("v-pof", "agent-pof")})
    assert reply["ok"], reply
    state = reply["result"]["vap"]
    assert isinstance(state["pof_port"], int)
    assert f"{state['pof_port']}:{state['ifname']}:" in switch_ports(pof_agent.vm)
    ctl.call("delVap", {"vap_id": "v-pof"})
    assert f":{state['ifname']}:" not in switch_ports(pof_agent.vm)
    assert ctl.schema_errors == []
