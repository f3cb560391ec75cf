package org.wislice.onos.nfv.impl;

import org.wislice.onos.agent.AgentRecord;
import org.wislice.onos.agent.AgentValue;
import org.wislice.onos.agent.mec.Capacity;
import org.wislice.onos.agent.mec.MecCapabilities;

/**
 * A MEC node as placement and REST see it: its mec-agent's record (connection, capacity, catalog), what the
 * controller has placed on it (used) and its latest CPU load (percent, from its stats events; 0 before any).
 */
public final class Node extends AgentValue {

    final AgentRecord<MecCapabilities> agent;
    final Capacity used;
    final double load;

    public Node(AgentRecord<MecCapabilities> agent, Capacity used, double load) {
        this.agent = agent;
        this.used = used;
        this.load = load;
    }

    public String agentId() {
        return agent.agentId();
    }

    public boolean connected() {
        return agent.connected();
    }

    public boolean offers(String image) {
        return agent.capabilities().offers(image);
    }

    public Capacity capacity() {
        return agent.capabilities().capacity();
    }

    public Capacity used() {
        return used;
    }

    public double load() {
        return load;
    }

    @Override
    protected Object[] fields() {
        return new Object[] {agent, used, load};
    }
}
