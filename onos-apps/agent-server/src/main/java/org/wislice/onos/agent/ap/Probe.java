package org.wislice.onos.agent.ap;

import org.wislice.onos.agent.AgentValue;

/** A vAP's latency probe (VapSpec's probe): ICMP echo from sourceIp to targetIp every intervalMs (null: 100). */
public final class Probe extends AgentValue {

    final String sourceIp;
    final String targetIp;
    /** Null when absent (100 ms for the agent). */
    final Integer intervalMs;

    public Probe(String sourceIp, String targetIp, Integer intervalMs) {
        this.sourceIp = sourceIp;
        this.targetIp = targetIp;
        this.intervalMs = intervalMs;
    }

    public String sourceIp() {
        return sourceIp;
    }

    public String targetIp() {
        return targetIp;
    }

    /** The probe interval in ms (100 when absent, as the agent takes it). */
    public int intervalMs() {
        return intervalMs == null ? 100 : intervalMs;
    }

    @Override
    protected Object[] fields() {
        return new Object[] {sourceIp, targetIp, intervalMs};
    }
}
