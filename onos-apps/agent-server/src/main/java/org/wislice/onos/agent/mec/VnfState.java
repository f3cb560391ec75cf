package org.wislice.onos.agent.mec;

import org.wislice.onos.agent.AgentValue;

import java.util.List;
import java.util.Optional;

/**
 * VnfState: a vNF as its MEC node runs it: the spec plus vnf_id, address, class (kernel, dpdk), state (creating,
 * running, stopped, failed), container_id and ports; for a vNF the node placed on its cores also cpus (its cpuset,
 * a kernel CPU list) and cpu_mode (exclusive, shared, switch), absent when the node did not report them.
 */
public final class VnfState extends AgentValue {

    final VnfSpec spec;
    final long vnfId;
    final String address;
    final String vnfClass;
    final String state;
    final String containerId;
    final List<VnfPort> ports;
    final String cpus;
    final String cpuMode;

    public VnfState(VnfSpec spec, long vnfId, String address, String vnfClass, String state, String containerId,
                    List<VnfPort> ports, String cpus, String cpuMode) {
        this.spec = spec;
        this.vnfId = vnfId;
        this.address = address;
        this.vnfClass = vnfClass;
        this.state = state;
        this.containerId = containerId;
        this.ports = List.copyOf(ports);
        this.cpus = cpus;
        this.cpuMode = cpuMode;
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

    /** The vNF's cpuset ("1"), if its node reported one. */
    public Optional<String> cpus() {
        return Optional.ofNullable(cpus);
    }

    /** exclusive, shared or switch (on the pof-switch's core), if its node reported it. */
    public Optional<String> cpuMode() {
        return Optional.ofNullable(cpuMode);
    }

    @Override
    protected Object[] fields() {
        return new Object[] {spec, vnfId, address, vnfClass, state, containerId, ports, cpus, cpuMode};
    }
}
