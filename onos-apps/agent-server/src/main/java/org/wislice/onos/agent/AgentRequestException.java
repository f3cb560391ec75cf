package org.wislice.onos.agent;

/** A request to an agent that failed: the agent's error reply, a timeout, or a lost connection. */
public class AgentRequestException extends RuntimeException {

    private static final long serialVersionUID = 1L;
    /** Codes beyond the protocol's own: the agent did not answer in time or is not connected. */
    public static final String TIMEOUT = "timeout";
    public static final String UNREACHABLE = "agent_unreachable";

    private final String code;

    public AgentRequestException(String code, String message) {
        super(message);
        this.code = code;
    }

    public String code() {
        return code;
    }
}
