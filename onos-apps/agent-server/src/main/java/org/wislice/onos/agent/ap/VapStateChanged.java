package org.wislice.onos.agent.ap;

import org.wislice.onos.agent.AgentValue;

/** The vapState event's data: up, down, failed, or removed (delVap or syncVaps took it away). */
public final class VapStateChanged extends AgentValue {

    final String vapId;
    final String state;

    public VapStateChanged(String vapId, String state) {
        this.vapId = vapId;
        this.state = state;
    }

    public String vapId() {
        return vapId;
    }

    public String state() {
        return state;
    }

    public boolean removed() {
        return "removed".equals(state);
    }

    @Override
    protected Object[] fields() {
        return new Object[] {vapId, state};
    }
}
