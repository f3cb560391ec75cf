package org.wislice.onos.agent.mec;

import org.wislice.onos.agent.AgentValue;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/** VnfSpec: a vNF as the controller wants it on a MEC node (createVnf, syncVnfs). */
public final class VnfSpec extends AgentValue {

    final int tenantId;
    final int instanceId;
    final String image;
    /** String, Number or Boolean values in their order; null when the JSON has no params (not the same as {}). */
    final Map<String, Object> params;
    final Number cpu;
    final long memoryMib;
    final int chainPosition;
    /** The chain (the orchestrator's slice id) the vNF is in; null when the request had none. */
    final Long chainId;
    /** Its slice's latency class (ultra_low, low, best_effort); null when the request had none. */
    final String latencyClass;

    public VnfSpec(int tenantId, int instanceId, String image, Map<String, Object> params, Number cpu,
                   long memoryMib, int chainPosition) {
        this(tenantId, instanceId, image, params, cpu, memoryMib, chainPosition, null);
    }

    public VnfSpec(int tenantId, int instanceId, String image, Map<String, Object> params, Number cpu,
                   long memoryMib, int chainPosition, Long chainId) {
        this(tenantId, instanceId, image, params, cpu, memoryMib, chainPosition, chainId, null);
    }

    public VnfSpec(int tenantId, int instanceId, String image, Map<String, Object> params, Number cpu,
                   long memoryMib, int chainPosition, Long chainId, String latencyClass) {
        this.tenantId = tenantId;
        this.instanceId = instanceId;
        this.image = image;
        this.params = params == null ? null : Collections.unmodifiableMap(new LinkedHashMap<>(params));
        this.cpu = cpu;
        this.memoryMib = memoryMib;
        this.chainPosition = chainPosition;
        this.chainId = chainId;
        this.latencyClass = latencyClass;
    }

    /** vnf_id = tenant_id << 16 | instance_id. */
    public long vnfId() {
        return ((long) tenantId << 16) | instanceId;
    }

    public String image() {
        return image;
    }

    public double cpu() {
        return cpu.doubleValue();
    }

    public long memoryMib() {
        return memoryMib;
    }

    /** The chain the node groups the vNF in (spec/agent PROTOCOL.md); empty: the tenant's one chain. */
    public Optional<Long> chainId() {
        return Optional.ofNullable(chainId);
    }

    /** The latency class of the vNF's slice (the node places a latency slice's vNF for it); empty: none sent. */
    public Optional<String> latencyClass() {
        return Optional.ofNullable(latencyClass);
    }

    @Override
    protected Object[] fields() {
        return new Object[] {tenantId, instanceId, image, params, cpu, memoryMib, chainPosition, chainId,
                             latencyClass};
    }
}
