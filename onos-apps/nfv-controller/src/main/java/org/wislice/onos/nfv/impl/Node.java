package org.wislice.onos.nfv.impl;

import org.wislice.onos.agent.AgentRecord;
import org.wislice.onos.agent.AgentValue;
import org.wislice.onos.agent.mec.Capacity;
import org.wislice.onos.agent.mec.MecCapabilities;

/**
 * A MEC node as placement and REST see it: its mec-agent's record (connection, capacity, catalog), what the
 * controller has placed on it (used), its latest CPU load (percent, from its stats events; 0 before any) and how
 * many of its vNFs run on its pof-switch's core (cpu_mode "switch": the node has no other core for them, and
 * they slow its switch down).
 */
public final class Node extends AgentValue {

    final AgentRecord<MecCapabilities> agent;
    final Capacity used;
    final double load;
    final int switchCoreVnfs;

    public Node(AgentRecord<MecCapabilities> agent, Capacity used, double load, int switchCoreVnfs) {
        this.agent = agent;
        this.used = used;
        this.load = load;
        this.switchCoreVnfs = switchCoreVnfs;
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

    public int switchCoreVnfs() {
        return switchCoreVnfs;
    }

    @Override
    protected Object[] fields() {
        return new Object[] {agent, used, load, switchCoreVnfs};
    }
}
