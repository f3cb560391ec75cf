package org.wislice.onos.agent;

/**
 * An agent's reply that breaks the protocol (a VapState without bssid, ...): internal (502) to the REST caller;
 * during the desired-state push it closes the agent's session.
 */
public class InvalidReplyException extends ControllerException {

    private static final long serialVersionUID = 1L;
    private final String detail;

    public InvalidReplyException(String what, String detail) {
        super("internal", "agent sent an invalid " + what + ": " + detail);
        this.detail = detail;
    }

    /** What is wrong, naming the field. */
    public String detail() {
        return detail;
    }
}
