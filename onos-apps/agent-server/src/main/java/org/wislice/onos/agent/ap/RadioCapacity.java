package org.wislice.onos.agent.ap;

import org.wislice.onos.agent.AgentValue;

/** A stats event's radio entry: the radio's current capacity and where it comes from. */
public final class RadioCapacity extends AgentValue {

    final String name;
    final long capacityKbps;
    final String capacitySource;

    public RadioCapacity(String name, long capacityKbps, String capacitySource) {
        this.name = name;
        this.capacityKbps = capacityKbps;
        this.capacitySource = capacitySource;
    }

    public String name() {
        return name;
    }

    @Override
    protected Object[] fields() {
        return new Object[] {name, capacityKbps, capacitySource};
    }
}
