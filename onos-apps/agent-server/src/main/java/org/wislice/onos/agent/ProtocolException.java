package org.wislice.onos.agent;

/**
 * A message that breaks the agent protocol (spec/agent/PROTOCOL.md). The code is one of the protocol's error
 * codes, so a request can be answered with it.
 */
public class ProtocolException extends Exception {

    private static final long serialVersionUID = 1L;
    private final String code;

    public ProtocolException(String code, String message) {
        super(message);
        this.code = code;
    }

    public static ProtocolException badRequest(String message) {
        return new ProtocolException("bad_request", message);
    }

    /** Protocol error code: bad_request, unknown_method, not_found, conflict, capacity, unsupported, internal. */
    public String code() {
        return code;
    }
}
