package org.wislice.onos.agent.ap;

import org.wislice.onos.agent.AgentValue;

/**
 * steerClient's result: whether the station accepted the transition, the BSS Transition Management response
 * status it answered (null when it did not answer in time) and the agent's words for it.
 */
public final class SteerOutcome extends AgentValue {

    final boolean accepted;
    final Integer statusCode;
    final String reason;

    public SteerOutcome(boolean accepted, Integer statusCode, String reason) {
        this.accepted = accepted;
        this.statusCode = statusCode;
        this.reason = reason;
    }

    public boolean accepted() {
        return accepted;
    }

    public Integer statusCode() {
        return statusCode;
    }

    public String reason() {
        return reason;
    }

    @Override
    protected Object[] fields() {
        return new Object[] {accepted, statusCode, reason};
    }
}
