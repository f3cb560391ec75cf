package org.wislice.onos.agent.mec;

import org.wislice.onos.agent.AgentValue;

/** NodeStats: a MEC node's CPU load (percent) and memory in use. */
public final class NodeStats extends AgentValue {

    final Number cpuPct;
    final Number memoryUsedMib;

    public NodeStats(Number cpuPct, Number memoryUsedMib) {
        this.cpuPct = cpuPct;
        this.memoryUsedMib = memoryUsedMib;
    }

    public double cpuPct() {
        return cpuPct.doubleValue();
    }

    public double memoryUsedMib() {
        return memoryUsedMib.doubleValue();
    }

    @Override
    protected Object[] fields() {
        return new Object[] {cpuPct, memoryUsedMib};
    }
}
