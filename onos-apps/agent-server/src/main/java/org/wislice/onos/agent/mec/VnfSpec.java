package org.wislice.onos.agent.mec;

import org.wislice.onos.agent.AgentValue;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

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

    public VnfSpec(int tenantId, int instanceId, String image, Map<String, Object> params, Number cpu,
                   long memoryMib, int chainPosition) {
        this.tenantId = tenantId;
        this.instanceId = instanceId;
        this.image = image;
        this.params = params == null ? null : Collections.unmodifiableMap(new LinkedHashMap<>(params));
        this.cpu = cpu;
        this.memoryMib = memoryMib;
        this.chainPosition = chainPosition;
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

    @Override
    protected Object[] fields() {
        return new Object[] {tenantId, instanceId, image, params, cpu, memoryMib, chainPosition};
    }
}
