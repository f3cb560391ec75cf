package org.wislice.onos.agent.mec;

import org.wislice.onos.agent.AgentValue;

/** A vNF port's packet and byte counters (VnfStats). */
public final class PortCounters extends AgentValue {

    final String name;
    final long rxPackets;
    final long rxBytes;
    final long txPackets;
    final long txBytes;

    public PortCounters(String name, long rxPackets, long rxBytes, long txPackets, long txBytes) {
        this.name = name;
        this.rxPackets = rxPackets;
        this.rxBytes = rxBytes;
        this.txPackets = txPackets;
        this.txBytes = txBytes;
    }

    @Override
    protected Object[] fields() {
        return new Object[] {name, rxPackets, rxBytes, txPackets, txBytes};
    }
}
