package org.wislice.onos.agent.ap;

import org.wislice.onos.agent.AgentValue;

/** A firmwareProgress event's data: the upgrade to version reached state, with the agent's reason (or null). */
public final class FirmwareProgress extends AgentValue {

    final String version;
    final String state;
    final String reason;

    public FirmwareProgress(String version, String state, String reason) {
        this.version = version;
        this.state = state;
        this.reason = reason;
    }

    public String version() {
        return version;
    }

    public String state() {
        return state;
    }

    /** The agent's words for the state (why it failed or rolled back), or null. */
    public String reason() {
        return reason;
    }

    @Override
    protected Object[] fields() {
        return new Object[] {version, state, reason};
    }
}
