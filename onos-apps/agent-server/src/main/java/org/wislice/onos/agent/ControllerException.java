package org.wislice.onos.agent;

import java.util.Map;

/**
 * A controller operation that failed, with the protocol's error code (or agent_unreachable / timeout) and the
 * HTTP status the REST layer answers with (spec/onos-rest).
 */
public class ControllerException extends RuntimeException {

    private static final long serialVersionUID = 1L;
    /** The agent is not connected, where an API says 503 for it (the firmware upgrade of spec/onos-rest). */
    public static final String NOT_CONNECTED = "not_connected";
    private static final Map<String, Integer> HTTP = Map.of(
            "bad_request", 400, "not_found", 404, "conflict", 409, "capacity", 409, "unsupported", 501,
            "unknown_method", 501, "internal", 502, AgentRequestException.UNREACHABLE, 502,
            AgentRequestException.TIMEOUT, 504, NOT_CONNECTED, 503);

    private final String code;

    public ControllerException(String code, String message) {
        super(message);
        this.code = code;
    }

    public static ControllerException of(AgentRequestException e) {
        return new ControllerException(e.code(), e.getMessage());
    }

    public String code() {
        return code;
    }

    public int httpStatus() {
        return HTTP.getOrDefault(code, 500);
    }
}
