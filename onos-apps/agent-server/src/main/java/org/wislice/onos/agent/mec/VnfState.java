package org.wislice.onos.agent.mec;

import org.wislice.onos.agent.AgentValue;

import java.util.List;

/**
 * VnfState: a vNF as its MEC node runs it: the spec plus vnf_id, address, class (kernel, dpdk), state (creating,
 * running, stopped, failed), container_id and ports.
 */
public final class VnfState extends AgentValue {

    final VnfSpec spec;
    final long vnfId;
    final String address;
    final String vnfClass;
    final String state;
    final String containerId;
    final List<VnfPort> ports;

    public VnfState(VnfSpec spec, long vnfId, String address, String vnfClass, String state, String containerId,
                    List<VnfPort> ports) {
        this.spec = spec;
        this.vnfId = vnfId;
        this.address = address;
        this.vnfClass = vnfClass;
        this.state = state;
        this.containerId = containerId;
        this.ports = List.copyOf(ports);
    }

    public VnfSpec spec() {
        return spec;
    }

    public long vnfId() {
        return vnfId;
    }

    public String state() {
        return state;
    }

    @Override
    protected Object[] fields() {
        return new Object[] {spec, vnfId, address, vnfClass, state, containerId, ports};
    }
}
