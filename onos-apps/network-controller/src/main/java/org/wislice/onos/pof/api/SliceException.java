package org.wislice.onos.pof.api;

import java.util.List;

/**
 * A slice request that cannot be done, with the error code of the controller REST contract
 * (bad_request, not_found, conflict, capacity, meters_not_enforced, internal, timeout) and its HTTP status.
 */
public class SliceException extends RuntimeException {
    private final String code;
    private final int status;

    public SliceException(String code, int status, String message) {
        super(message);
        this.code = code;
        this.status = status;
    }

    public static SliceException badRequest(String message) {
        return new SliceException("bad_request", 400, message);
    }

    public static SliceException notFound(String message) {
        return new SliceException("not_found", 404, message);
    }

    public static SliceException conflict(String message) {
        return new SliceException("conflict", 409, message);
    }

    /**
     * 409 meters_not_enforced: the path's rates would be metered on switches that do not enforce meter rates, and
     * the request did not accept best effort there.
     */
    public static SliceException metersNotEnforced(List<String> deviceIds) {
        String which = String.join(", ", deviceIds);
        return new SliceException("meters_not_enforced", 409, which + (deviceIds.size() == 1 ? " does" : " do")
                + " not enforce meter rates, so the slice's guarantee and cap would not hold there; send "
                + "\"require_enforcement\": false to accept best effort on " + (deviceIds.size() == 1 ? "it" : "them"));
    }

    public String code() {
        return code;
    }

    public int status() {
        return status;
    }
}
