package org.wislice.onos.agent.mec;

import org.wislice.onos.agent.AgentValue;

/** The vnfState event's data: creating, running, stopped, failed, or removed. */
public final class VnfStateChanged extends AgentValue {

    final long vnfId;
    final String state;

    public VnfStateChanged(long vnfId, String state) {
        this.vnfId = vnfId;
        this.state = state;
    }

    public long vnfId() {
        return vnfId;
    }

    public String state() {
        return state;
    }

    public boolean removed() {
        return "removed".equals(state);
    }

    @Override
    protected Object[] fields() {
        return new Object[] {vnfId, state};
    }
}
