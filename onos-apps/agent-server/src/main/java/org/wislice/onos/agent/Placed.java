package org.wislice.onos.agent;

/** A protocol value and the agent that has it (a VapState on its ap-agent, a VnfState on its MEC node). */
public final class Placed<T> extends AgentValue {

    final String agentId;
    final T value;

    public Placed(String agentId, T value) {
        this.agentId = agentId;
        this.value = value;
    }

    public String agentId() {
        return agentId;
    }

    public T value() {
        return value;
    }

    @Override
    protected Object[] fields() {
        return new Object[] {agentId, value};
    }
}
