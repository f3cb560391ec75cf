package org.wislice.onos.agent.ap;

import org.wislice.onos.agent.AgentValue;

/** Radio: one radio of an ap-agent (hello capabilities, changeChannel), with its capacity if the agent has one. */
public final class Radio extends AgentValue {

    final String name;
    final String mac;
    final int channel;
    final String hwMode;
    final int maxVaps;
    final int vapsUsed;
    /** Both null for an agent that reports no capacity. */
    final Long capacityKbps;
    final String capacitySource;

    public Radio(String name, String mac, int channel, String hwMode, int maxVaps, int vapsUsed, Long capacityKbps,
                 String capacitySource) {
        this.name = name;
        this.mac = mac;
        this.channel = channel;
        this.hwMode = hwMode;
        this.maxVaps = maxVaps;
        this.vapsUsed = vapsUsed;
        this.capacityKbps = capacityKbps;
        this.capacitySource = capacitySource;
    }

    public String name() {
        return name;
    }

    public int channel() {
        return channel;
    }

    public Long capacityKbps() {
        return capacityKbps;
    }

    public String capacitySource() {
        return capacitySource;
    }

    /** This radio with the capacity a stats event reports (this one when it already has it). */
    public Radio withCapacity(RadioCapacity c) {
        if (capacityKbps != null && capacityKbps == c.capacityKbps && c.capacitySource.equals(capacitySource)) {
            return this;
        }
        return new Radio(name, mac, channel, hwMode, maxVaps, vapsUsed, c.capacityKbps, c.capacitySource);
    }

    @Override
    protected Object[] fields() {
        return new Object[] {name, mac, channel, hwMode, maxVaps, vapsUsed, capacityKbps, capacitySource};
    }
}
