package org.wislice.onos.agent.mec;

import org.wislice.onos.agent.AgentValue;

import java.util.List;

/**
 * VnfStats: a vNF's CPU, memory and port counters and, from a node that runs chain backpressure, queue_bytes,
 * throttled and backpressure_drops, and from a vNF that measures itself proc_p99_us (null when not reported).
 */
public final class VnfStats extends AgentValue {

    final long vnfId;
    final Number cpuPct;
    final Number memoryMib;
    final List<PortCounters> ports;
    final Long queueBytes;
    final Boolean throttled;
    final Long backpressureDrops;
    /** p99 of the time a packet spent in the vNF, microseconds, over the vNF's last report; null: not measured. */
    final Number procP99Us;

    public VnfStats(long vnfId, Number cpuPct, Number memoryMib, List<PortCounters> ports, Long queueBytes,
                    Boolean throttled, Long backpressureDrops, Number procP99Us) {
        this.vnfId = vnfId;
        this.cpuPct = cpuPct;
        this.memoryMib = memoryMib;
        this.ports = List.copyOf(ports);
        this.queueBytes = queueBytes;
        this.throttled = throttled;
        this.backpressureDrops = backpressureDrops;
        this.procP99Us = procP99Us;
    }

    public long vnfId() {
        return vnfId;
    }

    @Override
    protected Object[] fields() {
        return new Object[] {vnfId, cpuPct, memoryMib, ports, queueBytes, throttled, backpressureDrops, procP99Us};
    }
}
